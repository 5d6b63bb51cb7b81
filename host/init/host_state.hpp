// Host-side storage of the whole simulation state: one vector per array of
// FLITSIM_STATE_ARRAYS. The CPU backend simulates on it directly; the CUDA backend uploads it,
// simulates on the device and downloads it back for statistics and invariant checks.
#pragma once
#include <cstddef>
#include <vector>

#include "cuda/state.cuh"
#include "host/run/huge_page_allocator.hpp"

namespace flitsim {

struct HostState {
  Sizes sz;
  SimParams prm;
  // Tables the host builds and never changes during a run: plain vectors.
#define FLITSIM_HOST_TABLE(type, name, count) std::vector<type> name;
  FLITSIM_TOPOLOGY_ARRAYS(FLITSIM_HOST_TABLE) FLITSIM_WORKLOAD_TABLES(FLITSIM_HOST_TABLE)
#undef FLITSIM_HOST_TABLE
  // The state the cycle changes, on huge pages where large (huge_page_allocator.hpp).
#define FLITSIM_HOST_FIELD(type, name, count) StateVector<type> name;
  FLITSIM_REPLICA_ARRAYS(FLITSIM_HOST_FIELD)
#undef FLITSIM_HOST_FIELD

  // The driver's per-replica counters, refreshed by Backend::sync_counters.
  std::vector<ReplicaCounters> counters;
  // Computes `counters` from the arrays held here (the CPU backend; tests of the CUDA one).
  void reduce_counters();

  // Resizes every array to its count (zero-filled).
  void allocate();
  // Raw pointers into this object's vectors.
  SimView view();
  // Bytes of state in total and per replica (what a device must hold).
  size_t bytes() const;
  size_t replica_bytes() const;
};

}  // namespace flitsim
