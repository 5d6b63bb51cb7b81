// DimWAR on HyperX (P4 §5.1): incremental, dimension-ordered, weighted adaptive routing. At
// every router the valid outputs are those of the first unaligned dimension d only: the
// minimal output(s) toward the destination's coordinate, and — only if the packet arrived on
// the first resource class, i.e. has not derouted in d yet — deroutes to any other
// coordinate of d. Weights: minimal H·q, deroute (H + 1)·(q + routing.offset), H = unaligned
// dimensions left, q = the port's occupancy (hyperx_common.cuh); the lightest wins, ties stay
// minimal. So a packet deroutes at most once per dimension, where it meets congestion.
// Deadlock avoidance: 2 VC classes (P4 step 1): minimal hops use class 0, deroutes class 1.
// In dimension d a packet takes either [min] or [deroute, min]; dimensions in increasing
// order. Ordering the channel classes (d, class 1) < (d, class 0) < (d + 1, class 1) < ...,
// every dependency (deroute -> minimal hop in d; minimal hop in d -> any hop in a later
// dimension) goes upward, so the channel dependency graph is acyclic, with 2 classes whatever
// the number of dimensions. routing.deroute_class = "first" takes SuperSim's order instead
// (its dimension_order DAL): the first hop in a dimension, minimal or deroute, on class 0, the
// hop after a deroute on class 1; ordering (d, 0) < (d, 1) < (d + 1, 0) < ... it is equally
// acyclic.
// routing.sensing = "class" senses both kinds of output on the class of this hop (SuperSim's
// dimension-ordered DAL weighs minimal and deroute outputs on the packet's one VC set): class 0
// for a first hop in the dimension in either order; sensing a deroute on class 1 in P4's order,
// where few packets are, derouted half of UR. In P4's order the deroutes travel on class 1,
// which class sensing then does not see, so DimWAR herds onto them (docs/validation.md: under
// bit complement 0.27 against SuperSim's 0.34-0.36; 0.35 with "first").
// Packet state pk_route: 1 = the last hop was a deroute (current class 1), else 0. (Marking a
// packet non-minimal is idempotent, so no "already counted" bit is kept.)
#pragma once
#include "hyperx_common.cuh"

namespace flitsim {

inline VcClasses classes_hyperx_dimwar(const ClassInputs&) { return {2}; }  // minimal, deroute

FLITSIM_HD RouteChoice route_hyperx_dimwar(const SimView& s, int rep, int r, const PacketInfo& p) {
  const Hx hx = hyperx(s);
  const int32_t st = s.packets[p.slot].route;
  int d = 0;
  while (hx.coord(r, d) == hx.coord(p.dst_router, d)) ++d;  // r is not the destination router
  int deroute_dim;
  // The class a minimal hop from here takes: 0 in P4's order; in SuperSim's, 1 for the hop
  // after a deroute (st == 1, which may not deroute). Class sensing weighs every output on it.
  const bool first = s.prm.routing.deroute_first_class;
  const int min_class = first && st == 1 ? 1 : 0;
  const int port = hx_weighted_choice(s, rep, p, r, p.dst_router, 1ull << d, st == 0, 1ull << d, min_class,
                                      min_class, &deroute_dim);
  const bool deroute = deroute_dim >= 0;
  if (deroute) mark_nonminimal(s, p);
  s.packets[p.slot].route = deroute ? 1 : 0;
  return route_in_class(s, port, first ? min_class : (deroute ? 1 : 0));
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_dimwar{"DimWAR", "offset sensing congestion deroute_class", 0, 0, 4};

}  // namespace flitsim
