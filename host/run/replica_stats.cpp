#include "replica_stats.hpp"

namespace flitsim {

namespace {

long long replica_sum(const StateVector<long long>& a, int rep, long long n) {
  long long s = 0;
  for (long long i = 0; i < n; ++i) s += a[rep * n + i];
  return s;
}

std::vector<long long> replica_slice(const StateVector<long long>& a, int rep, long long n) {
  return std::vector<long long>(a.begin() + rep * n, a.begin() + (rep + 1) * n);
}

// Per port: the flits each sent in the window (PortState::flits).
std::vector<long long> replica_slice(const StateVector<PortState>& a, int rep, long long n) {
  std::vector<long long> out(size_t(n), 0);
  for (long long i = 0; i < n; ++i) out[size_t(i)] = a[rep * n + i].flits;
  return out;
}

// Per window batch, summed over the replica's nodes (layout [rep][node][batch]).
std::vector<long long> batch_sum(const StateVector<long long>& a, int rep, const Sizes& sz) {
  std::vector<long long> out(sz.batches, 0);
  for (long long i = 0; i < (long long)sz.N * sz.batches; ++i)
    out[i % sz.batches] += a[(long long)rep * sz.N * sz.batches + i];
  return out;
}

}  // namespace

bool accepted_below_offered(long long created_flits, long long ejected_flits, long long node_cycles,
                            double tolerance) {
  const double offered = double(created_flits) / double(node_cycles);
  const double accepted = double(ejected_flits) / double(node_cycles);
  return accepted < (1 - tolerance) * offered;
}

const std::vector<StatInfo>& replica_stat_schema() {
  static const std::vector<StatInfo> s = {
#define FLITSIM_SCALAR_INFO(name, array, doc) {#name, "scalar", doc},
#define FLITSIM_SUM_INFO(e, name, doc) {#name, "scalar", doc},
#define FLITSIM_ARRAY_INFO(name, array, len, doc) {#name, "array", doc},
#define FLITSIM_BATCH_INFO(name, array, doc) {#name, "array", doc},
      FLITSIM_NODE_SUMS(FLITSIM_SCALAR_INFO) FLITSIM_RESULT_SUMS(FLITSIM_SUM_INFO)
      FLITSIM_REPLICA_SLICES(FLITSIM_ARRAY_INFO) FLITSIM_BATCH_SUMS(FLITSIM_BATCH_INFO)
#undef FLITSIM_BATCH_INFO
#undef FLITSIM_ARRAY_INFO
#undef FLITSIM_SUM_INFO
#undef FLITSIM_SCALAR_INFO
  };
  return s;
}

ReplicaStats collect(const HostState& h, const EngineConfig& cfg, int rep, bool drained) {
  const Sizes& sz = h.sz;
  ReplicaStats s;
  s.load = cfg.loads[rep];
  s.seed = cfg.seeds[rep];
#define FLITSIM_COLLECT_NODE_SUM(name, array, doc) s.name = replica_sum(h.array, rep, sz.N);
#define FLITSIM_COLLECT_SUM(e, name, doc) s.name = h.rep_sums[(long long)rep * kRepSums + e];
#define FLITSIM_COLLECT_SLICE(name, array, len, doc) s.name = replica_slice(h.array, rep, len);
#define FLITSIM_COLLECT_BATCH(name, array, doc) s.name = batch_sum(h.array, rep, sz);
  FLITSIM_NODE_SUMS(FLITSIM_COLLECT_NODE_SUM)
  FLITSIM_RESULT_SUMS(FLITSIM_COLLECT_SUM)
  FLITSIM_REPLICA_SLICES(FLITSIM_COLLECT_SLICE)
  FLITSIM_BATCH_SUMS(FLITSIM_COLLECT_BATCH)
#undef FLITSIM_COLLECT_BATCH
#undef FLITSIM_COLLECT_SLICE
#undef FLITSIM_COLLECT_SUM
#undef FLITSIM_COLLECT_NODE_SUM
  s.drained = drained;
  // A closed loop cannot saturate (its programs set the pace); see the per-job times.
  s.saturated = !cfg.workload && (!drained || accepted_below_offered(s.created_flits, s.ejected_flits,
                                                                      (long long)sz.N * cfg.sim.measure,
                                                                      cfg.sim.saturation_tolerance));
  // sim.latency_threshold: BookSim2's criterion, in integers (mean latency > T as sum > T x packets).
  const long long T = cfg.sim.latency_threshold;
  if (!cfg.workload && T > 0 && __int128(s.latency_sum) > __int128(T) * s.packets_measured) s.saturated = true;
  if (cfg.workload) s.workload = collect_workload(*cfg.workload, h, rep);
  return s;
}

}  // namespace flitsim
