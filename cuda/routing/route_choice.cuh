// What a routing function returns for a head flit: the output port and the range of output
// VCs its deadlock-avoidance class allows (DESIGN.md §5). Each routing lives in its own file
// in this folder and is dispatched by dispatch.cuh.
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

// What a routing's count of deadlock-avoidance VC classes depends on; the host fills it
// (host/init/routing_choice.cpp) and calls the routing's classes function (routing/registry.h).
struct ClassInputs {
  bool valiant_any;     // dragonfly Valiant family: any router of the intermediate group
  int32_t dims;         // HyperX dimensions (coordinate routings)
  int32_t deroutes;     // routing.deroutes, -1 = unset
  int32_t min_classes;  // table routings: classes of one minimal route (diameter or min_vc_classes)
  bool booksim_vcs = false;  // routing.vc_scheme = "booksim" (dragonfly UGAL-L: BookSim2's 3 VCs)
  int32_t rings = 0;         // torus and mesh: dimensions that wrap around (dateline classes)
};
struct VcClasses {
  int32_t vc_classes;         // SimParams::vc_classes
  int32_t phase_classes = 1;  // SimParams::phase_classes
  int32_t escape_classes = 0; // Duato (kEscapeSubnetwork): VCs 0 .. escape_classes−1 escape (one per class), the rest adaptive
};

// What the host knows of a routing beyond its route and classes functions, declared beside
// them in its header and named by its registry line: the keys it reads (every [routing] key's
// read_by derives from these, host/config/keys_routing.cpp), their per-routing defaults, its
// display label and its family flags (host/init/routing_choice.cpp tests flags, never names).
enum RoutingFlag : uint32_t {
  kDrawsIntermediate = 1u << 0,  // a Valiant intermediate per packet (routing.valiant picks how)
  kDorPhases = 1u << 1,          // phases in dimension order (routing.valiant = "differing-dims")
  kUgalDecision = 1u << 2,       // a UGAL cost rule: routing.offset defaults from routing.cost
  kNoNodeIntermediate = 1u << 3, // routing.valiant = "node" not modelled
  kDModK = 1u << 4,              // routing.selection = "dmodk" applies, and is the default
  kReroutesWaiting = 1u << 5,    // a routed head without an output VC is routed again each cycle
                                 // (prm.routing.reroute_waiting; torus_min_adapt.cuh says why)
  kEscapeSubnetwork = 1u << 6,   // Duato: VCs below VcClasses::escape_classes are the escape
                                 // sub-network (check_deadlock tests Duato's condition), the rest adaptive
};
struct RoutingTraits {
  const char* label;       // display name (plots, tables)
  const char* reads;       // [routing] keys it reads besides algorithm, selection, deadlock_avoidance
  uint32_t flags;          // RoutingFlag bits
  int32_t n_indirect = 0;  // routing.n_indirect when unset (routings that read it)
  int32_t offset = 0;      // routing.offset when unset (kUgalDecision: from routing.cost instead)
  int32_t max_dims = 64;   // coordinate routings: the most dimensions its packet state can hold
};
constexpr const char* kUgalKeys = "valiant n_indirect penalty threshold cost offset";

struct RouteChoice {
  int32_t port;    // global output port
  int32_t vc_lo;   // allowed output VCs are [vc_lo, vc_hi)
  int32_t vc_hi;
};

// Candidate enumeration (host only: host/analysis/route_candidates.cpp, the deadlock checker). A routing
// decides in two kinds of choice points: random picks (route_pick) and adaptive selections
// among candidates (pick_parallel, table_min_toward, BestChoice, ugal_select). When a packet
// carries a brancher, every choice point takes the index its script names instead of drawing
// or selecting, so replaying the routing function over every script lists all outputs the
// routing can produce, from the routing's own code: the candidates are generated exactly as on
// the device, only the selection among them is replaced by "each one in turn".
struct RouteBrancher {
  static constexpr int kMaxChoices = 24;
  int script[kMaxChoices];  // the index to take at each choice point of this replay
  int width[kMaxChoices];   // how many candidates each choice point offered
  int depth = 0;            // choice points passed in this replay
  int scripted = 0;         // choice points with a scripted index (the rest take 0)
  int raw_draws = 0;        // route_draw calls in this replay: random choices not enumerated
  bool dst_node_read = false;  // the routing read the destination node (dst_node), not only its router
  FLITSIM_HD int take(int n) {
    if (depth >= kMaxChoices) return ++depth, 0;  // the enumerator reports the overflow
    const int k = depth < scripted ? script[depth] : 0;
    width[depth++] = n;
    return k;
  }
};

// The packet facts routing functions read, gathered once per head flit.
struct PacketInfo {
  int32_t pid;
  long long slot;      // index into the packet table (replica included)
  int32_t src_router;
  int32_t dst_router;
  // First VC of the packet's message class (traffic.reply_size: mc_V for a reply, else 0): the
  // routing decides in class-relative VCs, so what it senses is moved to the packet's own VCs.
  int32_t vc_base = 0;
  RouteBrancher* branch = nullptr;  // set only by the host's candidate enumeration
};

// True while the host enumerates candidates; always false in device code.
FLITSIM_HD bool branching(const PacketInfo& p) {
#ifdef __CUDA_ARCH__
  (void)p;
  return false;
#else
  return p.branch != nullptr;
#endif
}

FLITSIM_HD RouteChoice route_in_class(const SimView& s, int32_t port, int cls) {
  return RouteChoice{port, s.class_vc_lo(cls), s.class_vc_hi(cls)};
}

// The routing's last (highest) VC class: where a route that climbs the classes ends.
FLITSIM_HD int last_class(const SimView& s) { return s.prm.routing.vc_classes - 1; }

// Delivery: the destination's terminal port, any VC (looked up here, at the last router only).
FLITSIM_HD RouteChoice eject_choice(const SimView& s, const PacketInfo& p) {
  return RouteChoice{s.node_port[s.packets[p.slot].dst], 0, s.sz.mc_V};
}

// The destination node itself (routings that need more than its router, e.g. D-mod-k). Read
// it only through here: the candidate enumeration then walks every node of the destination
// router instead of one.
FLITSIM_HD int32_t dst_node(const SimView& s, const PacketInfo& p) {
#ifndef __CUDA_ARCH__
  if (p.branch) p.branch->dst_node_read = true;
#endif
  return s.packets[p.slot].dst;
}

// Marks a packet its router sends on a non-minimal route; sinks count marked measured packets.
FLITSIM_HD void mark_nonminimal(const SimView& s, const PacketInfo& p) { s.packets[p.slot].nonminimal = 1; }

// Free output credits summed over a VC range: the local congestion sensor of adaptive choices.
FLITSIM_HD int free_credits(const SimView& s, int rep, int gp, int lo, int hi) {
  int c = 0;
  for (int v = lo; v < hi; ++v) c += s.ovc[s.pv(rep, gp, v)].credits;
  return c;
}

// A per-packet, per-hop random draw (keyed by the packet's creation so reused ids differ), for
// the order in which a selection that is itself enumerated (BestChoice) visits its candidates.
FLITSIM_HD uint32_t route_order_draw(const SimView& s, int rep, const PacketInfo& p, int salt) {
  return draw32(s.rep_seed[rep], uint32_t(p.pid), s.packets[p.slot].create, kRngRoute, uint32_t(salt));
}

// The same draw for any other use. A random choice made from it is invisible to the candidate
// enumeration, which therefore refuses a routing that calls it while enumerating: make random
// choices with route_pick.
FLITSIM_HD uint32_t route_draw(const SimView& s, int rep, const PacketInfo& p, int salt) {
#ifndef __CUDA_ARCH__
  if (p.branch) ++p.branch->raw_draws;
#endif
  return route_order_draw(s, rep, p, salt);
}

// A random index in [0, n) (0 if n ≤ 0), keyed like route_draw; under enumeration, every index.
FLITSIM_HD int route_pick(const SimView& s, int rep, const PacketInfo& p, int salt, int n) {
  if (branching(p)) return n > 0 ? p.branch->take(n) : 0;
  return int(draw_below(route_draw(s, rep, p, salt), uint32_t(n)));
}

// Flits waiting in output gp's ioq output queues on VCs [lo, hi) for their downstream credit
// (phases/output_queue.cuh); 0 with iq, and with cioq, whose queued flits hold their credit.
FLITSIM_HD int queued_for_credit(const SimView& s, int rep, int gp, int lo, int hi) {
  if (!s.prm.router.ioq()) return 0;
  int n = 0;
  for (int v = lo; v < hi; ++v) n += s.oq_count[s.po(rep, gp, v)];
  return n;
}

// Occupancy of output gp's VCs [lo, hi): flits sent into the next router's input buffers (or
// on the wire toward them) whose credits have not come back, plus those waiting here in ioq
// output queues for a credit.
FLITSIM_HD int vc_occupancy(const SimView& s, int rep, int gp, int lo, int hi) {
  return (hi - lo) * s.sz.B - free_credits(s, rep, gp, lo, hi) + queued_for_credit(s, rep, gp, lo, hi);
}

// Occupancy of output port gp over all V VCs: the congestion sensor of every adaptive
// decision; 0 for ejection ports.
FLITSIM_HD int port_occupancy(const SimView& s, int rep, int gp) {
  if (s.peer_port[gp] < 0) return 0;
  return vc_occupancy(s, rep, gp, 0, s.sz.V);
}

// Congestion of output gp as the incremental HyperX routings (and Clos-AD) sense it: the
// downstream occupancy plus the flits waiting in this router's own input VCs that are already
// routed to gp — the output queue of an input-queued router, which credits cannot see when the
// link itself is the bottleneck. port_demand is this router's scratch, rebuilt by phase_route
// every cycle when sz.demand_P is set.
FLITSIM_HD int port_congestion(const SimView& s, int rep, int gp) {
  return port_occupancy(s, rep, gp) + (s.sz.demand_P ? s.port_demand[s.pp(rep, gp)] : 0);
}

// The congestion of output gp's VCs [lo, hi) that the routings reading routing.congestion
// (UGAL-L, DimWAR, OmniWAR, DAL) sense: "port", vc_occupancy plus the flits waiting here for gp
// (port_demand, heads routed to gp in this router's input VCs); "downstream", the credits in
// use alone (BookSim2's UGAL reads only GetUsedCredit; SuperSim's routers with congestion_mode
// "downstream" count a flit once it is sent toward the next router, so neither sees the heads
// routed to gp that wait in this router's input VCs); "output", the flits waiting in ioq output
// queues; "output_and_downstream", both (SuperSim's modes of those names).
FLITSIM_HD int sensed_congestion(const SimView& s, int rep, int gp, int lo, int hi) {
  switch (s.prm.routing.congestion) {
    case Congestion::Downstream: return (hi - lo) * s.sz.B - free_credits(s, rep, gp, lo, hi);
    case Congestion::Output: return queued_for_credit(s, rep, gp, lo, hi);
    case Congestion::OutputAndDownstream: return vc_occupancy(s, rep, gp, lo, hi);
    default: return vc_occupancy(s, rep, gp, lo, hi) + (s.sz.demand_P ? s.port_demand[s.pp(rep, gp)] : 0);
  }
}

// The congestion UGAL-L, and DimWAR, OmniWAR and DAL with port sensing, sense for output gp
// (routing.congestion), over all its VCs.
FLITSIM_HD int ugal_port_queue(const SimView& s, int rep, int gp) { return sensed_congestion(s, rep, gp, 0, s.sz.V); }

// One of the n parallel ports base .. base+n−1 (trunked links to one neighbour): drawn at
// random (oblivious), or the one with the most free credits in [lo, hi) (adaptive; ties go to
// the first one after a random start, so no port is favoured).
FLITSIM_HD int pick_parallel(const SimView& s, int rep, const PacketInfo& p, int base, int n, int lo, int hi,
                             int salt) {
  if (n <= 1) return base;
  const int start = route_pick(s, rep, p, salt, n);
  if (s.prm.routing.selection != Selection::Adaptive || branching(p)) return base + start;  // enumeration: every port
  int best = base + start, best_credits = INT32_MIN;  // ioq: credits less queued flits may be negative
  for (int i = 0, k = start; i < n; ++i, k = next_mod(k, n)) {
    const int c = free_credits(s, rep, base + k, lo + p.vc_base, hi + p.vc_base) -
                  queued_for_credit(s, rep, base + k, lo + p.vc_base, hi + p.vc_base);
    if (c > best_credits) best = base + k, best_credits = c;
  }
  return best;
}

// Keeps the candidate with the smallest weight; ties keep the earlier one, so callers offer
// the preferred kind first (minimal before non-minimal) and start each kind at a random
// position (no output is favoured). Under enumeration (enumerate(p) before the offers,
// settle(p) after them, host only) the offer the brancher's script names wins instead, so
// every offered candidate is listed; offers must then not contain choice points themselves.
struct BestChoice {
  long long weight = -1;
  int32_t port = -1, aux = -1;
  bool nonminimal = false;
#ifndef __CUDA_ARCH__
  int pick = -1, offers = 0;  // enumeration: the offer that wins, and the offers so far
#endif
  FLITSIM_HD void offer(long long w, int32_t gp, int32_t x, bool nonmin) {
#ifndef __CUDA_ARCH__
    if (pick >= 0) {
      if (offers++ == pick) weight = w, port = gp, aux = x, nonminimal = nonmin;
      return;
    }
#endif
    if (weight < 0 || w < weight) weight = w, port = gp, aux = x, nonminimal = nonmin;
  }
  // Enumeration: reserves this selection's choice point (its width is known after the offers).
  FLITSIM_HD void enumerate(const PacketInfo& p) {
#ifndef __CUDA_ARCH__
    if (!p.branch) return;
    slot_ = p.branch->depth;
    pick = p.branch->take(1);
#else
    (void)p;
#endif
  }
  FLITSIM_HD void settle(const PacketInfo& p) {
#ifndef __CUDA_ARCH__
    if (p.branch && slot_ < RouteBrancher::kMaxChoices) p.branch->width[slot_] = offers;
#else
    (void)p;
#endif
  }
#ifndef __CUDA_ARCH__
  int slot_ = RouteBrancher::kMaxChoices;
#endif
};

}  // namespace flitsim
