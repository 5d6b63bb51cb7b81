// Extended generalized fat tree XGFT(h; m_1..m_h; w_1..w_h) (Öhring et al.; noise paper P1:L131),
// shared by the `xgft` builder and the k-ary n-tree mode of `fattree` (= XGFT(n; k..k; 1,k..k)).
//
// Level 0 holds the endpoints, levels 1..h the switches. Level i has
// ∏_{j>i} m_j · ∏_{j≤i} w_j nodes (TARGETS NZ-S8). A level-i node is labelled
// (x_h..x_{i+1}, y_i..y_1), x_j < m_j, y_j < w_j, and is linked to the w_{i+1} level-(i+1) nodes
// (x_h..x_{i+2}, y_{i+1}, y_i..y_1) (TARGETS §3.2 item 1). Index of a level-i node:
// Y + W_i·X with X = mixed radix of x_{i+1}..x_h (x_{i+1} fastest), Y = mixed radix of
// y_1..y_i (y_1 fastest), W_i = ∏_{j≤i} w_j. w_1 must be 1 (an endpoint has one port), so
// endpoint e hangs off leaf switch e / m_1: node numbering is contiguous per leaf.
// Router id = (switches below level i) + index; ports of a switch: terminals or down links
// first (in child order), then up links. Channel class of a level-i ↔ level-(i+1) link:
// "l<i>-l<i+1>". Coordinates: level (1..h), index.
#pragma once
#include <string>
#include <vector>

#include "topology.hpp"

namespace flitsim {

inline Topology build_xgft_tree(const std::string& kind, const std::vector<int64_t>& m,
                                const std::vector<int64_t>& w) {
  const size_t h = m.size();
  std::vector<int64_t> size(h + 1), first(h + 2, 0), W(h + 1, 1);
  for (size_t i = 1; i <= h; ++i) W[i] = W[i - 1] * w[i - 1];
  for (size_t i = 0; i <= h; ++i) {
    int64_t s = W[i];
    for (size_t j = i + 1; j <= h; ++j) s *= m[j - 1];
    size[i] = s;
  }
  for (size_t i = 1; i <= h; ++i) first[i + 1] = first[i] + size[i];  // router id of level i
  const int32_t R = int32_t(first[h + 1]);
  TopologyBuilder b(kind, R);
  std::vector<int32_t> cls(h + 1, 0);
  for (size_t i = 1; i < h; ++i)
    cls[i] = b.add_class("l" + std::to_string(i) + "-l" + std::to_string(i + 1));
  for (int64_t leaf = 0; leaf < size[1]; ++leaf)
    for (int64_t e = 0; e < m[0]; ++e) b.add_terminal(int32_t(leaf));
  for (size_t i = 1; i < h; ++i)
    for (int64_t idx = 0; idx < size[i]; ++idx) {
      const int64_t Y = idx % W[i], X = idx / W[i];
      for (int64_t y = 0; y < w[i]; ++y) {
        const int64_t parent = (Y + W[i] * y) + W[i + 1] * (X / m[i]);
        b.add_link(int32_t(first[i] + idx), int32_t(first[i + 1] + parent), cls[i]);
      }
    }
  std::vector<int32_t> coords(size_t(R) * 2);
  for (size_t i = 1; i <= h; ++i)
    for (int64_t idx = 0; idx < size[i]; ++idx) {
      coords[size_t(first[i] + idx) * 2] = int32_t(i);
      coords[size_t(first[i] + idx) * 2 + 1] = int32_t(idx);
    }
  b.set_coords({"level", "index"}, std::move(coords));
  Topology t = b.finish();
  t.tables["m"] = std::vector<int32_t>(m.begin(), m.end());
  t.tables["w"] = std::vector<int32_t>(w.begin(), w.end());
  std::vector<int32_t> level_first(first.begin() + 1, first.end());
  t.tables["level_first"] = level_first;  // router id of the first switch of level 1..h, then R
  t.attrs["height"] = int64_t(h);
  // Minimal paths between endpoints in a tree climb to a nearest common ancestor and descend
  // (up*/down*): an up hop never follows a down hop, so the channel dependency graph is
  // acyclic on a single VC class.
  t.attrs["min_vc_classes"] = 1;
  return t;
}

}  // namespace flitsim
