// What a routing function returns for a head flit: the output port and the range of output
// VCs its deadlock-avoidance class allows (DESIGN.md §5). Each routing lives in its own file
// in this folder and is dispatched by dispatch.cuh.
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

// What a routing's count of deadlock-avoidance VC classes depends on; the host fills it
// (host/routing_choice.cpp) and calls the routing's classes function (routing/registry.h).
struct ClassInputs {
  bool valiant_any;     // dragonfly Valiant family: any router of the intermediate group
  int32_t dims;         // HyperX dimensions (coordinate routings)
  int32_t deroutes;     // routing.deroutes, -1 = unset
  int32_t min_classes;  // table routings: classes of one minimal route (diameter or min_vc_classes)
};
struct VcClasses {
  int32_t vc_classes;         // SimParams::vc_classes
  int32_t phase_classes = 1;  // SimParams::phase_classes
};

struct RouteChoice {
  int32_t port;    // global output port
  int32_t vc_lo;   // allowed output VCs are [vc_lo, vc_hi)
  int32_t vc_hi;
};

// The packet facts routing functions read, gathered once per head flit.
struct PacketInfo {
  int32_t pid;
  long long slot;      // index into the packet table (replica included)
  int32_t src_router;
  int32_t dst_router;
  int32_t dst_port;    // terminal port of the destination node
};

FLITSIM_HD RouteChoice route_in_class(const SimView& s, int32_t port, int cls) {
  return RouteChoice{port, s.class_vc_lo(cls), s.class_vc_hi(cls)};
}

// The routing's last (highest) VC class: where a route that climbs the classes ends.
FLITSIM_HD int last_class(const SimView& s) { return s.prm.vc_classes - 1; }

// Delivery: the destination's terminal port, any VC.
FLITSIM_HD RouteChoice eject_choice(const SimView& s, const PacketInfo& p) {
  return RouteChoice{p.dst_port, 0, s.sz.V};
}

// Marks a packet its router sends on a non-minimal route; sinks count marked measured packets.
FLITSIM_HD void mark_nonminimal(const SimView& s, const PacketInfo& p) { s.pk_nonminimal[p.slot] = 1; }

// Free output credits summed over a VC range: the local congestion sensor of adaptive choices.
FLITSIM_HD int free_credits(const SimView& s, int rep, int gp, int lo, int hi) {
  int c = 0;
  for (int v = lo; v < hi; ++v) c += s.ovc_credits[s.pv(rep, gp, v)];
  return c;
}

// A per-packet, per-hop random draw (keyed by the packet's creation so reused ids differ).
FLITSIM_HD uint32_t route_draw(const SimView& s, int rep, const PacketInfo& p, int salt) {
  return draw32(s.rep_seed[rep], uint32_t(p.pid), s.pk_create[p.slot], kRngRoute, uint32_t(salt));
}

// Downstream occupancy of output port gp: flits sent into the next router's input buffers
// (or on the wire toward them) whose credits have not come back, over all V VCs (B·V − free
// credits). The congestion sensor of every adaptive decision; 0 for ejection ports.
FLITSIM_HD int port_occupancy(const SimView& s, int rep, int gp) {
  if (s.peer_port[gp] < 0) return 0;
  return s.sz.V * s.sz.B - free_credits(s, rep, gp, 0, s.sz.V);
}

// Congestion of output gp as the incremental HyperX routings (and Clos-AD) sense it: the
// downstream occupancy plus the flits waiting in this router's own input VCs that are already
// routed to gp — the output queue of an input-queued router, which credits cannot see when the
// link itself is the bottleneck. port_demand is this router's scratch, rebuilt by phase_route
// every cycle when sz.demand_P is set.
FLITSIM_HD int port_congestion(const SimView& s, int rep, int gp) {
  return port_occupancy(s, rep, gp) + (s.sz.demand_P ? s.port_demand[s.pp(rep, gp)] : 0);
}

// One of the n parallel ports base .. base+n−1 (trunked links to one neighbour): drawn at
// random (oblivious), or the one with the most free credits in [lo, hi) (adaptive; ties go to
// the first one after a random start, so no port is favoured).
FLITSIM_HD int pick_parallel(const SimView& s, int rep, const PacketInfo& p, int base, int n, int lo, int hi,
                             int salt) {
  if (n <= 1) return base;
  const int start = int(draw_below(route_draw(s, rep, p, salt), uint32_t(n)));
  if (s.prm.selection != Selection::Adaptive) return base + start;
  int best = base + start, best_credits = -1;
  for (int i = 0, k = start; i < n; ++i, k = next_mod(k, n)) {
    const int c = free_credits(s, rep, base + k, lo, hi);
    if (c > best_credits) best = base + k, best_credits = c;
  }
  return best;
}

// Keeps the candidate with the smallest weight; ties keep the earlier one, so callers offer
// the preferred kind first (minimal before non-minimal) and start each kind at a random
// position (no output is favoured).
struct BestChoice {
  long long weight = -1;
  int32_t port = -1, aux = -1;
  bool nonminimal = false;
  FLITSIM_HD void offer(long long w, int32_t gp, int32_t x, bool nonmin) {
    if (weight < 0 || w < weight) weight = w, port = gp, aux = x, nonminimal = nonmin;
  }
};

}  // namespace flitsim
