// Bounds of the engine's integer keys outside [routing] (whose bounds live in its own key
// table): declared once here, enforced by parse_engine_config before any value is narrowed to
// the type that stores it, and read by Python's schema (_core.engine_int_keys()), so a value
// out of range is refused with the same rule wherever it enters. Each bound keeps the value
// inside its storage type and keeps the sums built from it (warmup + measure + drain_limit,
// ring and slot counts, batch indices) from overflowing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "params.hpp"

namespace flitsim {

struct IntKeyBound {
  std::string section, key;  // key "*": every key of the section ([channels] class latencies)
  int64_t lo, hi;
  std::string why;           // what the upper bound protects, for the docs and messages
};

const std::vector<IntKeyBound>& engine_int_keys();
// "must be an integer in [1, 2^16]": the rule as every message states it.
std::string int_key_rule(const IntKeyBound& b);

// The integer `key` of `p` (its section names the table row), or `def` when absent; a value
// outside [lo, hi] is a ConfigError naming the key and the rule.
int64_t engine_int(const Params& p, const std::string& key, int64_t def);

}  // namespace flitsim
