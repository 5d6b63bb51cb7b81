// UGAL-G on dragonflies (Kim et al. ISCA'08 §4.2: UGAL with global information; an ideal
// implementation that the paper uses as the bound for UGAL-L). Once, at the source router, the
// packet chooses between its minimal route and routing.n_indirect Valiant candidates, drawn
// exactly as UGAL-L draws them (dragonfly_ugal.cuh: same draws, same links), but each
// candidate is judged by the queue of its whole path instead of its first hop:
//   Q(path) = Σ over the path's router-to-router channels of their congestion: the first hop,
//             a port of this router, live (port_congestion, as UGAL-L: it also sees the heads
//             routed earlier in this cycle); every later hop, a port of another router, from
//             the congestion snapshot (routing/snapshot.cuh: port_congestion at the end of the
//             previous snapshot epoch). For parallel local links the least congested counts.
// The sum (not the max) estimates the queueing delay along the path: every buffered flit
// ahead of the packet costs it a cycle on some hop, wherever it sits. The minimal path is
// local hops to the chosen link's router, the link, local hops to the destination. A Valiant
// candidate's path is its first phase (to the far end of its S→I link, VR, or to its drawn
// router of I, VA) plus the cheapest continuation over any link of the pair I→D — phase 1
// chooses that link only when it begins (by routing.selection), so the estimate is the best
// one available to it. The costs then follow ugal_cost.cuh with q = Q (queue: C_M = Q_M,
// C_I = c·Q_I + offset; hops; booksim); routing.threshold compares Q_M with T% of one port's
// buffer. Ties go to the minimal route. Afterwards the packet follows the chosen route exactly
// like UGAL-L; nothing is re-decided.
// Deadlock avoidance and packet state: those of UGAL-L (dragonfly_ugal.cuh): Valiant's classes
// (VR 3, VA 4), a minimal packet on L0, any global VC, and the last local class.
// Race freedom: the snapshot is read only from the half no router writes in this cycle.
#pragma once
#include "dragonfly_ugal.cuh"
#include "snapshot.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

// Snapshot queue of the local hops from r to router j of the same group.
FLITSIM_HD int df_snap_local(const SimView& s, long long base, int r, int j) {
  int q = 0;
  while (r != j) {
    const long long k = (long long)r * s.sz.df_a + j % s.sz.df_a;
    const int p0 = s.df_local_port[k], n = s.df_local_links[k];
    int best = snap_q(s, base, p0);
    for (int i = 1; i < n; ++i) {
      const int qi = snap_q(s, base, p0 + i);
      if (qi < best) best = qi;
    }
    q += best;
    r = s.port_router[s.peer_port[p0]];
  }
  return q;
}

// Snapshot queue from r (in the link's group) over global port gp to router `aim` of the far
// group (−1: to the far end).
FLITSIM_HD int df_snap_via(const SimView& s, long long base, int r, int gp, int aim) {
  const int far = s.port_router[s.peer_port[gp]];
  return df_snap_local(s, base, r, s.port_router[gp]) + snap_q(s, base, gp) +
         (aim < 0 ? 0 : df_snap_local(s, base, far, aim));
}

// Queue of the path from the source router r over global port gp (of r's group) to router
// `aim` of the far group (−1: its far end), or to router `aim` of r's own group (gp = −1): the
// first hop live (r's own ports, df_link_occupancy), the rest from the snapshot.
FLITSIM_HD int df_path_queue(const SimView& s, int rep, long long base, int r, int gp, int aim) {
  const int gw = gp < 0 ? aim : s.port_router[gp];
  if (gw == r) return port_congestion(s, rep, gp) + (aim < 0 ? 0 : df_snap_local(s, base, s.port_router[s.peer_port[gp]], aim));
  const int next = s.port_router[s.peer_port[s.df_local_port[(long long)r * s.sz.df_a + gw % s.sz.df_a]]];
  const int q0 = df_local_occupancy(s, rep, r, gw);
  return gp < 0 ? q0 + df_snap_local(s, base, next, aim) : q0 + df_snap_via(s, base, next, gp, aim);
}

// Cheapest snapshot queue from router x (group ≠ the destination's, or = it) to the destination.
FLITSIM_HD int df_snap_to_dest(const SimView& s, long long base, int x, int dst) {
  const int a = s.sz.df_a, G = s.sz.df_G;
  if (x / a == dst / a) return df_snap_local(s, base, x, dst);
  const long long pair = (long long)(x / a) * G + dst / a;
  int best = 1 << 30;
  for (int i = s.df_gw_offset[pair]; i < s.df_gw_offset[pair + 1]; ++i) {
    const int q = df_snap_via(s, base, x, s.df_gw_ports[i], dst);
    if (q < best) best = q;
  }
  return best;
}

// The snapshot sensor of UGAL-G: each candidate's whole path queue (first hop live).
struct DfSnapshotSensor {
  long long base;  // the snapshot half this cycle reads
  FLITSIM_HD int minimal(const SimView& s, int rep, int r, const PacketInfo& p, int min_gp) const {
    return df_path_queue(s, rep, base, r, min_gp, p.dst_router);
  }
  FLITSIM_HD int indirect(const SimView& s, int rep, int r, const PacketInfo& p, const DfIndirect& c) const {
    return df_path_queue(s, rep, base, r, c.gp, s.prm.routing.valiant_any ? c.target : -1) +
           df_snap_to_dest(s, base, c.mid, p.dst_router);
  }
};

FLITSIM_HD RouteChoice route_dragonfly_ugalg(const SimView& s, int rep, int r, const PacketInfo& p, long long base) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant, by path queues
    if (r == p.dst_router) return eject_choice(s, p);
    df_ugal_decide(s, rep, r, p, df_minimal_link(s, rep, r, p), kSaltUgal, 2, DfSnapshotSensor{base});  // UGAL-L's draws
  }
  if (s.packets[p.slot].route == kDfMinimal)
    return r == p.dst_router ? eject_choice(s, p) : df_minimal_hop(s, rep, r, p, 0, kDfAnyLevel, last_class(s));
  return df_valiant_continue(s, rep, r, p);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_dragonfly_ugalg{"UGAL-G", "valiant n_indirect penalty threshold cost offset snapshot_period", kDrawsIntermediate | kUgalDecision | kNoNodeIntermediate, 1};

}  // namespace flitsim
