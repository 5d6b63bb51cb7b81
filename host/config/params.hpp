// Named, typed parameters of one configuration section (e.g. [topology]).
// Builders read their keys through these getters so every error names the key and the
// rule ("topology.q: must be a prime power, got 12") before any simulation starts.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace flitsim {

// Thrown for any invalid user input; the bindings turn it into Python's ValueError.
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class Params {
 public:
  explicit Params(std::string section = "") : section_(std::move(section)) {}

  void set_int(const std::string& k, int64_t v) { ints_[k] = {v}; }
  void set_ints(const std::string& k, std::vector<int64_t> v) { ints_[k] = std::move(v); }
  void set_str(const std::string& k, std::string v) { strs_[k] = std::move(v); }
  void set_float(const std::string& k, double v) { floats_[k] = v; }

  bool has(const std::string& k) const {
    return ints_.count(k) || strs_.count(k) || floats_.count(k);
  }
  // Full name used in error messages, e.g. "topology.p".
  std::string name(const std::string& k) const { return section_.empty() ? k : section_ + "." + k; }

  [[noreturn]] void fail(const std::string& k, const std::string& rule) const {
    throw ConfigError(name(k) + ": " + rule);
  }

  int64_t get_int(const std::string& k) const {
    auto it = ints_.find(k);
    if (it == ints_.end()) {
      // Present with another type ("4", 4.5): say so, rather than "is required".
      if (auto s = strs_.find(k); s != strs_.end()) fail(k, "must be an integer, got \"" + s->second + "\"");
      if (auto f = floats_.find(k); f != floats_.end()) fail(k, "must be an integer, got " + shown(f->second));
      fail(k, "is required");
    }
    if (it->second.size() != 1) fail(k, "must be a single integer");
    return it->second[0];
  }
  int64_t get_int(const std::string& k, int64_t def) const { return has(k) ? get_int(k) : def; }
  // Integer with an inclusive lower bound, the most common rule.
  int64_t get_int_min(const std::string& k, int64_t lo) const {
    int64_t v = get_int(k);
    if (v < lo) fail(k, "must be >= " + std::to_string(lo) + ", got " + std::to_string(v));
    return v;
  }
  int64_t get_int_min(const std::string& k, int64_t lo, int64_t def) const {
    return has(k) ? get_int_min(k, lo) : def;
  }
  std::vector<int64_t> get_ints(const std::string& k) const {
    auto it = ints_.find(k);
    if (it == ints_.end()) fail(k, "is required (a list of integers)");
    return it->second;
  }
  std::vector<int64_t> get_ints(const std::string& k, std::vector<int64_t> def) const {
    return has(k) ? get_ints(k) : def;
  }
  std::string get_str(const std::string& k) const {
    auto it = strs_.find(k);
    if (it == strs_.end()) {
      // Present with another type (4, 4.5, [1, 2]): say so, rather than "is required".
      if (auto i = ints_.find(k); i != ints_.end())
        fail(k, "must be a string, got " + (i->second.size() == 1 ? std::to_string(i->second[0]) : "a list"));
      if (auto f = floats_.find(k); f != floats_.end()) fail(k, "must be a string, got " + shown(f->second));
      fail(k, "is required (a string)");
    }
    return it->second;
  }
  std::string get_str(const std::string& k, const std::string& def) const {
    return has(k) ? get_str(k) : def;
  }
  double get_float(const std::string& k, double def) const {
    auto it = floats_.find(k);
    if (it != floats_.end()) return it->second;
    auto ii = ints_.find(k);
    if (ii != ints_.end() && ii->second.size() == 1) return double(ii->second[0]);
    return def;
  }

  const std::string& section() const { return section_; }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (auto& e : ints_) k.push_back(e.first);
    for (auto& e : strs_) k.push_back(e.first);
    for (auto& e : floats_) k.push_back(e.first);
    return k;
  }

 private:
  // A number as the user wrote it (4.5, not std::to_string's 4.500000).
  static std::string shown(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
  std::string section_;
  std::map<std::string, std::vector<int64_t>> ints_;
  std::map<std::string, std::string> strs_;
  std::map<std::string, double> floats_;
};

}  // namespace flitsim
