// HyperX (Ahn et al.; HyperX paper P4) and its generalisation, the express mesh with a gap
// (cost paper P2:L99, CODES rule). Routers sit on a D-dimensional grid widths[0] × … ×
// widths[D−1]; router id = Σ x_d·stride_d with dimension 0 fastest; node id = router·T + t
// (terminal t fastest, SuperSim's `t + C·(x + W·(y + W·z))`, TARGETS §3.5 item 1).
//
// Keys: widths=[W0, W1, ...] (each ≥ 2, any number of dimensions)
//       terminals T (≥ 1)
//       trunking  links per linked router pair: one value or one per dimension (default 1)
//       gap       express-mesh gap: one value or one per dimension (default 1 = HyperX). Two
//                 routers that differ only in dimension d, at distance δ, are linked iff
//                 δ = 1 or (δ − 1) mod gap = 0 (CODES express mesh, TARGETS §3.3 item 3; gap 2
//                 links the odd distances, so a dimension is crossed in at most 2 hops).
//       radix     optional limit on terminals + network ports (of the best-connected router)
// Channel classes: "dim0", "dim1", ... (one per dimension, so latency and statistics can be
// set per dimension). Coordinates: "dim0", "dim1", ...
// Tables:
//   dim_offset[D+1]        prefix sums of widths
//   dim_port[r·ΣW + dim_offset[d] + c]
//                          first port of router r toward the router that differs from r only in
//                          dimension d, where its coordinate is c (−1 for r itself or an unlinked
//                          pair); the trunking[d] parallel ports are dim_port + 0..trunking[d]−1
//   trunking[D], gap[D], widths[D]
// Minimal routing: no min_vc_classes is set, the engine's distance classes (one per hop, up to
// the diameter) are needed for unrestricted minimal routing; dimension-order routing would
// need one class, but that is a routing choice, not a property of the graph.
#include <algorithm>
#include <string>

#include "topology_registry.hpp"
#include "topology_size.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {

std::vector<int64_t> per_dimension(const Params& prm, const std::string& key, size_t D, int64_t def) {
  std::vector<int64_t> v = prm.get_ints(key, {def});
  if (v.size() == 1) v.assign(D, v[0]);
  if (v.size() != D)
    prm.fail(key, "must be one value or one per dimension (" + std::to_string(D) + "), got " +
                      std::to_string(v.size()) + " values");
  for (int64_t x : v)
    if (x < 1) prm.fail(key, "must be >= 1, got " + std::to_string(x));
  return v;
}

bool linked(int64_t delta, int64_t gap) { return delta == 1 || (delta > 1 && (delta - 1) % gap == 0); }

// The size from the keys alone (topology_size.hpp), as build_hyperx lays it out: R routers
// of T terminals and, per dimension, trunking x the linked positions of each line.
TopologySize hyperx_size(const Params& prm) {
  const std::vector<int64_t> widths = prm.get_ints("widths");
  if (widths.empty()) return {};
  const size_t D = widths.size();
  const std::vector<int64_t> trunk = per_dimension(prm, "trunking", D, 1);
  const std::vector<int64_t> gap = per_dimension(prm, "gap", D, 1);
  TopologySize s;
  double R = 1, sumW = 0;
  for (int64_t w : widths) {
    if (w < 2 || w > (int64_t(1) << 24)) return {};
    R *= double(w), sumW += double(w);
  }
  const double T = double(prm.get_int_min("terminals", 1));
  double ports = R * T;
  for (size_t d = 0; d < D; ++d) {
    double pairs = 0;  // ordered linked pairs on one line of dimension d
    for (int64_t delta = 1; delta < widths[d]; ++delta)
      if (linked(delta, gap[d])) pairs += 2.0 * double(widths[d] - delta);
    ports += double(trunk[d]) * pairs * (R / double(widths[d]));
  }
  s.known = true;
  s.routers = R, s.ports = ports, s.nodes = R * T;
  s.table_bytes = R * (sumW * 4 * 2 + double(D) * 4);  // dim_port (built, then moved) and coordinates
  s.keys = "topology.widths, topology.terminals, topology.trunking";
  return s;
}

Topology build_hyperx(const Params& prm) {
  const std::vector<int64_t> widths = prm.get_ints("widths");
  if (widths.empty()) prm.fail("widths", "must list at least one dimension");
  const size_t D = widths.size();
  int64_t R64 = 1, sumW = 0;
  for (int64_t w : widths) {
    if (w < 2) prm.fail("widths", "every width must be >= 2, got " + std::to_string(w));
    R64 *= w, sumW += w;
    if (R64 > (int64_t(1) << 24)) prm.fail("widths", "more than 2^24 routers");
  }
  if (D > 100) prm.fail("widths", "at most 100 dimensions");
  const int64_t T = prm.get_int_min("terminals", 1);
  if (R64 * T > (int64_t(1) << 26)) prm.fail("terminals", "more than 2^26 nodes");
  const std::vector<int64_t> trunk = per_dimension(prm, "trunking", D, 1);
  const std::vector<int64_t> gap = per_dimension(prm, "gap", D, 1);
  int64_t radix = T;
  for (size_t d = 0; d < D; ++d) {
    int64_t deg = 0;  // most neighbours of any position on the line
    for (int64_t c = 0; c < widths[d]; ++c) {
      int64_t n = 0;
      for (int64_t c2 = 0; c2 < widths[d]; ++c2) n += c2 != c && linked(c2 > c ? c2 - c : c - c2, gap[d]);
      deg = std::max(deg, n);
    }
    radix += trunk[d] * deg;
  }
  if (prm.has("radix") && radix > prm.get_int("radix"))
    prm.fail("terminals", "terminals + network ports = " + std::to_string(radix) + " exceeds radix " +
                              std::to_string(prm.get_int("radix")));
  if (radix > 4096) prm.fail("widths", "router radix " + std::to_string(radix) + " exceeds 4096");

  const int32_t R = int32_t(R64);
  TopologyBuilder b("hyperx", R);
  std::vector<int32_t> cls(D);
  std::vector<std::string> names;
  for (size_t d = 0; d < D; ++d) {
    names.push_back("dim" + std::to_string(d));
    cls[d] = b.add_class(names.back());
  }
  std::vector<int64_t> stride(D, 1);
  for (size_t d = 1; d < D; ++d) stride[d] = stride[d - 1] * widths[d - 1];
  std::vector<int32_t> coords(size_t(R) * D);
  for (int32_t r = 0; r < R; ++r)
    for (size_t d = 0; d < D; ++d) coords[size_t(r) * D + d] = int32_t(r / stride[d] % widths[d]);
  for (int32_t r = 0; r < R; ++r)
    for (int64_t t = 0; t < T; ++t) b.add_terminal(r);

  std::vector<int32_t> offset(D + 1, 0);
  for (size_t d = 0; d < D; ++d) offset[d + 1] = offset[d] + int32_t(widths[d]);
  std::vector<int32_t> first_local(size_t(R) * sumW, -1);
  for (size_t d = 0; d < D; ++d)
    for (int32_t r = 0; r < R; ++r) {
      const int32_t c = coords[size_t(r) * D + d];
      for (int32_t c2 = c + 1; c2 < widths[d]; ++c2) {
        if (!linked(c2 - c, gap[d])) continue;
        const int32_t r2 = int32_t(r + (c2 - c) * stride[d]);
        for (int64_t k = 0; k < trunk[d]; ++k) {
          auto [l1, l2] = b.add_link(r, r2, cls[d]);
          if (k == 0) {
            first_local[size_t(r) * sumW + offset[d] + c2] = l1;
            first_local[size_t(r2) * sumW + offset[d] + c] = l2;
          }
        }
      }
    }
  b.set_coords(names, std::move(coords));
  Topology t = b.finish();

  for (int32_t r = 0; r < R; ++r)
    for (int64_t k = 0; k < sumW; ++k) {
      int32_t& v = first_local[size_t(r) * sumW + k];
      if (v >= 0) v += t.port_offset[r];
    }
  t.tables["dim_port"] = std::move(first_local);
  t.tables["dim_offset"] = offset;
  t.tables["widths"] = std::vector<int32_t>(widths.begin(), widths.end());
  t.tables["trunking"] = std::vector<int32_t>(trunk.begin(), trunk.end());
  t.tables["gap"] = std::vector<int32_t>(gap.begin(), gap.end());
  t.attrs["dims"] = int64_t(D);
  t.attrs["terminals"] = T;
  bool uniform_trunk = true, uniform_gap = true;
  for (size_t d = 0; d < D; ++d) uniform_trunk &= trunk[d] == trunk[0], uniform_gap &= gap[d] == gap[0];
  if (uniform_trunk) t.attrs["trunking"] = trunk[0];
  if (uniform_gap) t.attrs["gap"] = gap[0];
  for (size_t d = 0; d < D; ++d) t.attrs["width" + std::to_string(d)] = widths[d];
  return t;
}

}  // namespace

// Worst case for minimal routing: dimension complement reverse with 3 or more dimensions whose
// widths read the same reversed (P4 DCR), else bit complement (k -> N - 1 - k).
std::vector<int32_t> hyperx_worst_case(const Topology& t) {
  const Params where("traffic");
  const HxShape h = hyperx_shape(t, where, "worst-case");
  const int64_t N = t.num_nodes;
  bool palindrome = true;
  for (size_t d = 0; d < h.W.size(); ++d) palindrome &= h.W[d] == h.W[h.W.size() - 1 - d];
  if (h.W.size() >= 3 && palindrome) return dcr_map(h, where, N);
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t(N - 1 - k);
  return m;
}

FLITSIM_REGISTER_TOPOLOGY(hyperx, build_hyperx, "widths", "terminals", "trunking", "gap", "radix")
FLITSIM_REGISTER_TOPOLOGY_SIZE(hyperx, hyperx_size)
FLITSIM_REGISTER_WORST_CASE(hyperx, hyperx_worst_case)

}  // namespace flitsim
