// Dimension-order routing on tori and meshes (Dally & Towles §14.4; BookSim2's dim_order_torus
// and dim_order_mesh): the packet crosses dimension 0, then 1, ..., each the short way around
// (torus_common.cuh, which also states the even-radix tie rule). Hop count = Σ ring distances.
// Deadlock avoidance: dateline classes. A mesh needs one VC class: channels ordered by
// dimension, and within a dimension by position along the packet's direction, every
// dependency goes up that order (no ring closes a cycle). A ring closes one, so a torus (any
// dimension that wraps) needs 2 classes: a hop is in class 1 while the packet still has to
// cross its ring's wrap-around link (between W − 1 and 0), in class 0 once it has crossed it
// or when its way never crosses it. Order the channels by (dimension, class 1 before class 0,
// position along the direction counted from the wrap-around link): class-1 hops lead only to
// class-1 hops further toward the wrap-around link (which is itself a class-1 hop) or, after
// it, to class-0 hops; class-0 hops never take the wrap-around link, so they only climb; a new
// dimension is higher still. Acyclic. BookSim2 decides the class once where the dimension
// begins (1 for the whole dimension if its way crosses) and keeps it after the crossing; the
// rule here reads it from the router and the destination alone (no packet state), so it
// drops to class 0 after the crossing — the same 2 classes, the same channels in class 1 up to
// the wrap-around link.
#pragma once
#include "torus_common.cuh"

namespace flitsim {

// 2 classes when some dimension wraps (the dateline), 1 on a mesh.
inline VcClasses classes_torus_dor(const ClassInputs& in) { return {in.rings > 0 ? 2 : 1}; }

// routing.dateline = "sticky" or "booksim": the class is decided where the packet enters a
// dimension and kept to its end, as BookSim2's dor_next_torus sets its partition only when the
// packet turns into a new dimension. "sticky": 1 for the whole dimension if the way crosses the
// wrap-around link, else 0. "booksim" also copies BookSim2's test for the left (−) direction,
// `dest < cur`: left-going packets that do *not* cross take class 1, those that cross class 0.
// Both acyclic: the class that never crosses never takes the wrap-around link, and every route
// of the crossing class includes it and is minimal (at most ⌊W/2⌋ hops), so those routes never
// reach the channel opposite the link and their dependencies cannot go round the ring.
// crossing_class: the default rule's class here, which where the dimension begins is 1 exactly
// when the way crosses. Packet state pk_route: 0 before the first hop, then 1 + 2·d + class
// while in dimension d.
FLITSIM_HD int entry_ring_class(const SimView& s, const PacketInfo& p, int r, int port, int crossing_class) {
  const Cube c = cube(s);
  int d = 0;
  while (c.coord(r, d) == c.coord(p.dst_router, d)) ++d;  // r ≠ destination
  const int32_t st = s.packets[p.slot].route;
  if (st > 0 && (st - 1) >> 1 == d) return (st - 1) & 1;
  int cls = crossing_class;
  if (s.prm.routing.dateline == Dateline::BookSim && c.wraps(d) && port == c.port(r, d, 1))
    cls = c.coord(p.dst_router, d) < c.coord(r, d) ? 1 : 0;
  s.packets[p.slot].route = 1 + 2 * d + cls;
  return cls;
}

FLITSIM_HD RouteChoice route_torus_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  int ring_class;
  const int port = cube_dor_port(s, rep, p, r, p.dst_router, &ring_class);
  if (s.prm.routing.dateline != Dateline::Crossing) ring_class = entry_ring_class(s, p, r, port, ring_class);
  return route_in_class(s, port, ring_class);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_torus_dor{"DOR", "dateline", 0};

}  // namespace flitsim
