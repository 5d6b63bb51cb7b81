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
};
struct RouterPreset {
  std::string name;
  std::vector<PresetKey> keys;
};

// Every router.preset, the default ("flitsim", no keys) first.
const std::vector<RouterPreset>& router_presets();

// `router` with router.preset's keys added where the user gave none: explicit keys win.
// Throws ConfigError naming router.preset and the presets when the name is unknown.
Params with_router_preset(const Params& router);

// An error about a [router] key that router.preset set (the user did not give it) gets the
// preset named at its end, so that "router.flow_control: ..." explains itself when only
// router.preset = "hyperx-paper" was written. `given`: the [router] keys as the user wrote them.
ConfigError with_preset_origin(const Params& given, const ConfigError& e);

}  // namespace flitsim
