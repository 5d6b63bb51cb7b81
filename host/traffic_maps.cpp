#include "traffic_maps.hpp"

namespace flitsim {

HxShape hyperx_shape(const Topology& t, const Params& where, const std::string& pat) {
  if (t.kind != "hyperx") where.fail("pattern", "\"" + pat + "\" needs a hyperx, not " + t.kind);
  HxShape h;
  h.T = t.attrs.at("terminals");
  const std::vector<int32_t>& w = t.tables.at("widths");
  h.W.assign(w.begin(), w.end());
  return h;
}

std::vector<int64_t> targeted_dims(const EngineConfig& cfg, const Params& where, size_t D,
                                   const std::string& pat, std::vector<int64_t> def) {
  std::vector<int64_t> dims = cfg.dims.empty() ? def : cfg.dims;
  if (dims.empty()) where.fail("dims", "is required for pattern \"" + pat + "\" (a list of HyperX dimensions)");
  std::vector<bool> seen(D, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= int64_t(D))
      where.fail("dims", "dimension " + std::to_string(d) + " is outside [0, " + std::to_string(D) + ")");
    if (seen[size_t(d)]) where.fail("dims", "dimension " + std::to_string(d) + " is listed twice");
    seen[size_t(d)] = true;
  }
  return dims;
}

// Swap-2 (P4 S2; TARGETS §3.5 item 1): even ranks move in dims[0], odd ranks in dims[1];
// the coordinate is half-swapped, c -> c + ⌈W/2⌉ if c < ⌊W/2⌋ else c − ⌈W/2⌉ (an odd width's
// middle coordinate stays); the terminal index is kept.
std::vector<int32_t> swap2_map(const HxShape& h, const std::vector<int64_t>& dims, int64_t N) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    std::vector<int64_t> x = h.split(k, t);
    const size_t d = size_t(dims[size_t(k % 2)]);
    const int64_t W = h.W[d], lo = W / 2, hi = (W + 1) / 2;
    if (x[d] < lo) x[d] += hi;
    else if (x[d] >= hi) x[d] -= hi;
    m[size_t(k)] = int32_t(h.join(t, x));
  }
  return m;
}

// Dimension complement reverse (P4 DCR; TARGETS §3.5 item 1), any number D of dimensions:
// x'_d = W − 1 − x_(D−1−d), terminal kept; needs W_d = W_(D−1−d).
std::vector<int32_t> dcr_map(const HxShape& h, const Params& where, int64_t N) {
  const size_t D = h.W.size();
  for (size_t d = 0; d < D; ++d)
    if (h.W[d] != h.W[D - 1 - d])
      where.fail("pattern", "\"dcr\" needs widths that read the same reversed (W_d = W_(D-1-d)), got width " +
                                std::to_string(h.W[d]) + " in dimension " + std::to_string(d) + " and " +
                                std::to_string(h.W[D - 1 - d]) + " in dimension " + std::to_string(D - 1 - d));
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    const std::vector<int64_t> x = h.split(k, t);
    std::vector<int64_t> y(D);
    for (size_t d = 0; d < D; ++d) y[d] = h.W[d] - 1 - x[D - 1 - d];
    m[size_t(k)] = int32_t(h.join(t, y));
  }
  return m;
}

namespace {

// Slim Fly worst case (P3:L294, Fig. 5; TARGETS §3.4 item 4): routers paired greedily so that
// A -> C runs A–B–C and B -> D runs B–C–D, two distance-2 flows sharing the link B -> C; node i
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
        if (!far(A, C) || taken[C]) continue;
        for (int32_t D : nb[C])
          if (far(B, D) && !taken[D] && D != C) {
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

std::vector<int32_t> shift_map(int64_t N, int64_t shift) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t((k + shift) % N);
  return m;
}

}  // namespace

std::vector<int32_t> worst_case_map(const Topology& t, const Params& where) {
  const int64_t N = t.num_nodes;
  if (t.kind == "dragonfly" && t.attrs.count("a") && t.attrs.count("p") && t.attrs.count("h")) {
    const int64_t G = t.attrs.at("groups"), ap = t.attrs.at("a") * t.attrs.at("p");
    int64_t m = (t.attrs.at("h") + 1) % G;  // group shift by h + 1 (P0 "shift", FL-DF2)
    if (m == 0) m = 1;
    return shift_map(N, m * ap);
  }
  if (t.kind == "slimfly") return slimfly_worst_case(t);
  if (t.kind == "mlfm" || t.kind == "oft") return shift_map(N, t.attrs.at("p") % N);  // one router's nodes
  if (t.kind == "hyperx") {
    const HxShape h = hyperx_shape(t, where, "worst-case");
    bool palindrome = true;
    for (size_t d = 0; d < h.W.size(); ++d) palindrome &= h.W[d] == h.W[h.W.size() - 1 - d];
    if (h.W.size() >= 3 && palindrome) return dcr_map(h, where, N);
    std::vector<int32_t> m(static_cast<size_t>(N));
    for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t(N - 1 - k);  // bit complement
    return m;
  }
  where.fail("pattern", "\"worst-case\" is not defined for " + t.kind +
                            " (defined for dragonfly, slimfly, mlfm, oft, hyperx)");
}

}  // namespace flitsim
