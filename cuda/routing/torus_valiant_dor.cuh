// Valiant and UGAL-L with dimension-order phases on tori and meshes (BookSim2's valiant_torus
// and valiant_mesh; Dally & Towles §14.2 and §14.4.2).
//   valiant-dor  At the source router the packet draws an intermediate router x (below), then
//                routes DOR to x (phase 0) and DOR to its destination (phase 1).
//   ugal-dor     At the source router the packet compares the minimal DOR route with
//                routing.n_indirect Valiant routes, each judged by the congestion of the DOR
//                first hop it would take here (ugal_port_queue: routing.congestion) and the
//                cost rule of ugal_cost.cuh (hop counts = ring distances); ties stay minimal.
//                UGAL rather than ROMM: ROMM keeps the route inside the minimal quadrant, so it
//                cannot balance tornado traffic, which needs the long way round the ring;
//                UGAL takes Valiant's detour only where the minimal first hop is loaded
//                (Singh's thesis, the source-adaptive choice the dragonfly and HyperX
//                routings here also make), keeping minimal latency at low load.
// The intermediate (routing.valiant): unset, a router drawn uniformly among all routers but the
// source and destination routers; "node", the router of a node drawn among all nodes (BookSim2's
// valiant_torus: RandomInt(gNodes − 1)); an intermediate at either end makes the route minimal.
// Deadlock avoidance: one block of dateline classes per phase (torus_dor.cuh): on a torus
// classes 0, 1 toward the intermediate and 2, 3 after it (BookSim2's valiant_torus: 4 VC
// sets), on a mesh class 0 then 1. Each phase is DOR, acyclic on its block, and dependencies
// only lead from the first block to the second. A minimal packet is a phase-1 packet from its
// source.
// Packet state pk_route: 0 = not decided, 1 + x = phase 0 toward router x, −1 = phase 1.
#pragma once
#include "dor_phases.cuh"
#include "table_valiant.cuh"  // table_node_router
#include "torus_dor.cuh"
#include "ugal_cost.cuh"

namespace flitsim {

constexpr int kSaltTorusValiant = 0xB0000;  // + 128·candidate

// Two phases of the dateline block each.
inline VcClasses classes_torus_valiant_dor(const ClassInputs& in) {
  const int32_t block = in.rings > 0 ? 2 : 1;
  return {2 * block, block};
}

// DOR toward x in phase `phase`'s class block.
FLITSIM_HD RouteChoice cube_dor_in_phase(const SimView& s, int rep, int r, const PacketInfo& p, int x, int phase) {
  int ring_class;
  const int port = cube_dor_port(s, rep, p, r, x, &ring_class);
  return route_in_class(s, port, phase * s.prm.routing.phase_classes + ring_class);
}

// The intermediate router for a packet at its source router r (routing.valiant, above).
FLITSIM_HD int cube_intermediate(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
  if (s.prm.routing.valiant_node) return table_node_router(s, rep, p, salt);
  return router_other_than_ends(s, rep, r, p, salt);
}

// The torus's DOR for the two phases (dor_phases.cuh), each in its block of dateline classes.
struct CubeDorPhases {
  static FLITSIM_HD RouteChoice toward(const SimView& s, int rep, int r, const PacketInfo& p, int target, int phase) {
    return cube_dor_in_phase(s, rep, r, p, target, phase);
  }
  static FLITSIM_HD int intermediate(const SimView& s, int rep, int r, const PacketInfo& p, int salt) {
    return cube_intermediate(s, rep, r, p, salt);
  }
};

FLITSIM_HD RouteChoice route_torus_valiant_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  return route_valiant_dor_phases<CubeDorPhases>(s, rep, r, p, kSaltTorusValiant);
}

FLITSIM_HD RouteChoice route_torus_ugal_dor(const SimView& s, int rep, int r, const PacketInfo& p) {
  if (s.packets[p.slot].route == 0) {  // at the source router: minimal or Valiant?
    if (r == p.dst_router) return eject_choice(s, p);
    const Cube c = cube(s);
    const int dst = p.dst_router;
    const RouteChoice min_route = cube_dor_in_phase(s, rep, r, p, dst, 1);
    const UgalCandidate min{ugal_port_queue(s, rep, min_route.port), c.hops(r, dst), min_route.port, dst};
    const BestChoice best = ugal_select(s, p, min, [&](int j) {
      const int x = cube_intermediate(s, rep, r, p, kSaltTorusValiant + 128 * j);
      if (x == r) return UgalCandidate{0, 0, -1, x, false};
      const RouteChoice first = cube_dor_in_phase(s, rep, r, p, x, 0);
      return UgalCandidate{ugal_port_queue(s, rep, first.port), c.hops(r, x) + c.hops(x, dst), first.port, x};
    });
    const bool detour = best.nonminimal && best.aux != dst;  // x = destination router: a minimal path
    s.packets[p.slot].route = best.nonminimal ? 1 + best.aux : -1;
    if (detour) mark_nonminimal(s, p);
    // The hop out of the source again, in the chosen phase's block (its dateline class follows
    // from router and target alone; the tie's draw repeats: route_pick is keyed per packet).
    return cube_dor_in_phase(s, rep, r, p, best.nonminimal ? best.aux : dst, best.nonminimal ? 0 : 1);
  }
  return dor_phases<CubeDorPhases>(s, rep, r, p, false);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_torus_valiant_dor{"Valiant (DOR phases)", "valiant", kDrawsIntermediate};
// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_torus_ugal_dor{"UGAL (DOR phases)",
                                              "valiant n_indirect penalty threshold cost offset decide_at_injection congestion",
                                              kDrawsIntermediate | kUgalDecision, 4};

}  // namespace flitsim
