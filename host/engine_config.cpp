#include "engine_config.hpp"

#include <algorithm>
#include <cmath>

namespace flitsim {

EngineConfig parse_engine_config(const Params& router, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim) {
  EngineConfig c;
  c.vcs = int32_t(router.get_int_min("vcs", 1, c.vcs));
  if (c.vcs > 63) router.fail("vcs", "must be <= 63, got " + std::to_string(c.vcs));
  c.buffer = int32_t(router.get_int_min("buffer", 1, c.buffer));
  c.router_latency = int32_t(router.get_int_min("latency", 0, c.router_latency));
  c.channels = channels;
  for (const auto& k : channels.keys()) channels.get_int_min(k, 1);  // every latency >= 1
  c.algorithm = routing.get_str("algorithm", c.algorithm);
  c.selection = routing.get_str("selection", c.selection);
  if (c.selection != "oblivious" && c.selection != "adaptive")
    routing.fail("selection", "must be \"oblivious\" or \"adaptive\", got \"" + c.selection + "\"");
  c.deadlock_avoidance = routing.get_int("deadlock_avoidance", 1) != 0;
  c.pattern = traffic.get_str("pattern", c.pattern);
  c.packet_size = int32_t(traffic.get_int_min("packet_size", 1, c.packet_size));
  if (c.packet_size > 1 << 20) traffic.fail("packet_size", "must be <= 2^20 flits");
  const double load = traffic.get_float("load", c.loads[0]);
  if (!(load >= 0.0 && load <= 1.0)) traffic.fail("load", "must be in [0, 1], got " + std::to_string(load));
  c.loads = {load};
  c.seeds = {uint64_t(sim.get_int_min("seed", 0, int64_t(c.seeds[0])))};
  c.warmup = sim.get_int_min("warmup", 0, c.warmup);
  c.measure = sim.get_int_min("measure", 1, c.measure);
  c.drain_limit = sim.get_int_min("drain_limit", 1, c.drain_limit);
  c.watchdog = sim.get_int_min("watchdog", 1, c.watchdog);
  c.packet_slots = int32_t(sim.get_int_min("packet_slots", 0, c.packet_slots));
  c.latency_bins = int32_t(sim.get_int_min("latency_bins", 16, c.latency_bins));
  c.chunk = sim.get_int_min("chunk", 1, c.chunk);
  return c;
}

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

// Which routing function runs, and how many deadlock-avoidance VC classes it needs here.
void choose_routing(const Topology& t, const EngineConfig& cfg, const std::vector<uint8_t>* dist,
                    SimParams& prm) {
  const Params where("routing");
  if (cfg.algorithm != "min")
    where.fail("algorithm", "\"" + cfg.algorithm + "\" is not implemented yet (available: min)");
  prm.selection = cfg.selection == "adaptive" ? Selection::Adaptive : Selection::Oblivious;
  if (t.kind == "dragonfly" && t.tables.count("gateway_router")) {
    prm.routing = RoutingKind::DragonflyMin;
    prm.vc_classes = 2;
    return;
  }
  prm.routing = RoutingKind::TableMin;
  int diameter = 0;
  for (uint8_t d : *dist) diameter = std::max<int>(diameter, d);
  auto it = t.attrs.find("min_vc_classes");
  prm.vc_classes = it != t.attrs.end() ? int32_t(it->second) : std::max(1, diameter);
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
  sz.V = cfg.vcs;
  sz.B = cfg.buffer;
  sz.bins = cfg.latency_bins;
  if (sz.N < 2) throw ConfigError("topology: needs at least 2 nodes, got " + std::to_string(sz.N));
  check_channel_keys(t, cfg);
  if (cfg.pattern != "uniform")
    throw ConfigError("traffic.pattern: \"" + cfg.pattern + "\" is not implemented yet (available: uniform)");

  // Routing tables.
  std::vector<uint8_t> dist;
  const bool dragonfly = t.kind == "dragonfly" && t.tables.count("gateway_router");
  if (!dragonfly) {
    if (int64_t(sz.R) * sz.R > (int64_t(1) << 30))
      throw ConfigError("routing.algorithm: table-based minimal routing needs an R x R distance table; " +
                        std::to_string(sz.R) + " routers is too many");
    dist = router_distances(t);
    if (std::find(dist.begin(), dist.end(), uint8_t(255)) != dist.end())
      throw ConfigError("topology: the router graph is disconnected");
    sz.dist_R = sz.R;
  }
  choose_routing(t, cfg, &dist, prm);
  if (!cfg.deadlock_avoidance) prm.vc_classes = 1;
  if (sz.V < prm.vc_classes)
    throw ConfigError("router.vcs: routing \"" + cfg.algorithm + "\" on " + t.kind + " needs at least " +
                      std::to_string(prm.vc_classes) + " VCs (one per deadlock-avoidance class), got " +
                      std::to_string(sz.V));
  if (dragonfly) {
    sz.df_G = int32_t(t.attrs.at("groups"));
    sz.df_a = int32_t(t.attrs.at("a"));
  }

  // Packet slots per node: enough for every flit the network can buffer per node, so sources
  // rarely wait for a slot; stalls are counted and reported when they happen.
  int64_t S = cfg.packet_slots;
  if (S == 0) {
    int64_t per_node = int64_t(sz.P) * sz.V * sz.B / sz.N / cfg.packet_size + 16;
    S = 16;
    while (S < per_node && S < 1024) S *= 2;
  }
  if (int64_t(sz.N) * S >= (int64_t(1) << 31))
    throw ConfigError("sim.packet_slots: nodes x packet slots must stay below 2^31");
  sz.S = int32_t(S);

  prm.warmup = cfg.warmup;
  prm.measure = cfg.measure;
  prm.packet_size = cfg.packet_size;
  prm.pattern = PatternKind::Uniform;

  // Channel rings: a port's input ring is fed by the peer's output (router latency + channel
  // latency) or by its node (terminal latency); credits travel back with the channel latency.
  const int32_t term_lat = channel_latency(t, cfg, 0);
  std::vector<int32_t> fring_len(sz.P), cring_len(sz.P);
  for (int gp = 0; gp < sz.P; ++gp) {
    const int32_t lat = channel_latency(t, cfg, t.port_class[gp]);
    const bool terminal = t.peer_port[gp] < 0;
    fring_len[gp] = (terminal ? term_lat : cfg.router_latency + lat) + 1;
    cring_len[gp] = terminal ? 1 : lat + 1;
  }
  auto offsets = [](const std::vector<int32_t>& len, int32_t& total) {
    std::vector<int32_t> off(len.size());
    int64_t sum = 0;
    for (size_t i = 0; i < len.size(); ++i) off[i] = int32_t(sum), sum += len[i];
    if (sum >= (int64_t(1) << 31)) throw ConfigError("channels.latency: channel rings exceed 2^31 slots");
    total = int32_t(sum);
    return off;
  };
  std::vector<int32_t> ering_len(sz.N, cfg.router_latency + term_lat + 1), nicring_len(sz.N, term_lat + 1);
  std::vector<int32_t> fring_off = offsets(fring_len, sz.fring_total);
  std::vector<int32_t> cring_off = offsets(cring_len, sz.cring_total);
  std::vector<int32_t> ering_off = offsets(ering_len, sz.ering_total);
  std::vector<int32_t> nicring_off = offsets(nicring_len, sz.nicring_total);

  HostState& s = h;
  s.allocate();
  s.fring_off = fring_off, s.fring_len = fring_len, s.cring_off = cring_off, s.cring_len = cring_len;
  s.ering_off = ering_off, s.ering_len = ering_len, s.nicring_off = nicring_off, s.nicring_len = nicring_len;
  s.port_offset = t.port_offset;
  s.port_router = t.port_router;
  s.peer_port = t.peer_port;
  s.port_node = t.port_node;
  s.node_port = t.node_port;
  if (dragonfly) {
    s.df_gateway_router = t.tables.at("gateway_router");
    s.df_gateway_port = t.tables.at("gateway_port");
    s.df_local_port = t.tables.at("local_port");
  }
  s.dist = std::move(dist);

  for (int r = 0; r < sz.reps; ++r) {
    s.rep_seed[r] = cfg.seeds[r];
    const double p = cfg.loads[r] / cfg.packet_size;  // packets per node per cycle
    s.rep_threshold[r] = uint64_t(std::llround(std::min(1.0, p) * 4294967296.0));
  }
  std::fill(s.fring.begin(), s.fring.end(), kNoFlit);
  std::fill(s.ering.begin(), s.ering.end(), kNoFlit);
  std::fill(s.cring.begin(), s.cring.end(), -1);
  std::fill(s.nicring.begin(), s.nicring.end(), -1);
  std::fill(s.ivc_out_port.begin(), s.ivc_out_port.end(), -1);
  std::fill(s.ivc_out_vc.begin(), s.ivc_out_vc.end(), -1);
  std::fill(s.ovc_owner.begin(), s.ovc_owner.end(), -1);
  std::fill(s.ovc_req.begin(), s.ovc_req.end(), -1);
  std::fill(s.ovc_credits.begin(), s.ovc_credits.end(), sz.B);
  std::fill(s.ni_credits.begin(), s.ni_credits.end(), sz.B);
  std::fill(s.ni_pid.begin(), s.ni_pid.end(), -1);
  std::fill(s.ni_vc.begin(), s.ni_vc.end(), -1);
  std::fill(s.pk_free_at.begin(), s.pk_free_at.end(), -1);  // free since before cycle 0
  return h;
}

}  // namespace flitsim
