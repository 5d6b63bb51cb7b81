// Dragonfly building blocks shared by MIN, Valiant and UGAL (dragonfly_*.cuh). Router r is in
// group r / a. Tables (host/topologies/dragonfly.cpp):
//   df_gw_offset / df_gw_ports  CSR: every global port from group i to group j (several below
//                               full scale: ⌊ah/(G−1)⌋ or ⌈ah/(G−1)⌉ links per pair)
//   df_local_port[a·r + j]      first hop from r toward router j of its group (row first in
//                               row-column groups), df_local_links of them in parallel
// A packet crossing a group pair uses one link of the pair, chosen once in the group it leaves
// and kept in pk_gport (written only by the router holding the head): the packet then routes
// inside that group toward the link's router (local hops) and over it (global hop).
#pragma once
#include "route_choice.cuh"

namespace flitsim {

constexpr int kSaltDfLink = 0x30000;  // + segment: link choices

// Local hop from r toward router j of the same group on VC class cls; trunked links are
// picked per hop (random or by credits).
FLITSIM_HD RouteChoice df_local_hop(const SimView& s, int rep, int r, const PacketInfo& p, int j, int cls) {
  const long long k = (long long)r * s.sz.df_a + j % s.sz.df_a;
  const int lo = s.class_vc_lo(cls), hi = s.class_vc_hi(cls);
  return RouteChoice{pick_parallel(s, rep, p, s.df_local_port[k], s.df_local_links[k], lo, hi, s.packets[p.slot].hops),
                     lo, hi};
}

// Router hops from r to router j of the same group: 0, 1, or 2 (row-column, row then column).
FLITSIM_HD int df_local_dist(const SimView& s, int r, int j) {
  if (r == j) return 0;
  const int gp = s.df_local_port[(long long)r * s.sz.df_a + j % s.sz.df_a];
  return s.port_router[s.peer_port[gp]] == j ? 1 : 2;
}

// Least occupied of the parallel first-hop ports from r toward router j of its group
// (ugal_port_queue: port_congestion unless UGAL-L senses routing.congestion = "downstream").
FLITSIM_HD int df_local_occupancy(const SimView& s, int rep, int r, int j) {
  const long long k = (long long)r * s.sz.df_a + j % s.sz.df_a;
  const int base = s.df_local_port[k], n = s.df_local_links[k];
  int q = ugal_port_queue(s, rep, base);
  for (int i = 1; i < n; ++i) {
    const int qi = ugal_port_queue(s, rep, base + i);
    if (qi < q) q = qi;
  }
  return q;
}

// Global hop of level 0 or 1: R0 uses classes [0, C/2), R1 [C/2, C) (C = vc_classes), so no
// global VC is idle (dragonfly_valiant.cuh). kDfAnyLevel: every VC of the port, for a minimal
// packet's only global hop (global channels carry only global hops, so its VCs form one set
// between the source group's and the destination group's local classes).
constexpr int kDfAnyLevel = -1;
FLITSIM_HD RouteChoice df_global_hop(const SimView& s, int port, int level) {
  const int C = s.prm.routing.vc_classes;
  if (C < 2 || level == kDfAnyLevel) return RouteChoice{port, 0, s.sz.mc_V};
  const int lo = level == 0 ? 0 : C / 2, hi = level == 0 ? C / 2 : C;
  return RouteChoice{port, s.class_vc_lo(lo), s.class_vc_hi(hi - 1)};
}

// Router hops from r over global port gp to router `aim` of the far group (−1: to the far end).
FLITSIM_HD int df_link_hops(const SimView& s, int r, int gp, int aim) {
  const int far = s.port_router[s.peer_port[gp]];
  return df_local_dist(s, r, s.port_router[gp]) + 1 + (aim < 0 ? 0 : df_local_dist(s, far, aim));
}

// Fewest router hops from r to router `aim` of another group over any link of the pair.
FLITSIM_HD int df_min_hops(const SimView& s, int r, int aim) {
  const int a = s.sz.df_a, G = s.sz.df_G;
  const long long pair = (long long)(r / a) * G + aim / a;
  int best = 1 << 30;
  for (int i = s.df_gw_offset[pair]; i < s.df_gw_offset[pair + 1]; ++i) {
    const int h = df_link_hops(s, r, s.df_gw_ports[i], aim);
    if (h < best) best = h;
  }
  return best;
}

// Occupancy of the first hop toward global port gp from r: gp itself, or the local hop to
// its router.
FLITSIM_HD int df_link_occupancy(const SimView& s, int rep, int r, int gp) {
  const int gw = s.port_router[gp];
  return gw == r ? ugal_port_queue(s, rep, gp) : df_local_occupancy(s, rep, r, gw);
}

// Chooses the link from r's group to group tg (≠ r's group): uniformly among all links of the
// pair (oblivious), or (adaptive) the one minimising hops × (first-hop occupancy + 1), hops
// counted to router `aim` of tg (−1: to the far end), ties broken from a random start.
FLITSIM_HD int df_choose_link(const SimView& s, int rep, int r, const PacketInfo& p, int tg, int aim, int salt) {
  const long long pair = (long long)(r / s.sz.df_a) * s.sz.df_G + tg;
  const int lo = s.df_gw_offset[pair], n = s.df_gw_offset[pair + 1] - lo;
  if (n == 1) return s.df_gw_ports[lo];
  const int start = route_pick(s, rep, p, kSaltDfLink + salt, n);
  if (s.prm.routing.selection != Selection::Adaptive || branching(p)) return s.df_gw_ports[lo + start];  // enumeration: every link
  BestChoice best;
  for (int i = 0, k = start; i < n; ++i, k = next_mod(k, n)) {
    const int gp = s.df_gw_ports[lo + k];
    best.offer((long long)df_link_hops(s, r, gp, aim) * (df_link_occupancy(s, rep, r, gp) + 1), gp, 0, false);
  }
  return best.port;
}

// One hop toward global port gp (owned by a router of r's group): over it at global level
// `level`, or a local hop of class local_cls toward its router.
FLITSIM_HD RouteChoice df_hop_via(const SimView& s, int rep, int r, const PacketInfo& p, int gp, int local_cls,
                                  int level) {
  const int gw = s.port_router[gp];
  return gw == r ? df_global_hop(s, gp, level) : df_local_hop(s, rep, r, p, gw, local_cls);
}

}  // namespace flitsim
