// router.preset: a named set of [router] keys, declared once in router_presets.cpp. The engine
// adds a preset's keys where the user gave none (explicit keys win); the bindings give the
// table to Python (config.ROUTER_PRESETS), whose defaults and key check follow it, and
// docs/configuration.md documents each value (a test compares them).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "params.hpp"

namespace flitsim {

// One key of a preset: an integer or a string value (is_int says which).
struct PresetKey {
  std::string key;
  bool is_int;
  int64_t int_value;
  std::string str_value;
  std::string why;  // where the value comes from (docs/configuration.md repeats it)
  // Where the value applies: the topology kinds and routing algorithms it is for (empty: every
  // one). A preset may list one key several times; the first entry that applies wins, so a
  // value for some topologies comes before the value for the rest (BookSim2's routing
  // functions differ per topology: its dragonfly ones give each hop type one VC, the others
  // offer every VC).
  std::vector<std::string> kinds = {};
  std::vector<std::string> algorithms = {};
  bool applies(const std::string& kind, const std::string& algorithm) const;
  bool conditional() const { return !kinds.empty() || !algorithms.empty(); }
};
struct RouterPreset {
  std::string name;
  std::vector<PresetKey> keys;
};

// Every router.preset, the default ("flitsim", no keys) first.
const std::vector<RouterPreset>& router_presets();

// The keys preset `name` sets on topology `kind` with routing `algorithm` (each key's first
// entry that applies), in the table's order; empty for an unknown name.
std::vector<PresetKey> preset_keys_for(const std::string& name, const std::string& kind, const std::string& algorithm);

// `router` with router.preset's keys for topology `kind` and routing `algorithm` added where the
// user gave none: explicit keys win. Throws ConfigError naming router.preset and the presets when
// the name is unknown.
Params with_router_preset(const Params& router, const std::string& kind = "dragonfly",
                          const std::string& algorithm = "min");

// An error about a [router] key that router.preset set (the user did not give it) gets the
// preset named at its end, so that "router.flow_control: ..." explains itself when only
// router.preset = "hyperx-paper" was written. `given`: the [router] keys as the user wrote them.
ConfigError with_preset_origin(const Params& given, const ConfigError& e, const std::string& kind = "dragonfly",
                               const std::string& algorithm = "min");

}  // namespace flitsim
