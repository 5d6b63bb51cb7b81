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

FLITSIM_HD RouteChoice route_torus_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  int ring_class;
  const int port = cube_dor_port(s, rep, p, r, p.dst_router, &ring_class);
  return route_in_class(s, port, ring_class);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_torus_dor{"DOR", "", 0};

}  // namespace flitsim
