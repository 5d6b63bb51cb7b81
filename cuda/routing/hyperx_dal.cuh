// DAL on HyperX: Dimensionally Adaptive Load-balancing (Ahn et al., SC'09, as P4 §4.2
// describes it). At every router a packet may take the minimal output of any unaligned
// dimension (minimal adaptive, in any dimension order), or deroute: a lateral hop to another
// coordinate of an unaligned dimension, which leaves the hops left unchanged. A packet deroutes
// at most once per dimension: it keeps one bit per dimension it has derouted in (P4 Table 1's
// "N-bit field"), and once derouted in a dimension its later hops there are minimal. A
// dimension once aligned stays aligned (no hop leaves it), so a route from a router H
// dimensions away has at most 2·H hops.
// Choice: the weights of DimWAR and OmniWAR (hx_weight: minimal H·q, deroute (H + 1)·(q +
// routing.offset), H = unaligned dimensions left; the lightest wins, ties stay minimal), q
// the output's congestion (routing.sensing: "port" the whole port as port_congestion, "class"
// the adaptive VCs' downstream occupancy plus the flits queued here for it).
// Deadlock avoidance: escape paths (P4 Table 1: "1+1e"; Duato's protocol, as torus
// min-adapt: duato.cuh, torus_min_adapt.cuh say why heads are routed again while they wait
// and why an adaptive VC needs room for the whole packet). VC 0 is the escape VC: DOR
// (hyperx_dor.cuh), whose channels, ordered by dimension, form an acyclic dependency graph;
// every other VC is adaptive. A packet takes an output above only on an adaptive VC that is
// free with room for it; when no allowed output has one it takes the escape VC of the DOR
// output. Duato's condition (check_deadlock): a packet leaving an escape VC of dimension d has
// dimensions 0..d aligned, and adaptive hops (minimal or deroutes, all in unaligned
// dimensions) keep them aligned, so its next escape hop is in a higher dimension: the escape
// sub-network with its indirect dependencies stays acyclic. So router.vcs ≥ 2 (one escape,
// at least one adaptive), whatever the number of dimensions. P4 notes that escape paths, as
// originally defined, need atomic queue allocation (an empty downstream queue) on real
// routers; here, as in torus min-adapt, a free VC with room for the whole packet is enough.
// Packet state pk_route: bits 0..15 the dimensions derouted in; bits 16..20 1 + the dimension
// of a deroute chosen at this router (0: none), bits 21..30 the hop count when it was chosen. A
// head that waits is routed again (kReroutesWaiting) and may choose otherwise, so a deroute
// enters the derouted bits only at the next router, where the hop count has moved on.
#pragma once
#include "duato.cuh"
#include "hyperx_common.cuh"

namespace flitsim {

constexpr int kSaltHxDal = 0xD0000;  // + hops: the start of the scan over outputs
constexpr int kDalPendingShift = 16, kDalHopShift = 21, kDalHopMask = 0x3FF;

// One escape class (DOR: VC 0), one adaptive class (every other VC; route_hyperx_dal names
// its VCs itself, not the engine's equal split). router.vcs ≥ 2.
inline VcClasses classes_hyperx_dal(const ClassInputs&) { return {2, 1, 1}; }

// The congestion DAL weighs for output gp (routing.sensing): the whole port, or the adaptive
// VCs [lo, hi) (absolute), as routing.congestion says (sensed_congestion).
FLITSIM_HD int dal_congestion(const SimView& s, int rep, int gp, int lo, int hi) {
  if (s.prm.routing.sensing == Sensing::Port) return ugal_port_queue(s, rep, gp);
  return sensed_congestion(s, rep, gp, lo, hi);
}

FLITSIM_HD RouteChoice route_hyperx_dal(const SimView& s, int rep, int r, const PacketInfo& p) {
  const Hx hx = hyperx(s);
  const int D = hx.dims(), dst = p.dst_router, k = s.packets[p.slot].hops;
  // The derouted dimensions, with the deroute chosen at the previous router if the packet took
  // it (it has moved since: its hop count differs).
  const int32_t st = s.packets[p.slot].route;
  int32_t derouted = st & ((1 << kDalPendingShift) - 1);
  const int pending = (st >> kDalPendingShift) & 0x1F;
  if (pending && ((st >> kDalHopShift) & kDalHopMask) != (k & kDalHopMask)) {
    derouted |= 1 << (pending - 1);
    mark_nonminimal(s, p);
  }
  unsigned long long mask = 0;
  int H = 0;
  for (int d = 0; d < D; ++d)
    if (hx.coord(r, d) != hx.coord(dst, d)) mask |= 1ull << d, ++H;
  const unsigned long long der_mask = mask & ~(unsigned long long)derouted;
  // The escape: the DOR output (r is not the destination router).
  int e = 0;
  while (!((mask >> e) & 1)) ++e;
  const bool one_class = s.prm.routing.vc_classes == 1;  // no deadlock avoidance: every VC both
  const int esc_hi = one_class ? s.sz.mc_V : 1;
  const int esc_port = pick_parallel(s, rep, p, hx.port(r, e, hx.coord(dst, e)), hx.trunk(e), 0, esc_hi, k);
  // The adaptive VCs (class-relative [lo, hi); absolute from p.vc_base).
  const int lo = one_class ? 0 : s.prm.routing.escape_classes, hi = s.sz.mc_V;
  const uint32_t u = route_order_draw(s, rep, p, kSaltHxDal + k);
  const int start = p.vc_base + lo + int(draw_below(u * 40503u + 1u, uint32_t(hi - lo)));
  BestChoice best;
  best.enumerate(p);  // (enumeration: every allowed output, and the escape)
  hx_each_output(hx, u, r, dst, mask, der_mask != 0, der_mask, [&](int gp, int d, bool deroute) {
    if (!branching(p) && fitting_adaptive_vc(s, rep, p, gp, p.vc_base + lo, p.vc_base + hi, start) < 0) return;
    const int q = dal_congestion(s, rep, gp, p.vc_base + lo, p.vc_base + hi);
    best.offer(hx_weight(s, H, q, deroute), gp, d, deroute);
  });
  if (branching(p) || best.port < 0) best.offer(0, esc_port, kEscapeAux, false);
  best.settle(p);
  const bool deroute = best.nonminimal;
  s.packets[p.slot].route =
      derouted | (deroute ? (best.aux + 1) << kDalPendingShift | (k & kDalHopMask) << kDalHopShift : 0);
  if (best.aux == kEscapeAux) return RouteChoice{best.port, 0, esc_hi};
  if (branching(p)) return RouteChoice{best.port, lo, hi};  // enumeration: any adaptive VC
  const int w = fitting_adaptive_vc(s, rep, p, best.port, p.vc_base + lo, p.vc_base + hi, start) - p.vc_base;
  return RouteChoice{best.port, w, w + 1};
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_dal{"DAL", "offset sensing congestion", kReroutesWaiting | kEscapeSubnetwork, 0, 4,
                                           kDalPendingShift};  // at most 16 dimensions: bits 0..15 of pk_route

}  // namespace flitsim
