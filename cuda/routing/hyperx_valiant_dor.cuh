// Valiant and UGAL-L whose phases follow dimension order, on HyperX (gap 1): BookSim2's
// valiant_flatfly and ugal_flatfly on a flattened butterfly, and the DOR-constrained UGAL the
// HyperX paper's HX-R4 compares with DOR (P4 §4.1).
//   valiant-dor  At the source router the packet draws an intermediate router x (below), then
//                routes DOR to x (phase 0) and DOR to its destination (phase 1).
//   ugal-dor     At the source router the packet compares the minimal DOR route with
//                routing.n_indirect such Valiant routes, each judged by the congestion of the
//                DOR first hop it would take here (ugal_port_queue: routing.congestion) and the
//                cost rule of ugal_cost.cuh (hop counts = differing coordinates); ties stay
//                minimal. An intermediate equal to the source router is not offered.
// The intermediate (routing.valiant): unset, a router drawn uniformly among all routers but the
// source and destination routers; "node", the router of a node drawn among all nodes (BookSim2's
// valiant_flatfly); "differing-dims", the source's coordinate where source and destination
// agree and a uniformly drawn one (any of the W_d) where they differ (BookSim2's ugal_flatfly).
// An intermediate at either end makes the route minimal. With "node", a phase-0 packet that
// meets its destination router ejects there (valiant_flatfly); ugal-dor never shortcuts
// (ugal_flatfly does not).
// Deadlock avoidance: 2 VC classes, one per phase: class 0 toward the intermediate, class 1
// after it. Each phase is DOR, acyclic on one class (hyperx_dor.cuh), and dependencies only
// lead from class 0 to class 1. A minimal packet is a phase-1 packet from its source (class 1),
// as in BookSim2, where each phase takes half of the VCs.
// Packet state pk_route: 0 = not decided, 1 + x = phase 0 toward router x, −1 = phase 1.
#pragma once
#include "dor_phases.cuh"
#include "hyperx_dor.cuh"
#include "table_valiant.cuh"  // table_node_router
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltHxValiantDor = 0x90000;  // + 128·candidate (+ 1 + dimension)

inline VcClasses classes_hyperx_valiant_dor(const ClassInputs&) { return {2}; }  // one per DOR phase

// The intermediate router for a packet at its source router r (routing.valiant, above).
FLITSIM_HD int hx_dor_intermediate(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
  if (s.prm.routing.valiant_node) return table_node_router(s, rep, p, salt);
  const Hx hx = hyperx(s);
  if (s.prm.routing.valiant_dims) {
    int x = r;
    for (int d = 0; d < hx.dims(); ++d)
      if (hx.coord(r, d) != hx.coord(p.dst_router, d))
        x += (route_pick(s, rep, p, salt + 1 + d, hx.width(d)) - hx.coord(r, d)) * hx.stride(d);
    return x;
  }
  return router_other_than_ends(s, rep, r, p, salt);
}

// HyperX's DOR for the two phases (dor_phases.cuh): class 0 toward the intermediate, 1 after.
struct HxDorPhases {
  static FLITSIM_HD RouteChoice toward(const SimView& s, int rep, int r, const PacketInfo& p, int target, int phase) {
    return route_hyperx_dor_toward(s, rep, r, p, target, phase);
  }
  static FLITSIM_HD int intermediate(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
    return hx_dor_intermediate(s, rep, r, p, salt);
  }
};

FLITSIM_HD RouteChoice route_hyperx_valiant_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  return route_valiant_dor_phases<HxDorPhases>(s, rep, r, p, kSaltHxValiantDor);
}

FLITSIM_HD RouteChoice route_hyperx_ugal_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant?
    if (r == p.dst_router) return eject_choice(s, p);
    const Hx hx = hyperx(s);
    const int dst = p.dst_router;
    const int min_port = route_hyperx_dor_toward(s, rep, r, p, dst, 1).port;
    const UgalCandidate min{ugal_port_queue(s, rep, min_port), hx.unaligned(r, dst), min_port, dst};
    const BestChoice best = ugal_select(s, p, min, [&](int j) {
      const int x = hx_dor_intermediate(s, rep, r, p, kSaltHxValiantDor + 128 * j);
      if (x == r) return UgalCandidate{0, 0, -1, x, false};
      const int port = route_hyperx_dor_toward(s, rep, r, p, x, 0).port;
      return UgalCandidate{ugal_port_queue(s, rep, port), hx.unaligned(r, x) + hx.unaligned(x, dst), port, x};
    });
    const bool detour = best.nonminimal && best.aux != dst;  // x = destination router: a minimal path
    s.packets[p.slot].route = best.nonminimal ? 1 + best.aux : -1;
    if (detour) mark_nonminimal(s, p);
    return route_in_class(s, best.port, best.nonminimal ? 0 : 1);
  }
  return dor_phases<HxDorPhases>(s, rep, r, p, false);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_valiant_dor{"Valiant (DOR phases)", "valiant", kDrawsIntermediate | kDorPhases};
// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_ugal_dor{"UGAL (DOR phases)",
                                                "valiant n_indirect penalty threshold cost offset decide_at_injection congestion",
                                                kDrawsIntermediate | kDorPhases | kUgalDecision, 4};

}  // namespace flitsim
