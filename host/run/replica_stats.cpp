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

// Cycles of the window's batches [0, b): batch i holds the cycles w with (w x batches) / measure
// = i (SimView::nb), i.e. w from ceil(i x measure / batches) on.
long long batches_cycles(long long b, long long batches, long long measure) {
  return (b * measure + batches - 1) / batches;
}

// sim.saturation = "stable": the mean latency of the packets created in the window's second
// half exceeds the first half's by more than the tolerance, or the accepted rate (flits
// arriving per cycle) of the second half is below the first half's by more than it: the run
// had not settled (BookSim2 ends its warm-up once these change by less than a threshold between
// sample periods; here the window's two halves are the periods). A half without a measured
// packet shows no drift.
bool drifting(const ReplicaStats& s, const EngineConfig& cfg) {
  const long long B = (long long)s.batch_ejected.size(), h = B / 2, M = cfg.sim.measure;
  long long lat[2] = {0, 0}, pk[2] = {0, 0}, ej[2] = {0, 0};
  for (long long b = 0; b < B; ++b) {
    const int half = b >= h;
    lat[half] += s.batch_latency[size_t(b)], pk[half] += s.batch_packets[size_t(b)], ej[half] += s.batch_ejected[size_t(b)];
  }
  const double tol = cfg.sim.saturation_tolerance;
  const long long c1 = batches_cycles(h, B, M), c2 = M - c1;
  if (pk[0] > 0 && pk[1] > 0 && double(lat[1]) / double(pk[1]) > (1 + tol) * (double(lat[0]) / double(pk[0]))) return true;
  return c1 > 0 && c2 > 0 && double(ej[1]) / double(c2) < (1 - tol) * (double(ej[0]) / double(c1));
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

ReplicaStats collect(const HostState& h, const EngineConfig& cfg, int rep, bool drained, long long cycles) {
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
  s.cycles = cycles;
  // A closed loop cannot saturate (its programs set the pace); see the per-job times.
  // sim.saturation picks the rule besides the undrained window (docs/configuration.md).
  switch (cfg.sim.saturation) {
    case SaturationRule::Accepted:
      // Request-reply: the flits created are the requests' and the replies' (a reply backlog
      // at the destinations is saturation too, though the requests still flow).
      s.saturated = !drained || accepted_below_offered(s.created_flits + s.reply_created_flits, s.ejected_flits,
                                                       (long long)sz.N * cfg.sim.measure, cfg.sim.saturation_tolerance);
      break;
    case SaturationRule::Latency:  // sim.latency_threshold alone, below
      s.saturated = !drained;
      break;
    case SaturationRule::Stable:
      s.saturated = !drained || drifting(s, cfg);
      break;
  }
  // sim.latency_threshold: BookSim2's criterion, in integers (mean latency > T as sum > T x packets).
  const long long T = cfg.sim.latency_threshold;
  if (T > 0 && __int128(s.latency_sum) > __int128(T) * s.packets_measured) s.saturated = true;
  if (cfg.workload) s.saturated = false;
  if (cfg.workload) s.workload = collect_workload(*cfg.workload, h, rep);
  return s;
}

}  // namespace flitsim
