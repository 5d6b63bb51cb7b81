// The whole simulation state as structure-of-arrays (DESIGN.md §3). Every replicated array has
// a leading replica dimension; one engine run holds `reps` independent replicas of one topology.
//
// The array list is written once (FLITSIM_STATE_ARRAYS) and expanded into the view the phase
// functions use (raw pointers, identical on host and device), the host-side storage, the
// allocation loops of both backends and the byte count reported to users.
#pragma once
#include "flit.cuh"
#include "hd.cuh"
#include "params.cuh"

namespace flitsim {

// Per-replica integer sums the phase functions accumulate (rep_sums[rep * kRepSums + i]).
// X(enumerator, Result field, what): each is reported as a Result field of that name (the
// statistics schema, host/run/replica_stats.hpp); adding one here is all a new sum needs.
#define FLITSIM_RESULT_SUMS(X)                                                                      \
  X(kLatencySum, latency_sum, "sum over measured packets of tail arrival - creation (cycles)")      \
  X(kNetLatencySum, network_latency_sum, "sum over measured packets of tail arrival - head injection") \
  X(kHopsSum, hops_sum, "sum of router-to-router hops over measured packets")                      \
  X(kNonMinimal, nonminimal_packets, "measured packets the source router sent on a non-minimal path") \
  X(kExtraHops, extra_hops, "router hops of measured packets beyond their minimal route (deroutes)") \
  X(kRequestLatencySum, request_latency_sum, "traffic.reply_size: sum over measured requests of tail arrival - creation") \
  X(kReplyLatencySum, reply_latency_sum, "traffic.reply_size: sum over measured replies of tail arrival - creation (the request's arrival)") \
  X(kRoundTripSum, round_trip_sum, "traffic.reply_size: sum over measured replies of their tail arrival - their request's creation") \
  X(kRequestsMeasured, requests_measured, "traffic.reply_size: measured requests delivered (their replies are measured too)") \
  X(kRepliesMeasured, replies_measured, "traffic.reply_size: measured replies delivered (completed round trips)") \
  X(kReplyEjectedFlits, reply_ejected_flits, "traffic.reply_size: reply flits arriving at sinks during the window") \
  X(kReplyCreatedFlits, reply_created_flits, "traffic.reply_size: reply flits created (requests arriving) during the window")
// Sums the driver checks and no Result reports: both must stay 0.
#define FLITSIM_CHECK_SUMS(X)                                                  \
  X(kBufferOverflows, "flits that arrived at a full VC buffer")                \
  X(kRouteFailures, "heads a routing function gave no output port (a bug; fails the run)") \
  X(kOutputOverflows, "flits that crossed the switch into a full output queue (cioq)")
enum RepSum : int32_t {
#define FLITSIM_REP_SUM_ENUM(e, ...) e,
  FLITSIM_RESULT_SUMS(FLITSIM_REP_SUM_ENUM) FLITSIM_CHECK_SUMS(FLITSIM_REP_SUM_ENUM)
#undef FLITSIM_REP_SUM_ENUM
  kRepSums
};

// Per-class statistics of a run with several traffic classes (class_sums[(rep·K + c)·kClassSums
// + i]); X(enumerator, name, what), reported per class in Result.classes (results.py).
#define FLITSIM_CLASS_SUMS(X)                                                                    \
  X(kClsCreatedFlits, created_flits, "flits the class created in the window")                   \
  X(kClsEjectedFlits, ejected_flits, "flits of the class arriving at sinks in the window")      \
  X(kClsPackets, packets_measured, "measured packets of the class delivered")                   \
  X(kClsLatencySum, latency_sum, "sum over them of tail arrival - creation")                    \
  X(kClsNetLatencySum, network_latency_sum, "sum over them of tail arrival - head injection")   \
  X(kClsHopsSum, hops_sum, "sum over them of router-to-router hops")
enum ClassSum : int32_t {
#define FLITSIM_CLASS_SUM_ENUM(e, ...) e,
  FLITSIM_CLASS_SUMS(FLITSIM_CLASS_SUM_ENUM)
#undef FLITSIM_CLASS_SUM_ENUM
  kClassSums
};

constexpr int kHopBins = 32;
constexpr long long kRunning = 0x7fffffffffffffffLL;  // rep_stop_at of a replica still simulated
constexpr int kGapTable = 256;  // Bernoulli injection: gaps drawn by table, kGapTable cycles a draw

// Sizes of every dimension; computed on the host from the topology and the configuration.
struct Sizes {
  int32_t reps = 1, R = 0, N = 0, P = 0, V = 1, B = 1;
  int32_t O = 0;          // output queue depth in flits (router.output_buffer); 0 = input-queued
  int32_t OQ = 0;         // output queues per port: 1 (cioq), V (ioq: one per VC), 0 (iq)
  int32_t S = 1;          // packet slots per node; packet id = node·S + slot
  // VCs of one message class: V with one class, V / 2 with requests and replies
  // (traffic.reply_size), class m using [m·mc_V, (m + 1)·mc_V); the routing's deadlock classes
  // split these (SimView::class_vc_lo).
  int32_t mc_V = 1;
  int32_t reply_N = 0;         // reps·N with request-reply traffic (its per-node reply queues), else 0
  int32_t bins = 1;       // latency histogram bins (bin i = i cycles, last = overflow)
  int32_t batches = 1;    // the window's time batches (time series, batch-means intervals)
  int32_t fring_total = 0, cring_total = 0, ering_total = 0, nicring_total = 0;
  int32_t df_G = 0, df_a = 0;  // dragonfly table dimensions (0 when unused)
  int32_t df_links = 0;        // dragonfly: global ports listed in df_gw_ports
  int32_t demand_P = 0;        // P when the routing senses local output demand (port_demand), else 0
  int32_t snap_P = 0;          // P when the routing reads the congestion snapshot (UGAL-G), else 0
  int32_t dist_R = 0;          // rows of the router distance table (0 when unused)
  int32_t rt_len = 0;          // entries of the routing function's table (0 when unused)
  int32_t tr_len = 0;          // entries per replica of the traffic table (0 when unused)
  int32_t onoff_N = 0;         // reps·N with the on/off injection process (its per-node state), else 0
  int32_t cal_len = 0;         // arrival calendar slots per router (a power of two > every ring delay); 0: off
  int32_t cal_stride = 0;      // its bytes per router and slot: one per port, the radix rounded up to 8
  int32_t bern_N = 0;          // reps·N with the Bernoulli injection process (its per-node state), else 0
  // Traffic classes (SimParams::classes): class 0 keeps the arrays above; classes 1 .. K − 1
  // have their own Bernoulli chains, reps·N·(K − 1) entries (class-major), and every class its
  // statistics (cls_K = K). Both 0 with one class, so that its state is what it always was.
  int32_t cls_N = 0;
  int32_t cls_K = 0;
  // Closed-loop workload (cuda/workload/program.cuh); all 0 in open-loop mode.
  int32_t wl_nodes = 0;        // reps·N: one program slot per (replica, node)
  int32_t wl_steps = 0;        // program steps of all nodes of all replicas
  int32_t wl_msgs = 0;         // messages (sends) of all steps
  int32_t wl_reps = 0;         // reps
  int32_t wl_queues = 1;       // messages a network interface interleaves (workload.ni_queues)
};

// One channel's delay line (rings.cuh): len slots of its ring array (len a power of two > delay),
// `stride` entries apart from `off` on; the slot of cycle c is off + (c mod len)·stride. One
// 16-byte record per channel rather than separate arrays, so that a send reads one cache line
// for all four fields (separate arrays missed L1 at every send: benchmarks/results/
// layout-decisions.md). fring: flits into a port; cring: credits into a port; ering:
// flits into a node's sink; nicring: credits into its interface.
struct alignas(16) RingSpan {
  int32_t off = 0, len = 1, delay = 0, stride = 1;
};
// The four channels of a port in one 64-byte record (one cache line): the two it receives from
// (flits into its input side, credits into its output side) and the two it sends on (flits from
// its output: its peer's `flits`, or its node's sink ring; credits from its input: its peer's
// `credits`, or its node's interface ring). A sender reads its own record, not the receiver's:
// reading the receiver's span and calendar byte cost two cache misses per flit and per credit.
// With the arrival calendar the receiver reads none of them (rings.cuh, ring_in_slot).
struct alignas(64) PortRings {
  RingSpan flits, credits, flits_out, credits_out;
};
// The two rings a node's sink and interface receive from.
struct NodeRings {
  RingSpan flits, credits;
};

// A port's per-replica state that every step of its cycle reads, in one 64-byte record (one
// cache line), not nine arrays, each of which a busy port missed (benchmarks/results/
// layout-decisions.md). Initial values are the members' defaults (HostState::allocate).
struct alignas(64) PortState {
  // Input VCs (bits) in each stage, so that route and the allocators visit only their own:
  u64 vc_mask = 0;      // bit v: input VC v holds flits
  u64 routed_mask = 0;  // bit v: input VC v has its route (ivc_out_port >= 0)
  u64 held_mask = 0;    // bit v: input VC v holds an output VC (ivc_out_vc >= 0)
  u64 va_request = 0;   // input: the outputs its VCs request in VC allocation
  int32_t in_rr = 0;    // input: switch allocation's VC pointer
  int32_t out_rr = 0;   // output: its grant pointer over inputs
  int32_t acc_rr = 0;   // input: its accept pointer over outputs
  int32_t sa_match = -1;   // output: the input matched to it this pass, or -1 (reset by traverse)
  int32_t sa_req_vc = -1;  // input: its VC that sends this pass, or -1
  // output: flits it sent in the window (Result channel_flits): here rather than in an array of
  // its own, because traverse has this line already and the array was an L1 miss per flit.
  i64 flits = 0;
};
static_assert(sizeof(PortState) == 64, "PortState is one cache line");

// An input VC's state and an output VC's, one record each of 16 and 8 bytes (four VCs: one
// cache line, half a line), indexed by SimView::pv: a step that reads one field of a VC reads
// most of the others, and as separate arrays each field was a cache miss of its own. Fields that most cycles leave alone stay in arrays (ivc_count, which a driver
// counter sums; ivc_va_at, read only with router.va_sa = "separate" or speculation; ovc_rr,
// read when a head wins), so that they take no room in the lines every cycle brings in:
// records holding them cost more last-level misses than the arrays (benchmarks/results/
// layout-decisions.md). Initial values are the members' defaults; an output
// VC's credits start at router.buffer (host/init/initial_state.cpp).
struct alignas(16) InputVc {
  int32_t head = 0;       // buffer slot of the front flit
  int32_t out_port = -1;  // its head's route (global output port), or -1
  int32_t out_vc = -1;    // the output VC it holds, or -1; <= kRequesting: asking (vc_alloc.cuh)
  int16_t vc_lo = 0, vc_hi = 0;  // output VCs the routing allows the head: [vc_lo, vc_hi) (V <= 64)
};
struct alignas(8) OutputVc {
  int32_t owner = -1;   // input VC (global index, gp·V + v) holding it, or -1
  int32_t credits = 0;  // free slots downstream
};

// A packet slot's entry in the packet table (packet id = node·S + slot; SimView::pk), one
// record rather than an array per field: a packet's fields are read together (the route step
// reads its destination and routing state, the sink its times and hops), and at 16,512 nodes
// the table is ~200 MiB, walked round-robin by each node's slots, so every separate array was a
// cache miss of its own at creation, at each router and at the sink.
struct alignas(16) Packet {
  i64 create = 0;      // creation cycle
  i64 inject = 0;      // cycle its head entered the network (-1 until then)
  // Cycle the sink released it (free from the next cycle on; -1: free since before cycle 0), or
  // kSlotBusy while in use (packet_slot.cuh).
  i64 free_at = -1;
  int32_t dst = 0;     // destination node
  int32_t route = 0;   // the routing's packet state (see the routing's file)
  int32_t gport = 0;   // dragonfly: the chosen global port
  int32_t hops = 0;    // router-to-router hops so far
  int32_t size = 0;    // flits
  uint8_t nonminimal = 0;  // the source router sent it on a non-minimal path
  uint8_t mclass = 0;      // message class: 0 request (every packet without replies), 1 reply
  uint8_t tclass = 0;      // traffic class ([[traffic.class]]; 0 with one class)
};
static_assert(sizeof(Packet) == 48, "the message and traffic classes fit the padding: the packet table keeps its size");

// What a reply (traffic.reply_size, phases/receive.cuh) needs beyond its packet entry: the reply
// travels in its request's packet slot, turned around at the request's destination, so its
// source is not the slot's owner. A separate array (empty without replies) keeps the packet
// table at 48 bytes.
struct alignas(16) ReplyInfo {
  i64 origin = 0;      // creation cycle of its request (round-trip latency, measurement)
  int32_t src = 0;     // node that sends the reply (its request's destination)
  int32_t next = -1;   // next reply in the sending node's reply queue, or -1
};

// i + 1 wrapped to [0, n): the round-robin and FIFO step without a division (hot loops).
FLITSIM_HD int next_mod(int i, int n) { return i + 1 == n ? 0 : i + 1; }
// (a + b) mod n for a, b in [0, n).
FLITSIM_HD int add_mod(int a, int b, int n) { return a + b >= n ? a + b - n : a + b; }


// X(type, name, element count as an expression of `sz`)
#define FLITSIM_TOPOLOGY_ARRAYS(X)                         \
  X(int32_t, port_offset, sz.R + 1)                        \
  X(int32_t, port_router, sz.P)                            \
  X(int32_t, peer_port, sz.P)                              \
  X(int32_t, port_node, sz.P)                              \
  X(int32_t, node_port, sz.N)                              \
  X(int32_t, node_router, sz.N) /* port_router[node_port[n]]: one load where routing and the sink need it */ \
  X(u64, router_terminals, sz.R) /* local ports (bits) with a node: the inject step's ports */ \
  X(PortRings, port_rings, sz.P) /* the channels into and out of the port */ \
  X(NodeRings, node_rings, sz.N) /* flits into the node's sink, credits into its interface */ \
  X(int32_t, df_gw_offset, sz.df_G ? sz.df_G * sz.df_G + 1 : 0) /* CSR: global ports group i -> j */ \
  X(int32_t, df_gw_ports, sz.df_links)                     \
  X(int32_t, df_local_port, sz.R * sz.df_a)                \
  X(int32_t, df_local_links, sz.R * sz.df_a) /* parallel links from df_local_port on */ \
  X(uint8_t, dist, (long long)sz.dist_R * sz.dist_R)                   \
  X(int32_t, rt_table, sz.rt_len) /* routing-specific, see the routing's file */

// Closed-loop message programs (cuda/workload/program.cuh), compiled on the host
// (host/workload/workload.cpp) and read-only during the run. Steps and messages of every replica are
// numbered globally, so the per-step and per-message state below needs no replica stride.
#define FLITSIM_WORKLOAD_TABLES(X)                                                 \
  X(int32_t, wl_node_step, sz.wl_nodes + 1) /* steps of (rep, node): CSR over rep·N + n */ \
  X(int32_t, wl_step_send, sz.wl_steps + 1) /* messages step k sends: CSR */      \
  X(int32_t, wl_step_need, sz.wl_steps)     /* messages step k waits for */       \
  X(i64, wl_step_compute, sz.wl_steps)      /* cycles after its receives */       \
  X(int32_t, wl_msg_dst, sz.wl_msgs)        /* destination node */                \
  X(int32_t, wl_msg_flits, sz.wl_msgs)                                            \
  X(int32_t, wl_msg_step, sz.wl_msgs)       /* the receiver's step it counts for */ \
  X(uint8_t, wl_node_bg, sz.wl_nodes)       /* 1: a background job's node */

// Mutable workload state; every entry is written only by the router of the node it belongs
// to (the sender for send progress, the receiver for arrivals) or by integer atomics.
#define FLITSIM_WORKLOAD_STATE(X)                                                  \
  X(int32_t, wl_cur, sz.wl_nodes)           /* current step (global index) */     \
  X(i64, wl_wait_until, sz.wl_nodes)        /* end of the compute delay; -1: receiving */ \
  X(int32_t, wl_send_cur, sz.wl_nodes)      /* next released message to start */  \
  X(int32_t, wl_send_end, sz.wl_nodes)      /* end of the released messages */    \
  X(int32_t, wl_q_msg, (long long)sz.wl_nodes * sz.wl_queues) /* messages being sent; -1 */ \
  X(int32_t, wl_q_off, (long long)sz.wl_nodes * sz.wl_queues) /* their flits packetised */ \
  X(int32_t, wl_q_rr, sz.wl_nodes)          /* round-robin pointer over the queues */ \
  X(i64, wl_first_inject, sz.wl_nodes)      /* first head flit injected; -1: none */ \
  X(i64, wl_last_recv, sz.wl_nodes)         /* last message completed here; -1 */ \
  X(i64, wl_done_at, sz.wl_nodes)           /* program finished; -1: running */   \
  X(int32_t, wl_step_got, sz.wl_steps)      /* messages of step k completed */    \
  X(i64, wl_step_start, sz.wl_steps)        /* cycle its sends were released */   \
  X(i64, wl_step_done, sz.wl_steps)         /* cycle its wait ended */            \
  X(int32_t, wl_msg_got, sz.wl_msgs)        /* packets of the message delivered */ \
  X(int32_t, pk_msg, sz.wl_nodes ? (long long)sz.reps * sz.N * sz.S : 0) /* packet -> message */ \
  X(i64, wl_fg_left, sz.wl_reps)            /* foreground programs still running */ \
  X(i64, wl_fg_end, sz.wl_reps)             /* cycle the last one finished; -1 */

#define FLITSIM_REPLICA_ARRAYS(X)                                             \
  X(u64, rep_seed, sz.reps)                                    \
  /* first cycle the replica is no longer simulated (the driver stops it once its measurement \
     is decided, so that it never depends on its batch-mates); kRunning until then */ \
  X(i64, rep_stop_at, sz.reps)                                 \
  X(u64, rep_threshold, sz.reps) /* P(new packet)·2^32 (on/off: while on) */      \
  X(u64, rep_gap_cdf, sz.bern_N ? (long long)sz.reps * kGapTable : 0) /* P(gap <= g + 1)·2^32 */ \
  X(u64, cls_gap_cdf, sz.cls_N ? (long long)sz.reps * (sz.cls_K - 1) * kGapTable : 0) /* classes 1..K-1: (c − 1, rep) */ \
  X(int32_t, tr_table, (long long)sz.reps * sz.tr_len) /* traffic tables, see SimParams */ \
  X(flit_t, fring, (long long)sz.reps * sz.fring_total)                       \
  X(int32_t, cring, (long long)sz.reps * sz.cring_total)                      \
  X(flit_t, ering, (long long)sz.reps * sz.ering_total)                       \
  X(int32_t, nicring, (long long)sz.reps * sz.nicring_total)                  \
  X(BufferedFlit, ibuf, (long long)sz.reps * sz.P * sz.V * sz.B)                    \
  X(PortState, port_state, (long long)sz.reps * sz.P) /* a port's stage masks and allocator state */ \
  X(u64, router_busy, (long long)sz.reps * sz.R) /* local ports with flits in their input VCs after receive (cycle.cuh) */ \
  X(uint8_t, arrivals, (long long)sz.reps * sz.R * sz.cal_len * sz.cal_stride) /* calendar (rings.cuh) */ \
  X(int32_t, ivc_count, (long long)sz.reps * sz.P * sz.V) /* flits held (apart: a driver counter sums it) */ \
  X(InputVc, ivc, (long long)sz.reps * sz.P * sz.V)                           \
  X(i64, ivc_va_at, (long long)sz.reps * sz.P * sz.V) /* cycle the VC won its output VC */ \
  X(OutputVc, ovc, (long long)sz.reps * sz.P * sz.V)                          \
  X(int32_t, ovc_rr, (long long)sz.reps * sz.P * sz.V) /* VC allocation's grant pointer over input VCs */ \
  /* output queues of router.architecture "cioq" and "ioq" (phases/output_queue.cuh); empty with "iq" */ \
  X(flit_t, oq_buf, (long long)sz.reps * sz.P * sz.OQ * sz.O)                 \
  X(int32_t, oq_head, (long long)sz.reps * sz.P * sz.OQ)                      \
  X(int32_t, oq_count, (long long)sz.reps * sz.P * sz.OQ)                     \
  X(int32_t, ivc_owed, sz.O ? (long long)sz.reps * sz.P * sz.V : 0) /* credits an input owes upstream */ \
  X(int32_t, port_owed, sz.O ? (long long)sz.reps * sz.P : 0)                 \
  X(i64, port_credit_at, sz.O ? (long long)sz.reps * sz.P : 0) /* last cycle it returned a credit */ \
  /* allocation scratch, each entry written by its own port's step (cuda/phases) */ \
  X(u64, sa_request, (long long)sz.reps * sz.P)  /* input: outputs it requests this iteration */ \
  X(u64, sa_ready, (long long)sz.reps * sz.P)    /* input: its VCs behind those requests */ \
  X(int32_t, sa_grant, (long long)sz.reps * sz.P)  /* output: input it grants, or -1 */ \
  X(int32_t, sa_accept, (long long)sz.reps * sz.P) /* input: output it accepted, or -1 */ \
  X(Packet, packets, (long long)sz.reps * sz.N * sz.S) /* the packet table, by SimView::pk */ \
  X(int32_t, port_demand, (long long)sz.reps * sz.demand_P) /* route scratch: flits queued here per output */ \
  X(int32_t, cong_snap, (long long)sz.reps * 2 * sz.snap_P) /* UGAL-G: double-buffered port congestion */ \
  X(i64, ni_scan, (long long)sz.reps * sz.N)                            \
  /* request-reply (traffic.reply_size): each node's queue of replies to send, a FIFO linked \
     through pk_reply[].next, written only by the node's router (receive appends, inject takes) */ \
  X(ReplyInfo, pk_reply, sz.reply_N ? (long long)sz.reps * sz.N * sz.S : 0)   \
  X(int32_t, ni_reply_head, sz.reply_N) /* first queued reply (packet id), or -1 */ \
  X(int32_t, ni_reply_tail, sz.reply_N) /* last queued reply, or -1 */        \
  X(uint8_t, ni_on, sz.onoff_N)      /* on/off source: state at cycle t − 1 (the front) */ \
  X(uint8_t, ni_scan_on, sz.onoff_N) /* on/off source: state at cycle ni_scan − 1 */ \
  X(i64, ni_scan_k, sz.bern_N)   /* Bernoulli: index of the packet created at ni_scan */ \
  X(i64, ni_next_at, sz.bern_N)  /* Bernoulli: creation cycle of the node's next packet */ \
  X(i64, ni_next_k, sz.bern_N)   /* Bernoulli: its index */ \
  X(i64, ni_wake_at, sz.bern_N)  /* Bernoulli: first cycle the node has something to do (inject.cuh) */ \
  /* traffic classes 1 .. K − 1: their Bernoulli chains, as ni_scan .. ni_next_k, at (c − 1)·reps·N + ni */ \
  X(i64, cls_scan, sz.cls_N)                                                 \
  X(i64, cls_scan_k, sz.cls_N)                                               \
  X(i64, cls_next_at, sz.cls_N)                                              \
  X(i64, cls_next_k, sz.cls_N)                                               \
  X(i64, router_wake_at, sz.bern_N ? (long long)sz.reps * sz.R : 0) /* Bernoulli: the first ni_wake_at of its nodes */ \
  X(int32_t, ni_pid, (long long)sz.reps * sz.N)                               \
  X(int32_t, ni_sent, (long long)sz.reps * sz.N)                              \
  X(int32_t, ni_vc, (long long)sz.reps * sz.N)                                \
  X(int32_t, ni_next_slot, (long long)sz.reps * sz.N)                         \
  X(int32_t, ni_credits, (long long)sz.reps * sz.N * sz.V)                    \
  X(i64, node_created_flits, (long long)sz.reps * sz.N)                 \
  X(i64, node_ejected_flits, (long long)sz.reps * sz.N)                 \
  /* per node and time batch of the window (single writer each: no atomics on the GPU) */ \
  X(i64, node_batch_ejected, (long long)sz.reps * sz.N * sz.batches) /* by arrival */ \
  X(i64, node_batch_created, (long long)sz.reps * sz.N * sz.batches) /* by creation */ \
  X(i64, node_batch_latency, (long long)sz.reps * sz.N * sz.batches) /* at the destination, by creation */ \
  X(i64, node_batch_packets, (long long)sz.reps * sz.N * sz.batches) /* at the destination, by creation */ \
  X(i64, node_tagged_created, (long long)sz.reps * sz.N)                \
  X(i64, node_tagged_delivered, (long long)sz.reps * sz.N)              \
  X(i64, node_flits_sent, (long long)sz.reps * sz.N)                    \
  X(i64, node_flits_received, (long long)sz.reps * sz.N)                \
  X(i64, node_slot_stalls, (long long)sz.reps * sz.N)                   \
  X(i64, router_last_move, (long long)sz.reps * sz.R) /* last cycle a flit left the router (cycle.cuh) */ \
  X(i64, rep_sums, (long long)sz.reps * kRepSums)                       \
  X(i64, lat_hist, (long long)sz.reps * sz.bins)                        \
  X(i64, nlat_hist, (long long)sz.reps * sz.bins)                       \
  X(i64, hop_hist, (long long)sz.reps * kHopBins)                      \
  X(i64, cls_sums, (long long)sz.reps * sz.cls_K * kClassSums) /* traffic classes: (rep, class) sums */ \
  X(i64, cls_lat_hist, (long long)sz.reps * sz.cls_K * sz.bins) /* traffic classes: by latency */ \
  X(i64, cls_nlat_hist, (long long)sz.reps * sz.cls_K * sz.bins) /* traffic classes: by network latency */ \
  X(i64, req_hist, sz.reply_N ? (long long)sz.reps * sz.bins : 0) /* request-reply: by request latency */ \
  X(i64, reply_hist, sz.reply_N ? (long long)sz.reps * sz.bins : 0) /* by reply latency */ \
  X(i64, rtt_hist, sz.reply_N ? (long long)sz.reps * sz.bins : 0) /* by round-trip latency */ \
  FLITSIM_WORKLOAD_STATE(X)

#define FLITSIM_STATE_ARRAYS(X) FLITSIM_TOPOLOGY_ARRAYS(X) FLITSIM_WORKLOAD_TABLES(X) FLITSIM_REPLICA_ARRAYS(X)

// Arrays whose every entry starts at a value other than zero (HostState::allocate).
#define FLITSIM_STATE_INITIAL(X) \
  X(sa_grant, -1) X(sa_accept, -1) X(ivc_va_at, -1) X(port_credit_at, -1) X(rep_stop_at, kRunning) \
  X(ni_reply_head, -1) X(ni_reply_tail, -1)

// What the driver reads between chunks (delivery, watchdog, workload end), per replica: each a
// reduction (Sum or Max) of entries [first, first + length) of one state array's replica slice
// of `stride` entries. Backends reduce where the state lives: the CUDA backend with CUB
// segmented reductions, copying reps values per counter instead of whole N- and P·V-sized
// arrays.  X(field, array, stride, first, length, op)
enum class CounterOp { Sum, Max };
#define FLITSIM_DRIVER_COUNTERS(X)                                                        \
  X(tagged_created, node_tagged_created, sz.N, 0, sz.N, Sum)                             \
  X(tagged_delivered, node_tagged_delivered, sz.N, 0, sz.N, Sum)                         \
  X(created_flits, node_created_flits, sz.N, 0, sz.N, Sum)                               \
  X(ejected_flits, node_ejected_flits, sz.N, 0, sz.N, Sum)                               \
  X(flits_sent, node_flits_sent, sz.N, 0, sz.N, Sum)                                     \
  X(flits_received, node_flits_received, sz.N, 0, sz.N, Sum)                             \
  X(buffered_flits, ivc_count, (long long)sz.P * sz.V, 0, (long long)sz.P * sz.V, Sum)   \
  X(queued_flits, oq_count, (long long)sz.P * sz.OQ, 0, (long long)sz.P * sz.OQ, Sum) /* output queues */ \
  X(last_move, router_last_move, sz.R, 0, sz.R, Max)                                       \
  X(route_failures, rep_sums, kRepSums, kRouteFailures, 1, Sum)                          \
  X(latency_sum, rep_sums, kRepSums, kLatencySum, 1, Sum) /* sim.saturation = "latency": the early verdict */ \
  X(reply_created, rep_sums, kRepSums, kReplyCreatedFlits, 1, Sum) /* the throughput verdict's replies */ \
  X(foreground_end, wl_fg_end, (sz.wl_reps ? 1 : 0), 0, (sz.wl_reps ? 1 : 0), Sum)

struct ReplicaCounters {
#define FLITSIM_COUNTER_FIELD(field, array, stride, first, length, op) long long field = 0;
  FLITSIM_DRIVER_COUNTERS(FLITSIM_COUNTER_FIELD)
#undef FLITSIM_COUNTER_FIELD
};

// What the phase functions see: sizes, parameters and one raw pointer per array.
struct SimView {
  Sizes sz;
  SimParams prm;
#define FLITSIM_VIEW_FIELD(type, name, count) type* name;
  FLITSIM_STATE_ARRAYS(FLITSIM_VIEW_FIELD)
#undef FLITSIM_VIEW_FIELD

  // Index helpers: replica-major, then the entity.
  FLITSIM_HD long long pv(int rep, int gp, int v) const { return ((long long)rep * sz.P + gp) * sz.V + v; }
  FLITSIM_HD long long pp(int rep, int gp) const { return (long long)rep * sz.P + gp; }
  // Output queue k of port gp (k = 0 with cioq, the VC with ioq).
  FLITSIM_HD long long po(int rep, int gp, int k) const { return ((long long)rep * sz.P + gp) * sz.OQ + k; }
  // Index of port gp (of the router whose first port is p0) in the switch allocator's
  // scratch (sa_request, sa_ready, sa_grant, sa_accept), which lives only within one router's
  // cycle. On the GPU one entry per port; on the CPU the executor points these arrays at a
  // per-thread buffer of kMaxRadix entries, which stays in L1 from one router to the next
  // (host/run/cpu_backend.cpp, ThreadScratch).
  FLITSIM_HD long long sp(int rep, int gp, int p0) const {
#if defined(__CUDA_ARCH__)
    return pp(rep, gp);
#else
    (void)rep;
    return gp - p0;
#endif
  }
  FLITSIM_HD long long nn(int rep, int n) const { return (long long)rep * sz.N + n; }
  FLITSIM_HD long long pk(int rep, int32_t pid) const { return (long long)rep * sz.N * sz.S + pid; }
  FLITSIM_HD bool in_window(long long t) const { return t >= prm.warmup && t < prm.warmup + prm.measure; }
  // Index of (replica, node) and the window's time batch of cycle t (t in the window).
  FLITSIM_HD long long nb(int rep, int n, long long t) const {
    return nn(rep, n) * sz.batches + (t - prm.warmup) * sz.batches / prm.measure;
  }
  // First VC of deadlock class c (classes split the V VCs into contiguous ranges).
  // Classes beyond the configured count collapse into the last one (deadlock_avoidance off).
  FLITSIM_HD int clamp_class(int c) const { return c < prm.routing.vc_classes ? c : prm.routing.vc_classes - 1; }
  // In the VCs of one message class (sz.mc_V; route_packet moves the range to the packet's class).
  FLITSIM_HD int class_vc_lo(int c) const { return clamp_class(c) * sz.mc_V / prm.routing.vc_classes; }
  FLITSIM_HD int class_vc_hi(int c) const { return (clamp_class(c) + 1) * sz.mc_V / prm.routing.vc_classes; }
};

}  // namespace flitsim
