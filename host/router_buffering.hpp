// Router buffering (issue 12): router.architecture "iq" | "cioq" with router.speedup and
// router.output_buffer, buffers in bytes (router.buffer_bytes, router.output_buffer_bytes with
// traffic.flit_bytes), and the presets that are sets of router keys (router.preset
// "hyperx-paper"). The device side is cuda/phases/output_queue.cuh.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "params.hpp"

namespace flitsim {

struct EngineConfig;

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

// The presets that are a plain set of [router] keys (the bindings give them to Python, whose
// defaults follow them). "booksim" changes the defaults inside parse_router_model instead.
const std::vector<RouterPreset>& router_key_presets();

// `router` with router.preset's keys added where the user gave none: explicit keys win.
Params with_router_preset(const Params& router);

// router.architecture, speedup, output_buffer, buffer_bytes, output_buffer_bytes (with
// traffic.flit_bytes) into c.cioq, c.speedup, c.output_buffer and c.buffer. Throws ConfigError
// naming the key and the rule.
void parse_router_buffering(const Params& router, const Params& traffic, EngineConfig& c);

}  // namespace flitsim
