// XGFT(h; m; w) builder (noise paper P1 Table 1, TARGETS §2.2 NZ-S1..S8 and §3.2 item 1).
// Keys: m=[m_1..m_h], w=[w_1..w_h] with w_1 = 1 (single-homed endpoints), all ≥ 1.
// The paper's shorthand xgft(h, a.., b..) means m = [12, a..], w = [1, b..]; for example
// xgft(3,12,8,12,4) is m = [12,12,8], w = [1,12,4] (configs/papers/noise-*.toml).
// Wiring, numbering, classes and coordinates: xgft_wiring.hpp.
#include "topology_registry.hpp"
#include "xgft_wiring.hpp"

namespace flitsim {

namespace {

Topology build_xgft(const Params& prm) {
  const std::vector<int64_t> m = prm.get_ints("m"), w = prm.get_ints("w");
  if (m.empty()) prm.fail("m", "must list at least one level");
  if (w.size() != m.size())
    prm.fail("w", "must have as many entries as m (" + std::to_string(m.size()) + "), got " +
                      std::to_string(w.size()));
  if (prm.has("h") && prm.get_int("h") != int64_t(m.size()))
    prm.fail("h", "must equal the length of m (" + std::to_string(m.size()) + ")");
  for (int64_t x : m)
    if (x < 1) prm.fail("m", "every entry must be >= 1, got " + std::to_string(x));
  for (int64_t x : w)
    if (x < 1) prm.fail("w", "every entry must be >= 1, got " + std::to_string(x));
  if (w[0] != 1) prm.fail("w", "w_1 must be 1 (an endpoint attaches to exactly one leaf switch)");
  double routers = 0, nodes = 1;
  for (size_t i = 0; i < m.size(); ++i) nodes *= double(m[i]);
  for (size_t i = 1; i <= m.size(); ++i) {
    double s = 1;
    for (size_t j = 0; j < i; ++j) s *= double(w[j]);
    for (size_t j = i; j < m.size(); ++j) s *= double(m[j]);
    routers += s;
  }
  if (routers > double(1 << 24) || nodes > double(1 << 26)) prm.fail("m", "more than 2^24 switches or 2^26 endpoints");
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i] + (i + 1 < m.size() ? w[i + 1] : 0) > 4096) prm.fail("m", "switch radix exceeds 4096");
  Topology t = build_xgft_tree("xgft", m, w);
  return t;
}

}  // namespace

FLITSIM_REGISTER_TOPOLOGY(xgft, build_xgft, "m", "w", "h")

}  // namespace flitsim
