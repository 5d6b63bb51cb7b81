// 1-D dragonfly (Kim et al.; dragonfly paper P0 §III; cost paper P2 for row-column groups).
// G groups of a routers; p terminals and h global ports per router. Router r = group·a + index;
// node id = router·p + terminal (contiguous numbering, P0:L108).
//
// Keys: p a h [groups] [arrangement] [seed] [relabel] [intra] [rows cols] [trunking]
//       [local_ports] [radix] (optional limit on p + local ports + h)
//   groups       G, 2 ≤ G ≤ a·h+1 (default a·h+1, "full scale": one link per group pair). Below
//                full scale the a·h global ports of a group are spread over the G−1 peers as
//                evenly as possible (TARGETS §3.1 item 2): every pair gets ⌊ah/(G−1)⌋ links and
//                the remainder e = ah mod (G−1) is a circulant: offsets ±1..±⌊e/2⌋ get one more
//                link, plus (e odd) the offset G/2 matching (G even) or a near-perfect matching
//                on the offset-(G−1)/2 cycle (G odd: one group keeps one global port unused).
//   arrangement  which global slot s = x·h + m (router x, port m) carries which link:
//     palmtree    slots sorted by offset d = (j − i) mod G, so router x of group i reaches the
//                 consecutive groups i + x·h + m + 1 at full scale (P0:L69 with its off-by-one
//                 fixed, TARGETS §3.1 item 1); the far end of slot s is slot U−1−s (U = used
//                 slots), i.e. router a−1−x, port h−1−m at full scale.
//     consecutive BookSim2 `dragonflynew`: slots sorted by absolute peer group number.
//     random      palmtree links, then each group's slots shuffled (`seed`).
//   relabel      0/false: off. Otherwise the wiring above is computed for logical groups and
//                logical group L is placed at physical group perm[L], a uniform random
//                permutation keyed by (relabel, seed) (P0:L125 "randomize the group numbering
//                before creating the remote link interconnection pattern", TARGETS §3.1 item 9).
//                Node numbering stays contiguous over physical groups.
//   intra        all-to-all (default) or row-column (Cray Cascade, P2): rows × cols = a routers,
//                index x = row·cols + col, all-to-all inside every row and every column.
//   trunking     links per intra-group router pair (default 1), Cascade style.
//   local_ports  all-to-all only, instead of trunking: local ports per router L; every pair gets
//                ⌊L/(a−1)⌋ links, the remainder as a circulant (P2 Iso-NL/NRL: 20 local ports
//                with 19 peers, TARGETS IS-9/IS-13).
//
// Channel classes: local (all intra-group links), global.
// Coordinates: group, index (+ row, col for row-column).
// Routing tables (DESIGN.md §5), all port numbers global, groups physical:
//   gateway_router[G·i + j]  router of group i owning the first global link to group j (−1: i=j)
//   gateway_port[G·i + j]    that router's global port toward group j
//   gateway_offset[G·G + 1], gateway_ports: CSR, all global ports from group i to group j
//   local_port[a·r + j]      first-hop port of router r toward router j of its own group on a
//                            minimal intra-group path (row first for row-column; −1 if j is r)
//   local_links[a·r + j]     parallel links on that hop; they are local_port + 0..local_links−1
//   global_port[h·r + m]     global port of slot m of router r (−1 if unused)
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "host/init/seeded_random.hpp"
#include "topology_registry.hpp"
#include "topology_size.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {


// The logical global wiring: which (group, slot) each (group, slot) is linked to.
class GlobalWiring {
 public:
  GlobalWiring(int32_t G, int32_t slots, const std::string& arrangement, uint64_t seed)
      : G_(G), slots_(slots), mult_(G, 0) {
    const int32_t base = slots / (G - 1), extra = slots % (G - 1);
    for (int32_t d = 1; d < G; ++d) mult_[d] = base + ((d <= extra / 2 || G - d <= extra / 2) ? 1 : 0);
    odd_extra_ = extra % 2 == 1;
    if (odd_extra_ && G % 2 == 0) mult_[G / 2] += 1, odd_extra_ = false;  // a perfect matching
    used_ = slots - (odd_extra_ ? 1 : 0);
    // Matching on the offset-s cycle (G odd): position t of group v = t·s mod G; pairs (0,1),
    // (2,3), ...; the last group on the cycle has no partner.
    if (odd_extra_) {
      const int32_t s = (G - 1) / 2;
      match_.assign(G, -1);
      for (int32_t t = 0; t + 1 < G; t += 2) {
        int32_t u = int32_t(int64_t(t) * s % G), v = int32_t(int64_t(t + 1) * s % G);
        match_[u] = v, match_[v] = u;
      }
    }
    start_.assign(G + 1, 0);
    for (int32_t d = 1; d < G; ++d) start_[d + 1] = start_[d] + mult_[d];
    if (arrangement == "consecutive") mode_ = 1;
    if (arrangement == "random") {
      mode_ = 2;
      for (int32_t i = 0; i < G; ++i) {
        perm_.push_back(random_permutation(used_, seed * 0x100000001B3ull + uint64_t(i)));
        inv_.emplace_back(used_);
        for (int32_t k = 0; k < used_; ++k) inv_[i][perm_[i][k]] = k;
      }
    }
  }

  int32_t links_between(int32_t i, int32_t j) const {
    int32_t d = ((j - i) % G_ + G_) % G_;
    return mult_[d] + (odd_extra_ && match_[i] == j ? 1 : 0);
  }

  // Far end {group, slot} of slot s of group i, or {-1, -1} for an unused slot.
  std::pair<int32_t, int32_t> far(int32_t i, int32_t s) const {
    if (s >= used_) {
      if (odd_extra_ && match_[i] >= 0) return {match_[i], slots_ - 1};
      return {-1, -1};
    }
    if (mode_ == 2) s = perm_[i][s];  // physical slot -> palmtree position
    int32_t j, fs;
    if (mode_ == 1) {
      // Peer groups in increasing number; block of peer j has links_between(i, j) slots.
      int32_t acc = 0, peer = 0;
      for (peer = 0; peer < G_; ++peer) {
        if (peer == i) continue;
        int32_t m = mult_[((peer - i) % G_ + G_) % G_];
        if (s < acc + m) break;
        acc += m;
      }
      j = peer;
      int32_t t = s - acc, acc2 = 0;
      for (int32_t q = 0; q < i; ++q)
        if (q != j) acc2 += mult_[((q - j) % G_ + G_) % G_];
      return {j, acc2 + t};
    }
    int32_t d = int32_t(std::upper_bound(start_.begin() + 1, start_.end(), s) - start_.begin()) - 1;
    j = (i + d) % G_;
    fs = used_ - 1 - s;
    if (mode_ == 2) fs = inv_[j][fs];
    return {j, fs};
  }

 private:
  int32_t G_, slots_, used_ = 0, mode_ = 0;
  bool odd_extra_ = false;
  std::vector<int32_t> mult_, start_, match_;
  std::vector<std::vector<int32_t>> perm_, inv_;
};

// The size from the keys alone (topology_size.hpp): G groups of a routers of p + local + h
// ports (an unused global slot below full scale still counts: an upper bound).
TopologySize dragonfly_size(const Params& prm) {
  const bool rc = prm.get_str("intra", "all-to-all") == "row-column";
  const int64_t p = prm.get_int_min("p", 1), h = prm.get_int_min("h", 1);
  const int64_t a = rc ? prm.get_int_min("rows", 1) * prm.get_int_min("cols", 1) : prm.get_int_min("a", 1);
  const int64_t trunking = prm.get_int_min("trunking", 1, 1);
  const double local = prm.has("local_ports") ? double(prm.get_int("local_ports"))
                       : rc ? double(trunking) * double(prm.get_int("rows") - 1 + prm.get_int("cols") - 1)
                            : double(trunking) * double(a - 1);
  const double G = double(prm.get_int("groups", a * h + 1)), R = G * double(a);
  if (G < 2) return {};
  TopologySize s;
  s.known = true;
  s.routers = R, s.nodes = R * double(p), s.ports = R * (double(p) + local + double(h));
  // direct tables and local_port/local_links (R x a each), global_port (R x h), gateway tables (G x G)
  s.table_bytes = R * double(a) * 4 * 4 + R * double(h) * 4 + G * G * 4 * 3 + R * 4 * 4;
  s.keys = "topology.groups, topology.a, topology.p, topology.h";
  return s;
}

Topology build_dragonfly(const Params& prm) {
  // ---- parameters (all checked before anything is built) ----
  const std::string intra = prm.get_str("intra", "all-to-all");
  if (intra != "all-to-all" && intra != "row-column")
    prm.fail("intra", "must be \"all-to-all\" or \"row-column\", got \"" + intra + "\"");
  const bool rc = intra == "row-column";
  const int64_t p = prm.get_int_min("p", 1);
  const int64_t h = prm.get_int_min("h", 1);
  int64_t rows = 1, cols = 0, a = 0;
  if (rc) {
    rows = prm.get_int_min("rows", 1);
    cols = prm.get_int_min("cols", 1);
    a = prm.get_int_min("a", 1, rows * cols);
    if (a != rows * cols)
      prm.fail("a", "must equal rows*cols = " + std::to_string(rows * cols) + " for row-column groups, got " +
                        std::to_string(a));
  } else {
    if (prm.has("rows") || prm.has("cols")) prm.fail("rows", "only applies to intra = \"row-column\"");
    a = prm.get_int_min("a", 1);
    cols = a;
  }
  if (prm.has("local_ports") && prm.has("trunking"))
    prm.fail("local_ports", "give either local_ports or trunking, not both");
  if (prm.has("local_ports") && rc) prm.fail("local_ports", "only applies to intra = \"all-to-all\"");
  const int64_t trunking = prm.get_int_min("trunking", 1, 1);
  int64_t local_ports = rc ? trunking * (rows - 1 + cols - 1) : trunking * (a - 1);
  if (prm.has("local_ports")) {
    local_ports = prm.get_int_min("local_ports", a - 1);
    if (a < 2) prm.fail("local_ports", "needs a >= 2");
    if ((local_ports % (a - 1)) * a % 2 == 1)
      prm.fail("local_ports", "leaves an odd number of extra ports in a group of " + std::to_string(a) +
                                  " routers (local_ports mod (a-1) times a must be even)");
  }
  const int64_t full = a * h + 1;
  const int64_t G = prm.get_int("groups", full);
  if (G < 2 || G > full)
    prm.fail("groups", "must be in [2, a*h+1 = " + std::to_string(full) +
                           "] so that every pair of groups has a global link, got " + std::to_string(G));
  const std::string arrangement = prm.get_str("arrangement", "palmtree");
  if (arrangement != "palmtree" && arrangement != "consecutive" && arrangement != "random")
    prm.fail("arrangement", "must be \"palmtree\", \"consecutive\" or \"random\", got \"" + arrangement + "\"");
  const int64_t seed = prm.get_int("seed", 1);
  const int64_t relabel = prm.get_int("relabel", 0);
  if (relabel < 0) prm.fail("relabel", "must be false/true or a positive seed, got " + std::to_string(relabel));
  // In double: the products of unchecked sizes would overflow int64.
  if (double(G) * a > double(1 << 24) || double(G) * a * p > double(1 << 26) || double(G) * G > double(1 << 26))
    prm.fail("groups", "network too large (more than 2^24 routers, 2^26 nodes or 2^13 groups)");
  if (prm.has("radix") && p + local_ports + h > prm.get_int("radix"))
    prm.fail("p", "p + local ports + h = " + std::to_string(p + local_ports + h) + " exceeds radix " +
                      std::to_string(prm.get_int("radix")));
  if (p + local_ports + h > 4096) prm.fail("p", "router radix p + local ports + h must be <= 4096");

  // ---- build ----
  const int32_t A = int32_t(a), H = int32_t(h), NG = int32_t(G), C = int32_t(cols);
  const int32_t R = NG * A;
  TopologyBuilder b("dragonfly", R);
  const int32_t local = b.add_class("local");
  const int32_t global = b.add_class("global");
  for (int32_t r = 0; r < R; ++r)
    for (int32_t t = 0; t < p; ++t) b.add_terminal(r);

  // Intra-group links; parallel links of a pair are created together so they are consecutive.
  auto pair_links = [&](int32_t x, int32_t y) -> int32_t {
    if (rc) return (x / C == y / C || x % C == y % C) ? int32_t(trunking) : 0;
    if (!prm.has("local_ports")) return int32_t(trunking);
    int32_t base = int32_t(local_ports / (a - 1)), e = int32_t(local_ports % (a - 1));
    int32_t d = std::min((y - x + A) % A, (x - y + A) % A);
    bool plus = d <= e / 2 || (e % 2 == 1 && 2 * d == A);
    return base + (plus ? 1 : 0);
  };
  std::vector<int32_t> direct(size_t(R) * A, -1), direct_n(size_t(R) * A, 0);  // local indices
  for (int32_t g = 0; g < NG; ++g)
    for (int32_t x = 0; x < A; ++x)
      for (int32_t y = x + 1; y < A; ++y) {
        const int32_t n = pair_links(x, y), rx = g * A + x, ry = g * A + y;
        for (int32_t k = 0; k < n; ++k) {
          auto [lx, ly] = b.add_link(rx, ry, local);
          if (k == 0) direct[size_t(rx) * A + y] = lx, direct[size_t(ry) * A + x] = ly;
        }
        direct_n[size_t(rx) * A + y] = direct_n[size_t(ry) * A + x] = n;
      }

  std::vector<int32_t> phys(NG);
  std::iota(phys.begin(), phys.end(), 0);
  if (relabel) phys = random_permutation(NG, uint64_t(relabel) * 0x9E3779B97F4A7C15ull ^ uint64_t(seed));
  GlobalWiring wiring(NG, A * H, arrangement, uint64_t(seed));
  std::vector<int32_t> slot_local(size_t(R) * H, -1);  // local port index of each physical slot
  for (int32_t i = 0; i < NG; ++i)
    for (int32_t s = 0; s < A * H; ++s) {
      auto [j, fs] = wiring.far(i, s);
      if (j < 0 || std::make_pair(j, fs) < std::make_pair(i, s)) continue;  // each link once
      int32_t r1 = phys[i] * A + s / H, r2 = phys[j] * A + fs / H;
      auto [l1, l2] = b.add_link(r1, r2, global);
      slot_local[size_t(r1) * H + s % H] = l1;
      slot_local[size_t(r2) * H + fs % H] = l2;
    }

  const int32_t ncoord = rc ? 4 : 2;
  std::vector<int32_t> coords(size_t(R) * ncoord);
  for (int32_t r = 0; r < R; ++r) {
    int32_t* c = &coords[size_t(r) * ncoord];
    c[0] = r / A, c[1] = r % A;
    if (rc) c[2] = (r % A) / C, c[3] = (r % A) % C;
  }
  if (rc)
    b.set_coords({"group", "index", "row", "col"}, std::move(coords));
  else
    b.set_coords({"group", "index"}, std::move(coords));
  Topology t = b.finish();

  // ---- routing tables (global port numbers) ----
  std::vector<int32_t> global_port(size_t(R) * H, -1);
  for (size_t k = 0; k < global_port.size(); ++k)
    if (slot_local[k] >= 0) global_port[k] = t.port_offset[k / H] + slot_local[k];
  // All global ports from group gi to group gj, in slot order of gi.
  std::vector<std::vector<int32_t>> lists(size_t(NG) * NG);
  for (int32_t r = 0; r < R; ++r)
    for (int32_t m = 0; m < H; ++m) {
      int32_t gp = global_port[size_t(r) * H + m];
      if (gp < 0) continue;
      int32_t peer_group = t.port_router[t.peer_port[gp]] / A;
      lists[size_t(r / A) * NG + peer_group].push_back(gp);
    }
  std::vector<int32_t> gw_router(size_t(NG) * NG, -1), gw_port(size_t(NG) * NG, -1);
  std::vector<int32_t> gw_offset(size_t(NG) * NG + 1, 0), gw_ports;
  int32_t min_links = 1 << 30, max_links = 0;
  for (size_t k = 0; k < lists.size(); ++k) {
    if (!lists[k].empty()) gw_port[k] = lists[k][0], gw_router[k] = t.port_router[lists[k][0]];
    if (k / NG != k % NG) {
      min_links = std::min<int32_t>(min_links, int32_t(lists[k].size()));
      max_links = std::max<int32_t>(max_links, int32_t(lists[k].size()));
    }
    gw_ports.insert(gw_ports.end(), lists[k].begin(), lists[k].end());
    gw_offset[k + 1] = int32_t(gw_ports.size());
  }
  // Minimal intra-group first hop: direct if linked, else (row-column) along the row to the
  // router in the target's column, then along that column — dimension order, deadlock-free.
  std::vector<int32_t> local_port(size_t(R) * A, -1), local_links(size_t(R) * A, 0);
  for (int32_t r = 0; r < R; ++r)
    for (int32_t j = 0; j < A; ++j) {
      int32_t x = r % A, via = j;
      if (x == j) continue;
      if (direct[size_t(r) * A + j] < 0) via = (x / C) * C + j % C;
      local_port[size_t(r) * A + j] = t.port_offset[r] + direct[size_t(r) * A + via];
      local_links[size_t(r) * A + j] = direct_n[size_t(r) * A + via];
    }
  t.tables["gateway_router"] = std::move(gw_router);
  t.tables["gateway_port"] = std::move(gw_port);
  t.tables["gateway_offset"] = std::move(gw_offset);
  t.tables["gateway_ports"] = std::move(gw_ports);
  t.tables["local_port"] = std::move(local_port);
  t.tables["local_links"] = std::move(local_links);
  t.tables["global_port"] = std::move(global_port);
  t.tables["group_perm"] = phys;
  const int64_t arr_code = arrangement == "palmtree" ? 0 : arrangement == "consecutive" ? 1 : 2;
  t.attrs = {{"p", p},
             {"a", a},
             {"h", h},
             {"groups", G},
             {"full_scale", G == full},
             {"arrangement", arr_code},  // 0 palmtree, 1 consecutive, 2 random
             {"seed", seed},
             {"relabel", relabel},
             {"intra", rc ? 1 : 0},  // 0 all-to-all, 1 row-column
             {"rows", rows},
             {"cols", cols},
             {"trunking", trunking},
             {"local_ports", local_ports},
             {"global_links_per_pair_min", min_links},
             {"global_links_per_pair_max", max_links}};
  return t;
}

}  // namespace

// Worst case for minimal routing: every group sends to the group h + 1 further on (P0 "shift",
// FL-DF2), so each group pair's few global links carry a whole group's traffic.
std::vector<int32_t> dragonfly_worst_case(const Topology& t) {
  if (!t.attrs.count("a") || !t.attrs.count("p") || !t.attrs.count("h")) return {};
  const int64_t G = t.attrs.at("groups"), ap = t.attrs.at("a") * t.attrs.at("p");
  int64_t m = (t.attrs.at("h") + 1) % G;
  if (m == 0) m = 1;
  return shift_map(t.num_nodes, m * ap);
}

FLITSIM_REGISTER_TOPOLOGY(dragonfly, build_dragonfly, "p", "a", "h", "groups", "arrangement", "seed", "relabel", "intra", "rows", "cols", "trunking", "local_ports", "radix")
FLITSIM_REGISTER_WORST_CASE(dragonfly, dragonfly_worst_case)
FLITSIM_REGISTER_TOPOLOGY_SIZE(dragonfly, dragonfly_size)

}  // namespace flitsim
