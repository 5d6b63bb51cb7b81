#include "host/config/traffic_classes.hpp"

#include <algorithm>

#include "cuda/params.cuh"
#include "host/config/config_keys.hpp"
#include "host/config/router_buffering.hpp"

namespace flitsim {

int max_traffic_classes() { return kMaxTrafficClasses; }

const std::vector<std::string>& traffic_class_keys() {
  // What makes a source: its pattern (and the pattern's keys), load, packet sizes, priority and
  // source set. The injection process, request-reply and the flit size stay the run's.
  static const std::vector<std::string> k{"pattern", "load", "packet_size", "packet_sizes", "shift", "placement",
                                          "hotspots", "hotspot_fraction", "dims", "self", "priority", "sources"};
  return k;
}

namespace {

// "traffic.class.<i>.<key>: <rule>" for a rule broken in class i (errors the key readers raise
// name "traffic.<key>": they are prefixed with the class).
[[noreturn]] void fail_in_class(size_t i, const std::string& key, const std::string& rule) {
  throw ConfigError("traffic.class." + std::to_string(i) + "." + key + ": " + rule);
}

TrafficClassKeys read_class(const Params& table, size_t i, const EngineConfig& run) {
  const std::vector<std::string>& allowed = traffic_class_keys();
  for (const std::string& k : table.keys())
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      std::string known;
      for (const std::string& a : allowed) known += (known.empty() ? "" : ", ") + a;
      fail_in_class(i, k, "unknown key for a traffic class (a class takes: " + known + ")");
    }
  EngineConfig cc = run;  // the [traffic] keys, with the class's over them
  cc.loads = {-1.0};
  try {
    read_declared_keys(table, cc);
  } catch (const ConfigError& e) {
    const std::string m = e.what();  // "traffic.<key>: rule"
    throw ConfigError("traffic.class." + std::to_string(i) + "." + (m.rfind("traffic.", 0) == 0 ? m.substr(8) : m));
  }
  TrafficClassKeys out{cc.traffic, cc.loads[0]};
  TrafficKeys& tr = out.keys;
  tr.has_shift = run.traffic.has_shift || table.has("shift");
  if (table.has("packet_sizes")) {
    const std::vector<int64_t> ps = table.get_ints("packet_sizes");
    if (ps.size() != 2 || ps[0] < 1 || ps[1] < ps[0] || ps[1] > (1 << 20))
      fail_in_class(i, "packet_sizes", "must be [min, max] with 1 <= min <= max <= 2^20 flits");
    tr.packet_size = int32_t(ps[0]);
    tr.packet_size_max = int32_t(ps[1]);
  } else if (table.has("packet_size")) {
    tr.packet_size_max = 0;  // the class's own fixed size replaces the table's range
  }
  if (!tr.sources.empty() && (tr.sources.size() != 2 || tr.sources[0] >= tr.sources[1]))
    fail_in_class(i, "sources", "must be [lo, hi] with lo < hi: the nodes lo .. hi-1 create the class's packets");
  const int32_t largest = std::max(tr.packet_size, tr.packet_size_max);
  std::string room;
  if (run.model.vct && vct_packet_room(run, &room) < largest)
    fail_in_class(i, table.has("packet_sizes") ? "packet_sizes" : "packet_size",
                  "router.flow_control = \"vct\" needs " + room + " >= the largest packet (" +
                      std::to_string(largest) + " flits)");
  return out;
}

}  // namespace

void parse_traffic_classes(const std::vector<Params>& tables, EngineConfig& c) {
  if (tables.empty()) return;
  if (int(tables.size()) > kMaxTrafficClasses)
    throw ConfigError("traffic.class: at most " + std::to_string(kMaxTrafficClasses) + " traffic classes, got " +
                      std::to_string(tables.size()));
  if (c.traffic.injection != "bernoulli")
    throw ConfigError("traffic.injection: traffic classes ([[traffic.class]]) run Bernoulli sources only, got \"" +
                      c.traffic.injection + "\"");
  if (c.traffic.reply_size > 0)
    throw ConfigError("traffic.reply_size: request-reply does not combine with traffic classes ([[traffic.class]])");
  c.classes.clear();
  for (size_t i = 0; i < tables.size(); ++i) c.classes.push_back(read_class(tables[i], i, c));
  c.traffic = c.classes[0].keys;
}

}  // namespace flitsim
