// Dimension-order routing on HyperX (P4 Table 2 "DOR"): the packet aligns dimension 0, then
// 1, ..., each in one hop (every dimension is a complete graph); trunked links of a hop are
// picked by routing.selection. Hop count = number of differing coordinates.
// Deadlock avoidance: one VC class. Order the channels by dimension: a packet that holds a
// channel of dimension d waits only for a channel of a higher dimension (or the ejection
// port), because it crosses each dimension at most once and in increasing order. Every
// dependency therefore goes up that order and the channel dependency graph is acyclic — unlike
// a torus, a HyperX dimension has no ring to close a cycle inside it, so no dateline class is
// needed.
#pragma once
#include "hyperx_common.cuh"

namespace flitsim {

inline VcClasses classes_hyperx_dor(const ClassInputs&) { return {1}; }

FLITSIM_HD RouteChoice route_hyperx_dor_toward(const SimView& s, int rep, int r, const PacketInfo& p, int x, int cls) {
  const Hx hx = hyperx(s);
  int d = 0;
  while (hx.coord(r, d) == hx.coord(x, d)) ++d;  // r ≠ x
  const int lo = s.class_vc_lo(cls), hi = s.class_vc_hi(cls);
  return RouteChoice{pick_parallel(s, rep, p, hx.port(r, d, hx.coord(x, d)), hx.trunk(d), lo, hi, s.packets[p.slot].hops),
                     lo, hi};
}

FLITSIM_HD RouteChoice route_hyperx_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  return route_hyperx_dor_toward(s, rep, r, p, p.dst_router, 0);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_dor{"DOR", "", 0};

}  // namespace flitsim
