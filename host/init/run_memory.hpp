// The memory a run needs, estimated from its configuration alone before anything large is
// built (issue 34): the topology as its builder lays it out (topology_size.hpp), the routing's
// distance table, and the simulation state of every replica. Refusals name the keys that drive
// the size. HostState::allocate() still checks the exact state layout afterwards.
#pragma once
#include <string>

#include "host/config/engine_config.hpp"
#include "host/topologies/topology_size.hpp"

namespace flitsim {

struct RunMemory {
  bool known = false;  // false: the topology kind has no size function (only the state is checked, later)
  double routers = 0, ports = 0, nodes = 0;  // the topology's counts (topology_size.hpp)
  double topology = 0, routing = 0, state = 0;
  double total() const { return topology + routing + state; }
  std::string keys;    // the keys that drive the size
};

// Bytes of the topology being built and of the routing's distance table (every kind but the
// dragonfly routes by a router x router table, built and then copied into the state).
RunMemory topology_memory(const Params& topo, const TopologySize& s);
// The whole run, for cfg.loads.size() replicas.
RunMemory run_memory(const Params& topo, const EngineConfig& cfg);

// Throw ConfigError when the estimate exceeds available_host_bytes() (state_memory.hpp).
void check_topology_memory(const Params& topo, const TopologySize& s);
void check_run_memory(const Params& topo, const EngineConfig& cfg);

}  // namespace flitsim
