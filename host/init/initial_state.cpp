// The initial state of a run, in stages: sizing; the choices (traffic pattern, routing and router
// model, sources: traffic_choice.cpp, routing_choice.cpp); the channel rings (ring_layout.cpp);
// the shared topology tables; per-replica seeding.
#include "host/config/engine_config.hpp"
#include "host/config/router_buffering.hpp"
#include "routing_choice.hpp"
#include "traffic_choice.hpp"
#include "host/init/ring_layout.hpp"

#include "cuda/phases/switch_alloc.cuh"  // kMaxRadix
#include "cuda/traffic/injection.cuh"     // burst_initial, creation_gap

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace flitsim {

namespace {

// Bernoulli injection (traffic/injection.cuh): replica r's gap table of traffic class c,
// cdf[i] = P(gap <= i + 1) = 1 − (1 − p)^(i + 1) in units of 2^-32, for the per-cycle
// probability p = threshold / 2^32; then each node's first packet (index 0, created at cycle
// gap − 1), which is also the head of its empty queue. Nodes outside the class's source set
// [lo, hi) never create one. A node wakes at its classes' first creation.
void init_bernoulli_sources(HostState& s, const Sizes& sz, int r, int c, u64 threshold, int64_t lo, int64_t hi) {
  const double p = double(threshold) / 4294967296.0;
  u64* cdf = c == 0 ? s.rep_gap_cdf.data() + size_t(r) * kGapTable
                    : s.cls_gap_cdf.data() + (size_t(c - 1) * sz.reps + r) * kGapTable;
  for (int i = 0; i < kGapTable; ++i)
    cdf[i] = p >= 1.0 ? (u64(1) << 32) : u64(std::llround(-std::expm1((i + 1) * std::log1p(-p)) * 4294967296.0));
  for (int n = 0; n < sz.N; ++n) {
    const size_t ni = size_t(r) * sz.N + n;
    const long long first = n >= lo && n < hi ? creation_gap(class_seed(s.rep_seed[r], c), cdf, n, 0) - 1 : kNeverCreated;
    if (c == 0) {
      s.ni_next_at[ni] = s.ni_scan[ni] = s.ni_wake_at[ni] = first;
      s.ni_next_k[ni] = s.ni_scan_k[ni] = 0;
    } else {
      const size_t i = size_t(c - 1) * sz.reps * sz.N + ni;
      s.cls_next_at[i] = s.cls_scan[i] = first;
      s.cls_next_k[i] = s.cls_scan_k[i] = 0;
      s.ni_wake_at[ni] = std::min<long long>(s.ni_wake_at[ni], first);
    }
  }
}

// The source sets (traffic.sources, per class) and the traffic classes' parameters
// ([[traffic.class]], SimParams::classes): priorities, packet sizes, the state they size.
void choose_traffic_classes(const EngineConfig& cfg, Sizes& sz, SimParams& prm) {
  const int K = cfg.classes.empty() ? 1 : int(cfg.classes.size());
  for (int c = 0; c < K; ++c) {
    const TrafficKeys& keys = cfg.classes.empty() ? cfg.traffic : cfg.classes[c].keys;
    const std::string key = cfg.classes.empty() ? "traffic.sources" : "traffic.class." + std::to_string(c) + ".sources";
    if (!keys.sources.empty() && (keys.sources.size() != 2 || keys.sources[0] >= keys.sources[1] || keys.sources[1] > sz.N))
      throw ConfigError(key + ": must be [lo, hi] with 0 <= lo < hi <= " + std::to_string(sz.N) +
                        " (the nodes lo .. hi-1 create packets)");
  }
  if (cfg.classes.empty()) return;
  if (cfg.workload)
    throw ConfigError("traffic.class: traffic classes are open-loop sources; a [workload] run's programs send their "
                      "own messages (remove the [[traffic.class]] tables)");
  prm.classes.count = K;
  for (int c = 0; c < K; ++c) {
    const TrafficKeys& keys = cfg.classes[c].keys;
    prm.classes.priority[c] = keys.priority;
    if (keys.priority != cfg.classes[0].keys.priority) prm.classes.prioritized = true;
    if (c > 0) {
      prm.classes.more[c - 1].packet_size = keys.packet_size;
      prm.classes.more[c - 1].size_span = keys.packet_size_max > 0 ? keys.packet_size_max - keys.packet_size : 0;
    }
  }
  if (prm.classes.prioritized && (prm.router.sw_allocator == Allocator::Wavefront ||
                                  prm.router.vc_allocator == Allocator::Wavefront))
    throw ConfigError(std::string(prm.router.sw_allocator == Allocator::Wavefront ? "router.sw_allocator" : "router.vc_allocator") +
                      ": \"wavefront\" arbitrates by position, not by traffic class priority; classes of different "
                      "priorities need \"islip\" or a separable allocator");
  if (K > 1) {
    sz.cls_K = K;
    sz.cls_N = sz.reps * sz.N * (K - 1);
  }
}

// Stage 1, sizing: the dimensions the topology and the [router] and [sim] keys give.
void size_state(const Topology& t, const EngineConfig& cfg, Sizes& sz) {
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
}

// What the routing reads besides its parameters: the router distance table (all but
// dragonflies) and its own table (rt_table).
struct RoutingTables {
  std::vector<uint8_t> dist;
  std::vector<int32_t> rt_table;
};

// Stage 2a, the routing and the router model: the routing function, its VC classes checked
// against router.vcs, what it senses, the router options the phases read.
RoutingTables choose_routing_and_router(const Topology& t, const EngineConfig& cfg, Sizes& sz, SimParams& prm) {
  RoutingTables tab;
  const bool dragonfly = dragonfly_tables(t);
  if (!dragonfly) {
    if (int64_t(sz.R) * sz.R > (int64_t(1) << 30))
      throw ConfigError("routing.algorithm: table-based minimal routing needs an R x R distance table; " +
                        std::to_string(sz.R) + " routers is too many");
    tab.dist = router_distances(t);
    if (std::find(tab.dist.begin(), tab.dist.end(), uint8_t(255)) != tab.dist.end())
      throw ConfigError("topology: the router graph is disconnected");
    sz.dist_R = sz.R;
  }
  choose_routing(t, cfg, tab.dist, prm, tab.rt_table);
  const RoutingInfo& routing = routing_info(prm.routing.kind);
  sz.rt_len = int32_t(tab.rt_table.size());
  if (!cfg.routing.deadlock_avoidance) prm.routing.vc_classes = 1;
  // Adaptive choices sense local output queues (port_congestion): the routings that declare
  // it, and the adaptive global-link choice of every dragonfly routing (dragonfly_links.cuh).
  if (std::string(routing.sensing) != "none" || (dragonfly && prm.routing.selection == Selection::Adaptive))
    sz.demand_P = sz.P;
  if (prm.routing.snapshot_period > 0) sz.snap_P = sz.P;  // UGAL-G: the congestion snapshot (routing/snapshot.cuh)
  prm.router = cfg.model;  // the [router] options the phases read
  sz.O = cfg.router.output_buffer, sz.OQ = output_queues_per_port(cfg);  // router_buffering.hpp
  if (int64_t(sz.P) * sz.OQ * sz.O >= (int64_t(1) << 31))
    throw ConfigError("router.output_buffer: ports x output queues per port x router.output_buffer = " +
                      std::to_string(int64_t(sz.P) * sz.OQ * sz.O) + " flit slots per replica; must stay below 2^31");
  if (t.max_radix() > kMaxRadix)
    throw ConfigError("topology.kind: this " + t.kind + " has routers of " + std::to_string(t.max_radix()) +
                      " ports; the engine's allocators handle at most " + std::to_string(kMaxRadix) +
                      " (choose smaller topology parameters)");
  // Message classes: requests and replies on disjoint VC ranges, each split by the routing's
  // deadlock classes, so that no reply ever waits for a request's VC (protocol deadlock).
  const int message_classes = cfg.traffic.reply_size > 0 ? 2 : 1;
  sz.mc_V = sz.V / message_classes;
  if (message_classes > 1 && sz.mc_V < prm.routing.vc_classes)
    throw ConfigError("router.vcs: traffic.reply_size puts requests and replies on separate VCs, and routing \"" +
                      cfg.routing.algorithm + "\" on " + t.kind + " needs " + std::to_string(prm.routing.vc_classes) +
                      " VC(s) per message class (one per deadlock-avoidance class): at least " +
                      std::to_string(2 * prm.routing.vc_classes) + " VCs, got " + std::to_string(sz.V));
  if (sz.V < prm.routing.vc_classes)
    throw ConfigError("router.vcs: routing \"" + cfg.routing.algorithm + "\"" +
                      (std::string(routing.table) == "df_groups" ? (prm.routing.valiant_any ? " (any)" : " (restricted)") : "") +
                      " on " + t.kind + " needs at least " +
                      std::to_string(prm.routing.vc_classes) + " VCs (one per deadlock-avoidance class), got " +
                      std::to_string(sz.V));
  if (dragonfly) {
    sz.df_G = int32_t(t.attrs.at("groups"));
    sz.df_a = int32_t(t.attrs.at("a"));
    sz.df_links = int32_t(t.tables.at("gateway_ports").size());
  }

  return tab;
}

// Stage 2b, the sources: packet slots, the measurement window, packet sizes, the injection
// process or the workload's programs. Returns the long-run fraction of cycles a source is on.
double choose_sources(const EngineConfig& cfg, Sizes& sz, SimParams& prm) {
  const CompiledWorkload* wl = cfg.workload.get();
  const int32_t packet_size = wl ? wl->packet_size : cfg.traffic.packet_size;
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
  prm.traffic.packet_size = cfg.traffic.packet_size;
  prm.traffic.size_span = cfg.traffic.packet_size_max > 0 ? cfg.traffic.packet_size_max - cfg.traffic.packet_size : 0;
  double on_fraction = 1.0;
  if (cfg.traffic.injection == "onoff" && !wl) {
    auto x32 = [](double q) { return uint32_t(std::min(4294967295.0, std::floor(q * 4294967296.0 + 0.5))); };
    prm.traffic.injection = InjectionKind::OnOff;
    prm.traffic.burst_alpha = x32(1.0 / cfg.traffic.burst_off);
    prm.traffic.burst_beta = x32(1.0 / cfg.traffic.burst_on);
    on_fraction = double(prm.traffic.burst_alpha) / (double(prm.traffic.burst_alpha) + double(prm.traffic.burst_beta));
    sz.onoff_N = sz.reps * sz.N;
  }
  if (!wl && prm.traffic.injection == InjectionKind::Bernoulli) sz.bern_N = sz.reps * sz.N;
  if (cfg.traffic.reply_size > 0) {
    if (wl)
      throw ConfigError("traffic.reply_size: request-reply is open-loop traffic; a [workload] run's programs "
                        "send their own messages (leave traffic.reply_size unset)");
    prm.traffic.reply_size = cfg.traffic.reply_size;
    sz.reply_N = sz.reps * sz.N;
  }
  choose_traffic_classes(cfg, sz, prm);
  if (wl) {  // every packet is measured: the window spans the whole run
    prm.workload.on = true;
    prm.workload.packet_size = wl->packet_size;
    std::string room;
    if (cfg.model.vct && wl->packet_size > vct_packet_room(cfg, &room))
      throw ConfigError("router.flow_control: \"vct\" needs " + room + " >= the workload's packet size (" +
                        std::to_string(wl->packet_size) + " flits)");
    prm.warmup = 0;
    prm.measure = int64_t(1) << 62;
  }
  return on_fraction;

}

// Stage 4, the topology tables every replica shares.
void copy_topology_tables(const Topology& t, RoutingTables& tab, HostState& s) {
  const Sizes& sz = s.sz;
  s.port_offset = t.port_offset;
  s.port_router = t.port_router;
  s.peer_port = t.peer_port;
  s.port_node = t.port_node;
  s.node_port = t.node_port;
  s.node_router.assign(s.node_port.size(), 0);
  for (size_t n = 0; n < s.node_port.size(); ++n) s.node_router[n] = t.node_router(int32_t(n));
  for (int gp = 0; gp < sz.P; ++gp)
    if (t.port_node[gp] >= 0) s.router_terminals[t.port_router[gp]] |= u64(1) << (gp - t.port_offset[t.port_router[gp]]);
  if (dragonfly_tables(t)) {
    s.df_gw_offset = t.tables.at("gateway_offset");
    s.df_gw_ports = t.tables.at("gateway_ports");
    s.df_local_port = t.tables.at("local_port");
    s.df_local_links = t.tables.at("local_links");
  }
  s.dist = std::move(tab.dist);
  s.rt_table = std::move(tab.rt_table);

}

// Stage 5, per-replica seeding: each replica's seed, source rates, first packets and traffic
// table, then the initial values of rings, credits and interfaces.
void seed_replicas(const EngineConfig& cfg, const std::vector<TrafficTables>& traffic, double on_fraction, HostState& s) {
  const Sizes& sz = s.sz;
  const SimParams& prm = s.prm;
  for (int r = 0; r < sz.reps; ++r) {
    s.rep_seed[r] = cfg.seeds[r];
    // Packets per node per cycle: the load over the mean packet size (an on/off source creates
    // only while on, at the rate that gives the same mean).
    // Traffic classes: each its own load (or the replica's), packet sizes and source set.
    for (int c = 0; c < prm.classes.count; ++c) {
      const TrafficParams& tp = class_traffic(prm, c);
      const TrafficKeys& keys = cfg.classes.empty() ? cfg.traffic : cfg.classes[c].keys;
      const double load = cfg.classes.empty() || cfg.classes[c].load < 0 ? cfg.loads[r] : cfg.classes[c].load;
      const double mean_size = tp.packet_size + 0.5 * tp.size_span;
      const double p = load / mean_size / on_fraction;
      if (p > 1.0 + 1e-9)
        throw ConfigError("traffic.load: " + std::to_string(load) + " flits/node/cycle with on/off bursts (on " +
                          std::to_string(on_fraction) + " of the time) needs " + std::to_string(p) +
                          " packets/cycle while on, more than 1; raise traffic.burst_on, lower traffic.burst_off or "
                          "use larger packets");
      const u64 threshold = uint64_t(std::llround(std::min(1.0, p) * 4294967296.0));
      if (c == 0) s.rep_threshold[r] = threshold;
      const int64_t lo = keys.sources.empty() ? 0 : keys.sources[0], hi = keys.sources.empty() ? sz.N : keys.sources[1];
      if (sz.bern_N) init_bernoulli_sources(s, sz, r, c, threshold, lo, hi);
    }
    fill_class_tables(cfg, prm, sz, cfg.seeds[r], traffic, s.tr_table.data() + (long long)r * sz.tr_len);
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
          burst_initial(cfg.seeds[r], prm.traffic.burst_alpha, prm.traffic.burst_beta, n);
}

}  // namespace

HostState make_initial_state(const Topology& t, const EngineConfig& cfg) {
  HostState h;
  size_state(t, cfg, h.sz);
  check_channel_keys(t, cfg);
  const std::vector<TrafficTables> traffic = choose_class_patterns(t, cfg, h.prm, h.sz);
  RoutingTables tables = choose_routing_and_router(t, cfg, h.sz, h.prm);
  const double on_fraction = choose_sources(cfg, h.sz, h.prm);
  const RingPlan rings = plan_rings(t, cfg, h.sz);  // stage 3, the channel rings (ring_layout.cpp)
  h.allocate();
  write_ring_spans(t, rings, h);
  copy_topology_tables(t, tables, h);
  seed_replicas(cfg, traffic, on_fraction, h);
  if (cfg.workload) init_workload_state(*cfg.workload, h);
  return h;
}

}  // namespace flitsim
