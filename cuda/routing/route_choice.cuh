// What a routing function returns for a head flit: the output port and the range of output
// VCs its deadlock-avoidance class allows (DESIGN.md §5). Each routing lives in its own file
// in this folder and is dispatched by route.cuh.
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

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

// Delivery: the destination's terminal port, any VC.
FLITSIM_HD RouteChoice eject_choice(const SimView& s, const PacketInfo& p) {
  return RouteChoice{p.dst_port, 0, s.sz.V};
}

// Counts a measured packet that its source router sends on a non-minimal route.
FLITSIM_HD void count_nonminimal(const SimView& s, int rep, const PacketInfo& p) {
  if (s.in_window(s.pk_create[p.slot])) atomic_add(&s.rep_sums[(long long)rep * kRepSums + kNonMinimal], 1);
}

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

}  // namespace flitsim
