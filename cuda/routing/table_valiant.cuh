// Generic Valiant routing for table-routed topologies (Slim Fly, MLFM, OFT, HyperX, trees,
// graphs; P3 "INR"): the source router draws an intermediate router uniformly among the
// routers with terminals other than the source and destination routers (P3:L227–L229), routes
// minimally to it, then minimally to the destination (table_min_toward, all minimal next hops).
// A packet whose destination hangs off its source router is ejected at once.
// rt_table: [0, m) the routers with terminals; [m, m + R) each router's position in that list
// (−1 if it has none); m = rt_len − R.
// Deadlock avoidance: each phase is a minimal route and uses its own block of
// phase_classes classes (phase 0: [0, c), phase 1: [c, 2c), c = phase_classes), inside which
// the class is the hop index within the phase capped at c − 1 — the same scheme as
// table_min (distance classes, c = diameter, or c = min_vc_classes where minimal routes are
// deadlock-free with fewer, e.g. up*/down* in trees). Each block is acyclic like table_min,
// and dependencies only lead from block 0 to block 1 (the turn at the intermediate), never
// back, so the channel dependency graph is acyclic with 2c classes (Slim Fly: 4; MLFM, OFT: 2).
// Packet state pk_route: 0 = not decided, 1 + x = phase 0 toward router x,
// −(1 + h) = phase 1, begun after h router hops.
#pragma once
#include "table_min.cuh"

namespace flitsim {

constexpr int kSaltTableValiant = 0x20000;

// An intermediate router drawn uniformly among the routers with terminals other than r and
// the destination router (r ≠ the destination router; both have terminals, so both are listed).
FLITSIM_HD int table_valiant_draw(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
  const int R = s.sz.R, m = s.sz.rt_len - R;
  const int* pos = s.rt_table + m;
  int e0 = pos[r], e1 = pos[p.dst_router];
  if (e0 > e1) {
    const int t = e0;
    e0 = e1, e1 = t;
  }
  int k = route_pick(s, rep, p, salt, m - 2);
  if (k >= e0) ++k;
  if (k >= e1) ++k;
  return s.rt_table[k];
}

// routing.valiant = "node" (BookSim2's flatfly Valiant): the router of a node drawn uniformly from
// all N nodes, the source's and the destination's routers included; when it is one of them the
// packet routes minimally (phase 1 from the start), and a phase-0 route that meets the
// destination router ejects there. Both keep block 0 before block 1: still acyclic.
FLITSIM_HD int table_node_router(const SimView& s, int rep, const PacketInfo& p, int salt) {
  const int n = route_pick(s, rep, p, salt, s.sz.N);  // every node under enumeration
  return s.node_router[n];
}

// Two phases of phase_classes each (also table UGAL-L and UGAL-G).
inline VcClasses classes_table_valiant(const ClassInputs& in) { return {2 * in.min_classes, in.min_classes}; }

// node_shortcut: whether "node" mode ejects a phase-0 packet that meets its destination router
// (BookSim2's valiant_flatfly does, its ugal_flatfly does not).
FLITSIM_HD RouteChoice route_table_valiant(const SimView& s, int rep, int r, const PacketInfo& p,
                                           bool node_shortcut = true) {
  const int c = s.prm.routing.phase_classes, hops = s.packets[p.slot].hops;
  int32_t st = s.packets[p.slot].route;
  if (st == 0) {  // at the source router: draw the intermediate
    if (r == p.dst_router) return eject_choice(s, p);
    const int x = s.prm.routing.valiant_node ? table_node_router(s, rep, p, kSaltTableValiant)
                                     : table_valiant_draw(s, rep, r, p, kSaltTableValiant);
    st = x == r || x == p.dst_router ? -1 : 1 + x;  // -1: "node" drew an end router, minimal
    s.packets[p.slot].route = st;
    if (st > 0) mark_nonminimal(s, p);
  }
  if (st > 0) {  // phase 0
    const int target = st - 1;
    if (node_shortcut && s.prm.routing.valiant_node && r == p.dst_router) return eject_choice(s, p);  // BookSim2 Valiant
    if (r != target) return table_min_toward(s, rep, r, p, target, hops < c - 1 ? hops : c - 1, hops);
    st = -(1 + hops);  // reached the intermediate: phase 1
    s.packets[p.slot].route = st;
  }
  if (r == p.dst_router) return eject_choice(s, p);
  const int h1 = hops - (-st - 1);
  return table_min_toward(s, rep, r, p, p.dst_router, c + (h1 < c - 1 ? h1 : c - 1), hops);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_table_valiant{"Valiant", "valiant", kDrawsIntermediate};

}  // namespace flitsim
