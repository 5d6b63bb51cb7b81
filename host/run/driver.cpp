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

// Runs n cycles from t0 in pieces short enough that the host callback (Ctrl-C, progress) is
// reached about every kPieceSeconds, however slow a chunk of a large network is; the pieces
// only split the backend's work, so the checks (drain, watchdog) and the results stay those
// of whole chunks. The piece doubles while pieces are fast and shrinks when one is slow.
// CPU only: a GPU runs a default chunk in milliseconds, and its graph schedule captures one
// CUDA graph per distinct run length, which varying pieces would multiply.
class PiecewiseRunner {
 public:
  PiecewiseRunner(Backend& backend, std::function<void(long long)> between)
      : backend_(backend), between_(std::move(between)), split_(backend.name() == "cpu") {}
  void run(long long t0, long long n) {
    if (!split_) return backend_.run(t0, n);
    for (long long done = 0; done < n;) {
      const long long m = std::min(piece_, n - done);
      const auto start = std::chrono::steady_clock::now();
      backend_.run(t0 + done, m);
      done += m;
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (secs > kPieceSeconds) piece_ = std::max<long long>(1, (long long)(double(m) * kPieceSeconds / secs));
      else if (secs < kPieceSeconds / 4 && m == piece_) piece_ = std::min<long long>(piece_ * 2, int64_t(1) << 40);
      if (done < n && between_) between_(t0 + done);
    }
  }

 private:
  static constexpr double kPieceSeconds = 0.25;
  Backend& backend_;
  std::function<void(long long)> between_;
  bool split_;
  long long piece_ = 128;  // cycles; the default sim.chunk
};

// Cycles since the last flit moved in replica rep while flits are buffered (0 when none are).
// Between chunks the driver reads only h.counters (Backend::sync_counters fills them on every
// backend; the CUDA backend no longer copies the arrays they are reduced from).
long long stalled_cycles(const HostState& h, int rep, long long t, long long* buffered_out = nullptr) {
  const ReplicaCounters& c = h.counters[rep];
  const long long buffered = c.buffered_flits + c.queued_flits;  // input VCs and cioq output queues
  if (buffered_out) *buffered_out = buffered;
  if (buffered == 0) return 0;
  return std::max(0LL, t - 1 - c.last_move);
}

// Between chunks: a routing function that gave a head no output port (a bug), or a deadlock
// (no flit moved for sim.watchdog cycles while flits are buffered), ends the run with the
// blocked VCs as diagnostics instead of a hang.
void check_progress(Backend& backend, HostState& h, const EngineConfig& cfg, int rep, long long t) {
  const std::string where = " at cycle " + std::to_string(t) + " in replica " + std::to_string(rep);
  const long long failures = h.counters[rep].route_failures;
  if (failures > 0) {
    backend.download(h);
    throw InvariantError("routing \"" + cfg.routing.algorithm + "\" gave " + std::to_string(failures) +
                         " head flit(s) no output port" + where + " (a flitsim bug); input VCs:\n" +
                         describe_blocked(h, rep, 12));
  }
  long long buffered = 0;
  const long long stalled = stalled_cycles(h, rep, t, &buffered);
  if (stalled > cfg.sim.watchdog) {
    backend.download(h);
    throw DeadlockError("deadlock: no flit moved for " + std::to_string(stalled) + " cycles (watchdog " +
                        std::to_string(cfg.sim.watchdog) + ")" + where + (cfg.workload ? " of the workload" : "") +
                        " with " + std::to_string(buffered) + " flits buffered; blocked input VCs:\n" +
                        describe_blocked(h, rep, 12));
  }
}

// Whether the measured packets' mean latency will exceed `threshold` cycles whenever the
// missing ones arrive, each of them with a latency of at least `least` cycles (integers:
// sum > threshold x packets, as collect() decides it).
bool latency_certainly_over(const ReplicaCounters& c, long long least, long long threshold) {
  const long long missing = c.tagged_created - c.tagged_delivered;
  return c.tagged_created > 0 &&
         __int128(c.latency_sum) + __int128(missing) * least > __int128(threshold) * c.tagged_created;
}

// Workload mode: runs until every replica's foreground programs have finished and its network
// is empty (background jobs stop injecting once the foreground is done); the network
// watchdog as in open-loop runs. Each replica stops at the chunk boundary where it finished
// (end[rep], the cycle it ended). Returns the last simulated cycle + 1.
long long run_workload(Backend& backend, HostState& h, const EngineConfig& cfg, const ProgressFn& progress,
                       std::vector<long long>& end) {
  const Sizes& sz = h.sz;
  const CompiledWorkload& w = *cfg.workload;
  // Progress measure: flits delivered (per-replica counters, current on every backend) of all
  // messages' flits. Background jobs stop early once the foreground is done, so with them the
  // share runs low and the ETA errs long.
  long long all_flits = 0;
  for (int32_t f : w.msg_flits) all_flits += f;
  auto share = [&]() {
    long long received = 0;
    for (int rep = 0; rep < sz.reps; ++rep) received += h.counters[rep].flits_received;
    return all_flits > 0 ? std::min(1.0, double(received) / double(all_flits)) : -1.0;
  };
  long long t = 0;
  int n_done_last = 0;
  double share_last = -1.0;
  PiecewiseRunner runner(backend, [&](long long c) {
    if (progress) progress(c, 0, n_done_last, share_last);
  });
  for (;;) {
    if (t >= w.max_cycles) {
      backend.download(h);
      std::string waiting;
      for (int rep = 0; rep < sz.reps; ++rep)
        if (h.wl_fg_end[rep] < 0) waiting += "replica " + std::to_string(rep) + ":\n" + describe_waiting(w, h, rep, 8);
      throw WorkloadError("workload: not finished after workload.max_cycles = " + std::to_string(w.max_cycles) +
                          " cycles; programs still waiting:\n" + waiting);
    }
    const long long n = std::min(cfg.sim.chunk, w.max_cycles - t);
    runner.run(t, n);
    t += n;
    backend.sync_counters(h);
    int n_done = 0;
    for (int rep = 0; rep < sz.reps; ++rep) {
      if (end[rep] >= 0) {
        ++n_done;
        continue;
      }
      check_progress(backend, h, cfg, rep, t);
      const ReplicaCounters& c = h.counters[rep];
      if (c.foreground_end >= 0 && c.flits_sent == c.flits_received) {
        end[rep] = t;  // finished: it stops here, as it would alone
        backend.stop_replica(h, rep, t);
        ++n_done;
      }
    }
    n_done_last = n_done;
    share_last = share();
    if (progress) progress(t, 0, n_done, share_last);
    if (n_done == sz.reps) return t;
  }
}

}  // namespace

RunOutput run_engine(const Topology& topo, const EngineConfig& cfg, const std::string& backend_name, int threads,
                     const ProgressFn& progress) {
  HostState h = make_initial_state(topo, cfg);  // validates before anything runs
  std::unique_ptr<Backend> backend = choose_backend(backend_name, threads, cfg.sim.schedule);
  const auto start = std::chrono::steady_clock::now();
  backend->upload(h);

  const Sizes& sz = h.sz;
  const long long window_end = cfg.sim.warmup + cfg.sim.measure, limit = window_end + cfg.sim.drain_limit;
  std::vector<bool> done(sz.reps, false), drained(sz.reps, false), stalled(sz.reps, false), paused(sz.reps, false);
  // The cycle each replica stopped at, or -1 while it runs. Batching invariance by
  // construction: a replica stops at the chunk boundary where a run of its own would have
  // ended, decided from its own counters only, and is frozen from then on (rep_stop_at), so
  // its statistics never depend on how many replicas share the run or when they finish.
  std::vector<long long> end(sz.reps, -1);
  long long t = 0;
  int n_done_last = 0;
  PiecewiseRunner runner(*backend, [&](long long c) {
    if (progress) progress(c, window_end, n_done_last, -1.0);
  });
  if (cfg.workload) {  // closed loop: the programs decide when the run ends
    t = run_workload(*backend, h, cfg, progress, end);
    drained.assign(sz.reps, true);
  }
  // A replica in which nothing moved for a whole chunk while flits are buffered (or, when it
  // falls behind its offered load, in the last cycle) may be deadlocked: it is never "done"
  // (saturated or drained) and it goes on, past the drain limit if need be, until it moves
  // again or the watchdog reports the deadlock. So a deadlock is reported as one wherever it
  // happens, never disguised as saturation. A replica ends when it is done, or at the drain
  // limit when it is not stalled.
  auto running = [&] { return std::count(end.begin(), end.end(), -1LL) > 0; };
  while (running()) {
    const long long n = t < limit ? std::min(cfg.sim.chunk, limit - t) : cfg.sim.chunk;
    runner.run(t, n);
    t += n;
    backend->sync_counters(h);
    int n_done = 0;
    for (int rep = 0; rep < sz.reps; ++rep) {
      if (end[rep] >= 0) {
        ++n_done;
        continue;
      }
      check_progress(*backend, h, cfg, rep, t);
      const long long still = stalled_cycles(h, rep, t);
      stalled[rep] = still >= std::min(n, cfg.sim.chunk);
      if (t >= window_end) {
        const ReplicaCounters& c = h.counters[rep];
        drained[rep] = c.tagged_delivered == c.tagged_created;
        // A replica that accepted clearly less than was offered is saturated already; waiting
        // for its measured packets would only measure the growth of its source queues.
        // A saturated network moves flits every cycle; one whose flits stand still (even
        // briefly: a lock-up may have formed just now) is not called saturated yet.
        // (The throughput rule's early verdict: only under sim.saturation = "accepted", the rule
        // that makes it final.)
        const bool behind = cfg.sim.saturation == SaturationRule::Accepted &&
                            accepted_below_offered(c.created_flits + c.reply_created, c.ejected_flits,  // replies: those requests made
                                                   (long long)sz.N * cfg.sim.measure, cfg.sim.saturation_tolerance);
        // sim.saturation = "latency": a measured packet still missing at t will arrive with a
        // latency of at least t - window_end + 1, so once even that lower bound puts their mean
        // over sim.latency_threshold the verdict is known and waiting longer changes nothing
        // (BookSim2 stops a run over latency_thres as well). A stalled replica is not stopped.
        const bool over_latency = cfg.sim.saturation == SaturationRule::Latency &&
                                  latency_certainly_over(c, t - window_end + 1, cfg.sim.latency_threshold);
        // A pause seen at one check is told from a lock-up at the next: a replica that moved
        // since then is alive. A credit-bound network pauses periodically, and a pause that
        // fell on every chunk boundary used to keep such a replica running forever.
        if (behind && still > 0) {
          const bool moved_since_pause = paused[rep] && h.counters[rep].last_move >= t - n;
          paused[rep] = !moved_since_pause;
          if (paused[rep]) stalled[rep] = true;
        }
        done[rep] = (drained[rep] || behind || over_latency) && !stalled[rep];
      }
      if (done[rep] || (t >= limit && !stalled[rep])) {
        end[rep] = t;
        backend->stop_replica(h, rep, t);
        ++n_done;
      }
    }
    n_done_last = n_done;
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
  out.vc_classes = h.prm.routing.vc_classes;
  out.workload = bool(cfg.workload);
  for (int rep = 0; rep < sz.reps; ++rep) out.replicas.push_back(collect(h, cfg, rep, drained[rep], end[rep]));
  return out;
}

}  // namespace flitsim
