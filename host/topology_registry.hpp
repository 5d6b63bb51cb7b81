// Self-registering topology builders: each file in host/topologies/ defines one builder and
// registers it under its `topology.kind` name, so adding a topology touches one new file.
#pragma once
#include <functional>
#include <string>

#include "topology.hpp"

namespace flitsim {

using TopologyBuilderFn = std::function<Topology(const Params&)>;
bool register_topology(const std::string& kind, TopologyBuilderFn fn);

#define FLITSIM_REGISTER_TOPOLOGY(kind, fn) \
  static const bool flitsim_topology_registered_##kind = ::flitsim::register_topology(#kind, fn);

}  // namespace flitsim
