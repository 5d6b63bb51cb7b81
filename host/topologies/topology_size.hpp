// A topology's size from its keys alone, before anything is built (issue 34: a HyperX of
// widths [128,128,128] used to take 6 GiB while being built, before any refusal). Each kind
// that can grow large registers a size function next to its builder; build_topology() and the
// run's memory check (host/init/run_memory.cpp) weigh it against the memory available.
#pragma once
#include <string>

#include "host/config/params.hpp"

namespace flitsim {

struct TopologySize {
  bool known = false;  // false: the kind has no size function, or its keys are bad (the builder says why)
  // Counts as doubles: products of user integers must not wrap before they are compared.
  double routers = 0, ports = 0, nodes = 0;
  double table_bytes = 0;  // the kind's own tables and coordinates, and its builder's scratch
  std::string keys;        // the keys that drive the size, e.g. "topology.widths, topology.terminals"
};

using TopologySizeFn = TopologySize (*)(const Params&);
bool register_topology_size(const std::string& kind, TopologySizeFn fn);
// The size of the topology `topo` describes; known = false when its kind has no size function.
TopologySize topology_size(const Params& topo);

// Peak bytes while building it: the builder's port lists and the finished tables side by side.
double topology_build_bytes(const TopologySize& s);

#define FLITSIM_REGISTER_TOPOLOGY_SIZE(kind, fn) \
  static const bool flitsim_topology_size_registered_##kind = ::flitsim::register_topology_size(#kind, fn);

}  // namespace flitsim
