// Self-registering topology builders: each file in host/topologies/ defines one builder and
// registers it under its `topology.kind` name together with the keys it reads, so adding a
// topology touches one new file. The registry rejects any other key before the builder runs
// (a typo such as "grups = 10" is an error naming the key, not a different network), and
// _core.topology_keys() hands the same lists to the Python front end.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "topology.hpp"

namespace flitsim {

using TopologyBuilderFn = std::function<Topology(const Params&)>;
bool register_topology(const std::string& kind, TopologyBuilderFn fn, std::vector<std::string> keys);

// A kind's adversarial traffic for minimal routing (traffic.pattern = "worst-case"): a node ->
// node map, or empty where the built instance has none. Registered next to its builder.
using WorstCaseFn = std::vector<int32_t> (*)(const Topology&);
bool register_worst_case(const std::string& kind, WorstCaseFn fn);
WorstCaseFn worst_case_of(const std::string& kind);  // nullptr: the kind defines none
std::vector<std::string> worst_case_kinds();

#define FLITSIM_REGISTER_WORST_CASE(kind, fn) \
  static const bool flitsim_worst_case_registered_##kind = ::flitsim::register_worst_case(#kind, fn);

// FLITSIM_REGISTER_TOPOLOGY(kind, builder, "key", "key", ...): the keys besides `kind`.
#define FLITSIM_REGISTER_TOPOLOGY(kind, fn, ...) \
  static const bool flitsim_topology_registered_##kind = ::flitsim::register_topology(#kind, fn, {__VA_ARGS__});

}  // namespace flitsim
