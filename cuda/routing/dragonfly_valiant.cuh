// Valiant routing on dragonflies (P0 §II; TARGETS §1.1, §3.1 items 3–4). The source router
// draws an intermediate group I uniformly among the groups other than the source group S and
// the destination group D (only S is excluded when S = D; a packet whose destination hangs
// off its own source router is ejected at once), then:
//   restricted (VR): minimal to the first router of I it reaches (the far end of the S→I
//                    global link), then minimal to the destination: L R | L R L (≤ 5 hops);
//   any (VA):        minimal to a router of I drawn uniformly, then minimal to the
//                    destination: L R L | L R L (≤ 6 hops).
// Each group pair crossed uses one of all the pair's global links (several below full scale):
// the S→I link is chosen at the source router, the I→D link where phase 1 begins, by
// routing.selection (random, or adaptive by occupancy × hops; dragonfly_links.cuh).
// Deadlock avoidance (hop classes, TARGETS §3.1 item 4): local hops use class
//   VR: L0 R0 | L1 R1 L2 (3 classes)     VA: L0 R0 L1 | L2 R1 L3 (4 classes)
// and the two global levels split the classes in halves: R0 uses classes [0, C/2), R1 uses
// [C/2, C) (C = vc_classes), so global VCs are not left idle. Every packet visits the
// channel/VC sets in the strictly increasing order L0 < R0 < L1 < R1 < L2 (VR) or
// L0 < R0 < L1 < L2 < R1 < L3 (VA); several hops inside one local set occur only in
// row-column groups, where they follow row-then-column order. The channel dependency graph
// is therefore acyclic.
// Packet state (written only by the router holding the head): pk_route 0 = not decided yet,
// 1 + x = phase 0 toward x (VR: group I; VA: router), −1 = phase 1 (minimal to D);
// pk_gport = the global port of the current phase while it is still in its starting group.
#pragma once
#include "dragonfly_min.cuh"

namespace flitsim {

constexpr int kSaltValiant = 0x10000;  // route_draw salts of the intermediate choice

// Intermediate group uniform over the groups other than g and dg (other than g if g = dg).
FLITSIM_HD int df_draw_group(const SimView& s, int rep, const PacketInfo& p, int g, int dg, int salt) {
  const int lo = g < dg ? g : dg, hi = g < dg ? dg : g;
  int ig = route_pick(s, rep, p, salt, s.sz.df_G - (g == dg ? 1 : 2));
  if (ig >= lo) ++ig;
  if (hi != lo && ig >= hi) ++ig;
  return ig;
}

// Phase-0 target for intermediate group ig: the group (VR) or a router of it drawn uniformly (VA).
FLITSIM_HD int df_valiant_target(const SimView& s, int rep, const PacketInfo& p, int ig, int salt) {
  const int a = s.sz.df_a;
  return s.prm.routing.valiant_any ? ig * a + route_pick(s, rep, p, salt, a) : ig;
}

// routing.valiant = "node" (BookSim2's dragonfly UGAL): the router of a node drawn uniformly
// from all N nodes; the route then runs as VA's toward that router (its group may be the
// destination's). The caller routes minimally when it lies in the source group.
FLITSIM_HD int df_draw_node_router(const SimView& s, int rep, const PacketInfo& p, int salt) {
  const int n = route_pick(s, rep, p, salt, s.sz.N);  // every node under enumeration
  return s.node_router[n];
}

// Continues a Valiant route whose intermediate is decided (pk_route ≠ 0). Local hops use the
// classes above shifted up by `shift` (PAR, dragonfly_par.cuh, reserves L0 for minimal hops).
FLITSIM_HD RouteChoice df_valiant_continue(const SimView& s, int rep, int r, const PacketInfo& p, int shift = 0) {
  const int a = s.sz.df_a, g = r / a, dg = p.dst_router / a;
  const bool any = s.prm.routing.valiant_any;
  const int32_t st = s.packets[p.slot].route;
  if (st > 0) {  // phase 0
    const int target = st - 1, tg = any ? target / a : target;
    if (g != tg) return df_hop_via(s, rep, r, p, s.packets[p.slot].gport, shift, 0);      // L0, R0
    if (any && r != target) return df_local_hop(s, rep, r, p, target, 1 + shift);   // L1
    // Reached the intermediate: phase 1 begins here, on a link of the pair I→D.
    s.packets[p.slot].route = -1;
    s.packets[p.slot].gport = g == dg ? -1 : df_choose_link(s, rep, r, p, dg, p.dst_router, 1);
  }
  if (r == p.dst_router) return eject_choice(s, p);
  if (g == dg) return df_local_hop(s, rep, r, p, p.dst_router, (any ? 3 : 2) + shift);  // last L
  return df_hop_via(s, rep, r, p, s.packets[p.slot].gport, (any ? 2 : 1) + shift, 1);  // L1 R1 (VR), L2 R1 (VA)
}

// VR: L0 R0 | L1 R1 L2, VA: L0 R0 L1 | L2 R1 L3 (also UGAL-L and UGAL-G, which reuse them).
// (routing.vc_scheme = "booksim", dragonfly UGAL-L only: BookSim2's 3, dragonfly_ugal.cuh.)
inline VcClasses classes_dragonfly_valiant(const ClassInputs& in) {
  return {in.booksim_vcs ? 3 : in.valiant_any ? 4 : 3};
}

FLITSIM_HD RouteChoice route_dragonfly_valiant(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) {  // at the source router: draw the intermediate
    if (r == p.dst_router) return eject_choice(s, p);
    const int a = s.sz.df_a, g = r / a, dg = p.dst_router / a;
    if (s.prm.routing.valiant_node) {
      const int target = df_draw_node_router(s, rep, p, kSaltValiant);
      if (target / a == g) {  // an intermediate in the source group: minimal, as phase 1 (L2 R1 L3)
        s.packets[p.slot].route = -1;
        s.packets[p.slot].gport = g == dg ? -1 : df_choose_link(s, rep, r, p, dg, p.dst_router, 1);
        return df_valiant_continue(s, rep, r, p);
      }
      s.packets[p.slot].gport = df_choose_link(s, rep, r, p, target / a, target, 0);
      s.packets[p.slot].route = 1 + target;
      mark_nonminimal(s, p);
      return df_valiant_continue(s, rep, r, p);
    }
    const int ig = df_draw_group(s, rep, p, g, dg, kSaltValiant);
    const int target = df_valiant_target(s, rep, p, ig, kSaltValiant + 1);
    s.packets[p.slot].gport = df_choose_link(s, rep, r, p, ig, s.prm.routing.valiant_any ? target : -1, 0);
    s.packets[p.slot].route = 1 + target;
    mark_nonminimal(s, p);
  }
  return df_valiant_continue(s, rep, r, p);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_dragonfly_valiant{"Valiant", "valiant", kDrawsIntermediate};

}  // namespace flitsim
