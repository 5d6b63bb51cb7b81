// Canonical 1-D dragonfly (Kim et al.; dragonfly paper §III): g groups of a routers, all-to-all
// inside a group, p terminals and h global ports per router. Router r = group·a + index;
// node id = router·p + terminal (contiguous numbering, paper P0:L108).
//
// Global arrangements (TARGETS.md §3.1 item 1):
//   palmtree    router x of group i, global port m -> group (i + x·h + m + 1) mod G, far end
//               router a−1−x, port h−1−m (the paper's formula with its off-by-one fixed).
//   consecutive BookSim2 `dragonflynew`: global port t = x·h + m of group g goes to group t if
//               t < g, else t+1.
//
// Routing tables (DESIGN.md §5), all global indices:
//   gateway_router[G·i + j]  router of group i that owns the global link to group j (−1 if i=j)
//   gateway_port[G·i + j]    that router's global port toward group j
//   local_port[a·r + j]      port of router r toward router j of its own group (−1 if j = r's index)
#include "../topology_registry.hpp"

namespace flitsim {

namespace {

struct GlobalEnd {
  int32_t group, router_index, slot;  // slot = x·h + m, the global port's rank in its group
};

// Far end of global slot (x, m) of group i under each arrangement.
GlobalEnd far_end(const std::string& arrangement, int32_t G, int32_t a, int32_t h, int32_t i,
                  int32_t x, int32_t m) {
  if (arrangement == "palmtree") {
    int32_t j = (i + x * h + m + 1) % G;
    return {j, a - 1 - x, (a - 1 - x) * h + (h - 1 - m)};
  }
  // consecutive
  int32_t t = x * h + m;
  int32_t j = t < i ? t : t + 1;
  int32_t back = i < j ? i : i - 1;
  return {j, back / h, back};
}

Topology build_dragonfly(const Params& prm) {
  const int64_t p = prm.get_int_min("p", 1);
  const int64_t a = prm.get_int_min("a", 1);
  const int64_t h = prm.get_int_min("h", 1);
  const int64_t full = a * h + 1;
  const int64_t G = prm.get_int_min("groups", 2, full);
  if (G != full)
    prm.fail("groups", "only full-scale dragonflies (groups = a*h+1 = " + std::to_string(full) +
                           ") are built so far, got " + std::to_string(G));
  const std::string arrangement = prm.get_str("arrangement", "palmtree");
  if (arrangement != "palmtree" && arrangement != "consecutive")
    prm.fail("arrangement", "must be \"palmtree\" or \"consecutive\", got \"" + arrangement + "\"");
  const std::string intra = prm.get_str("intra", "all-to-all");
  if (intra != "all-to-all") prm.fail("intra", "only \"all-to-all\" is built so far, got \"" + intra + "\"");
  if (G * a > (int64_t(1) << 24) || G * a * p > (int64_t(1) << 26))
    prm.fail("p", "network too large (more than 2^24 routers or 2^26 nodes)");

  const int32_t R = int32_t(G * a);
  TopologyBuilder b("dragonfly", R);
  const int32_t local = b.add_class("local");
  const int32_t global = b.add_class("global");
  for (int32_t r = 0; r < R; ++r)
    for (int32_t t = 0; t < p; ++t) b.add_terminal(r);

  std::vector<int32_t> local_local(size_t(R) * a, -1);  // local port indices until finish()
  for (int32_t g = 0; g < G; ++g)
    for (int32_t x = 0; x < a; ++x)
      for (int32_t y = x + 1; y < a; ++y) {
        auto [lx, ly] = b.add_link(g * int32_t(a) + x, g * int32_t(a) + y, local);
        local_local[size_t(g * a + x) * a + y] = lx;
        local_local[size_t(g * a + y) * a + x] = ly;
      }

  std::vector<int32_t> gw_router(size_t(G) * G, -1), gw_local(size_t(G) * G, -1);
  for (int32_t i = 0; i < G; ++i)
    for (int32_t x = 0; x < a; ++x)
      for (int32_t m = 0; m < h; ++m) {
        GlobalEnd e = far_end(arrangement, int32_t(G), int32_t(a), int32_t(h), i, x, m);
        if (e.group <= i) continue;  // each link once, from its lower group
        int32_t r1 = i * int32_t(a) + x, r2 = e.group * int32_t(a) + e.router_index;
        auto [l1, l2] = b.add_link(r1, r2, global);
        gw_router[size_t(i) * G + e.group] = r1;
        gw_local[size_t(i) * G + e.group] = l1;
        gw_router[size_t(e.group) * G + i] = r2;
        gw_local[size_t(e.group) * G + i] = l2;
      }

  std::vector<int32_t> coords(size_t(R) * 2);
  for (int32_t r = 0; r < R; ++r) {
    coords[2 * r] = r / int32_t(a);
    coords[2 * r + 1] = r % int32_t(a);
  }
  b.set_coords({"group", "index"}, std::move(coords));
  Topology t = b.finish();

  // Local port indices -> global port indices now that the CSR exists.
  std::vector<int32_t> gw_port(size_t(G) * G, -1), local_port(size_t(R) * a, -1);
  for (size_t k = 0; k < gw_port.size(); ++k)
    if (gw_router[k] >= 0) gw_port[k] = t.port_offset[gw_router[k]] + gw_local[k];
  for (int32_t r = 0; r < R; ++r)
    for (int32_t j = 0; j < a; ++j)
      if (local_local[size_t(r) * a + j] >= 0)
        local_port[size_t(r) * a + j] = t.port_offset[r] + local_local[size_t(r) * a + j];
  t.tables["gateway_router"] = std::move(gw_router);
  t.tables["gateway_port"] = std::move(gw_port);
  t.tables["local_port"] = std::move(local_port);
  t.attrs = {{"p", p}, {"a", a}, {"h", h}, {"groups", G}};
  return t;
}

}  // namespace

FLITSIM_REGISTER_TOPOLOGY(dragonfly, build_dragonfly)

}  // namespace flitsim
