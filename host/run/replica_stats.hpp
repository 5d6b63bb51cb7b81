// The statistics schema: every per-replica statistic the engine reports, declared once. The
// lists below (with FLITSIM_RESULT_SUMS in cuda/state.cuh, the sums the phase functions
// accumulate) generate ReplicaStats, collect(), the bindings' dict and _core.replica_stats(),
// from which the Python Result fields and the HDF5 field lists are built. Adding a statistic is
// one entry in one list.
#pragma once
#include <vector>

#include "host/config/engine_config.hpp"
#include "host/init/host_state.hpp"
#include "host/workload/workload.hpp"

namespace flitsim {

// X(Result field, per-node state array, what): summed over the replica's nodes.
#define FLITSIM_NODE_SUMS(X)                                                                      \
  X(created_flits, node_created_flits, "flits created at sources during the window (offered)")    \
  X(ejected_flits, node_ejected_flits, "flits arriving at sinks during the window (accepted)")    \
  X(packets_measured, node_tagged_delivered, "measured (window-created) packets delivered")       \
  X(packets_tagged, node_tagged_created, "measured packets created")                             \
  X(slot_stalls, node_slot_stalls, "cycles a source waited for a free packet slot (0 is normal)")

// X(Result field, state array, entries per replica, what): the replica's slice.
#define FLITSIM_REPLICA_SLICES(X)                                                                   \
  X(latency_hist, lat_hist, sz.bins, "measured packets by latency: bin i = i cycles, last = overflow") \
  X(network_latency_hist, nlat_hist, sz.bins, "measured packets by network latency (from injection)") \
  X(hop_hist, hop_hist, kHopBins, "measured packets by router-to-router hops")                      \
  X(request_latency_hist, req_hist, (sz.reply_N ? sz.bins : 0), "traffic.reply_size: measured requests by latency (empty without replies)") \
  X(reply_latency_hist, reply_hist, (sz.reply_N ? sz.bins : 0), "traffic.reply_size: measured replies by latency (from the request's arrival)") \
  X(round_trip_hist, rtt_hist, (sz.reply_N ? sz.bins : 0), "traffic.reply_size: measured replies by round-trip latency (from the request's creation)") \
  X(class_sums, cls_sums, sz.cls_K * kClassSums, "traffic classes: per class, its FLITSIM_CLASS_SUMS (empty with one class)") \
  X(class_latency_hist, cls_lat_hist, sz.cls_K * sz.bins, "traffic classes: per class, measured packets by latency") \
  X(class_network_latency_hist, cls_nlat_hist, sz.cls_K * sz.bins, "traffic classes: per class, by network latency") \
  X(channel_flits, port_state, sz.P, "flits sent out of each port in the window") /* its `flits` */ \
  X(node_created_flits, node_created_flits, sz.N, "flits created per node in the window")          \
  X(node_ejected_flits, node_ejected_flits, sz.N, "flits ejected per node in the window")

// X(Result field, per-node-and-batch state array, what): per time batch of the window, summed
// over the replica's nodes.
#define FLITSIM_BATCH_SUMS(X)                                                              \
  X(batch_ejected, node_batch_ejected, "flits ejected, by arrival batch")                  \
  X(batch_created, node_batch_created, "flits created, by creation batch")                 \
  X(batch_latency, node_batch_latency, "latency sum of measured packets, by creation batch") \
  X(batch_packets, node_batch_packets, "measured packets, by creation batch")

struct ReplicaStats {
  double load = 0;
  uint64_t seed = 0;
  bool drained = false;    // every measured packet arrived before the drain limit
  bool saturated = false;  // not drained, accepted clearly below offered, or over sim.latency_threshold
  long long cycles = 0;    // cycles this replica simulated: it stops where a run of its own would end
#define FLITSIM_STAT_SCALAR(name, ...) long long name = 0;
#define FLITSIM_STAT_SCALAR_SUM(e, name, ...) long long name = 0;
#define FLITSIM_STAT_ARRAY(name, ...) std::vector<long long> name;
  FLITSIM_NODE_SUMS(FLITSIM_STAT_SCALAR)
  FLITSIM_RESULT_SUMS(FLITSIM_STAT_SCALAR_SUM)
  FLITSIM_REPLICA_SLICES(FLITSIM_STAT_ARRAY)
  FLITSIM_BATCH_SUMS(FLITSIM_STAT_ARRAY)
#undef FLITSIM_STAT_ARRAY
#undef FLITSIM_STAT_SCALAR_SUM
#undef FLITSIM_STAT_SCALAR
  WorkloadStats workload;  // workload mode only
};

// The throughput half of the saturation rule, the only place it is computed: the accepted
// rate (flits/node/cycle over the window) is below (1 − sim.saturation_tolerance) × offered.
bool accepted_below_offered(long long created_flits, long long ejected_flits, long long node_cycles,
                            double tolerance);

// One schema entry for the front ends: Result field, "scalar" or "array", what it counts.
struct StatInfo {
  const char* name;
  const char* kind;
  const char* doc;
};
const std::vector<StatInfo>& replica_stat_schema();

// Replica rep's statistics; drained: every measured packet arrived (the driver's verdict);
// cycles: the cycle it stopped at. saturated = !drained || accepted_below_offered || mean
// latency > sim.latency_threshold (when set), never in closed-loop workload runs.
ReplicaStats collect(const HostState& h, const EngineConfig& cfg, int rep, bool drained, long long cycles);

}  // namespace flitsim
