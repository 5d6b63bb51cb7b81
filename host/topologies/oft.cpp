// Two-level Orthogonal Fat-Tree k-OFT (diameter-two paper P3:L167–L185).
// Levels L0, L1, L2 of R_L = 1 + k(k−1) routers each. Router (0,i) and router (2,i) both connect
// to the k L1 routers listed in row i of the k-ML3B table; L0 and L2 routers carry p terminals.
// N = 2pR_L, R = 3R_L, radix 2k with p = k.
//
// k-ML3B table (P3:L177–L183, TARGETS §3.4 item 2), k − 1 prime:
//   row 0: R_L−k .. R_L−1;  rows 1..k(k−1): first column k−1 copies of R_L−k, then of R_L−k+1, ...
//   the remaining k(k−1) × (k−1) area is k stacked (k−1)×(k−1) squares: square 0 holds
//   0..(k−1)²−1 row-major, square 1 its transpose, square 2+a−1 (a = 1..k−2) the Latin square
//   L_a(i,j) = (i + a·j) mod (k−1); in the last k−2 squares column j (0-based) is offset by
//   j·(k−1). This reproduces the paper's 4-ML3B (TARGETS D2-S12) exactly.
//
// Keys: k (k − 1 prime), p (default k), radix (optional limit on k + p).
// Router ids: L0 (0..R_L−1), L1 (R_L..2R_L−1), L2 (2R_L..3R_L−1); nodes: L0 routers then L2
// routers, contiguous per router ("intra-router, intra-layer, inter-layer", P3:L339).
// Classes: "l0-l1", "l1-l2". Coordinates: level (0, 1, 2), index. Table "ml3b" [R_L·k].
// min_vc_classes = 1: minimal terminal-to-terminal paths are always L0/2 → L1 → L0/2 (one up,
// one down hop; L1 routers have no terminals), deadlock-free on one VC (P3:L259–L263).
#include "topology_registry.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Row-major R_L × k table of L1 router indices (0-based within L1).
std::vector<int32_t> ml3b_table(int32_t k) {
  const int32_t n = k - 1, RL = 1 + k * n;
  std::vector<int32_t> t(size_t(RL) * k);
  for (int32_t c = 0; c < k; ++c) t[c] = RL - k + c;
  for (int32_t sq = 0; sq < k; ++sq)
    for (int32_t i = 0; i < n; ++i) {
      int32_t* row = &t[size_t(1 + sq * n + i) * k];
      row[0] = RL - k + sq;
      for (int32_t j = 0; j < n; ++j) {
        int32_t v;
        if (sq == 0) v = i * n + j;
        else if (sq == 1) v = j * n + i;
        else v = (i + (sq - 1) * j) % n + j * n;
        row[1 + j] = v;
      }
    }
  return t;
}

Topology build_oft(const Params& prm) {
  const int64_t k = prm.get_int_min("k", 3);
  if (!is_prime(k - 1)) prm.fail("k", "k-1 must be prime (the MOLS construction of the k-ML3B), got k = " + std::to_string(k));
  if (k > 1000) prm.fail("k", "must be <= 1000");
  const int64_t p = prm.get_int_min("p", 1, k);
  if (prm.has("radix") && k + p > prm.get_int("radix"))
    prm.fail("p", "k + p = " + std::to_string(k + p) + " exceeds radix " + std::to_string(prm.get_int("radix")));
  const int32_t K = int32_t(k), RL = 1 + K * (K - 1), R = 3 * RL;
  if (2 * int64_t(RL) * p > (int64_t(1) << 26)) prm.fail("p", "more than 2^26 nodes");
  const std::vector<int32_t> table = ml3b_table(K);
  TopologyBuilder b("oft", R);
  const int32_t c01 = b.add_class("l0-l1"), c12 = b.add_class("l1-l2");
  for (int32_t i = 0; i < RL; ++i)
    for (int64_t t = 0; t < p; ++t) b.add_terminal(i);
  for (int32_t i = 0; i < RL; ++i)
    for (int64_t t = 0; t < p; ++t) b.add_terminal(2 * RL + i);
  for (int32_t i = 0; i < RL; ++i)
    for (int32_t c = 0; c < K; ++c) b.add_link(i, RL + table[size_t(i) * K + c], c01);
  for (int32_t i = 0; i < RL; ++i)
    for (int32_t c = 0; c < K; ++c) b.add_link(2 * RL + i, RL + table[size_t(i) * K + c], c12);
  std::vector<int32_t> coords(size_t(R) * 2);
  for (int32_t r = 0; r < R; ++r) coords[size_t(r) * 2] = r / RL, coords[size_t(r) * 2 + 1] = r % RL;
  b.set_coords({"level", "index"}, std::move(coords));
  Topology t = b.finish();
  t.tables["ml3b"] = table;
  t.attrs = {{"k", k}, {"p", p}, {"routers_per_level", RL}, {"min_vc_classes", 1}};
  return t;
}

}  // namespace

// Worst case for minimal routing: every node sends to the node p further on, i.e. all of a
// router's nodes to the next router's.
std::vector<int32_t> oft_worst_case(const Topology& t) {
  return shift_map(t.num_nodes, t.attrs.at("p") % t.num_nodes);
}

FLITSIM_REGISTER_TOPOLOGY(oft, build_oft, "k", "p", "radix")
FLITSIM_REGISTER_WORST_CASE(oft, oft_worst_case)

}  // namespace flitsim
