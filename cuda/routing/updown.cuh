// Up*/down* routing in trees (fattree, xgft): up toward a nearest common ancestor of source
// and destination, then down. In a tree these are exactly the minimal routes (distance table):
// every up port is minimal while the destination is outside the subtree, and the way down is
// unique up to parallel links. The choice among the equivalent up ports (routing.selection):
//   dmodk (default)   D-mod-k, static and destination-based (OpenSM ftree's key property,
//                     TARGETS §3.2 item 5): at the l-th hop that has a choice among n ports the
//                     packet takes candidate ⌊d / (n_1·…·n_{l−1})⌋ mod n (d = destination node).
//                     In an XGFT that is Zahavi's / Gómez's ⌊d / (w_1·…·w_l)⌋ mod w_{l+1} at
//                     level l, i.e. d mod k, ⌊d/k⌋ mod k, ... in a k-ary n-tree;
//   random            uniformly per packet and hop;
//   adaptive          the candidate with the most free credits (in the packet's VC class);
//   two-choice        the less occupied of two candidates drawn at random (BookSim2's fattree
//                     anca: two independent draws, which may coincide; fewer flits downstream,
//                     port_occupancy, ties to the first). Every head that routes at a router in
//                     one cycle reads the same credits, so "adaptive" sends them all to the one
//                     emptiest port (they herd, and the port's credits drop only after they
//                     leave); two random candidates per head spread them while still avoiding
//                     a loaded port (docs/validation.md, "BookSim2's conventions in the preset").
// Deadlock avoidance: one VC class. An up hop never follows a down hop, so ordering all up
// channels (by level, upward) before all down channels (by level, downward) makes every
// dependency go forward: the channel dependency graph is acyclic.
// Packet state pk_route (D-mod-k): the product n_1·…·n_{l−1} so far (0 stands for 1).
#pragma once
#include "table_min.cuh"

namespace flitsim {

// The salt of the second draw of "two-choice" (the first uses the hop count, far below it).
constexpr int kSecondDrawSalt = 1 << 20;

FLITSIM_HD RouteChoice updown_two_choice(const SimView& s, int rep, int r, const PacketInfo& p) {
  const long long R = s.sz.dist_R;
  const int d = s.dist[r * R + p.dst_router], salt = s.packets[p.slot].hops;
  const auto candidate = [&](int gp) {
    const int q = s.peer_port[gp];
    return q >= 0 && s.dist[s.port_router[q] * R + p.dst_router] == d - 1;
  };
  const auto nth = [&](int k) {  // the k-th candidate port (0 <= k < n)
    for (int gp = s.port_offset[r];; ++gp)
      if (candidate(gp) && k-- == 0) return gp;
  };
  int n = 0;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) n += candidate(gp);
  // One candidate, or enumeration (route_pick: every candidate is a possible route).
  if (n <= 1 || branching(p)) return route_in_class(s, nth(route_pick(s, rep, p, salt, n)), 0);
  const int a = nth(int(draw_below(route_draw(s, rep, p, salt), uint32_t(n))));
  const int b = nth(int(draw_below(route_draw(s, rep, p, salt + kSecondDrawSalt), uint32_t(n))));
  return route_in_class(s, port_occupancy(s, rep, b) < port_occupancy(s, rep, a) ? b : a, 0);
}

FLITSIM_HD RouteChoice route_updown(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.prm.routing.selection == Selection::TwoChoice) return updown_two_choice(s, rep, r, p);
  if (s.prm.routing.selection != Selection::DModK) return table_min_toward(s, rep, r, p, p.dst_router, 0, s.packets[p.slot].hops);
  const long long R = s.sz.dist_R;
  const int d = s.dist[r * R + p.dst_router];
  int n = 0;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) {
    const int q = s.peer_port[gp];
    n += q >= 0 && s.dist[s.port_router[q] * R + p.dst_router] == d - 1;
  }
  const int32_t prod = s.packets[p.slot].route > 0 ? s.packets[p.slot].route : 1;
  int pick = int((long long)dst_node(s, p) / prod % n);
  if (n > 1) s.packets[p.slot].route = prod * n;
  for (int gp = s.port_offset[r];; ++gp) {
    const int q = s.peer_port[gp];
    if (q >= 0 && s.dist[s.port_router[q] * R + p.dst_router] == d - 1 && pick-- == 0) return route_in_class(s, gp, 0);
  }
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_updown{"up*/down*", "", kDModK};

}  // namespace flitsim
