#include "topology_registry.hpp"

#include "host/init/run_memory.hpp"

#include <algorithm>
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

struct Entry {
  TopologyBuilderFn build;
  std::vector<std::string> keys;
};
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}

void check_keys(const Params& prm, const std::string& kind, const std::vector<std::string>& known) {
  for (const std::string& k : prm.keys()) {
    if (k == "kind" || std::find(known.begin(), known.end(), k) != known.end()) continue;
    std::string list = "kind";
    for (const std::string& n : known) list += ", " + n;
    prm.fail(k, "unknown key for topology kind \"" + kind + "\" (known: " + list + ")");
  }
}
std::map<std::string, WorstCaseFn>& worst_cases() {
  static std::map<std::string, WorstCaseFn> w;
  return w;
}

}  // namespace

bool register_worst_case(const std::string& kind, WorstCaseFn fn) {
  worst_cases()[kind] = fn;
  return true;
}

WorstCaseFn worst_case_of(const std::string& kind) {
  auto it = worst_cases().find(kind);
  return it == worst_cases().end() ? nullptr : it->second;
}

std::vector<std::string> worst_case_kinds() {
  std::vector<std::string> k;
  for (auto& [name, fn] : worst_cases()) k.push_back(name);
  return k;
}

bool register_topology(const std::string& kind, TopologyBuilderFn fn, std::vector<std::string> keys) {
  registry()[kind] = Entry{std::move(fn), std::move(keys)};
  return true;
}

std::vector<std::string> topology_kinds() {
  std::vector<std::string> k;
  for (auto& [name, e] : registry()) k.push_back(name);
  return k;
}

std::map<std::string, std::vector<std::string>> topology_keys() {
  std::map<std::string, std::vector<std::string>> k;
  for (auto& [name, e] : registry()) k[name] = e.keys;
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
  check_keys(topo, kind, it->second.keys);
  check_topology_integers(topo);
  check_topology_memory(topo, topology_size(topo));  // before the builder allocates anything
  return it->second.build(topo);
}

}  // namespace flitsim
