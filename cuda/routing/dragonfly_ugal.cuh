// UGAL-L on dragonflies (Kim et al. 2008; P2 §3.3 item 1; BookSim2 ugal_dragonflynew). Once,
// at the source router, the packet chooses between its minimal route (dragonfly_min.cuh) and
// routing.n_indirect Valiant candidates (dragonfly_valiant.cuh, restricted or any as set by
// routing.valiant), each drawn like Valiant's intermediate together with the link it would
// leave the source group on. Each candidate is judged by the occupancy of its first-hop output
// port at this router (port_congestion: local state only) and the cost rule of ugal_cost.cuh;
// ties go to the minimal route. Afterwards the packet follows the chosen route with that
// route's own link choices; nothing is re-decided.
// Deadlock avoidance: Valiant's classes (VR 3, VA 4: L0 R0 | L1 R1 L2 or L0 R0 L1 | L2 R1 L3).
// A minimal packet uses L0 for hops in the source group, any VC of the global port (R0 ∪ R1)
// for its global hop and the last local class (L2 / L3) in the destination group. Global
// channels carry only R0 and R1, both of which lie between L0 and L_last in Valiant's
// increasing order, so the union of both kinds of routes keeps every dependency going up that
// order: the channel dependency graph stays acyclic.
// Packet state: as Valiant (pk_route 1 + x, −1; pk_gport), plus kDfMinimal for a minimal
// decision (pk_gport = its link).
#pragma once
#include "dragonfly_valiant.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltUgal = 0x40000;  // + 4·candidate (+1): intermediate group and router

// The pieces UGAL-L, UGAL-G and PAR share: the hop count of the minimal candidate, drawing
// an indirect (Valiant) candidate, and recording the decision in the packet.
FLITSIM_HD int df_min_candidate_hops(const SimView& s, int r, int min_gp, const PacketInfo& p, bool same_group) {
  return same_group ? df_local_dist(s, r, p.dst_router) : df_link_hops(s, r, min_gp, p.dst_router);
}

// Local congestion of the minimal candidate: the first hop toward the destination router
// (same group) or toward the chosen global link min_gp.
FLITSIM_HD int df_min_candidate_queue(const SimView& s, int rep, int r, int min_gp, const PacketInfo& p,
                                      bool same_group) {
  return same_group ? df_local_occupancy(s, rep, r, p.dst_router) : df_link_occupancy(s, rep, r, min_gp);
}

struct DfIndirect {
  int gp;      // the global link toward the intermediate group
  int target;  // Valiant state: the intermediate group (restricted) or router (any)
  int mid;     // the router where the minimal phase toward the destination begins
  bool usable = true;  // routing.valiant = "node": false when the intermediate is in the source group
};

FLITSIM_HD DfIndirect df_draw_indirect(const SimView& s, int rep, int r, const PacketInfo& p, int g, int dg,
                                       int salt, int link_salt) {
  const bool any = s.prm.routing.valiant_any;
  DfIndirect c;
  if (s.prm.routing.valiant_node) {  // BookSim2: a random node's router; in the source group (or when the
    c.target = c.mid = df_draw_node_router(s, rep, p, salt);  // destination is) the packet stays minimal
    c.usable = c.target / s.sz.df_a != g && g != dg;
    c.gp = c.usable ? df_choose_link(s, rep, r, p, c.target / s.sz.df_a, c.target, link_salt) : -1;
    return c;
  }
  const int ig = df_draw_group(s, rep, p, g, dg, salt);
  c.target = df_valiant_target(s, rep, p, ig, salt + 1);
  c.gp = df_choose_link(s, rep, r, p, ig, any ? c.target : -1, link_salt);
  c.mid = any ? c.target : s.port_router[s.peer_port[c.gp]];
  return c;
}

FLITSIM_HD int df_indirect_hops(const SimView& s, int r, const DfIndirect& c, const PacketInfo& p) {
  if (!c.usable) return 0;  // never offered
  return df_link_hops(s, r, c.gp, c.mid) + df_min_hops(s, c.mid, p.dst_router);
}

FLITSIM_HD void df_commit_decision(const SimView& s, const PacketInfo& p, const BestChoice& best) {
  s.packets[p.slot].gport = best.port;
  if (best.nonminimal) {
    s.packets[p.slot].route = 1 + best.aux;
    mark_nonminimal(s, p);
  } else {
    s.packets[p.slot].route = kDfMinimal;
  }
}

// The live sensor of UGAL-L and PAR: each candidate's first-hop queue at this router.
struct DfLiveSensor {
  FLITSIM_HD int minimal(const SimView& s, int rep, int r, const PacketInfo& p, int min_gp) const {
    return df_min_candidate_queue(s, rep, r, min_gp, p, r / s.sz.df_a == p.dst_router / s.sz.df_a);
  }
  FLITSIM_HD int indirect(const SimView& s, int rep, int r, const PacketInfo&, const DfIndirect& c) const {
    return c.usable ? df_link_occupancy(s, rep, r, c.gp) : 0;
  }
};

// The minimal candidate's global link from the source router (-1: destination in this group).
FLITSIM_HD int df_minimal_link(const SimView& s, int rep, int r, const PacketInfo& p) {
  const int a = s.sz.df_a, dg = p.dst_router / a;
  return r / a == dg ? -1 : df_choose_link(s, rep, r, p, dg, p.dst_router, 0);
}

// The dragonfly UGAL decision at router r: candidates (the minimal one over min_gp, indirect
// ones drawn with `salt` + 4j and link draws `link_salt` + j), judged by `sensor`, selected by
// ugal_select, recorded in the packet.
template <class Sensor>
FLITSIM_HD void df_ugal_decide(const SimView& s, int rep, int r, const PacketInfo& p, int min_gp, int salt,
                               int link_salt, const Sensor& sensor) {
  const int a = s.sz.df_a, g = r / a, dg = p.dst_router / a;
  const bool hops = ugal_cost_reads_hops(s);
  const UgalCandidate min{sensor.minimal(s, rep, r, p, min_gp), hops ? df_min_candidate_hops(s, r, min_gp, p, g == dg) : 0,
                          min_gp, -1};
  df_commit_decision(s, p, ugal_select(s, p, min, [&](int j) {
    const DfIndirect c = df_draw_indirect(s, rep, r, p, g, dg, salt + 4 * j, link_salt + j);
    return UgalCandidate{sensor.indirect(s, rep, r, p, c), hops ? df_indirect_hops(s, r, c, p) : 0, c.gp, c.target,
                         c.usable};
  }));
}

// routing.vc_scheme = "booksim": BookSim2's ugal_dragonflynew VCs instead of the classes above
// (3 classes, one VC each under router.vc_policy = "by-hop"): class 0 for every hop toward the
// intermediate (local, global and local alike), class 1 for the hops of the minimal route, or
// of the phase after the intermediate, before its global hop, class 2 for that global hop and
// every hop after it (and for every hop of a packet whose destination is in its source group).
// Ejection keeps any VC. NOT deadlock-free: class 0 chains local and global channels of
// different groups into cycles (check_deadlock finds one); it exists to compare with BookSim2.
FLITSIM_HD RouteChoice df_booksim_vcs(const SimView& s, int r, const PacketInfo& p, const RouteChoice& c) {
  if (c.port < 0 || s.peer_port[c.port] < 0) return c;  // ejection
  const int a = s.sz.df_a, g = r / a, dg = p.dst_router / a;
  const bool global = s.port_router[s.peer_port[c.port]] / a != g;
  int cls = 1;
  if (s.packets[p.slot].route > 0) cls = 0;                          // toward the intermediate
  else if (p.src_router / a == dg || global) cls = 2;           // in-group packet; the global hop
  else if (g == dg && s.packets[p.slot].gport >= 0) cls = 2;         // after this phase's global hop
  return route_in_class(s, c.port, cls);
}

FLITSIM_HD RouteChoice route_dragonfly_ugal(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant?
    if (r == p.dst_router) return eject_choice(s, p);
    df_ugal_decide(s, rep, r, p, df_minimal_link(s, rep, r, p), kSaltUgal, 2, DfLiveSensor{});
  }
  RouteChoice c;
  if (s.packets[p.slot].route == kDfMinimal)
    c = r == p.dst_router ? eject_choice(s, p) : df_minimal_hop(s, rep, r, p, 0, kDfAnyLevel, last_class(s));
  else
    c = df_valiant_continue(s, rep, r, p);
  return s.prm.routing.df_booksim_vcs ? df_booksim_vcs(s, r, p, c) : c;
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_dragonfly_ugal{"UGAL", "valiant n_indirect penalty threshold cost offset vc_scheme decide_at_injection congestion", kDrawsIntermediate | kUgalDecision, 1};

}  // namespace flitsim
