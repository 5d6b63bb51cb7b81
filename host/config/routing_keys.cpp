#include "routing_keys.hpp"

#include <stdexcept>

#include "host/init/routing_choice.hpp"

namespace flitsim {

namespace {

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const RoutingInfo& i : routing_registry()) {
    bool seen = false;
    for (const std::string& n : names) seen |= n == i.algorithm;
    if (!seen) names.push_back(i.algorithm);
  }
  return names;
}

const KeySpec& spec(const std::string& key) {
  for (const KeySpec& k : routing_keys())
    if (key == k.name) return k;
  throw std::logic_error("routing key \"" + key + "\" is not in routing_keys()");
}

std::string show(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

const std::vector<KeySpec>& routing_keys() {
  constexpr double kMaxFlits = 1 << 20;
  static const std::vector<KeySpec> k = {
      {"algorithm", KeyType::Choice, 0, 0, 0, algorithm_names(), "min", true, "all",
       "the routing function (cuda/routing/registry.h)"},
      {"valiant", KeyType::Choice, 0, 0, 0, {"restricted", "any", "node", "differing-dims"}, "", false,
       "valiant ugal ugal-g par valiant-dor ugal-dor",
       "Valiant intermediate: dragonfly restricted (first router of the group reached) or any router of the "
       "group (unset: restricted); node: the router of a node drawn from all nodes, minimal when it is "
       "the source's (BookSim2; valiant, ugal, valiant-dor, ugal-dor); differing-dims: drawn only in the "
       "dimensions where source and destination differ (BookSim2's ugal_flatfly; valiant-dor, ugal-dor)"},
      {"n_indirect", KeyType::Int, kUnset, 1, 64, {}, "", false, "ugal ugal-g par",
       "non-minimal candidates (unset: 1 on dragonflies, 4 elsewhere)"},
      {"penalty", KeyType::Float, 1.0, 0, 1e6, {}, "", false, "ugal ugal-g par", "UGAL non-minimal penalty c"},
      {"threshold", KeyType::Float, 0.0, 0, 100, {}, "", false, "ugal ugal-g par",
       "route minimally while the minimal queue is below this % of a port's buffers (0 = off)"},
      {"vc_scheme", KeyType::Choice, 0, 0, 0, {"booksim"}, "", false, "ugal",
       "dragonfly ugal on BookSim2's ugal_dragonflynew VCs (3 classes, not deadlock-free); unset: the routing's own"},
      {"decide_at_injection", KeyType::Bool, 0, 0, 1, {}, "", false, "ugal ugal-dor",
       "UGAL-L decides as the packet enters the injection channel, from the source router's state then "
       "(BookSim2's lookahead routing), not when its head reaches the front of its input VC"},
      {"deroutes", KeyType::Int, kUnset, 0, 62, {}, "", false, "omniwar", "OmniWAR deroutes M (unset: dimensions)"},
      // booksim by default: near MIN on uniform traffic (1,056-node dragonfly: sustains 0.60 with
      // 4 % misrouted, vs queue's 0.475 with 44 %), while still misrouting adversarial traffic.
      {"cost", KeyType::Choice, 0, 0, 0, {"queue", "hops", "booksim", "booksim-flatfly"}, "booksim", false,
       "ugal ugal-g par ugal-dor", "UGAL cost rule (routing/ugal_cost.cuh)"},
      {"offset", KeyType::Int, kUnset, 0, kMaxFlits, {}, "", false, "ugal ugal-g par ugal-dor clos-ad dimwar omniwar",
       "non-minimal bias in flits (unset: 30 for cost booksim, 2 for booksim-flatfly, 4 for the weighted HyperX "
       "routings, else 0)"},
      {"congestion", KeyType::Choice, 0, 0, 0, {"port", "downstream"}, "", false, "ugal ugal-dor",
       "what UGAL-L senses of an output: port (unset), its downstream credits in use plus the flits queued here "
       "for it; downstream, the credits in use only (BookSim2)"},
      {"multi_deroute", KeyType::Bool, 1, 0, 1, {}, "", false, "omniwar",
       "OmniWAR: back-to-back deroutes in one dimension allowed"},
      {"snapshot_period", KeyType::Int, 1, 1, kMaxFlits, {}, "", false, "ugal-g",
       "cycles between congestion snapshots"},
      {"selection", KeyType::Choice, 0, 0, 0, {"oblivious", "adaptive", "dmodk"}, "", false, "all",
       "choice among equivalent next hops (unset: oblivious; updown: dmodk)"},
      {"deadlock_avoidance", KeyType::Bool, 1, 0, 1, {}, "", true, "all",
       "false: every hop on one VC class (to study deadlock)"},
  };
  return k;
}

int64_t routing_int(const Params& routing, const std::string& key) {
  const KeySpec& k = spec(key);
  if (!routing.has(key)) return int64_t(k.def);
  const int64_t v = routing.get_int_min(key, int64_t(k.lo));
  if (v > k.hi) routing.fail(key, "must be <= " + show(k.hi) + ", got " + std::to_string(v));
  return v;
}

double routing_float(const Params& routing, const std::string& key) {
  const KeySpec& k = spec(key);
  const double v = routing.get_float(key, k.def);
  if (!(v >= k.lo && v <= k.hi)) routing.fail(key, "must be in [" + show(k.lo) + ", " + show(k.hi) + "]");
  return v;
}

bool routing_bool(const Params& routing, const std::string& key) {
  return routing.get_int(key, int64_t(spec(key).def)) != 0;
}

std::string routing_choice(const Params& routing, const std::string& key) {
  const KeySpec& k = spec(key);
  const std::string v = routing.get_str(key, k.def_choice);
  if (v.empty() && std::string(k.def_choice).empty()) return v;
  for (const std::string& c : k.choices)
    if (v == c) return v;
  std::string list;
  for (size_t i = 0; i < k.choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == k.choices.size() ? " or " : ", ") + ("\"" + k.choices[i] + "\"");
  routing.fail(key, "must be " + list + ", got \"" + v + "\"");
}

}  // namespace flitsim
