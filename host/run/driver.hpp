// The run loop (DESIGN.md §1, §6): warm-up, measurement window, drain until every measured
// packet has arrived or the drain limit declares saturation; a progress watchdog between
// chunks of cycles; flit and credit conservation checked at the end of every run. In
// workload mode the run lasts until every foreground program has finished and the network
// is empty (or workload.max_cycles).
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/config/engine_config.hpp"
#include "replica_stats.hpp"
#include "host/topologies/topology.hpp"

namespace flitsim {

// No flit moved for `watchdog` cycles while flits were buffered. The message names blocked VCs.
struct DeadlockError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An invariant of the model broke (a bug, never a user error).
struct InvariantError : std::logic_error {
  using std::logic_error::logic_error;
};

struct RunOutput {
  std::string backend;
  std::string schedule;  // the CUDA schedule that ran ("" on the CPU)
  long long cycles = 0;
  double wall_seconds = 0;
  size_t state_bytes = 0;
  int32_t packet_slots = 0, vc_classes = 0;
  bool workload = false;  // closed-loop run: replicas carry WorkloadStats
  std::vector<ReplicaStats> replicas;
};

// Called between chunks with (current cycle, end of the measurement window, replicas done,
// fraction of the work done or -1 when the cycle count tells it). Workload runs (window end
// 0) pass the share of their messages' flits delivered, the only measure of their end.
// It may throw to abort the run (e.g. on Ctrl-C).
using ProgressFn = std::function<void(long long, long long, int, double)>;

// backend: "cpu", "cuda" or "auto" (CUDA when usable, else CPU). threads: CPU threads, 0 = all.
RunOutput run_engine(const Topology& topo, const EngineConfig& cfg, const std::string& backend, int threads,
                     const ProgressFn& progress);

}  // namespace flitsim
