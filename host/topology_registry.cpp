#include "topology_registry.hpp"

#include <map>

namespace flitsim {

namespace {
// Builders store counts and ids as int32_t and multiply sizes together before their own
// limits (2^24 routers, 2^26 nodes, radix 4096) apply: every integer but a seed is bounded
// here, before any builder runs, so no narrowing or product can wrap.
constexpr int64_t kMaxTopologyInt = (int64_t(1) << 31) - 1;

void check_topology_integers(const Params& topo) {
  for (const std::string& k : topo.keys()) {
    if (k == "seed" || k == "relabel") continue;  // seeds: any 64-bit value
    if (!topo.has(k)) continue;
    std::vector<int64_t> v;
    try {
      v = topo.get_ints(k);
    } catch (const ConfigError&) {
      continue;  // not an integer key
    }
    for (int64_t x : v)
      if (x < -kMaxTopologyInt || x > kMaxTopologyInt)
        topo.fail(k, "must be an integer in [-(2^31-1), 2^31-1], got " + std::to_string(x));
  }
}

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
  check_topology_integers(topo);
  return it->second(topo);
}

}  // namespace flitsim
