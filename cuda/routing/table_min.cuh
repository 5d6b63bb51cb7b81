// Minimal routing for any topology from the all-pairs distance table: every port whose peer
// is one hop closer to the destination is a candidate (all minimal paths kept). `oblivious`
// picks one at random per packet and hop; `adaptive` (MIN-AD) the one with the most free
// credits (ties: the first after a random start, so no port is favoured). VC class = router
// hops taken so far, capped at vc_classes − 1: with as many classes as the diameter this is
// the classic distance-class scheme; topologies whose minimal routes are deadlock-free with
// fewer classes (up*/down* trees) declare min_vc_classes.
#pragma once
#include "route_choice.cuh"

namespace flitsim {

// One minimal hop from router r toward router `target` on the VCs of class `cls`; the random
// pick is keyed by `salt` (the hop count, so each hop of a packet draws afresh).
FLITSIM_HD RouteChoice table_min_toward(const SimView& s, int rep, int r, const PacketInfo& p, int target,
                                        int cls, int salt) {
  const long long R = s.sz.dist_R;
  const int d = s.dist[r * R + target];
  const int lo = s.class_vc_lo(cls), hi = s.class_vc_hi(cls);
  int count = 0, best = -1, best_credits = -1;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) {
    const int q = s.peer_port[gp];
    count += q >= 0 && s.dist[s.port_router[q] * R + target] == d - 1;
  }
  if (s.prm.routing.selection == Selection::Adaptive && !branching(p)) {  // most free credits; ties: first after a random start
    const int p0 = s.port_offset[r], n = s.port_offset[r + 1] - p0;
    const int start = count > 1 ? int(draw_below(route_draw(s, rep, p, salt), uint32_t(n))) : 0;
    for (int i = 0, k = start; i < n; ++i, k = next_mod(k, n)) {
      const int gp = p0 + k, q = s.peer_port[gp];
      if (q < 0 || s.dist[s.port_router[q] * R + target] != d - 1) continue;
      const int c = free_credits(s, rep, gp, lo + p.vc_base, hi + p.vc_base);
      if (c > best_credits) best = gp, best_credits = c;
    }
  } else {
    int pick = route_pick(s, rep, p, salt, count);  // (enumeration: every minimal port)
    for (int gp = s.port_offset[r];; ++gp) {
      const int q = s.peer_port[gp];
      if (q < 0 || s.dist[s.port_router[q] * R + target] != d - 1) continue;
      if (pick-- == 0) {
        best = gp;
        break;
      }
    }
  }
  return RouteChoice{best, lo, hi};
}

// Distance classes (also up*/down*, whose trees declare min_vc_classes = 1).
inline VcClasses classes_table_min(const ClassInputs& in) { return {in.min_classes}; }

FLITSIM_HD RouteChoice route_table_min(const SimView& s, int rep, int r, const PacketInfo& p) {
  const int hops = s.packets[p.slot].hops;
  const int cls = hops < s.prm.routing.vc_classes - 1 ? hops : s.prm.routing.vc_classes - 1;
  return table_min_toward(s, rep, r, p, p.dst_router, cls, hops);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_table_min{"MIN", "", 0};

}  // namespace flitsim
