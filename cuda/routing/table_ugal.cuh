// UGAL-L for table-routed topologies (P3 §3.3: SF-A, MLFM-A, OFT-A and their -ATh variants;
// HyperX, trees, graphs alike). Once, at the source router, the packet compares its minimal
// route with routing.n_indirect Valiant candidates, intermediates drawn like table Valiant's
// (routers with terminals other than the source and destination routers). Each candidate is
// judged by the occupancy of the first-hop output port it would take here (one of its minimal
// next hops, drawn independently per candidate or by credits, table_min_toward) and the cost
// rule of ugal_cost.cuh (L_M, L_I from the distance table); ties go to the minimal route. The
// packet leaves on the judged port of the chosen candidate; later hops route as table Valiant.
// Deadlock avoidance: table Valiant's 2c classes (table_valiant.cuh). A minimal packet is
// routed as a Valiant packet whose intermediate is its destination: its whole minimal path
// stays in phase 0's block [0, c), acyclic like table MIN, and dependencies still only lead
// from block 0 to block 1.
// Packet state pk_route: as table Valiant (1 + x toward x, −(1 + h) phase 1); a minimal packet
// holds 1 + destination router.
#pragma once
#include "table_valiant.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltTableUgal = 0x50000;  // + candidate: intermediate draws

// What a table sensor reports for a route toward a target: its queue and first port here.
struct SensedRoute {
  int q;
  int port;
};

// The live sensor of table UGAL-L: a random minimal first hop toward the target (table_min's
// rule) and its queue at this router.
struct TableLiveSensor {
  FLITSIM_HD SensedRoute minimal(const SimView& s, int rep, int r, const PacketInfo& p) const {
    const RouteChoice m = table_min_toward(s, rep, r, p, p.dst_router, 0, 0);
    return {ugal_port_queue(s, rep, m.port), m.port};
  }
  FLITSIM_HD SensedRoute indirect(const SimView& s, int rep, int r, const PacketInfo& p, int x, int j) const {
    const RouteChoice c = table_min_toward(s, rep, r, p, x, 0, kSaltTableUgal + 64 + j);
    return {ugal_port_queue(s, rep, c.port), c.port};
  }
};

// The table UGAL decision at the source router r: candidates (the minimal route and
// intermediates drawn like table Valiant's), judged by `sensor`, selected by ugal_select; the
// packet leaves on the chosen candidate's judged port (hop 0 of phase 0: class 0).
template <class Sensor>
FLITSIM_HD RouteChoice table_ugal_decide(const SimView& s, int rep, int r, const PacketInfo& p, const Sensor& sensor) {
  const long long R = s.sz.dist_R;
  const SensedRoute m = sensor.minimal(s, rep, r, p);
  const BestChoice best = ugal_select(s, p, UgalCandidate{m.q, s.dist[r * R + p.dst_router], m.port, p.dst_router},
                                      [&](int j) {
    const bool node = s.prm.routing.valiant_node;  // BookSim2: a random node's router, not offered at either end
    const int x = node ? table_node_router(s, rep, p, kSaltTableUgal + j) : table_valiant_draw(s, rep, r, p, kSaltTableUgal + j);
    if (node && (x == r || x == p.dst_router)) return UgalCandidate{0, 0, -1, x, false};
    const SensedRoute c = sensor.indirect(s, rep, r, p, x, j);
    return UgalCandidate{c.q, s.dist[r * R + x] + s.dist[(long long)x * R + p.dst_router], c.port, x};
  });
  s.packets[p.slot].route = 1 + best.aux;
  if (best.nonminimal) mark_nonminimal(s, p);
  return route_in_class(s, best.port, 0);
}

FLITSIM_HD RouteChoice route_table_ugal(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant?
    if (r == p.dst_router) return eject_choice(s, p);
    return table_ugal_decide(s, rep, r, p, TableLiveSensor{});
  }
  return route_table_valiant(s, rep, r, p, false);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_table_ugal{"UGAL", "valiant n_indirect penalty threshold cost offset decide_at_injection congestion", kDrawsIntermediate | kUgalDecision, 4};

}  // namespace flitsim
