// Valiant on dimension-order routes, shared by the HyperX and torus routings (valiant-dor,
// ugal-dor): the source router picks an intermediate router, then the packet follows DOR to
// it in phase 0 and DOR to its destination in phase 1, each phase in its own block of VC
// classes. A topology supplies `Dor` with two static functions:
//   toward(s, rep, r, p, target, phase) -> RouteChoice   DOR hop toward target in that phase
//   intermediate(s, rep, r, p, salt)    -> int           the intermediate drawn at the source
// Packet state pk_route: 0 at the source; 1 + intermediate in phase 0; −1 in phase 1.
#pragma once
#include "route_choice.cuh"

namespace flitsim {

// A router drawn uniformly among all routers but r and the destination's (r ≠ destination).
FLITSIM_HD int router_other_than_ends(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
  int e0 = r, e1 = p.dst_router;
  if (e0 > e1) e0 = p.dst_router, e1 = r;
  int k = route_pick(s, rep, p, salt, s.sz.R - 2);
  if (k >= e0) ++k;
  if (k >= e1) ++k;
  return k;
}

// The hops after the source router's decision. shortcut: a phase-0 packet ejects at its
// destination (routing.valiant = "node", as BookSim2's valiant routings).
template <class Dor>
FLITSIM_HD RouteChoice dor_phases(const SimView& s, int rep, int r, const PacketInfo& p, bool shortcut) {
  int32_t st = s.packets[p.slot].route;
  if (st > 0) {  // phase 0
    if (shortcut && r == p.dst_router) return eject_choice(s, p);
    if (r != st - 1) return Dor::toward(s, rep, r, p, st - 1, 0);
    st = -1;  // reached the intermediate
    s.packets[p.slot].route = st;
  }
  if (r == p.dst_router) return eject_choice(s, p);
  return Dor::toward(s, rep, r, p, p.dst_router, 1);
}

// valiant-dor: at the source router draw the intermediate (an end router means a minimal
// route, phase 1 from the start), then the two phases.
template <class Dor>
FLITSIM_HD RouteChoice route_valiant_dor_phases(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
  if (s.packets[p.slot].route == 0) {
    if (r == p.dst_router) return eject_choice(s, p);
    const int x = Dor::intermediate(s, rep, r, p, salt);
    const bool detour = x != r && x != p.dst_router;
    s.packets[p.slot].route = detour ? 1 + x : -1;
    if (detour) mark_nonminimal(s, p);
  }
  return dor_phases<Dor>(s, rep, r, p, s.prm.routing.valiant_node);
}

}  // namespace flitsim
