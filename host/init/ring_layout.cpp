#include "host/init/ring_layout.hpp"

#include <algorithm>
#include <cstdlib>

namespace flitsim {

namespace {

// Slots of the arrival calendar (rings.cuh): the smallest power of two above every ring delay.
// Off (0) where a delay is 0 (a write would land in the slot being read) or 256 or more
// (R x slots x radix bytes of memory for little gain); receive then reads every port. The
// test-only FLITSIM_CALENDAR=off turns it off for any delays, so that tests/test_step_order.py
// checks the two ring layouts (rings.cuh) against each other on the whole corpus.
int32_t arrival_calendar_length(const Topology& t, const std::vector<int32_t>& fring_delay,
                                const std::vector<int32_t>& cring_delay, const std::vector<int32_t>& ering_delay,
                                const std::vector<int32_t>& nicring_delay) {
  if (const char* v = std::getenv("FLITSIM_CALENDAR")) {
    if (std::string(v) == "off") return 0;
    if (std::string(v) != "on") throw ConfigError("FLITSIM_CALENDAR: must be on or off, got \"" + std::string(v) + "\"");
  }
  std::vector<int32_t> used(fring_delay);
  used.insert(used.end(), ering_delay.begin(), ering_delay.end());
  used.insert(used.end(), nicring_delay.begin(), nicring_delay.end());
  for (size_t gp = 0; gp < cring_delay.size(); ++gp)
    if (t.peer_port[gp] >= 0) used.push_back(cring_delay[gp]);  // terminal ports get no credits
  if (used.empty()) return 0;
  const int32_t least = *std::min_element(used.begin(), used.end()), most = *std::max_element(used.begin(), used.end());
  if (least < 1 || most >= 256) return 0;
  int32_t len = 1;
  while (len <= most) len *= 2;
  return len;
}

}  // namespace

int32_t channel_latency(const Topology& t, const EngineConfig& cfg, int cls) {
  const std::string& name = t.class_names[cls];
  int64_t def = cfg.channels.get_int("latency", 1);
  return int32_t(cfg.channels.get_int(name, def));
}

void check_channel_keys(const Topology& t, const EngineConfig& cfg) {
  for (const auto& k : cfg.channels.keys()) {
    if (k == "latency" || t.class_index(k) >= 0) continue;
    std::string known;
    for (auto& n : t.class_names) known += (known.empty() ? "" : ", ") + n;
    cfg.channels.fail(k, "no channel class \"" + k + "\" in topology " + t.kind + " (classes: " + known + ")");
  }
}

RingPlan plan_rings(const Topology& t, const EngineConfig& cfg, Sizes& sz) {
  // Channel rings: a port's input ring is fed by the peer's output (router latency + channel
  // latency) or by its node (terminal latency); credits travel back with the channel latency
  // (plus router.credit_delay between routers).
  const int32_t term_lat = channel_latency(t, cfg, 0);
  RingPlan p;
  p.f_delay.assign(sz.P, 0), p.c_delay.assign(sz.P, 0);
  for (int gp = 0; gp < sz.P; ++gp) {
    const int32_t lat = channel_latency(t, cfg, t.port_class[gp]);
    const bool terminal = t.peer_port[gp] < 0;
    p.f_delay[gp] = terminal ? term_lat + cfg.router.injection_delay : cfg.router.latency + lat;
    // Terminal ports get no credits back (sinks always accept); router.credit_delay delays a
    // router's credits only (BookSim2's routers delay the credits they receive, its nodes do not).
    p.c_delay[gp] = terminal ? 0 : lat + cfg.router.credit_delay;
  }
  auto lengths = [](const std::vector<int32_t>& delay) {  // smallest power of two > delay
    std::vector<int32_t> len(delay.size());
    for (size_t i = 0; i < delay.size(); ++i)
      for (len[i] = 1; len[i] <= delay[i];) len[i] *= 2;
    return len;
  };
  auto offsets = [](const std::vector<int32_t>& len, int32_t& total) {
    std::vector<int32_t> off(len.size());
    int64_t sum = 0;
    for (size_t i = 0; i < len.size(); ++i) off[i] = int32_t(sum), sum += len[i];
    if (sum >= (int64_t(1) << 31))
      throw ConfigError("channels.latency: channel rings (one slot per cycle of router.latency + channel "
                        "latency, per port) exceed 2^31 slots");
    total = int32_t(sum);
    return off;
  };
  p.e_delay.assign(sz.N, cfg.router.latency + term_lat), p.nic_delay.assign(sz.N, term_lat);
  p.f_len = lengths(p.f_delay), p.c_len = lengths(p.c_delay);
  p.e_len = lengths(p.e_delay), p.nic_len = lengths(p.nic_delay);
  sz.cal_len = arrival_calendar_length(t, p.f_delay, p.c_delay, p.e_delay, p.nic_delay);
  sz.cal_stride = sz.cal_len ? (t.max_radix() + 7) / 8 * 8 : 0;
  const int64_t calendar_bytes = int64_t(sz.R) * sz.cal_len * sz.cal_stride;
  if (calendar_bytes >= (int64_t(1) << 31))
    throw ConfigError("topology: the arrival calendar (routers x calendar slots x ports per router, one byte "
                      "each) exceeds 2^31 bytes per replica");
  // The rings' layout (rings.cuh): with the calendar, every ring array is laid out like it
  // (one entry per calendar byte; a ring's slots are its receiving port's bytes); without,
  // each ring has its own slots, one after the other.
  if (sz.cal_len) {
    sz.fring_total = sz.cring_total = sz.ering_total = sz.nicring_total = int32_t(calendar_bytes);
  } else {
    p.f_off = offsets(p.f_len, sz.fring_total);
    p.c_off = offsets(p.c_len, sz.cring_total);
    p.e_off = offsets(p.e_len, sz.ering_total);
    p.nic_off = offsets(p.nic_len, sz.nicring_total);
  }
  return p;
}

void write_ring_spans(const Topology& t, const RingPlan& p, HostState& h) {
  const Sizes& sz = h.sz;
  // A ring into port gp: its own slots at `off` (stride 1), or the port's calendar bytes.
  auto span = [&](int gp, const std::vector<int32_t>& off, int i, const std::vector<int32_t>& len,
                  const std::vector<int32_t>& delay) {
    RingSpan ring;
    ring.delay = delay[i];
    if (sz.cal_len) {
      const int r = t.port_router[gp];
      ring.off = int32_t(int64_t(r) * sz.cal_len * sz.cal_stride + (gp - t.port_offset[r]));
      ring.len = sz.cal_len, ring.stride = sz.cal_stride;
    } else {
      ring.off = off[i], ring.len = len[i], ring.stride = 1;
    }
    return ring;
  };
  for (int n = 0; n < sz.N; ++n) {  // a node's rings are read by its port's receive step
    const int gp = t.node_port[n];
    h.node_rings[n].flits = span(gp, p.e_off, n, p.e_len, p.e_delay);
    h.node_rings[n].credits = span(gp, p.nic_off, n, p.nic_len, p.nic_delay);
  }
  for (int gp = 0; gp < sz.P; ++gp) {
    PortRings& pr = h.port_rings[gp];
    pr.flits = span(gp, p.f_off, gp, p.f_len, p.f_delay);
    pr.credits = span(gp, p.c_off, gp, p.c_len, p.c_delay);
  }
  for (int gp = 0; gp < sz.P; ++gp) {  // what it sends on: its peer's rings, or its node's
    const int peer = t.peer_port[gp], n = t.port_node[gp];
    PortRings& pr = h.port_rings[gp];
    pr.flits_out = peer >= 0 ? h.port_rings[peer].flits : h.node_rings[n].flits;
    pr.credits_out = peer >= 0 ? h.port_rings[peer].credits : h.node_rings[n].credits;
  }
}

}  // namespace flitsim
