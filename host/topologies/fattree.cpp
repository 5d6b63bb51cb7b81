// Fat trees (folded Clos). Two modes:
//
// 1. k-ary n-tree (Petrini & Vanneschi), keys `k n`: XGFT(n; k,..,k; 1,k,..,k), k^n nodes,
//    n·k^(n−1) switches of radix 2k (top level uses k ports). Wiring: xgft_wiring.hpp.
//
// 2. Pod-based 2- or 3-level folded Clos (cost paper P2:L105, L151, L161; TARGETS IS-4/8/16/20),
//    keys `radix pods [levels taper down leaf_up aggs agg_down agg_up leaves cores]`:
//      levels    3 (leaf, aggregation, core; default) or 2 (leaf, spine; one pod, no core)
//      radix     k; every default below derives from it
//      taper     [d, u]: leaf down:up ratio (default [1, 1]); down = k·d/(d+u), leaf_up = k − down
//      aggs      aggregation switches per pod (default leaf_up: each leaf reaches every agg)
//      agg_down  (default k/2 with 3 levels, k with 2 levels)
//      agg_up    (default k − agg_down; 0 with 2 levels)
//      leaves    leaves per pod (default aggs·agg_down/leaf_up)
//      pods      (default k with 3 levels, the largest tree; 1 with 2 levels)
//      cores     (default pods·aggs·agg_up/k: cores use all k ports)
//    Examples: IS-4 radix 40, pods 30 → 600 leaves (20 nodes), 600 aggs, 300 cores;
//              IS-8 radix 40, pods 25, taper [3,2] → 500 leaves (24 nodes, 16 up), 400 aggs,
//              200 cores. P3's 2-level FT: levels 2, radix r → r leaves, r/2 spines, r²/2 nodes.
//    Wiring spreads links as evenly as possible, so uneven sizes work (TARGETS §3.3 item 8:
//    30 pods on 40-port cores means some pods get 2 links to a core):
//      leaf ℓ → aggs of its pod: ⌊leaf_up/aggs⌋ links to each, the remainder e to aggs
//        ℓ·e .. ℓ·e+e−1 (mod aggs) — consecutive windows tile the aggs evenly;
//      core c → pods: ⌊K/pods⌋ links to each (K = core ports), the remainder to a window of pods
//        starting at c·e; the links arriving at a pod, in core order, are dealt to its aggs round
//        robin, so every agg gets exactly agg_up. Every core reaches every pod when K ≥ pods
//        (diameter 4 leaf–agg–core–agg–leaf).
//    Router ids: leaves (pod-major), aggs (pod-major), cores. Classes: "leaf-agg", "agg-core"
//    ("leaf-spine" with 2 levels). Coordinates: level (1 leaf, 2 agg, 3 core), index in level,
//    pod (−1 for cores).
//
// Both modes set min_vc_classes = 1: minimal leaf-to-leaf paths are up*/down* (see
// xgft_wiring.hpp), deadlock-free on one VC class.
#include <algorithm>

#include "topology_registry.hpp"
#include "xgft_wiring.hpp"

namespace flitsim {

namespace {

Topology build_kary_ntree(const Params& prm) {
  const int64_t k = prm.get_int_min("k", 1), n = prm.get_int_min("n", 1);
  for (const char* key : {"radix", "pods", "levels", "taper"})
    if (prm.has(key)) prm.fail(key, "does not apply to a k-ary n-tree (k, n given)");
  double nodes = 1;
  for (int64_t i = 0; i < n && nodes <= double(1 << 26); ++i) nodes *= double(k);  // stops early: n may be 2^62
  if (nodes * double(n) > double(1 << 26)) prm.fail("n", "k^n too large (more than 2^26 nodes)");
  if (2 * k > 4096) prm.fail("k", "switch radix 2k exceeds 4096");
  std::vector<int64_t> m(n, k), w(n, k);
  w[0] = 1;
  Topology t = build_xgft_tree("fattree", m, w);
  t.attrs["k"] = k;
  t.attrs["n"] = n;
  t.attrs["levels"] = n;
  return t;
}

Topology build_pod_tree(const Params& prm) {
  const int64_t levels = prm.get_int("levels", 3);
  if (levels != 2 && levels != 3) prm.fail("levels", "must be 2 or 3, got " + std::to_string(levels));
  const bool three = levels == 3;
  const int64_t k = prm.get_int_min("radix", 2, 0);
  auto need_radix = [&](const char* key) {
    if (k == 0) prm.fail(key, "is required when radix is not given");
  };
  auto derived = [&](const char* key, int64_t lo, int64_t def) -> int64_t {
    if (prm.has(key)) return prm.get_int_min(key, lo);
    need_radix(key);
    return def;
  };
  std::vector<int64_t> taper = prm.get_ints("taper", {1, 1});
  if (taper.size() != 2 || taper[0] < 1 || taper[1] < 1)
    prm.fail("taper", "must be [down, up] with both >= 1");
  if (k && !prm.has("down") && k * taper[0] % (taper[0] + taper[1]) != 0)
    prm.fail("taper", "radix*down/(down+up) must be an integer");
  const int64_t down = derived("down", 1, k * taper[0] / (taper[0] + taper[1]));
  const int64_t leaf_up = derived("leaf_up", 1, k - down);
  const int64_t aggs = prm.get_int_min("aggs", 1, leaf_up);
  const int64_t agg_down = derived("agg_down", 1, three ? k / 2 : k);
  const int64_t agg_up = three ? derived("agg_up", 1, k - agg_down) : 0;
  if (!three && prm.has("agg_up")) prm.fail("agg_up", "does not apply to a 2-level tree");
  if (!prm.has("leaves") && aggs * agg_down % leaf_up != 0)
    prm.fail("leaves", "aggs*agg_down/leaf_up is not an integer; give leaves explicitly");
  const int64_t leaves = prm.get_int_min("leaves", 1, aggs * agg_down / leaf_up);
  if (leaves * leaf_up != aggs * agg_down)
    prm.fail("leaves", "leaves*leaf_up (" + std::to_string(leaves * leaf_up) + ") must equal aggs*agg_down (" +
                           std::to_string(aggs * agg_down) + ") so every pod port is used");
  const int64_t pods = three ? derived("pods", 1, k) : prm.get_int_min("pods", 1, 1);
  if (!three && pods != 1) prm.fail("pods", "a 2-level tree has exactly one pod");
  int64_t cores = 0, K = 0;
  if (three) {
    if (!prm.has("cores") && (k == 0 || pods * aggs * agg_up % k != 0))
      prm.fail("cores", "pods*aggs*agg_up/radix is not an integer; give cores explicitly");
    cores = prm.get_int_min("cores", 1, k ? pods * aggs * agg_up / k : 0);
    if (pods * aggs * agg_up % cores != 0)
      prm.fail("cores", "must divide pods*aggs*agg_up = " + std::to_string(pods * aggs * agg_up) +
                            " so every core has the same number of ports");
    K = pods * aggs * agg_up / cores;
    // With fewer core ports than pods some pod pairs share no core; minimal paths would then go
    // down and up again, which breaks the up*/down* (one VC class) property.
    if (K < pods)
      prm.fail("pods", "must be <= the core port count " + std::to_string(K) + " so every core reaches every pod");
  }
  if (k) {
    if (down + leaf_up > k) prm.fail("down", "down + leaf_up exceeds radix " + std::to_string(k));
    if (agg_down + agg_up > k) prm.fail("agg_down", "agg_down + agg_up exceeds radix " + std::to_string(k));
    if (K > k) prm.fail("cores", "too few cores: each would need " + std::to_string(K) + " ports > radix");
  }
  const double R = double(pods) * double(leaves + aggs) + double(cores);
  if (R > double(1 << 24) || double(pods) * leaves * down > double(1 << 26))
    prm.fail("pods", "network too large (more than 2^24 routers or 2^26 nodes)");
  if (std::max({down + leaf_up, agg_down + agg_up, K}) > 4096) prm.fail("radix", "switch radix exceeds 4096");

  const int32_t L = int32_t(pods * leaves), A = int32_t(pods * aggs), NR = int32_t(R);
  TopologyBuilder b("fattree", NR);
  const int32_t c_la = b.add_class(three ? "leaf-agg" : "leaf-spine");
  const int32_t c_ac = three ? b.add_class("agg-core") : -1;
  auto leaf_id = [&](int64_t pod, int64_t i) { return int32_t(pod * leaves + i); };
  auto agg_id = [&](int64_t pod, int64_t j) { return int32_t(L + pod * aggs + j); };
  for (int32_t r = 0; r < L; ++r)
    for (int64_t t = 0; t < down; ++t) b.add_terminal(r);
  // Leaf -> agg links in agg order per leaf, so a leaf's up ports are sorted by agg.
  const int64_t base_la = leaf_up / aggs, e_la = leaf_up % aggs;
  for (int64_t pod = 0; pod < pods; ++pod)
    for (int64_t i = 0; i < leaves; ++i)
      for (int64_t j = 0; j < aggs; ++j) {
        const int64_t rel = ((j - i * e_la) % aggs + aggs) % aggs;  // position in i's window
        const int64_t n = base_la + (rel < e_la ? 1 : 0);
        for (int64_t c = 0; c < n; ++c) b.add_link(leaf_id(pod, i), agg_id(pod, j), c_la);
      }
  if (three) {
    const int64_t base_ac = K / pods, e_ac = K % pods;
    std::vector<int64_t> dealt(pods, 0);
    for (int64_t c = 0; c < cores; ++c)
      for (int64_t pod = 0; pod < pods; ++pod) {
        const int64_t rel = ((pod - c * e_ac) % pods + pods) % pods;
        const int64_t n = base_ac + (rel < e_ac ? 1 : 0);
        for (int64_t x = 0; x < n; ++x)
          b.add_link(agg_id(pod, dealt[pod]++ % aggs), int32_t(L + A + c), c_ac);
      }
  }
  std::vector<int32_t> coords(size_t(NR) * 3);
  for (int32_t r = 0; r < NR; ++r) {
    int32_t* c = &coords[size_t(r) * 3];
    if (r < L) c[0] = 1, c[1] = r, c[2] = int32_t(r / leaves);
    else if (r < L + A) c[0] = 2, c[1] = r - L, c[2] = int32_t((r - L) / aggs);
    else c[0] = 3, c[1] = r - L - A, c[2] = -1;
  }
  b.set_coords({"level", "index", "pod"}, std::move(coords));
  Topology t = b.finish();
  t.attrs = {{"levels", levels}, {"radix", k},        {"pods", pods},         {"leaves", leaves},
             {"aggs", aggs},     {"cores", cores},    {"down", down},         {"leaf_up", leaf_up},
             {"agg_down", agg_down}, {"agg_up", agg_up}, {"core_ports", K},
             {"min_vc_classes", 1}};  // up*/down* minimal paths, see the header comment
  return t;
}

Topology build_fattree(const Params& prm) {
  if (prm.has("n") || prm.has("k")) return build_kary_ntree(prm);
  return build_pod_tree(prm);
}

}  // namespace

FLITSIM_REGISTER_TOPOLOGY(fattree, build_fattree, "k", "n", "levels", "radix", "pods", "taper", "down", "leaf_up", "aggs", "agg_down", "agg_up", "leaves", "cores")

}  // namespace flitsim
