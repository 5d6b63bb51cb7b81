#include "topology_size.hpp"

#include <map>

namespace flitsim {

namespace {
std::map<std::string, TopologySizeFn>& sizes() {
  static std::map<std::string, TopologySizeFn> s;
  return s;
}
}  // namespace

bool register_topology_size(const std::string& kind, TopologySizeFn fn) {
  sizes()[kind] = fn;
  return true;
}

TopologySize topology_size(const Params& topo) {
  if (!topo.has("kind")) return {};
  auto it = sizes().find(topo.get_str("kind"));
  if (it == sizes().end()) return {};
  try {
    return it->second(topo);
  } catch (const ConfigError&) {
    return {};  // a bad key: the builder reports it with its own message
  }
}

double topology_build_bytes(const TopologySize& s) {
  // TopologyBuilder: a port record (12 bytes) per port and a vector (24 bytes) per router;
  // Topology: port_router, peer_port, port_node (4 bytes each) and port_class (1) per port,
  // port_offset per router, node_port per node.
  return s.ports * (12 + 13) + s.routers * (24 + 4) + s.nodes * 4 + s.table_bytes;
}

}  // namespace flitsim
