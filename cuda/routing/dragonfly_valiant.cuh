// Valiant routing on dragonflies (P0 §II; TARGETS §1.1, §3.1 items 3–4). The source router
// draws an intermediate group I uniformly among the groups other than the source group S and
// the destination group D (only S is excluded when S = D; a packet whose destination hangs
// off its own source router is ejected at once), then:
//   restricted (VR): minimal to the first router of I it reaches (the far end of the S→I
//                    global link), then minimal to the destination: L R | L R L (≤ 5 hops);
//   any (VA):        minimal to a router of I drawn uniformly, then minimal to the
//                    destination: L R L | L R L (≤ 6 hops).
// Deadlock avoidance (hop classes, TARGETS §3.1 item 4): local hops use class
//   VR: L0 R0 | L1 R1 L2 (3 classes)     VA: L0 R0 L1 | L2 R1 L3 (4 classes)
// and the two global levels split the classes in halves: R0 uses classes [0, C/2), R1 uses
// [C/2, C) (C = vc_classes), so global VCs are not left idle. Every packet visits the
// channel/VC sets in the strictly increasing order L0 < R0 < L1 < R1 < L2 (VR) or
// L0 < R0 < L1 < L2 < R1 < L3 (VA); several hops inside one local set occur only in
// row-column groups, where they follow row-then-column order. The channel dependency graph
// is therefore acyclic.
// Packet state pk_route (written only by the router holding the head): 0 = not decided yet,
// 1 + x = phase 0 toward x (VR: group I; VA: router), -1 = phase 1 (minimal to D).
#pragma once
#include "route_choice.cuh"

namespace flitsim {

constexpr int kSaltValiant = 0x10000;  // route_draw salts of the intermediate choice

// Global hop of level 0 or 1 (see the VC scheme above).
FLITSIM_HD RouteChoice df_global_hop(const SimView& s, int port, int level) {
  const int C = s.prm.vc_classes;
  if (C < 2) return route_in_class(s, port, 0);
  const int lo = level == 0 ? 0 : C / 2, hi = level == 0 ? C / 2 : C;
  return RouteChoice{port, s.class_vc_lo(lo), s.class_vc_hi(hi - 1)};
}

// One hop toward group tg (≠ r's group): to the gateway router, or over its global link.
FLITSIM_HD RouteChoice df_toward_group(const SimView& s, int r, int tg, int local_cls, int level) {
  const int a = s.sz.df_a, G = s.sz.df_G, g = r / a;
  const int gw = s.df_gateway_router[g * G + tg];
  if (gw == r) return df_global_hop(s, s.df_gateway_port[g * G + tg], level);
  return route_in_class(s, s.df_local_port[r * a + gw % a], local_cls);
}

FLITSIM_HD RouteChoice route_dragonfly_valiant(const SimView& s, int rep, int r, const PacketInfo& p) {
  const int a = s.sz.df_a, G = s.sz.df_G, g = r / a, dg = p.dst_router / a;
  const bool any = s.prm.valiant_any;
  int32_t st = s.pk_route[p.slot];
  if (st == 0) {  // at the source router: draw the intermediate
    if (r == p.dst_router) return eject_choice(s, p);
    const int lo = g < dg ? g : dg, hi = g < dg ? dg : g;
    int ig = int(draw_below(route_draw(s, rep, p, kSaltValiant), uint32_t(G - (g == dg ? 1 : 2))));
    if (ig >= lo) ++ig;
    if (hi != lo && ig >= hi) ++ig;
    const int target = any ? ig * a + int(draw_below(route_draw(s, rep, p, kSaltValiant + 1), uint32_t(a))) : ig;
    st = 1 + target;
    s.pk_route[p.slot] = st;
    count_nonminimal(s, rep, p);
  }
  if (st > 0) {  // phase 0
    const int target = st - 1, tg = any ? target / a : target;
    if (g != tg) return df_toward_group(s, r, tg, 0, 0);                     // L0, R0
    if (any && r != target) return route_in_class(s, s.df_local_port[r * a + target % a], 1);  // L1
    st = -1;  // reached the intermediate: phase 1
    s.pk_route[p.slot] = st;
  }
  if (r == p.dst_router) return eject_choice(s, p);
  if (g == dg) return route_in_class(s, s.df_local_port[r * a + p.dst_router % a], any ? 3 : 2);  // last L
  return df_toward_group(s, r, dg, any ? 2 : 1, 1);  // L1 R1 (VR) or L2 R1 (VA)
}

}  // namespace flitsim
