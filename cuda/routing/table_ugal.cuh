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

FLITSIM_HD RouteChoice route_table_ugal(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.pk_route[p.slot] == 0) {  // at the source router: minimal or Valiant?
    if (r == p.dst_router) return eject_choice(s, p);
    const long long R = s.sz.dist_R;
    const RouteChoice m = table_min_toward(s, rep, r, p, p.dst_router, 0, 0);
    const int q_min = port_congestion(s, rep, m.port), h_min = s.dist[r * R + p.dst_router];
    BestChoice best;
    best.offer(ugal_min_cost(s, q_min, h_min), m.port, p.dst_router, false);
    if (!ugal_below_threshold(s, q_min)) {
      for (int j = 0; j < s.prm.n_indirect; ++j) {
        const int x = table_valiant_draw(s, rep, r, p, kSaltTableUgal + j);
        const RouteChoice c = table_min_toward(s, rep, r, p, x, 0, kSaltTableUgal + 64 + j);
        const int h = s.dist[r * R + x] + s.dist[(long long)x * R + p.dst_router];
        best.offer(ugal_nonmin_cost(s, port_congestion(s, rep, c.port), h, h_min), c.port, x, true);
      }
    }
    s.pk_route[p.slot] = 1 + best.aux;
    if (best.nonminimal) mark_nonminimal(s, p);
    return route_in_class(s, best.port, 0);  // the judged port (hop 0 of phase 0: class 0)
  }
  return route_table_valiant(s, rep, r, p);
}

}  // namespace flitsim
