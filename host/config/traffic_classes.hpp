// Traffic classes ([[traffic.class]], docs/traffic.md "Traffic classes"): several independent
// open-loop sources sharing the network, each a table of [traffic] keys over the [traffic]
// table's own, with a priority the routers' allocators compare.
#pragma once
#include <string>
#include <vector>

#include "host/config/engine_config.hpp"
#include "host/config/params.hpp"

namespace flitsim {

// The most classes a run may have (cuda/params.cuh, kMaxTrafficClasses).
int max_traffic_classes();
// The [traffic] keys a class table may hold; the others are the run's, set in [traffic] only.
const std::vector<std::string>& traffic_class_keys();
// Reads the class tables (each a Params of section "traffic" holding the class's keys) into
// c.classes, over c.traffic (the [traffic] table's keys), and makes c.traffic class 0's keys.
// Throws ConfigError naming traffic.class.<i>.<key> and the rule.
void parse_traffic_classes(const std::vector<Params>& tables, EngineConfig& c);

}  // namespace flitsim
