// Progressive adaptive routing (PAR) on dragonflies (Jiang, Kim, Dally ISCA'09 §3). The
// source router decides between the minimal route and routing.n_indirect Valiant candidates
// exactly like UGAL-L (dragonfly_ugal.cuh: local congestion of each candidate's first hop,
// cost rule of ugal_cost.cuh). A packet sent minimally is re-evaluated at every further router
// of its source group, until it leaves the group: there the minimal candidate is the route it
// is already on (its chosen global link pk_gport, judged by the congestion of its first hop
// from this router — at the link's own router, the global port itself, which is what the
// source router could not see) against freshly drawn Valiant candidates from this router. A
// packet that switches becomes a Valiant packet from here (restricted or any, routing.valiant);
// a Valiant decision is final. Packets whose destination is in the source group are
// re-evaluated at each router before it, too.
// Deadlock avoidance: one more local class than UGAL, reserved for the minimal hops in the
// source group, so that a packet switching to Valiant after a minimal local hop still climbs:
//   minimal:  L0 … L0  R(any VC)  L_last
//   Valiant:  VR: [L0] L1 R0 | L2 R1 L3          (4 classes)
//             VA: [L0] L1 R0 L2 | L3 R1 L4       (5 classes)
// ([L0]: the minimal hops taken before the switch.) Valiant's own local hops are its classes
// shifted up by one (df_valiant_continue(…, 1)); global levels split the classes in halves as
// for Valiant (R0 [0, C/2), R1 [C/2, C)). Every packet visits the VC sets in the increasing
// order L0 < L1 < R0 < L2 < R1 < L3 (VR) or L0 < L1 < R0 < L2 < L3 < R1 < L4 (VA); a minimal
// packet's global hop (any VC) sits between L0 and L_last, and the global channels carry only
// global hops, so the union stays acyclic (as UGAL-L's, docs/routing.md; check_deadlock).
// Longest paths (router hops): fully connected groups VR 1 + 5 = 6, VA 1 + 6 = 7; row-column
// groups VR 2 + 8 = 10, VA 2 + 10 = 12 (the switch can come after the whole row-column walk
// to the link's router).
// Packet state: as UGAL-L (pk_route 0 / kDfMinimal / Valiant 1 + x, −1; pk_gport).
#pragma once
#include "dragonfly_ugal.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltPar = 0x70000;  // + 256·hops + 4·candidate (+1): draws of each re-evaluation

// Valiant's classes plus L0 for the minimal hops in the source group.
inline VcClasses classes_dragonfly_par(const ClassInputs& in) { return {in.valiant_any ? 5 : 4}; }

FLITSIM_HD RouteChoice route_dragonfly_par(const SimView& s, int rep, int r, const PacketInfo& p) {
  const int a = s.sz.df_a, g = r / a, dg = p.dst_router / a;
  const int32_t st = s.packets[p.slot].route;
  if (r == p.dst_router && st <= 0) return eject_choice(s, p);  // (a Valiant phase 0 ends at its target)
  if (st == 0 || (st == kDfMinimal && g == p.src_router / a)) {  // decide, or re-decide, in the source group
    const int min_gp = g == dg ? -1 : st == 0 ? df_choose_link(s, rep, r, p, dg, p.dst_router, 0) : s.packets[p.slot].gport;
    const int k = s.packets[p.slot].hops;  // each re-evaluation draws afresh
    df_ugal_decide(s, rep, r, p, min_gp, kSaltPar + 256 * k, 2 + 64 * k, DfLiveSensor{});
  }
  if (s.packets[p.slot].route == kDfMinimal) return df_minimal_hop(s, rep, r, p, 0, kDfAnyLevel, last_class(s));
  return df_valiant_continue(s, rep, r, p, 1);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_dragonfly_par{"PAR", kUgalKeys, kDrawsIntermediate | kUgalDecision | kNoNodeIntermediate, 1};

}  // namespace flitsim
