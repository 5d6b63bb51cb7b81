#include "driver.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "backend.hpp"
#include "invariants.hpp"
#include "replica_stats.hpp"

namespace flitsim {

namespace {

std::unique_ptr<Backend> choose_backend(const std::string& want, int threads, CudaSchedule schedule) {
  if (want == "cpu") return make_cpu_backend(threads);
  std::string why;
  if (want == "cuda") {
    if (!cuda_usable(&why)) throw ConfigError("backend: cuda was requested but " + why);
    return make_cuda_backend(schedule);
  }
  if (want != "auto") throw ConfigError("backend: must be auto, cpu or cuda, got \"" + want + "\"");
  return cuda_usable(nullptr) ? make_cuda_backend(schedule) : make_cpu_backend(threads);
}

// Sum of replica rep's slice of an array with n entries per replica.
template <class T>
long long replica_sum(const std::vector<T>& a, int rep, long long n) {
  return std::accumulate(a.begin() + rep * n, a.begin() + (rep + 1) * n, 0LL);
}

// Between chunks: a routing function that gave a head no output port (a bug), or a deadlock
// (no flit moved for sim.watchdog cycles while flits are buffered), ends the run with the
// blocked VCs as diagnostics instead of a hang.
void check_progress(Backend& backend, HostState& h, const EngineConfig& cfg, int rep, long long t) {
  const Sizes& sz = h.sz;
  const std::string where = " at cycle " + std::to_string(t) + " in replica " + std::to_string(rep);
  const long long failures = h.rep_sums[(long long)rep * kRepSums + kRouteFailures];
  if (failures > 0) {
    backend.download(h);
    throw InvariantError("routing \"" + cfg.algorithm + "\" gave " + std::to_string(failures) +
                         " head flit(s) no output port" + where + " (a flitsim bug); input VCs:\n" +
                         describe_blocked(h, rep, 12));
  }
  const long long buffered = replica_sum(h.ivc_count, rep, (long long)sz.P * sz.V);
  const long long last = *std::max_element(h.port_last_move.begin() + (long long)rep * sz.P,
                                           h.port_last_move.begin() + (long long)(rep + 1) * sz.P);
  if (buffered > 0 && t - 1 - last > cfg.watchdog) {
    backend.download(h);
    throw DeadlockError("deadlock: no flit moved for " + std::to_string(t - 1 - last) + " cycles (watchdog " +
                        std::to_string(cfg.watchdog) + ")" + where + (cfg.workload ? " of the workload" : "") +
                        " with " + std::to_string(buffered) + " flits buffered; blocked input VCs:\n" +
                        describe_blocked(h, rep, 12));
  }
}

// Workload mode: runs until every replica's foreground programs have finished and its network
// is empty (background jobs stop injecting once the foreground is done); the network
// watchdog as in open-loop runs. Returns the last simulated cycle + 1.
long long run_workload(Backend& backend, HostState& h, const EngineConfig& cfg, const ProgressFn& progress) {
  const Sizes& sz = h.sz;
  const CompiledWorkload& w = *cfg.workload;
  // Progress measure: flits of foreground messages (they all must arrive) vs those delivered.
  long long fg_total = 0;
  for (size_t m = 0; m < w.msg_dst.size(); ++m) {
    const int32_t rep = int32_t(std::upper_bound(w.node_step.begin(), w.node_step.end() - 1, w.msg_step[m]) -
                                w.node_step.begin() - 1) / sz.N;
    if (!w.node_bg[(long long)rep * sz.N + w.msg_dst[m]]) fg_total += w.msg_flits[m];
  }
  long long t = 0;
  for (;;) {
    if (t >= w.max_cycles) {
      backend.download(h);
      std::string waiting;
      for (int rep = 0; rep < sz.reps; ++rep)
        if (h.wl_fg_end[rep] < 0) waiting += "replica " + std::to_string(rep) + ":\n" + describe_waiting(w, h, rep, 8);
      throw WorkloadError("workload: not finished after workload.max_cycles = " + std::to_string(w.max_cycles) +
                          " cycles; programs still waiting:\n" + waiting);
    }
    const long long n = std::min(cfg.chunk, w.max_cycles - t);
    backend.run(t, n);
    t += n;
    backend.sync_counters(h);
    int n_done = 0;
    for (int rep = 0; rep < sz.reps; ++rep) {
      check_progress(backend, h, cfg, rep, t);
      n_done += h.wl_fg_end[rep] >= 0 &&
                replica_sum(h.node_flits_sent, rep, sz.N) == replica_sum(h.node_flits_received, rep, sz.N);
    }
    if (progress) {
      long long fg_received = 0;
      for (long long i = 0; i < (long long)sz.reps * sz.N; ++i)
        if (!w.node_bg[i]) fg_received += h.node_flits_received[i];
      progress(t, 0, n_done, fg_total > 0 ? std::min(1.0, double(fg_received) / double(fg_total)) : -1.0);
    }
    if (n_done == sz.reps) return t;
  }
}

}  // namespace

RunOutput run_engine(const Topology& topo, const EngineConfig& cfg, const std::string& backend_name, int threads,
                     const ProgressFn& progress) {
  HostState h = make_initial_state(topo, cfg);  // validates before anything runs
  std::unique_ptr<Backend> backend = choose_backend(backend_name, threads, cfg.schedule);
  const auto start = std::chrono::steady_clock::now();
  backend->upload(h);

  const Sizes& sz = h.sz;
  const long long window_end = cfg.warmup + cfg.measure, limit = window_end + cfg.drain_limit;
  std::vector<bool> done(sz.reps, false), drained(sz.reps, false);
  long long t = 0;
  bool all_done = false;
  if (cfg.workload) {  // closed loop: the programs decide when the run ends
    t = run_workload(*backend, h, cfg, progress);
    all_done = true;
    drained.assign(sz.reps, true);
  }
  while (!all_done && t < limit) {
    const long long n = std::min(cfg.chunk, limit - t);
    backend->run(t, n);
    t += n;
    backend->sync_counters(h);
    int n_done = 0;
    for (int rep = 0; rep < sz.reps; ++rep) {
      check_progress(*backend, h, cfg, rep, t);
      if (t >= window_end) {
        drained[rep] = replica_sum(h.node_tagged_delivered, rep, sz.N) == replica_sum(h.node_tagged_created, rep, sz.N);
        // A replica that accepted clearly less than was offered is saturated already; waiting
        // for its measured packets would only measure the growth of its source queues.
        done[rep] = drained[rep] || accepted_below_offered(replica_sum(h.node_created_flits, rep, sz.N),
                                                           replica_sum(h.node_ejected_flits, rep, sz.N),
                                                           (long long)sz.N * cfg.measure, cfg.saturation_tolerance);
      }
      n_done += done[rep];
    }
    all_done = n_done == sz.reps;
    if (progress) progress(t, window_end, n_done, -1.0);
  }
  backend->download(h);
  const auto stop = std::chrono::steady_clock::now();

  const std::string broken = check_conservation(h);
  if (!broken.empty()) throw InvariantError("flit/credit conservation violated (a flitsim bug):\n" + broken);
  if (cfg.workload) {
    const std::string bad = check_workload(*cfg.workload, h);
    if (!bad.empty()) throw InvariantError("workload message accounting violated (a flitsim bug):\n" + bad);
  }

  RunOutput out;
  out.backend = backend->name();
  out.schedule = backend->schedule();
  out.cycles = t;
  out.wall_seconds = std::chrono::duration<double>(stop - start).count();
  out.state_bytes = h.bytes();
  out.packet_slots = sz.S;
  out.vc_classes = h.prm.vc_classes;
  out.workload = bool(cfg.workload);
  for (int rep = 0; rep < sz.reps; ++rep) out.replicas.push_back(collect(h, cfg, rep, drained[rep]));
  return out;
}

}  // namespace flitsim
