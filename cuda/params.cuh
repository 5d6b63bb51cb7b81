// The scalar parameters every replica shares, one struct per concern (SimParams), and the
// enums they hold. The [router] options the phases read are RouterModel, whose defaults are the
// engine's own (its keys are declared in host/config/keys_router.cpp); the routing's, the
// sources' and the workload's parameters are filled by the host from their sections
// (host/init/routing_choice.cpp, traffic_choice.cpp, initial_state.cpp).
#pragma once
#include "hd.cuh"
#include "routing/registry.h"
#include "traffic/registry.h"

namespace flitsim {

// One enumerator per line of the routing registry (routing/registry.h).
enum class RoutingKind : int32_t {
#define FLITSIM_ROUTING_ENUM(Kind, id, ...) Kind = id,
  FLITSIM_ROUTINGS(FLITSIM_ROUTING_ENUM)
#undef FLITSIM_ROUTING_ENUM
};
// Destination patterns, one enumerator per line of the pattern registry (traffic/registry.h;
// rules in traffic/patterns.cuh); all but uniform work on process ranks, which
// traffic.placement maps to nodes.
enum class PatternKind : int32_t {
#define FLITSIM_PATTERN_ENUM(Kind, id, ...) Kind = id,
  FLITSIM_PATTERNS(FLITSIM_PATTERN_ENUM)
#undef FLITSIM_PATTERN_ENUM
};
// Open-loop packet creation process (traffic.injection, traffic/injection.cuh).
enum class InjectionKind : int32_t { Bernoulli = 0, OnOff = 1 };
// How a routing picks among equivalent next hops (routing.selection): at random per packet and
// hop, by credits, or (up*/down* in trees) by destination, D-mod-k.
// TwoChoice: the less occupied of two random candidates (BookSim2's fattree anca; trees only).
enum class Selection : int32_t { Oblivious = 0, Adaptive = 1, DModK = 2, TwoChoice = 3 };
// UGAL-L cost rule (routing.cost, routing/ugal_cost.cuh).
enum class UgalCost : int32_t { Queue = 0, Hops = 1, BookSim = 2, BookSimFlatfly = 3 };
// routing.sensing: what the weighted HyperX routings (DimWAR, OmniWAR) sense of an output
// (routing/hyperx_common.cuh, hx_congestion).
enum class Sensing : int32_t { Port = 0, Class = 1 };
// routing.congestion: what UGAL-L, DimWAR, OmniWAR and DAL sense of an output's VCs
// (routing/route_choice.cuh, sensed_congestion): Port, its downstream credits in use, the
// flits of its ioq output queues and the flits queued here for it; Downstream, the credits in
// use; Output, the ioq output queues' flits; OutputAndDownstream, both (SuperSim's modes).
enum class Congestion : int32_t { Port = 0, Downstream = 1, Output = 2, OutputAndDownstream = 3 };
// routing.dateline: how dor on a torus picks a hop's dateline class (torus_dor.cuh).
enum class Dateline : int32_t { Crossing = 0, Sticky = 1, BookSim = 2 };
// router.vc_policy: which output VC of the routing's allowed range a head asks for
// (phases/vc_alloc.cuh) and which VC a new packet takes at injection (phases/inject.cuh).
enum class VcPolicy : int32_t { Spread = 0, ByHop = 1, Random = 2 };
// router.architecture (phases/output_queue.cuh): input-queued; combined input/output-queued
// (one output FIFO per port whose flits hold their downstream credit); input-output-queued (an
// output queue per port and VC whose flits wait there for their credit, SuperSim's
// input_output_queued router).
enum class Architecture : int32_t { Iq = 0, Cioq = 1, Ioq = 2 };
// router.sw_allocator and router.vc_allocator (phases/allocation.cuh; Dally & Towles ch. 19).
enum class Allocator : int32_t { Islip = 0, SeparableInputFirst = 1, SeparableOutputFirst = 2, Wavefront = 3 };

// The router model: the [router] options every phase reads (keys declared in
// host/config/keys_router.cpp; defaults here, once). Each field's default is the engine's own
// router; the CPU executor has an instance specialised for RouterModel{} (host/run/pinned_model.hpp).
struct RouterModel {
  int32_t sa_iterations = 1;  // iterations of the switch allocator (router.alloc_iterations / sa_iterations)
  int32_t va_iterations = 1;  // iterations of the VC allocator (router.alloc_iterations)
  Allocator sw_allocator = Allocator::Islip;                // router.sw_allocator
  Allocator vc_allocator = Allocator::SeparableInputFirst;  // router.vc_allocator
  bool speculative = false;  // router.speculative: heads still VC-allocating bid for the switch, below the others
  bool va_sa_separate = false;  // router.va_sa = "separate": a VC won in cycle t may request the switch from t + 1
  VcPolicy vc_policy = VcPolicy::Spread;  // router.vc_policy
  // router.sw_input_arbiter = "output": a separable switch allocator's input stage picks among the
  // outputs its VCs request (BookSim2's iq router), not among its VCs (phases/switch_alloc.cuh).
  bool sw_input_by_output = false;
  // router.eject_vc = "arrival": by-hop ejects on the VC class the packet arrived in, not on the
  // last class (phases/vc_alloc.cuh, by_hop_vc).
  bool eject_on_arrival_class = false;
  bool age_arbitration = false;  // router.arbitration = "age": oldest packet first (VA and SA grants)
  bool vct = false;  // router.flow_control = "vct": a head takes an output VC only with room for its packet
  // router.architecture (phases/output_queue.cuh): with "cioq" and "ioq" the switch writes into
  // output queues of sz.O flits (one per port, or one per port and VC), drained onto the
  // channel one flit per cycle; the switch runs `speedup` allocation-and-traversal passes per
  // cycle. "iq": no output queues, speedup 1.
  Architecture architecture = Architecture::Iq;
  int32_t speedup = 1;
  FLITSIM_HD constexpr bool output_queued() const { return architecture != Architecture::Iq; }
  FLITSIM_HD constexpr bool cioq() const { return architecture == Architecture::Cioq; }
  FLITSIM_HD constexpr bool ioq() const { return architecture == Architecture::Ioq; }
  // router.speculation = "lowest-priority": speculative requests join the one switch allocation
  // pass below every other request (BookSim2's default spec_sw_allocator = prio), instead of a
  // second pass for what the first left (phases/allocation.cuh).
  bool spec_lowest_priority = false;
};
// Field by field (C++17 has no defaulted ==): the pinned instance runs when this holds.
FLITSIM_HD constexpr bool same_model(const RouterModel& a, const RouterModel& b) {
  return a.sa_iterations == b.sa_iterations && a.va_iterations == b.va_iterations &&
         a.sw_allocator == b.sw_allocator && a.vc_allocator == b.vc_allocator && a.speculative == b.speculative &&
         a.va_sa_separate == b.va_sa_separate && a.vc_policy == b.vc_policy &&
         a.sw_input_by_output == b.sw_input_by_output && a.eject_on_arrival_class == b.eject_on_arrival_class &&
         a.age_arbitration == b.age_arbitration && a.vct == b.vct && a.architecture == b.architecture && a.speedup == b.speedup &&
         a.spec_lowest_priority == b.spec_lowest_priority;
}

// The routing's parameters (host/init/routing_choice.cpp fills them from [routing] and the
// routing's traits); fixed point where a routing decides, so that CPU and GPU decide identically.
struct RoutingParams {
  RoutingKind kind = RoutingKind::DragonflyMin;
  Selection selection = Selection::Oblivious;
  int32_t vc_classes = 1;     // deadlock-avoidance classes the routing uses
  int32_t phase_classes = 1;  // table Valiant: VC classes of one minimal phase
  int32_t escape_classes = 0; // Duato (min-adapt): escape VCs 0 .. escape_classes−1, the rest adaptive
  bool valiant_any = false;   // dragonfly Valiant: any router of the intermediate group
  bool valiant_node = false;  // routing.valiant = "node": the intermediate is a random node's router (BookSim2)
  bool valiant_dims = false;  // routing.valiant = "differing-dims": random only where source and destination differ
  Congestion congestion = Congestion::Port;  // routing.congestion: what adaptive choices sense of an output
  bool df_booksim_vcs = false;   // routing.vc_scheme = "booksim": dragonfly UGAL-L on BookSim2's VCs
  bool decide_at_injection = false;  // routing.decide_at_injection: UGAL-L decides as the packet is injected
  bool reroute_waiting = false;  // kReroutesWaiting: heads without an output VC are routed each cycle
  // Adaptive routing (UGAL-L, Clos-AD, DimWAR, OmniWAR).
  int32_t n_indirect = 1;     // UGAL: non-minimal candidates
  int32_t penalty_x256 = 256; // UGAL: penalty c · 256
  int32_t ugal_offset = 0;    // non-minimal bias in flits (UGAL booksim offset, WAR/Clos-AD bias)
  long long threshold_x256 = 0;  // UGAL: route minimally while 256·q_min < this (0 = off)
  UgalCost ugal_cost = UgalCost::Queue;
  bool multi_deroute = true;  // OmniWAR: back-to-back deroutes in one dimension allowed
  Sensing sensing = Sensing::Port;  // DimWAR/OmniWAR: the congestion of an output they weigh
  bool deroute_first_class = false;  // routing.deroute_class = "first": DimWAR derouting on class 0 (SuperSim)
  Dateline dateline = Dateline::Crossing;  // dor on a torus: the dateline class rule
  // Global-information routing (UGAL-G, routing/snapshot.cuh): every router writes its ports'
  // congestion into one half of cong_snap at the end of the last cycle of each period of
  // snapshot_period cycles; routers read the other half. 0 = no snapshot.
  int32_t snapshot_period = 0;
};

// The open-loop sources (host/init/traffic_choice.cpp, initial_state.cpp): packet sizes, the
// injection process, the destination pattern's parameters and the layout of the per-replica
// traffic table tr_table (offsets into one replica's tr_len entries; -1 when absent).
struct TrafficParams {
  int32_t packet_size = 1;    // fixed packet size, or the smallest of traffic.packet_sizes
  int32_t size_span = 0;      // traffic.packet_sizes: sizes uniform in [packet_size, packet_size + size_span]
  int32_t reply_size = 0;     // traffic.reply_size: flits of the reply each delivered request makes; 0 = off
  InjectionKind injection = InjectionKind::Bernoulli;
  uint32_t burst_alpha = 0;   // on/off: P(off -> on)·2^32 per cycle (1 / traffic.burst_off)
  uint32_t burst_beta = 0;    // on/off: P(on -> off)·2^32 per cycle (1 / traffic.burst_on)
  PatternKind pattern = PatternKind::Uniform;
  int32_t df_p = 0;           // dragonfly nodes per router (group-shift)
  int32_t pat_bits = 0;       // log2 N for the bit permutations
  long long pat_shift = 0;    // shift, tornado and group-shift offset in nodes (mod N)
  int32_t pat_group = 0;      // bad-dragon: ranks per dragonfly group (a·p)
  uint32_t hot_threshold = 0; // P(packet goes to a hotspot)·2^32 (saturates at 2^32 - 1)
  bool hot_all = false;       // every packet goes to a hotspot
  int32_t hot_count = 0;
  int32_t tr_perm = -1;       // randperm: rank -> rank, N entries
  int32_t tr_rank = -1;       // placement: node -> rank, N entries
  int32_t tr_node = -1;       // placement: rank -> node, N entries
  int32_t tr_hot = -1;        // hotspot ranks, hot_count entries
  int32_t tr_hx = -1;         // urb: [D, T, widths[D], targeted[D]] (HyperX rank coordinates)
};

// Traffic classes ([[traffic.class]], docs/traffic.md "Traffic classes"): independent open-loop
// sources sharing the network, each with its own TrafficParams (class 0's is SimParams::traffic,
// so a run with one class reads exactly what it read before classes existed), a priority and a
// source set. Class c's Bernoulli chain draws from its own stream (class_seed); its pattern reads
// its own slice of the replica's traffic table, from tr_base[c].
constexpr int kMaxTrafficClasses = 4;
struct TrafficClasses {
  int32_t count = 1;
  // Priorities differ between classes: the allocators compare them (phases/class_priority.cuh).
  bool prioritized = false;
  int32_t priority[kMaxTrafficClasses] = {};  // higher wins where a router allocates
  int32_t tr_base[kMaxTrafficClasses] = {};   // class c's tables in the replica's traffic table
  TrafficParams more[kMaxTrafficClasses - 1]; // classes 1 .. count − 1
};

// Closed-loop workload: nodes run message programs instead of the open-loop sources.
struct WorkloadParams {
  bool on = false;
  int32_t packet_size = 1;    // flits per packet of a message (the last one may be shorter)
};

// Scalar parameters shared by all replicas, one struct per concern.
struct SimParams {
  long long warmup = 0;       // measurement window is [warmup, warmup + measure)
  long long measure = 1;
  RouterModel router;         // [router] options the phases read
  RoutingParams routing;
  TrafficParams traffic;
  WorkloadParams workload;
  TrafficClasses classes;
};

// Class c's source parameters.
FLITSIM_HD const TrafficParams& class_traffic(const SimParams& p, int c) {
  return c == 0 ? p.traffic : p.classes.more[c - 1];
}

}  // namespace flitsim
