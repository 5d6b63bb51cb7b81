// The host side of the routing registry (cuda/routing/registry.h): which routing function runs
// for routing.algorithm on a topology, its VC classes, what it senses and the table it reads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/routing/route_choice.cuh"  // ClassInputs, VcClasses
#include "host/config/engine_config.hpp"
#include "host/topologies/topology.hpp"

namespace flitsim {

// One registry line as data (the X-macro's fields, docs in registry.h).
struct RoutingInfo {
  RoutingKind kind;
  const char* kind_name;
  const char* algorithm;
  const char* family;   // Dragonfly, Hyperx, Torus, Tree, Table
  const char* header;   // cuda/routing/<header>
  const char* eject;    // dest, self
  const char* sensing;  // none, demand, snapshot
  const char* table;    // none, hx_coords, cube_coords, terminal_routers, df_groups
  const char* candidates;  // how the deadlock checker enumerates its outputs (exact)
  VcClasses (*classes)(const ClassInputs&);
  const RoutingTraits* traits;  // its keys, their defaults, label and flags (route_choice.cuh)
  bool reads(const std::string& key) const;  // key is one of traits->reads
};
const std::vector<RoutingInfo>& routing_registry();
const RoutingInfo& routing_info(RoutingKind kind);

// Is this a dragonfly with the gateway tables the Dragonfly family reads?
bool dragonfly_tables(const Topology& t);
// Does a routing of this family run on topology t?
bool family_fits(const std::string& family, const Topology& t);
// routing.algorithm names supported on t, in registry order.
std::vector<std::string> supported_algorithms(const Topology& t);
// The routings that read [routing] key `key`, as the docs and messages name them: "\"ugal\" and
// \"ugal-dor\"", an algorithm that reads it only on some topologies with them ("... (Dragonfly)").
std::string readers_of(const std::string& key);
// The algorithm names that read `key` (host/config/keys_routing.cpp: its read_by).
std::string reader_names(const std::string& key);

// Chooses the routing function for cfg on t and fills prm (routing, selection, the adaptive
// parameters, VC classes) and rt_table. dist: the router distance table (empty on dragonflies).
// Throws ConfigError naming the key for unsupported combinations.
void choose_routing(const Topology& t, const EngineConfig& cfg, const std::vector<uint8_t>& dist,
                    SimParams& prm, std::vector<int32_t>& rt_table);

}  // namespace flitsim
