// Deterministic minimal routing for any table-routed topology ("min-first"): at every router
// the lowest-numbered port whose peer is one hop closer to the destination, so a packet's path
// depends only on its source and destination (a baseline without path diversity, and the
// worked example of README's "add a routing" recipe: this file plus one registry line).
// Deadlock avoidance: table_min's distance classes (hop k on class min(k, C − 1)); its routes
// are a subset of table_min's (the deadlock checker enumerates them from this function).
#pragma once
#include "table_min.cuh"

namespace flitsim {

FLITSIM_HD RouteChoice route_table_min_first(const SimView& s, int rep, int r, const PacketInfo& p) {
  (void)rep;
  const long long R = s.sz.dist_R;
  const int d = s.dist[r * R + p.dst_router];
  const int hops = s.packets[p.slot].hops;
  const int cls = hops < s.prm.routing.vc_classes - 1 ? hops : s.prm.routing.vc_classes - 1;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) {
    const int q = s.peer_port[gp];
    if (q >= 0 && s.dist[s.port_router[q] * R + p.dst_router] == d - 1) return route_in_class(s, gp, cls);
  }
  return RouteChoice{-1, 0, 0};  // unreachable on a connected topology: phase_route counts a failure
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_table_min_first{"MIN (first port)", "", 0};

}  // namespace flitsim
