// The initial state of a run: sizes, the routing and traffic choices (routing_choice.cpp,
// traffic_choice.cpp), packet slots, channel rings, credits and the per-replica tables.
#include "host/config/engine_config.hpp"
#include "routing_choice.hpp"
#include "traffic_choice.hpp"

#include "cuda/phases/switch_alloc.cuh"  // kMaxRadix
#include "cuda/traffic/injection.cuh"     // burst_initial, creation_gap

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace flitsim {

namespace {

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

// Bernoulli injection (traffic/injection.cuh): replica r's gap table, cdf[i] = P(gap <= i + 1)
// = 1 − (1 − p)^(i + 1) in units of 2^-32, for the per-cycle probability p = threshold / 2^32;
// then each node's first packet (index 0, created at cycle gap − 1), which is also the head
// of its empty queue.
void init_bernoulli_sources(HostState& s, const Sizes& sz, int r) {
  const double p = double(s.rep_threshold[r]) / 4294967296.0;
  u64* cdf = s.rep_gap_cdf.data() + size_t(r) * kGapTable;
  for (int i = 0; i < kGapTable; ++i)
    cdf[i] = p >= 1.0 ? (u64(1) << 32) : u64(std::llround(-std::expm1((i + 1) * std::log1p(-p)) * 4294967296.0));
  for (int n = 0; n < sz.N; ++n) {
    const size_t ni = size_t(r) * sz.N + n;
    s.ni_next_at[ni] = s.ni_scan[ni] = s.ni_wake_at[ni] = creation_gap(s.rep_seed[r], cdf, n, 0) - 1;
    s.ni_next_k[ni] = s.ni_scan_k[ni] = 0;
  }
}

}  // namespace

HostState make_initial_state(const Topology& t, const EngineConfig& cfg) {
  HostState h;
  Sizes& sz = h.sz;
  SimParams& prm = h.prm;
  sz.reps = int32_t(cfg.loads.size());
  sz.R = t.num_routers;
  sz.N = t.num_nodes;
  sz.P = t.num_ports();
  sz.V = cfg.router.vcs;
  sz.B = cfg.router.buffer;
  sz.bins = cfg.sim.latency_bins;
  sz.batches = cfg.sim.batches;
  if (int64_t(sz.P) * sz.V * sz.B >= (int64_t(1) << 31))
    throw ConfigError("router.buffer: ports x router.vcs x router.buffer = " +
                      std::to_string(int64_t(sz.P) * sz.V * sz.B) + " flit slots per replica; must stay below 2^31");
  if (sz.N < 2) throw ConfigError("topology: needs at least 2 nodes, got " + std::to_string(sz.N));
  check_channel_keys(t, cfg);
  const TrafficTables traffic_tables = choose_pattern(t, cfg, prm, sz);
  const CompiledWorkload* wl = cfg.workload.get();
  if (wl) {
    if (wl->reps != sz.reps || wl->N != sz.N)
      throw ConfigError("workload: compiled for " + std::to_string(wl->reps) + " replicas of " +
                        std::to_string(wl->N) + " nodes, the run has " + std::to_string(sz.reps) + " of " +
                        std::to_string(sz.N));
    sz.wl_nodes = sz.reps * sz.N;
    sz.wl_steps = int32_t(wl->step_need.size());
    sz.wl_msgs = int32_t(wl->msg_dst.size());
    sz.wl_reps = sz.reps;
    sz.wl_queues = wl->ni_queues;
  }
  const int32_t packet_size = wl ? wl->packet_size : cfg.traffic.packet_size;

  // Routing tables.
  std::vector<uint8_t> dist;
  const bool dragonfly = dragonfly_tables(t);
  if (!dragonfly) {
    if (int64_t(sz.R) * sz.R > (int64_t(1) << 30))
      throw ConfigError("routing.algorithm: table-based minimal routing needs an R x R distance table; " +
                        std::to_string(sz.R) + " routers is too many");
    dist = router_distances(t);
    if (std::find(dist.begin(), dist.end(), uint8_t(255)) != dist.end())
      throw ConfigError("topology: the router graph is disconnected");
    sz.dist_R = sz.R;
  }
  std::vector<int32_t> rt_table;
  choose_routing(t, cfg, dist, prm, rt_table);
  const RoutingInfo& routing = routing_info(prm.routing);
  sz.rt_len = int32_t(rt_table.size());
  if (!cfg.routing.deadlock_avoidance) prm.vc_classes = 1;
  // Adaptive choices sense local output queues (port_congestion): the routings that declare
  // it, and the adaptive global-link choice of every dragonfly routing (dragonfly_links.cuh).
  if (std::string(routing.sensing) != "none" || (dragonfly && prm.selection == Selection::Adaptive))
    sz.demand_P = sz.P;
  if (prm.snapshot_period > 0) sz.snap_P = sz.P;  // UGAL-G: the congestion snapshot (routing/snapshot.cuh)
  prm.router = cfg.model;  // the [router] options the phases read
  sz.O = cfg.model.cioq ? cfg.router.output_buffer : 0;
  if (int64_t(sz.P) * sz.O >= (int64_t(1) << 31))
    throw ConfigError("router.output_buffer: ports x router.output_buffer = " + std::to_string(int64_t(sz.P) * sz.O) +
                      " flit slots per replica; must stay below 2^31");
  if (t.max_radix() > kMaxRadix)
    throw ConfigError("topology.kind: this " + t.kind + " has routers of " + std::to_string(t.max_radix()) +
                      " ports; the engine's allocators handle at most " + std::to_string(kMaxRadix) +
                      " (choose smaller topology parameters)");
  if (sz.V < prm.vc_classes)
    throw ConfigError("router.vcs: routing \"" + cfg.routing.algorithm + "\"" +
                      (std::string(routing.table) == "df_groups" ? (prm.valiant_any ? " (any)" : " (restricted)") : "") +
                      " on " + t.kind + " needs at least " +
                      std::to_string(prm.vc_classes) + " VCs (one per deadlock-avoidance class), got " +
                      std::to_string(sz.V));
  if (dragonfly) {
    sz.df_G = int32_t(t.attrs.at("groups"));
    sz.df_a = int32_t(t.attrs.at("a"));
    sz.df_links = int32_t(t.tables.at("gateway_ports").size());
  }

  // Packet slots per node: enough for every flit the network can buffer per node, so sources
  // rarely wait for a slot; stalls are counted and reported when they happen.
  int64_t S = cfg.sim.packet_slots;
  if (S == 0) {
    int64_t per_node = int64_t(sz.P) * sz.V * sz.B / sz.N / packet_size + 16;
    S = 16;
    while (S < per_node && S < 1024) S *= 2;
  }
  if (int64_t(sz.N) * S >= (int64_t(1) << 30))  // packet ids fit a buffered flit (flit.cuh)
    throw ConfigError("sim.packet_slots: nodes x packet slots must stay below 2^30");
  sz.S = int32_t(S);

  prm.warmup = cfg.sim.warmup;
  prm.measure = cfg.sim.measure;
  prm.packet_size = cfg.traffic.packet_size;
  prm.size_span = cfg.traffic.packet_size_max > 0 ? cfg.traffic.packet_size_max - cfg.traffic.packet_size : 0;
  double on_fraction = 1.0;  // long-run fraction of cycles an on/off source is on
  if (cfg.traffic.injection == "onoff" && !wl) {
    auto x32 = [](double q) { return uint32_t(std::min(4294967295.0, std::floor(q * 4294967296.0 + 0.5))); };
    prm.injection = InjectionKind::OnOff;
    prm.burst_alpha = x32(1.0 / cfg.traffic.burst_off);
    prm.burst_beta = x32(1.0 / cfg.traffic.burst_on);
    on_fraction = double(prm.burst_alpha) / (double(prm.burst_alpha) + double(prm.burst_beta));
    sz.onoff_N = sz.reps * sz.N;
  }
  if (!wl && prm.injection == InjectionKind::Bernoulli) sz.bern_N = sz.reps * sz.N;
  if (wl) {  // every packet is measured: the window spans the whole run
    prm.workload = true;
    prm.wl_packet_size = wl->packet_size;
    if (cfg.model.vct && wl->packet_size > cfg.router.buffer)
      throw ConfigError("router.flow_control: \"vct\" needs router.buffer >= the workload's packet size (" +
                        std::to_string(wl->packet_size) + " flits)");
    prm.warmup = 0;
    prm.measure = int64_t(1) << 62;
  }

  // Channel rings: a port's input ring is fed by the peer's output (router latency + channel
  // latency) or by its node (terminal latency); credits travel back with the channel latency
  // (plus router.credit_delay between routers).
  const int32_t term_lat = channel_latency(t, cfg, 0);
  std::vector<int32_t> fring_delay(sz.P), cring_delay(sz.P);
  for (int gp = 0; gp < sz.P; ++gp) {
    const int32_t lat = channel_latency(t, cfg, t.port_class[gp]);
    const bool terminal = t.peer_port[gp] < 0;
    fring_delay[gp] = terminal ? term_lat + cfg.router.injection_delay : cfg.router.latency + lat;
    // Terminal ports get no credits back (sinks always accept); router.credit_delay delays a
    // router's credits only (BookSim2's routers delay the credits they receive, its nodes do not).
    cring_delay[gp] = terminal ? 0 : lat + cfg.router.credit_delay;
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
  std::vector<int32_t> ering_delay(sz.N, cfg.router.latency + term_lat), nicring_delay(sz.N, term_lat);
  std::vector<int32_t> fring_len = lengths(fring_delay), cring_len = lengths(cring_delay);
  std::vector<int32_t> ering_len = lengths(ering_delay), nicring_len = lengths(nicring_delay);
  sz.cal_len = arrival_calendar_length(t, fring_delay, cring_delay, ering_delay, nicring_delay);
  sz.cal_stride = sz.cal_len ? (t.max_radix() + 7) / 8 * 8 : 0;
  const int64_t calendar_bytes = int64_t(sz.R) * sz.cal_len * sz.cal_stride;
  if (calendar_bytes >= (int64_t(1) << 31))
    throw ConfigError("topology: the arrival calendar (routers x calendar slots x ports per router, one byte "
                      "each) exceeds 2^31 bytes per replica");
  // The rings' layout (rings.cuh): with the calendar, every ring array is laid out like it
  // (one entry per calendar byte; a ring's slots are its receiving port's bytes); without,
  // each ring has its own slots, one after the other.
  std::vector<int32_t> fring_off, cring_off, ering_off, nicring_off;
  if (sz.cal_len) {
    sz.fring_total = sz.cring_total = sz.ering_total = sz.nicring_total = int32_t(calendar_bytes);
  } else {
    fring_off = offsets(fring_len, sz.fring_total);
    cring_off = offsets(cring_len, sz.cring_total);
    ering_off = offsets(ering_len, sz.ering_total);
    nicring_off = offsets(nicring_len, sz.nicring_total);
  }

  HostState& s = h;
  s.allocate();
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
    s.node_rings[n].flits = span(gp, ering_off, n, ering_len, ering_delay);
    s.node_rings[n].credits = span(gp, nicring_off, n, nicring_len, nicring_delay);
  }
  for (int gp = 0; gp < sz.P; ++gp) {
    PortRings& pr = s.port_rings[gp];
    pr.flits = span(gp, fring_off, gp, fring_len, fring_delay);
    pr.credits = span(gp, cring_off, gp, cring_len, cring_delay);
  }
  for (int gp = 0; gp < sz.P; ++gp) {  // what it sends on: its peer's rings, or its node's
    const int peer = t.peer_port[gp], n = t.port_node[gp];
    PortRings& pr = s.port_rings[gp];
    pr.flits_out = peer >= 0 ? s.port_rings[peer].flits : s.node_rings[n].flits;
    pr.credits_out = peer >= 0 ? s.port_rings[peer].credits : s.node_rings[n].credits;
  }
  s.port_offset = t.port_offset;
  s.port_router = t.port_router;
  s.peer_port = t.peer_port;
  s.port_node = t.port_node;
  s.node_port = t.node_port;
  s.node_router.assign(s.node_port.size(), 0);
  for (size_t n = 0; n < s.node_port.size(); ++n) s.node_router[n] = t.node_router(int32_t(n));
  for (int gp = 0; gp < sz.P; ++gp)
    if (t.port_node[gp] >= 0) s.router_terminals[t.port_router[gp]] |= u64(1) << (gp - t.port_offset[t.port_router[gp]]);
  if (dragonfly) {
    s.df_gw_offset = t.tables.at("gateway_offset");
    s.df_gw_ports = t.tables.at("gateway_ports");
    s.df_local_port = t.tables.at("local_port");
    s.df_local_links = t.tables.at("local_links");
  }
  s.dist = std::move(dist);
  s.rt_table = std::move(rt_table);

  for (int r = 0; r < sz.reps; ++r) {
    s.rep_seed[r] = cfg.seeds[r];
    // Packets per node per cycle: the load over the mean packet size (an on/off source creates
    // only while on, at the rate that gives the same mean).
    const double mean_size = cfg.traffic.packet_size + 0.5 * prm.size_span;
    const double p = cfg.loads[r] / mean_size / on_fraction;
    if (p > 1.0 + 1e-9)
      throw ConfigError("traffic.load: " + std::to_string(cfg.loads[r]) + " flits/node/cycle with on/off bursts (on " +
                        std::to_string(on_fraction) + " of the time) needs " + std::to_string(p) +
                        " packets/cycle while on, more than 1; raise traffic.burst_on, lower traffic.burst_off or "
                        "use larger packets");
    s.rep_threshold[r] = uint64_t(std::llround(std::min(1.0, p) * 4294967296.0));
    if (sz.bern_N) init_bernoulli_sources(s, sz, r);
    fill_traffic_table(cfg, prm, sz, cfg.seeds[r], traffic_tables, s.tr_table.data() + (long long)r * sz.tr_len);
  }
  std::fill(s.fring.begin(), s.fring.end(), kNoFlit);
  std::fill(s.ering.begin(), s.ering.end(), kNoFlit);
  std::fill(s.cring.begin(), s.cring.end(), -1);
  std::fill(s.nicring.begin(), s.nicring.end(), -1);
  for (OutputVc& o : s.ovc) o.credits = sz.B;
  std::fill(s.ni_credits.begin(), s.ni_credits.end(), sz.B);
  std::fill(s.ni_pid.begin(), s.ni_pid.end(), -1);
  std::fill(s.ni_vc.begin(), s.ni_vc.end(), -1);
  for (int r = 0; r < sz.reps && sz.onoff_N; ++r)
    for (int n = 0; n < sz.N; ++n)
      s.ni_on[size_t(r) * sz.N + n] = s.ni_scan_on[size_t(r) * sz.N + n] =
          burst_initial(cfg.seeds[r], prm.burst_alpha, prm.burst_beta, n);
  if (wl) init_workload_state(*wl, s);
  return h;
}

}  // namespace flitsim
