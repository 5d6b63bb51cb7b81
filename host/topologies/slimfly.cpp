// Slim Fly: the McKay–Miller–Širáň (MMS) graph (Besta & Hoefler; diameter-two paper P3:L92–L112).
//
// Keys: q  a prime power q = 4w + δ, δ ∈ {−1, 0, 1} (every prime power ≥ 3 has this form)
//       p  terminals per router (default ⌈r'/2⌉, Besta & Hoefler; the paper's alternative is
//          ⌊r'/2⌋ — give p explicitly)
//       radix  optional router radix limit: p + r' must not exceed it
// Routers (s, a, b), s ∈ {0,1}, a, b ∈ GF(q): router id = s·q² + a·q + b, so routers sharing
// the first coordinate (a "column", TARGETS §3.4 item 1) are consecutive and node numbering is
// "intra-router, then intra-column, then subgraph" (P3:L339). Links (ξ primitive in GF(q)):
//   (0,x,y) – (0,x,y')  iff y − y' ∈ X
//   (1,m,c) – (1,m,c')  iff c − c' ∈ X'   (the paper prints (1,c,c'), a typo: TARGETS §3.4 item 1)
//   (0,x,y) – (1,m,c)   iff y = m·x + c
// with the generator sets of P3:L96–L100 (see generator_sets). ξ is the smallest primitive root
// for prime q; for q = P^n, n > 1, GF(q) = GF(P)[x]/(f) with f the first primitive polynomial in
// coefficient order, and ξ = x. Network radix r' = (3q − δ)/2, R = 2q².
// Classes: "intra" (inside a subgraph), "inter" (between the subgraphs).
// Coordinates: subgraph, column (x or m), row (y or c).
// Minimal routing uses the engine's default distance classes: diameter 2 → 2 classes (P3:L259).
#include <numeric>
#include <stdexcept>

#include "topology_registry.hpp"
#include "topology_size.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {

// GF(q) with elements 0..q−1 (base-P digits = polynomial coefficients, low digit = constant).
class GaloisField {
 public:
  GaloisField(int32_t P, int32_t n) : P_(P), n_(n) {
    q_ = 1;
    for (int32_t i = 0; i < n; ++i) q_ *= P;
    if (n == 1) {
      for (int32_t g = 2; g < q_; ++g) {
        if (fill_powers([&](int32_t e) { return int32_t(int64_t(e) * g % q_); })) { xi_ = g; break; }
      }
    } else {
      // Monic f = x^n + Σ c_i x^i, c encoded in base P; primitive iff x has order q − 1.
      for (int32_t c = 1; c < q_; ++c) {
        if (c % P == 0) continue;  // c_0 = 0: x divides f
        if (fill_powers([&](int32_t e) { return times_x(e, c); })) { poly_ = c; xi_ = P; break; }
      }
    }
    if (exp_.empty()) throw std::logic_error("GF(" + std::to_string(q_) + "): no primitive element found");
    log_.assign(q_, -1);
    for (int32_t k = 0; k < q_ - 1; ++k) log_[exp_[k]] = k;
  }
  int32_t q() const { return q_; }
  int32_t xi() const { return xi_; }
  int32_t pow_xi(int64_t k) const { return exp_[size_t(((k % (q_ - 1)) + (q_ - 1)) % (q_ - 1))]; }
  int32_t add(int32_t a, int32_t b) const { return digitwise(a, b, +1); }
  int32_t sub(int32_t a, int32_t b) const { return digitwise(a, b, -1); }
  int32_t mul(int32_t a, int32_t b) const {
    if (a == 0 || b == 0) return 0;
    return exp_[size_t((log_[a] + log_[b]) % (q_ - 1))];
  }

 private:
  template <class Step>
  bool fill_powers(Step step) {
    std::vector<int32_t> seq{1};
    for (int32_t k = 1; k < q_ - 1; ++k) {
      int32_t e = step(seq.back());
      if (e == 1 || e == 0) return false;
      seq.push_back(e);
    }
    if (step(seq.back()) != 1) return false;
    exp_ = std::move(seq);
    return true;
  }
  int32_t times_x(int32_t e, int32_t f) const {
    std::vector<int32_t> d(n_), c(n_);
    for (int32_t i = 0, v = e, w = f; i < n_; ++i, v /= P_, w /= P_) d[i] = v % P_, c[i] = w % P_;
    const int32_t top = d[n_ - 1];
    int32_t out = 0;
    for (int32_t i = n_ - 1; i >= 0; --i) {
      int32_t shifted = i > 0 ? d[i - 1] : 0;
      out = out * P_ + ((shifted - top * c[i]) % P_ + P_) % P_;  // x^n ≡ −Σ c_i x^i
    }
    return out;
  }
  int32_t digitwise(int32_t a, int32_t b, int sign) const {
    if (n_ == 1) return ((a + sign * b) % q_ + q_) % q_;
    int32_t out = 0, mulp = 1;
    for (int32_t i = 0; i < n_; ++i, a /= P_, b /= P_, mulp *= P_)
      out += (((a % P_) + sign * (b % P_)) % P_ + P_) % P_ * mulp;
    return out;
  }
  int32_t P_, n_, q_ = 1, xi_ = 0, poly_ = 0;
  std::vector<int32_t> exp_, log_;
};

// q = P^n with P prime, or n = 0 if q is not a prime power.
std::pair<int64_t, int64_t> prime_power(int64_t q) {
  if (q < 2) return {0, 0};
  int64_t P = 2;
  while (P * P <= q && q % P != 0) ++P;
  if (q % P != 0) P = q;
  int64_t n = 0;
  while (q % P == 0) q /= P, ++n;
  return q == 1 ? std::make_pair(P, n) : std::make_pair(int64_t(0), int64_t(0));
}

// Membership tables of X and X' (P3:L96–L100), exponents of ξ.
void generator_sets(const GaloisField& F, int32_t w, int32_t delta, std::vector<char>& X, std::vector<char>& Xp) {
  const int32_t q = F.q();
  X.assign(q, 0), Xp.assign(q, 0);
  std::vector<int32_t> ex, exp_;
  if (delta == 1) {
    for (int32_t e = 0; e <= q - 3; e += 2) ex.push_back(e);
    for (int32_t e = 1; e <= q - 2; e += 2) exp_.push_back(e);
  } else if (delta == -1) {
    for (int32_t e = 0; e <= 2 * w - 2; e += 2) ex.push_back(e);
    for (int32_t e = 2 * w - 1; e <= 4 * w - 3; e += 2) ex.push_back(e);
    for (int32_t e = 1; e <= 2 * w - 1; e += 2) exp_.push_back(e);
    for (int32_t e = 2 * w; e <= 4 * w - 2; e += 2) exp_.push_back(e);
  } else {
    for (int32_t e = 0; e <= q - 2; e += 2) ex.push_back(e);
    for (int32_t e = 1; e <= q - 1; e += 2) exp_.push_back(e);
  }
  for (int32_t e : ex) X[F.pow_xi(e)] = 1;
  for (int32_t e : exp_) Xp[F.pow_xi(e)] = 1;
}

// The size from the keys alone (topology_size.hpp): 2q^2 routers of p + (3q - delta)/2 ports.
TopologySize slimfly_size(const Params& prm) {
  const int64_t q = prm.get_int("q");
  if (q < 3 || q > 256) return {};
  const int64_t delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0, rnet = (3 * q - delta) / 2;
  const double p = double(prm.get_int_min("p", 1, (rnet + 1) / 2)), R = 2.0 * double(q) * double(q);
  TopologySize s;
  s.known = true;
  s.routers = R, s.nodes = R * p, s.ports = R * (p + double(rnet));
  s.table_bytes = R * 3 * 4;  // coordinates
  s.keys = "topology.q, topology.p";
  return s;
}

Topology build_slimfly(const Params& prm) {
  const int64_t q = prm.get_int("q");
  auto [P, n] = prime_power(q);
  if (n == 0) prm.fail("q", "must be a prime power, got " + std::to_string(q));
  if (q == 2) prm.fail("q", "must be of the form 4w+d with d in {-1,0,1} and w >= 1, got 2");
  if (q > 256) prm.fail("q", "must be <= 256 (2q^2 routers), got " + std::to_string(q));
  const int32_t delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
  const int32_t w = int32_t((q - delta) / 4);
  const int64_t rnet = (3 * q - delta) / 2;
  const int64_t p = prm.get_int_min("p", 1, (rnet + 1) / 2);
  if (prm.has("radix") && p + rnet > prm.get_int("radix"))
    prm.fail("p", "p + network radix " + std::to_string(rnet) + " = " + std::to_string(p + rnet) +
                      " exceeds radix " + std::to_string(prm.get_int("radix")));
  if (2 * q * q * p > (int64_t(1) << 26)) prm.fail("p", "more than 2^26 nodes");

  const GaloisField F{int32_t(P), int32_t(n)};
  std::vector<char> X, Xp;
  generator_sets(F, w, delta, X, Xp);
  const int32_t Q = int32_t(q), R = 2 * Q * Q;
  auto id = [&](int32_t s, int32_t a, int32_t b) { return s * Q * Q + a * Q + b; };
  TopologyBuilder bld("slimfly", R);
  const int32_t intra = bld.add_class("intra"), inter = bld.add_class("inter");
  for (int32_t r = 0; r < R; ++r)
    for (int64_t t = 0; t < p; ++t) bld.add_terminal(r);
  for (int32_t s = 0; s < 2; ++s) {
    const std::vector<char>& gen = s == 0 ? X : Xp;
    for (int32_t a = 0; a < Q; ++a)
      for (int32_t y = 0; y < Q; ++y)
        for (int32_t y2 = y + 1; y2 < Q; ++y2) {
          const bool fwd = gen[F.sub(y, y2)], back = gen[F.sub(y2, y)];
          if (fwd != back) throw std::logic_error("slimfly: generator set is not closed under negation");
          if (fwd) bld.add_link(id(s, a, y), id(s, a, y2), intra);
        }
  }
  for (int32_t x = 0; x < Q; ++x)
    for (int32_t y = 0; y < Q; ++y)
      for (int32_t m = 0; m < Q; ++m) bld.add_link(id(0, x, y), id(1, m, F.sub(y, F.mul(m, x))), inter);
  std::vector<int32_t> coords(size_t(R) * 3);
  for (int32_t r = 0; r < R; ++r) {
    coords[size_t(r) * 3] = r / (Q * Q);
    coords[size_t(r) * 3 + 1] = r / Q % Q;
    coords[size_t(r) * 3 + 2] = r % Q;
  }
  bld.set_coords({"subgraph", "column", "row"}, std::move(coords));
  Topology t = bld.finish();
  t.attrs = {{"q", q}, {"p", p}, {"delta", delta}, {"w", w}, {"xi", F.xi()}, {"network_radix", rnet}};
  return t;
}

}  // namespace

// Slim Fly worst case (P3:L294, Fig. 5; TARGETS §3.4 item 4): routers paired greedily so that
// A -> C runs A–B–C and B -> D runs B–C–D (each pair's only minimal path), two distance-2
// flows sharing the link B -> C; node i
// of a router sends to node i of its partner. Routers left over take any free distance-2
// destination (else any free one); a router left with only itself swaps with an earlier one.
std::vector<int32_t> slimfly_worst_case(const Topology& t) {
  const int32_t R = t.num_routers;
  std::vector<std::vector<int32_t>> nb(static_cast<size_t>(R));
  std::vector<std::vector<bool>> adj(static_cast<size_t>(R), std::vector<bool>(size_t(R), false));
  for (int32_t gp = 0; gp < t.num_ports(); ++gp)
    if (t.peer_port[gp] >= 0) {
      const int32_t a = t.port_router[gp], b = t.port_router[t.peer_port[gp]];
      if (!adj[a][b]) adj[a][b] = true, nb[a].push_back(b);
    }
  auto far = [&](int32_t a, int32_t c) { return a != c && !adj[a][c]; };
  // A and C at distance 2 through one router only: minimal routing then sends all of A -> C
  // over that router (two common neighbours, as on q = 4w Slim Flies, would halve the flow and
  // leave the busiest link with p flows, twice the 1/(2p) bound).
  auto one_path = [&](int32_t a, int32_t c) {
    if (!far(a, c)) return false;
    int common = 0;
    for (int32_t x : nb[a]) common += adj[x][c];
    return common == 1;
  };
  std::vector<int32_t> dst(static_cast<size_t>(R), -1);
  std::vector<bool> taken(static_cast<size_t>(R), false);  // used as a destination
  for (int32_t A = 0; A < R; ++A) {
    if (dst[A] >= 0) continue;
    bool done = false;
    for (int32_t B : nb[A]) {
      if (done) break;
      if (dst[B] >= 0) continue;
      for (int32_t C : nb[B]) {
        if (done) break;
        if (!one_path(A, C) || taken[C]) continue;
        for (int32_t D : nb[C])
          if (one_path(B, D) && !taken[D] && D != C) {
            dst[A] = C, dst[B] = D, taken[C] = taken[D] = true, done = true;
            break;
          }
      }
    }
  }
  for (int pass = 0; pass < 2; ++pass)
    for (int32_t A = 0; A < R; ++A) {
      if (dst[A] >= 0) continue;
      for (int32_t C = 0; C < R; ++C)
        if (!taken[C] && C != A && (pass == 1 || far(A, C))) {
          dst[A] = C, taken[C] = true;
          break;
        }
    }
  for (int32_t A = 0; A < R; ++A)
    if (dst[A] < 0) {  // only A itself is free: take another router's destination, give it A
      const int32_t B = A == 0 ? 1 : 0;
      dst[A] = dst[B], dst[B] = A;
    }
  // Router map -> node map: the i-th node of router r to the i-th node of dst[r].
  std::vector<std::vector<int32_t>> nodes(static_cast<size_t>(R));
  for (int32_t n = 0; n < t.num_nodes; ++n) nodes[t.node_router(n)].push_back(n);
  std::vector<int32_t> m(size_t(t.num_nodes));
  for (int32_t r = 0; r < R; ++r)
    for (size_t i = 0; i < nodes[r].size(); ++i) m[nodes[r][i]] = nodes[dst[r]][i];
  return m;
}


FLITSIM_REGISTER_TOPOLOGY(slimfly, build_slimfly, "q", "p", "radix")
FLITSIM_REGISTER_WORST_CASE(slimfly, slimfly_worst_case)
FLITSIM_REGISTER_TOPOLOGY_SIZE(slimfly, slimfly_size)

}  // namespace flitsim
