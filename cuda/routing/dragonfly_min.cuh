// Minimal dragonfly routing (local, global, local). Router r is in group r / a. At full scale
// the group pair has one global link and the path is unique; below full scale (and with
// trunked local links) the pair has several: the source router picks one of all the pair's
// links (routing.selection: uniformly at random, or adaptively by occupancy × hops,
// dragonfly_links.cuh) and stores it in pk_gport; the packet then goes to that link's router,
// over the link, and to the destination.
// Deadlock avoidance: two VC classes (TARGETS.md §3.1 item 4): class 0 for every local hop in
// the source group, class 1 in the destination group (packets whose source and destination
// share a group stay in class 0); the global hop may take any VC of its port, since global
// channels carry nothing but this one hop. The channel dependency chain local0 -> global ->
// local1 has no cycle; inside one group, local paths are row then column (row-column groups),
// so the local hops of one class have no cycle either.
// Packet state pk_route: 0 = not decided yet, kDfMinimal = link chosen (pk_gport; −1 when the
// destination is in the source group).
#pragma once
#include "dragonfly_links.cuh"

namespace flitsim {

constexpr int32_t kDfMinimal = -2;

// A minimal hop of a packet whose link is in pk_gport: local hops of the source group use
// class src_cls, the global hop `level`, local hops of the destination group dst_cls.
FLITSIM_HD RouteChoice df_minimal_hop(const SimView& s, int rep, int r, const PacketInfo& p, int src_cls, int level,
                                      int dst_cls) {
  const int a = s.sz.df_a, g = r / a;
  if (g == p.dst_router / a)
    return df_local_hop(s, rep, r, p, p.dst_router, g == p.src_router / a ? src_cls : dst_cls);
  return df_hop_via(s, rep, r, p, s.packets[p.slot].gport, src_cls, level);
}

// Decides the minimal route at the source router: the link toward the destination group.
FLITSIM_HD void df_choose_minimal(const SimView& s, int rep, int r, const PacketInfo& p) {
  const int a = s.sz.df_a, dg = p.dst_router / a;
  s.packets[p.slot].gport = r / a == dg ? -1 : df_choose_link(s, rep, r, p, dg, p.dst_router, 0);
  s.packets[p.slot].route = kDfMinimal;
}

inline VcClasses classes_dragonfly_min(const ClassInputs&) { return {2}; }  // L0 R0 L1

FLITSIM_HD RouteChoice route_dragonfly_min(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) df_choose_minimal(s, rep, r, p);
  return df_minimal_hop(s, rep, r, p, 0, kDfAnyLevel, 1);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_dragonfly_min{"MIN", "", 0};

}  // namespace flitsim
