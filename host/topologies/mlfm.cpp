// Multi-Layer Full-Mesh (h, l, p)-MLFM (diameter-two paper P3:L157–L163).
// l layers of h+1 local routers (LRs) with p terminals each; h(h+1)/2 global routers (GRs).
// The direct link between LRs u < v of a full mesh is replaced by two links to GR {u,v}, shared
// by all layers: GR {u,v} connects to LR (ℓ,u) and LR (ℓ,v) for every layer ℓ (TARGETS
// Appendix A). LR radix h + p, GR radix 2l; h = l = p ("h-MLFM") gives radix 2h everywhere.
//
// Keys: h ≥ 1, l (default h), p (default h), radix (optional limit on h + p and 2l).
// Router ids: LRs layer-major (ℓ·(h+1) + u), then GRs in lexicographic (u, v) order, so node
// numbering is "intra-router, then intra-layer, then inter-layer" (P3:L339).
// Class: "lr-gr" (every link joins an LR and a GR).
// Coordinates: level (0 LR, 1 GR), layer (−1 for GRs), u, v (−1 for LRs).
// min_vc_classes = 1: every minimal terminal-to-terminal path is LR→GR→LR (terminals sit only
// on LRs, LRs are never adjacent), so a packet takes one "towards" and one "away" hop and the
// channel dependency graph is acyclic on one VC (P3:L259–L263).
#include "topology_registry.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {

Topology build_mlfm(const Params& prm) {
  const int64_t h = prm.get_int_min("h", 1);
  const int64_t l = prm.get_int_min("l", 1, h);
  const int64_t p = prm.get_int_min("p", 1, h);
  if (prm.has("radix")) {
    const int64_t k = prm.get_int("radix");
    if (h + p > k) prm.fail("p", "local router radix h + p = " + std::to_string(h + p) + " exceeds radix " + std::to_string(k));
    if (2 * l > k) prm.fail("l", "global router radix 2l = " + std::to_string(2 * l) + " exceeds radix " + std::to_string(k));
  }
  const int64_t LR = l * (h + 1), GR = h * (h + 1) / 2;
  if (LR + GR > (int64_t(1) << 24) || LR * p > (int64_t(1) << 26)) prm.fail("h", "network too large");
  if (h + p > 4096 || 2 * l > 4096) prm.fail("h", "router radix exceeds 4096");
  const int32_t H = int32_t(h), R = int32_t(LR + GR);
  TopologyBuilder b("mlfm", R);
  const int32_t cls = b.add_class("lr-gr");
  for (int32_t r = 0; r < LR; ++r)
    for (int64_t t = 0; t < p; ++t) b.add_terminal(r);
  std::vector<int32_t> coords(size_t(R) * 4, -1);
  for (int32_t r = 0; r < LR; ++r) {
    coords[size_t(r) * 4] = 0, coords[size_t(r) * 4 + 1] = r / (H + 1), coords[size_t(r) * 4 + 2] = r % (H + 1);
  }
  int32_t g = int32_t(LR);
  for (int32_t u = 0; u <= H; ++u)
    for (int32_t v = u + 1; v <= H; ++v, ++g) {
      coords[size_t(g) * 4] = 1, coords[size_t(g) * 4 + 2] = u, coords[size_t(g) * 4 + 3] = v;
      for (int32_t layer = 0; layer < l; ++layer) {
        b.add_link(g, layer * (H + 1) + u, cls);
        b.add_link(g, layer * (H + 1) + v, cls);
      }
    }
  b.set_coords({"level", "layer", "u", "v"}, std::move(coords));
  Topology t = b.finish();
  t.attrs = {{"h", h}, {"l", l}, {"p", p}, {"local_routers", LR}, {"global_routers", GR}, {"min_vc_classes", 1}};
  return t;
}

}  // namespace

// Worst case for minimal routing: every node sends to the node p further on, i.e. all of a
// router's nodes to the next router's.
std::vector<int32_t> mlfm_worst_case(const Topology& t) {
  return shift_map(t.num_nodes, t.attrs.at("p") % t.num_nodes);
}

FLITSIM_REGISTER_TOPOLOGY(mlfm, build_mlfm, "h", "l", "p", "radix")
FLITSIM_REGISTER_WORST_CASE(mlfm, mlfm_worst_case)

}  // namespace flitsim
