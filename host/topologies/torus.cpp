// k-ary n-cubes: the torus and the mesh (Dally & Towles ch. 5; BookSim2's `torus` and `mesh`).
// Routers sit on a D-dimensional grid widths[0] × … × widths[D−1] (mixed radix); router id =
// Σ x_d·stride_d with dimension 0 fastest, BookSim2's k-ary n-cube numbering; node id =
// router·T + t (terminal t fastest), so node = router when T = 1, as in BookSim2.
// Each router links to its two neighbours x_d ± 1 in every dimension d; in a dimension that
// wraps (every dimension of a torus unless `wrap` says otherwise, none of a mesh) x_d = W−1
// and 0 are neighbours too (the wrap-around link). A ring of width 2 keeps both links (its +
// and its − link join the same two routers), as BookSim2's torus does.
//
// Keys: widths=[W0, W1, ...]  each ≥ 2, any number of dimensions (at most 64)
//       terminals T            per router (≥ 1, default 1)
//       wrap (torus only)      true/false, or one per dimension (default true): a dimension
//                              with false is a mesh line
// Port order at every router: its T terminal ports, then for d = 0, 1, ...: the port toward
// x_d + 1 ("+", BookSim2's 2d "right") and the port toward x_d − 1 ("−", BookSim2's 2d + 1
// "left"); at a mesh edge the missing port is skipped, so later ports move down by one.
// Channel classes: "dim0", "dim1", ... (one per dimension: [channels] dim1 = 3 sets the
// latency of dimension 1, wrap-around links included). Coordinates: "dim0", "dim1", ...
// Tables:
//   widths[D], wrap[D] (0/1)
//   cube_port[r·2D + 2d + dir]  global port of router r toward x_d + 1 (dir 0) or x_d − 1
//                               (dir 1); −1 where the mesh edge has none
// Attributes: dims, terminals, width<d>, wraps (dimensions that wrap), bisection_links (the
// fewest links a cut into two equal halves of routers crosses, where some width is even:
// R/W_d links per line of dimension d cut, twice that on a ring).
#include <algorithm>
#include <string>

#include "topology_registry.hpp"
#include "host/init/traffic_maps.hpp"

namespace flitsim {

namespace {

Topology build_cube(const Params& prm, const std::string& kind, bool torus) {
  const std::vector<int64_t> widths = prm.get_ints("widths");
  if (widths.empty()) prm.fail("widths", "must list at least one dimension");
  const size_t D = widths.size();
  if (D > 64) prm.fail("widths", "at most 64 dimensions, got " + std::to_string(D));
  int64_t R64 = 1;
  for (int64_t w : widths) {
    if (w < 2) prm.fail("widths", "every width must be >= 2, got " + std::to_string(w));
    R64 *= w;
    if (R64 > (int64_t(1) << 24)) prm.fail("widths", "more than 2^24 routers");
  }
  const int64_t T = prm.get_int_min("terminals", 1, 1);
  if (R64 * T > (int64_t(1) << 26)) prm.fail("terminals", "more than 2^26 nodes");
  std::vector<int64_t> wrap(D, torus ? 1 : 0);
  if (torus && prm.has("wrap")) {
    wrap = prm.get_ints("wrap");
    if (wrap.size() == 1) wrap.assign(D, wrap[0]);
    if (wrap.size() != D)
      prm.fail("wrap", "must be true/false or one per dimension (" + std::to_string(D) + "), got " +
                           std::to_string(wrap.size()) + " values");
    for (int64_t x : wrap)
      if (x != 0 && x != 1) prm.fail("wrap", "must be true or false, got " + std::to_string(x));
  }

  Topology t;
  t.kind = kind;
  t.num_routers = int32_t(R64);
  t.num_nodes = int32_t(R64 * T);
  const int32_t R = t.num_routers;
  std::vector<int64_t> stride(D, 1);
  for (size_t d = 1; d < D; ++d) stride[d] = stride[d - 1] * widths[d - 1];
  for (size_t d = 0; d < D; ++d) {
    t.class_names.push_back("dim" + std::to_string(d));
    t.coord_names.push_back("dim" + std::to_string(d));
  }
  t.router_coords.resize(size_t(R) * D);
  for (int32_t r = 0; r < R; ++r)
    for (size_t d = 0; d < D; ++d) t.router_coords[size_t(r) * D + d] = int32_t(r / stride[d] % widths[d]);

  // Which of the 2D ports exist, and each router's port count (terminals first).
  // The ports are laid out here rather than through TopologyBuilder (topology.cpp): the builder
  // appends a link's two ports at both routers in call order, and BookSim2's order, + then − in
  // every dimension at every router (cube_port, the routings' rt_table), would need the link
  // from x to x + 1 (x's + port) added before the link from x − 1 to x (x's − port) for every
  // x: around a ring that order is a cycle, so no call order gives it. The builder would need
  // ports placed by index, which it does not offer.
  auto has_port = [&](int32_t r, size_t d, int dir) {
    const int32_t c = t.router_coords[size_t(r) * D + d];
    return wrap[d] || (dir == 0 ? c < widths[d] - 1 : c > 0);
  };
  std::vector<int32_t> cube_port(size_t(R) * 2 * D, -1);
  t.port_offset.assign(size_t(R) + 1, 0);
  for (int32_t r = 0; r < R; ++r) {
    int32_t gp = t.port_offset[r] + int32_t(T);
    for (size_t d = 0; d < D; ++d)
      for (int dir = 0; dir < 2; ++dir)
        if (has_port(r, d, dir)) cube_port[size_t(r) * 2 * D + 2 * d + dir] = gp++;
    t.port_offset[r + 1] = gp;
  }
  const int32_t P = t.port_offset[R];
  t.port_router.assign(P, 0);
  t.peer_port.assign(P, -1);
  t.port_node.assign(P, -1);
  t.port_class.assign(P, 0);
  t.node_port.assign(t.num_nodes, -1);
  for (int32_t r = 0; r < R; ++r) {
    for (int32_t gp = t.port_offset[r]; gp < t.port_offset[r + 1]; ++gp) t.port_router[gp] = r;
    for (int64_t k = 0; k < T; ++k) {
      const int32_t gp = t.port_offset[r] + int32_t(k), n = int32_t(r * T + k);
      t.port_node[gp] = n;
      t.node_port[n] = gp;
    }
    for (size_t d = 0; d < D; ++d)
      for (int dir = 0; dir < 2; ++dir) {
        const int32_t gp = cube_port[size_t(r) * 2 * D + 2 * d + dir];
        if (gp < 0) continue;
        const int64_t c = t.router_coords[size_t(r) * D + d], W = widths[d];
        const int64_t c2 = dir == 0 ? (c + 1) % W : (c + W - 1) % W;
        const int32_t r2 = int32_t(r + (c2 - c) * stride[d]);
        t.peer_port[gp] = cube_port[size_t(r2) * 2 * D + 2 * d + (1 - dir)];  // its port back toward r
        t.port_class[gp] = int8_t(d + 1);
      }
  }
  t.validate();

  t.tables["cube_port"] = std::move(cube_port);
  t.tables["widths"] = std::vector<int32_t>(widths.begin(), widths.end());
  t.tables["wrap"] = std::vector<int32_t>(wrap.begin(), wrap.end());
  t.attrs["dims"] = int64_t(D);
  t.attrs["terminals"] = T;
  int64_t wraps = 0, bisection = -1;
  for (size_t d = 0; d < D; ++d) {
    t.attrs["width" + std::to_string(d)] = widths[d];
    wraps += wrap[d];
    if (widths[d] % 2 == 0) {
      const int64_t cut = R64 / widths[d] * (wrap[d] ? 2 : 1);
      bisection = bisection < 0 ? cut : std::min(bisection, cut);
    }
  }
  t.attrs["wraps"] = wraps;
  if (bisection >= 0) t.attrs["bisection_links"] = bisection;
  return t;
}

Topology build_torus(const Params& prm) { return build_cube(prm, "torus", true); }
Topology build_mesh(const Params& prm) { return build_cube(prm, "mesh", false); }

}  // namespace

// Worst case for minimal routing on a torus: tornado (every coordinate ⌈W/2⌉ − 1 ahead), which
// loads only the + direction of every ring (Dally & Towles §3.2).
std::vector<int32_t> torus_worst_case(const Topology& t) { return cube_digit_map(t, t.num_nodes, true); }

FLITSIM_REGISTER_TOPOLOGY(torus, build_torus, "widths", "terminals", "wrap")
FLITSIM_REGISTER_WORST_CASE(torus, torus_worst_case)
FLITSIM_REGISTER_TOPOLOGY(mesh, build_mesh, "widths", "terminals")

}  // namespace flitsim
