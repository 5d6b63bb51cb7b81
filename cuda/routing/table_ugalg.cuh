// UGAL-G for table-routed topologies (Slim Fly, MLFM, OFT, HyperX, trees, graphs): UGAL with
// global information at the source router. Candidates are table UGAL-L's (table_ugal.cuh: the
// minimal route and routing.n_indirect intermediates drawn like table Valiant's), but each is
// judged by the snapshot queue of a whole path (routing/snapshot.cuh; sum over the path's
// channels, the first hop live, see dragonfly_ugalg.cuh): the path is built greedily, taking at
// each router the minimal next hop with the least snapshot congestion (the first hop's ties
// from a random start, later ties to the lowest port), to the intermediate and then to the
// destination. Costs follow ugal_cost.cuh with q = that sum; ties go to the minimal route.
// The packet leaves on the first hop of the chosen path; later hops route as table Valiant
// (routing.selection among all minimal next hops).
// Deadlock avoidance and packet state: table UGAL-L's (table Valiant's 2c classes; a minimal
// packet is a Valiant packet whose intermediate is its destination).
#pragma once
#include "snapshot.cuh"
#include "table_ugal.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltTableUgalG = 0x60000;  // + candidate: first-hop tie breaks

// Queue of a greedy minimal path from r to target (r ≠ target); *first = its first port. With
// `live` r is the deciding router and its own ports count live; otherwise all from the snapshot.
FLITSIM_HD int table_snap_path(const SimView& s, int rep, const PacketInfo& p, long long base, int r, int target,
                               int salt, bool live, int* first) {
  if (branching(p)) {  // enumeration: the greedy first hop may be any minimal port (live queues)
    if (live) *first = table_min_toward(s, rep, r, p, target, 0, salt).port;
    return 0;
  }
  const long long R = s.sz.dist_R;
  int q = 0;
  for (int x = r; x != target;) {
    const int d = s.dist[x * R + target], p0 = s.port_offset[x], n = s.port_offset[x + 1] - p0;
    const int start = x == r ? int(draw_below(route_draw(s, rep, p, salt), uint32_t(n))) : 0;
    int best = -1, best_q = 0;
    for (int i = 0, k = start; i < n; ++i, k = next_mod(k, n)) {
      const int gp = p0 + k, pq = s.peer_port[gp];
      if (pq < 0 || s.dist[s.port_router[pq] * R + target] != d - 1) continue;
      const int v = live && x == r ? port_congestion(s, rep, gp) : snap_q(s, base, gp);  // own ports live
      if (best < 0 || v < best_q) best = gp, best_q = v;
    }
    if (x == r) *first = best;
    q += best_q;
    x = s.port_router[s.peer_port[best]];
  }
  return q;
}

// The snapshot sensor of table UGAL-G: the greedy path's queue (own ports live, the rest from
// the snapshot) and its first port; an indirect route adds the path from the intermediate on.
struct TableSnapshotSensor {
  long long base;  // the snapshot half this cycle reads
  FLITSIM_HD SensedRoute minimal(const SimView& s, int rep, int r, const PacketInfo& p) const {
    int port = -1;
    const int q = table_snap_path(s, rep, p, base, r, p.dst_router, kSaltTableUgalG, true, &port);
    return {q, port};
  }
  FLITSIM_HD SensedRoute indirect(const SimView& s, int rep, int r, const PacketInfo& p, int x, int j) const {
    int port = -1, unused = -1;
    const int q = table_snap_path(s, rep, p, base, r, x, kSaltTableUgalG + 1 + j, true, &port) +
                  table_snap_path(s, rep, p, base, x, p.dst_router, 0, false, &unused);
    return {q, port};
  }
};

FLITSIM_HD RouteChoice route_table_ugalg(const SimView& s, int rep, int r, const PacketInfo& p, long long base) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant, by path queues
    if (r == p.dst_router) return eject_choice(s, p);
    return table_ugal_decide(s, rep, r, p, TableSnapshotSensor{base});  // table UGAL-L's candidates
  }
  return route_table_valiant(s, rep, r, p);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_table_ugalg{"UGAL-G", "valiant n_indirect penalty threshold cost offset snapshot_period", kDrawsIntermediate | kUgalDecision | kNoNodeIntermediate, 4};

}  // namespace flitsim
