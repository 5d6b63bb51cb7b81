// How much memory a simulation's state takes, known before anything is allocated: the byte
// count comes from the same X-macro table (FLITSIM_STATE_ARRAYS) that allocate() uses, so it is
// the real layout, replicas and histograms included. allocate() refuses a state that does not
// fit in the host memory available, with the size and what is available.
#pragma once
#include <cstddef>
#include <string>

#include "cuda/state.cuh"

namespace flitsim {

struct Topology;
struct EngineConfig;

// Bytes of every state array for these sizes (total, and per replica for replicated arrays).
size_t state_bytes(const Sizes& sz);
size_t state_replica_bytes(const Sizes& sz);

// Memory this process can still obtain: MemAvailable (/proc/meminfo), lowered by a cgroup v2
// limit or an address-space limit (ulimit -v) when one applies and by the environment variable FLITSIM_MEMORY_LIMIT (bytes); 0 when
// unknown.
// Throws ConfigError (naming FLITSIM_MEMORY_LIMIT) for a malformed or zero limit.
size_t available_host_bytes();
// FLITSIM_MEMORY_LIMIT's value in bytes: digits with an optional unit K, M, G or T (powers of
// 1024); anything else (abc, 0x10, 1.5G, -1, 0) is a ConfigError naming the variable.
unsigned long long parse_memory_limit(const std::string& text);

// Throws ConfigError naming the size, the available memory and the keys that drive it when a
// state of these sizes cannot fit in host memory (the CPU backend simulates there; the CUDA
// backend keeps a host copy).
void check_host_memory(const Sizes& sz);

// The sizes make_initial_state would allocate, computed without allocating the state (for
// estimates such as `flitsim info`); every configuration check still runs.
Sizes initial_sizes(const Topology& topo, const EngineConfig& cfg);

// Set while initial_sizes() runs: HostState::allocate() then stops instead of allocating.
bool sizes_only_requested();
struct SizesOnly {
  Sizes sz;
};

}  // namespace flitsim
