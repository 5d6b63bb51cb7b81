#include "host/config/config_keys.hpp"

#include <stdexcept>

namespace flitsim {

namespace {

std::string show_bound(int64_t v) {
  for (int e = 10; e < 63; ++e)
    if (v == (int64_t(1) << e)) return "2^" + std::to_string(e);
  if (v == INT64_MAX) return "2^63-1";
  return std::to_string(v);
}

std::string show_float(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

// "\"a\", \"b\" or \"c\""
std::string choice_list(const std::vector<std::string>& names) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("\"" + names[i] + "\"");
  return list;
}

// A given value against its key's type, bounds and choices.
void check_given(const Params& p, const KeySpec& k) {
  switch (k.type) {
    case KeyType::Int:
      checked_int(p, k.name, 0);
      break;
    case KeyType::Float: {
      const double v = p.get_float(k.name, 0);
      if (!(v >= k.flo && v <= k.fhi))
        p.fail(k.name, "must be in [" + show_float(k.flo) + ", " + show_float(k.fhi) + "], got " + show_float(v));
      break;
    }
    case KeyType::Bool:
      p.get_int(k.name);
      break;
    case KeyType::Choice: {
      const std::string v = p.get_str(k.name);
      bool known = k.choices.empty();  // no list: the section's rules check it (routing.algorithm per topology)
      for (const std::string& c : k.choices) known |= c == v;
      if (!known) p.fail(k.name, "must be " + choice_list(k.choices) + ", got \"" + v + "\"");
      break;
    }
    case KeyType::IntList:
      for (int64_t x : p.get_ints(k.name))
        if (x < k.lo) p.fail(k.name, "must be a list of integers >= " + std::to_string(k.lo) + ", got " + std::to_string(x));
      break;
  }
}

}  // namespace

KeySpec rules_key(const char* section, const char* name, KeyType type, const char* doc) {
  KeySpec k;
  k.section = section, k.name = name, k.type = type, k.doc = doc;
  return k;
}

KeySpec int_rules_key(const char* section, const char* name, int64_t lo, int64_t hi, const char* doc,
                      const char* why) {
  KeySpec k = rules_key(section, name, KeyType::Int, doc);
  k.lo = lo, k.hi = hi, k.why = why;
  return k;
}

const std::vector<KeySpec>& config_keys() {
  static const std::vector<KeySpec> all = [] {
    std::vector<KeySpec> v;
    for (const auto* table : {&router_keys(), &routing_keys(), &traffic_keys(), &sim_keys()})
      v.insert(v.end(), table->begin(), table->end());
    // [channels] is open: every key names a channel class (the topology says which exist) and
    // has channels.latency's bounds; `latency` is every class's default.
    KeySpec channel = filled(int_rules_key("channels", "latency", 1, int64_t(1) << 20,
                                           "cycles on a channel (any key of [channels]: one channel class's)",
                                           "channel ring slots (int32)"));
    channel.value = [](const EngineConfig& c) { return KeyValue(c.channels.get_int("latency", 1)); };
    v.push_back(channel);
    return v;
  }();
  return all;
}

const KeySpec& key_spec(const std::string& section, const std::string& name) {
  for (const KeySpec& k : config_keys())
    if (k.section == section && k.name == name) return k;
  throw std::logic_error("config key " + section + "." + name + " is not declared (host/config/keys_" + section +
                         ".cpp)");
}

std::string int_key_rule(const KeySpec& k) {
  return "must be an integer in [" + show_bound(k.lo) + ", " + show_bound(k.hi) + "]";
}

int64_t checked_int(const Params& p, const std::string& name, int64_t def) {
  // [channels] is open: every key is a class latency with the bounds of channels.latency.
  const KeySpec* spec = &key_spec(p.section(), p.section() == "channels" ? "latency" : name);
  if (!p.has(name)) return def;
  const int64_t v = p.get_int(name);
  if (v < spec->lo || v > spec->hi) p.fail(name, int_key_rule(*spec) + ", got " + std::to_string(v));
  return v;
}

void read_declared_keys(const Params& p, EngineConfig& c) {
  for (const KeySpec& k : config_keys()) {
    if (k.section != p.section()) continue;
    if (p.has(k.name)) check_given(p, k);
    if (k.read) k.read(p, c);
  }
}

}  // namespace flitsim
