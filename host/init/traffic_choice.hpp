// The host side of the traffic patterns: the pattern registry (traffic.pattern name -> setup),
// the pattern's parameters in SimParams and the per-replica traffic table it reads on the
// device (cuda/traffic/patterns.cuh).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/state.cuh"
#include "host/config/engine_config.hpp"
#include "host/topologies/topology.hpp"

namespace flitsim {

// traffic.pattern names, in registry order.
std::vector<std::string> pattern_names();

// The tables a pattern fills once (the same for every replica).
struct TrafficTables {
  std::vector<int32_t> fixed;  // rank -> rank map (rule_table: worst-case, swap2, dcr)
  std::vector<int32_t> hx;     // urb: [D, T, widths[D], targeted[D]]
  std::vector<int32_t> node_of;  // placement "booksim-flatfly": rank -> node (traffic_maps.hpp)
};

// Sets prm.traffic.pattern and its parameters, the table layout (prm.tr_*, sz.tr_len) and returns the
// fixed tables. Throws ConfigError naming the traffic key for unsupported combinations.
TrafficTables choose_pattern(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz);

// choose_pattern for every traffic class ([[traffic.class]]): each class's parameters
// (prm.traffic, prm.classes.more) and its slice of the table (prm.classes.tr_base); one entry
// per class, or choose_pattern's alone without classes.
std::vector<TrafficTables> choose_class_patterns(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz);
// fill_traffic_table for every class, each into its slice.
void fill_class_tables(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                       const std::vector<TrafficTables>& tables, int32_t* tab);

// Fills one replica's traffic table from its seed.
void fill_traffic_table(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                        const TrafficTables& tables, int32_t* tab);

}  // namespace flitsim
