// The [routing] keys, declared once: type, default, bounds, choices and the algorithms that
// read them. parse_engine_config reads every key through this table, and _core.routing_keys()
// hands it to the Python front end (config.py builds its [routing] schema from it), so a
// default or a bound is stated in one place. Range checks of new keys belong here too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "params.hpp"

namespace flitsim {

enum class KeyType { Int, Float, Bool, Choice };

struct KeySpec {
  const char* name;
  KeyType type;
  double def;                        // Int, Float, Bool (0/1); kUnset: the engine picks per routing
  double lo, hi;                     // inclusive bounds (Int, Float)
  std::vector<std::string> choices;  // Choice: the allowed values; def_choice is the default
  const char* def_choice;            // Choice default; "" = unset (the engine picks)
  bool filled;                       // the Python front end writes the default into the config
  const char* read_by;               // algorithms that read it ("all": every routing)
  const char* doc;
};

// "Unset": the engine decides per routing and topology (docs/routing.md).
constexpr double kUnset = -1;

const std::vector<KeySpec>& routing_keys();

// Readers that apply the table's default and bounds; errors name the key and the rule.
int64_t routing_int(const Params& routing, const std::string& key);
double routing_float(const Params& routing, const std::string& key);
bool routing_bool(const Params& routing, const std::string& key);
std::string routing_choice(const Params& routing, const std::string& key);

}  // namespace flitsim
