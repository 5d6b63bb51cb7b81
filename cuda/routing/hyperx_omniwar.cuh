// OmniWAR on HyperX (P4 §5.2): incremental, omni-dimensional weighted adaptive routing. At
// every router the valid outputs are those of every unaligned dimension: minimal outputs
// toward the destination's coordinate (minimal adaptive in any dimension order) and, when
// derouting is allowed, deroutes to any other coordinate of an unaligned dimension. Weights
// as DimWAR (minimal H·q, deroute (H + 1)·(q + routing.offset)); the lightest wins, ties stay
// minimal.
// Deadlock avoidance: N + M distance classes (N dimensions, M = routing.deroutes, default N,
// i.e. 2N classes as in the paper's reference configuration): hop k uses class k (VC_out =
// VC_in + 1). A packet may deroute while its minimal hops left H are fewer than the classes
// left after this hop would be spent, H < N + M − k (SuperSim: hopsLeft < vcSetsLeft); each
// deroute spends a class without reducing H, so at most M deroutes, every path has at most
// N + M hops and the class strictly increases along it: the channel dependency graph is
// acyclic. routing.multi_deroute = false bans a deroute in the dimension the packet just
// derouted in (P4's optional back-to-back restriction; SuperSim multi_deroute).
// (phase_classes holds N + M, so the rule holds even with routing.deadlock_avoidance off.)
// Packet state pk_route: 1 + dimension of the last hop if it was a deroute, else 0. (Marking a
// packet non-minimal is idempotent, so no "already counted" bit is kept.)
#pragma once
#include "hyperx_common.cuh"

namespace flitsim {

// N + M distance classes; phase_classes holds them too, so the deroute rule survives
// routing.deadlock_avoidance = false.
inline VcClasses classes_hyperx_omniwar(const ClassInputs& in) {
  const int32_t n = in.dims + (in.deroutes >= 0 ? in.deroutes : in.dims);
  return {n, n};
}

FLITSIM_HD RouteChoice route_hyperx_omniwar(const SimView& s, int rep, int r, const PacketInfo& p) {
  const Hx hx = hyperx(s);
  const int32_t st = s.packets[p.slot].route;
  const int D = hx.dims(), k = s.packets[p.slot].hops, dst = p.dst_router;
  unsigned long long mask = 0;
  int H = 0;
  for (int d = 0; d < D; ++d)
    if (hx.coord(r, d) != hx.coord(dst, d)) mask |= 1ull << d, ++H;
  unsigned long long der_mask = mask;
  const int last = st - 1;
  if (!s.prm.routing.multi_deroute && last >= 0) der_mask &= ~(1ull << last);
  int deroute_dim;
  const int port = hx_weighted_choice(s, rep, p, r, dst, mask, H < s.prm.routing.phase_classes - k, der_mask, k, k, &deroute_dim);
  const bool deroute = deroute_dim >= 0;
  if (deroute) mark_nonminimal(s, p);
  s.packets[p.slot].route = deroute ? 1 + deroute_dim : 0;
  return route_in_class(s, port, k);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_omniwar{"OmniWAR", "offset deroutes multi_deroute sensing congestion", 0, 0, 4};

}  // namespace flitsim
