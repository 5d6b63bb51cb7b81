// Minimal dragonfly routing (local, global, local). Router r is in group r / a. The path is
// unique at full scale; deadlock is avoided with two VC classes (TARGETS.md §3.1 item 4):
// class 0 for every hop in the source group and the global hop, class 1 in the destination
// group. The channel dependency chain local0 -> global0 -> local1 has no cycle.
#pragma once
#include "route_choice.cuh"

namespace flitsim {

FLITSIM_HD RouteChoice route_dragonfly_min(const SimView& s, int r, const PacketInfo& p) {
  const int a = s.sz.df_a, G = s.sz.df_G;
  const int g = r / a, dg = p.dst_router / a;
  if (g == dg) {
    const int cls = (p.src_router / a == g) ? 0 : 1;
    return route_in_class(s, s.df_local_port[r * a + p.dst_router % a], cls);
  }
  const int gw = s.df_gateway_router[g * G + dg];
  if (gw == r) return route_in_class(s, s.df_gateway_port[g * G + dg], 0);
  return route_in_class(s, s.df_local_port[r * a + gw % a], 0);
}

}  // namespace flitsim
