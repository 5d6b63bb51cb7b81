#include "topology_registry.hpp"

#include <map>

namespace flitsim {

namespace {
std::map<std::string, TopologyBuilderFn>& registry() {
  static std::map<std::string, TopologyBuilderFn> r;
  return r;
}
}  // namespace

bool register_topology(const std::string& kind, TopologyBuilderFn fn) {
  registry()[kind] = std::move(fn);
  return true;
}

std::vector<std::string> topology_kinds() {
  std::vector<std::string> k;
  for (auto& [name, fn] : registry()) k.push_back(name);
  return k;
}

Topology build_topology(const Params& topo) {
  const std::string kind = topo.get_str("kind");
  auto it = registry().find(kind);
  if (it == registry().end()) {
    std::string known;
    for (auto& k : topology_kinds()) known += (known.empty() ? "" : ", ") + k;
    topo.fail("kind", "unknown topology \"" + kind + "\" (known: " + known + ")");
  }
  return it->second(topo);
}

}  // namespace flitsim
