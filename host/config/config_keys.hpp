// One schema for every key of the [router], [routing], [traffic] and [sim] sections, declared
// once, next to the parameter it fills (host/config/keys_<section>.cpp): section, name, type,
// bounds, choices in the order of the enum they fill, which routings read it, one doc line,
// and the field itself. The default is the field's own (EngineConfig{}), never restated.
// parse_engine_config reads every key through it, and _core.config_keys() hands it to Python,
// from which config.py's rules and defaults, `flitsim config`, the HDF5 config record and the
// key tables of docs/configuration.md all follow.
//
// Adding a key: one line in the section's table (keys_<section>.cpp) naming the field of the
// parameter struct it fills (engine_config.hpp, or RouterModel in cuda/params.cuh for an option
// the phases read). A key with cross-key rules (sizes in bytes, packet_sizes, the stage delays)
// is declared with `rules_key` and read by its section's own code in engine_config.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "host/config/engine_config.hpp"

namespace flitsim {

enum class KeyType { Int, Float, Bool, Choice, IntList };
// A key's value as the engine holds it; monostate: unset (the engine picks per routing or topology).
using KeyValue = std::variant<std::monostate, int64_t, double, bool, std::string, std::vector<int64_t>>;

struct KeySpec {
  std::string section, name;
  KeyType type = KeyType::Int;
  int64_t lo = 0, hi = 0;            // Int and IntList elements: inclusive bounds
  double flo = 0, fhi = 0;           // Float: inclusive bounds
  std::vector<std::string> choices;  // Choice: the names, in the order of the enum the field holds
  bool filled = false;               // the front end writes the default into every normalised config
  bool refuse_unread = false;        // set away from its default where not read_by: refused, not ignored
  std::string read_by = "all";       // [routing]: the algorithms that read it; [traffic]: the patterns
                                     // or the injection process
  std::string doc;                   // one line for docs/configuration.md and `flitsim config`
  std::string booksim;               // BookSim2's name for it, where it has one (an unknown key answers with this key)
  std::string why;                   // Int: what the bounds protect (storage types, sums)
  // Stores a given value into its field (null: the section's own rules read it).
  std::function<void(const Params&, EngineConfig&)> read;
  // The value the field holds (null: the key fills no field of its own).
  std::function<KeyValue(const EngineConfig&)> value;
};

// Every key of every engine section, in section order: router, routing, traffic, sim, then
// channels.latency (the bounds of every [channels] key).
const std::vector<KeySpec>& config_keys();
const std::vector<KeySpec>& router_keys();
const std::vector<KeySpec>& routing_keys();
const std::vector<KeySpec>& traffic_keys();
const std::vector<KeySpec>& sim_keys();
// The key `section.name`; std::logic_error when it is not declared (a bug, not bad input).
const KeySpec& key_spec(const std::string& section, const std::string& name);

// "must be an integer in [1, 2^16]": an Int key's rule as every message states it.
std::string int_key_rule(const KeySpec& k);
// Checks every key of `p` that its section declares (type, bounds, choices) and stores each
// into `c` through its field; keys declared with rules_key are only checked.
void read_declared_keys(const Params& p, EngineConfig& c);
// The Int key `name` of `p` checked against its bounds, or `def` when absent.
int64_t checked_int(const Params& p, const std::string& name, int64_t def);

// Declaring a key: FLITSIM_FIELD(router.vcs) is the field of EngineConfig it fills.
#define FLITSIM_FIELD(path) [](EngineConfig& c) -> auto& { return c.path; }

template <class F>
using FieldType = std::decay_t<decltype(std::declval<F>()(std::declval<EngineConfig&>()))>;

KeySpec int_rules_key(const char* section, const char* name, int64_t lo, int64_t hi, const char* doc,
                      const char* why = "");
KeySpec rules_key(const char* section, const char* name, KeyType type, const char* doc);

template <class F>
KeySpec int_key(const char* section, const char* name, int64_t lo, int64_t hi, F field, const char* doc,
                const char* why = "") {
  KeySpec k = int_rules_key(section, name, lo, hi, doc, why);
  k.read = [field, name](const Params& p, EngineConfig& c) {
    if (p.has(name)) field(c) = FieldType<F>(checked_int(p, name, 0));
  };
  k.value = [field, lo](const EngineConfig& c) -> KeyValue {
    const int64_t v = int64_t(field(const_cast<EngineConfig&>(c)));
    return v < lo ? KeyValue() : KeyValue(v);  // below the bounds: the "unset" sentinel (-1)
  };
  return k;
}

template <class F>
KeySpec float_key(const char* section, const char* name, double lo, double hi, F field, const char* doc) {
  KeySpec k = rules_key(section, name, KeyType::Float, doc);
  k.flo = lo, k.fhi = hi;
  k.read = [field, name](const Params& p, EngineConfig& c) {
    if (p.has(name)) field(c) = p.get_float(name, 0);
  };
  k.value = [field](const EngineConfig& c) { return KeyValue(double(field(const_cast<EngineConfig&>(c)))); };
  return k;
}

template <class F>
KeySpec bool_key(const char* section, const char* name, F field, const char* doc) {
  KeySpec k = rules_key(section, name, KeyType::Bool, doc);
  k.read = [field, name](const Params& p, EngineConfig& c) {
    if (p.has(name)) field(c) = p.get_int(name) != 0;
  };
  k.value = [field](const EngineConfig& c) { return KeyValue(bool(field(const_cast<EngineConfig&>(c)))); };
  return k;
}

// A field of type std::string holds the name ("" = unset); an enum or bool field the index of
// the name in `choices`.
template <class F>
KeySpec choice_key(const char* section, const char* name, std::vector<std::string> choices, F field,
                   const char* doc) {
  KeySpec k = rules_key(section, name, KeyType::Choice, doc);
  k.choices = std::move(choices);
  const std::vector<std::string> names = k.choices;
  k.read = [field, name, names](const Params& p, EngineConfig& c) {
    if (!p.has(name)) return;
    const std::string v = p.get_str(name);
    if constexpr (std::is_same_v<FieldType<F>, std::string>) {
      field(c) = v;
    } else {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == v) field(c) = FieldType<F>(i);
    }
  };
  k.value = [field, names](const EngineConfig& c) -> KeyValue {
    const auto& v = field(const_cast<EngineConfig&>(c));
    if constexpr (std::is_same_v<FieldType<F>, std::string>) {
      return v.empty() ? KeyValue() : KeyValue(v);
    } else {
      return KeyValue(names.at(size_t(v)));
    }
  };
  return k;
}

template <class F>
KeySpec int_list_key(const char* section, const char* name, int64_t lo, F field, const char* doc) {
  KeySpec k = rules_key(section, name, KeyType::IntList, doc);
  k.lo = lo, k.hi = INT64_MAX;
  k.read = [field, name](const Params& p, EngineConfig& c) {
    if (p.has(name)) field(c) = p.get_ints(name);
  };
  k.value = [field](const EngineConfig& c) -> KeyValue {
    const auto& v = field(const_cast<EngineConfig&>(c));
    return v.empty() ? KeyValue() : KeyValue(v);
  };
  return k;
}

// The same key with its front-end default written into every normalised config, or read only
// by the routings (or patterns) listed.
inline KeySpec filled(KeySpec k) { return k.filled = true, k; }
inline KeySpec read_by(const char* who, KeySpec k) { return k.read_by = who, k; }
inline KeySpec refuse_unread(KeySpec k) { return k.refuse_unread = true, k; }
inline KeySpec booksim_name(const char* name, KeySpec k) { return k.booksim = name, k; }

}  // namespace flitsim
