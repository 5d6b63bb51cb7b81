#include "engine_config.hpp"

#include "cuda/phases/switch_alloc.cuh"  // kMaxRadix
#include "seeded_random.hpp"

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
  c.sa_iterations = int32_t(router.get_int_min("sa_iterations", 1, c.sa_iterations));
  if (c.sa_iterations > 8) router.fail("sa_iterations", "must be <= 8, got " + std::to_string(c.sa_iterations));
  c.channels = channels;
  for (const auto& k : channels.keys()) channels.get_int_min(k, 1);  // every latency >= 1
  c.algorithm = routing.get_str("algorithm", c.algorithm);
  c.selection = routing.get_str("selection", "");
  if (!c.selection.empty() && c.selection != "oblivious" && c.selection != "adaptive" && c.selection != "dmodk")
    routing.fail("selection", "must be \"oblivious\", \"adaptive\" or \"dmodk\", got \"" + c.selection + "\"");
  c.n_indirect = int32_t(routing.get_int_min("n_indirect", 1, c.n_indirect));
  if (routing.has("n_indirect") && c.n_indirect > 64) routing.fail("n_indirect", "must be <= 64");
  c.penalty = routing.get_float("penalty", c.penalty);
  if (!(c.penalty >= 0 && c.penalty <= 1e6)) routing.fail("penalty", "must be in [0, 1e6]");
  c.threshold = routing.get_float("threshold", c.threshold);
  if (!(c.threshold >= 0 && c.threshold <= 100)) routing.fail("threshold", "must be in [0, 100]");
  c.cost = routing.get_str("cost", c.cost);
  if (c.cost != "queue" && c.cost != "hops" && c.cost != "booksim")
    routing.fail("cost", "must be \"queue\", \"hops\" or \"booksim\", got \"" + c.cost + "\"");
  c.offset = int32_t(routing.get_int_min("offset", 0, c.offset));
  if (routing.has("offset") && c.offset > (1 << 20)) routing.fail("offset", "must be <= 2^20 flits");
  c.deroutes = int32_t(routing.get_int_min("deroutes", 0, c.deroutes));
  if (routing.has("deroutes") && c.deroutes > 62) routing.fail("deroutes", "must be <= 62");
  c.multi_deroute = routing.get_int("multi_deroute", 1) != 0;
  c.snapshot_period = int32_t(routing.get_int_min("snapshot_period", 1, c.snapshot_period));
  if (c.snapshot_period > (1 << 20)) routing.fail("snapshot_period", "must be <= 2^20 cycles");
  c.deadlock_avoidance = routing.get_int("deadlock_avoidance", 1) != 0;
  c.valiant = routing.get_str("valiant", "");
  if (!c.valiant.empty() && c.valiant != "restricted" && c.valiant != "any")
    routing.fail("valiant", "must be \"restricted\" or \"any\", got \"" + c.valiant + "\"");
  c.pattern = traffic.get_str("pattern", c.pattern);
  c.placement = traffic.get_str("placement", c.placement);
  if (c.placement != "contiguous" && c.placement != "random")
    traffic.fail("placement", "must be \"contiguous\" or \"random\", got \"" + c.placement + "\"");
  c.has_shift = traffic.has("shift");
  c.shift = traffic.get_int("shift", 0);
  c.hotspots = traffic.get_ints("hotspots", c.hotspots);
  if (c.hotspots.empty()) traffic.fail("hotspots", "must list at least one rank");
  c.hotspot_fraction = traffic.get_float("hotspot_fraction", c.hotspot_fraction);
  if (!(c.hotspot_fraction >= 0.0 && c.hotspot_fraction <= 1.0))
    traffic.fail("hotspot_fraction", "must be in [0, 1], got " + std::to_string(c.hotspot_fraction));
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
  c.saturation_tolerance = sim.get_float("saturation_tolerance", c.saturation_tolerance);
  if (!(c.saturation_tolerance >= 0 && c.saturation_tolerance <= 1))
    sim.fail("saturation_tolerance", "must be in [0, 1]");
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

// The algorithms each topology kind supports (docs/routing.md).
std::vector<std::string> supported_algorithms(const Topology& t, bool dragonfly) {
  if (dragonfly) return {"min", "valiant", "ugal", "ugal-g", "par"};
  if (t.kind == "hyperx") return {"min", "valiant", "ugal", "ugal-g", "dor", "clos-ad", "dimwar", "omniwar"};
  if (t.kind == "fattree" || t.kind == "xgft") return {"min", "valiant", "ugal", "ugal-g", "updown"};
  return {"min", "valiant", "ugal", "ugal-g"};
}

// HyperX tables for the coordinate routings, in the layout of cuda/routing/hyperx_common.cuh.
std::vector<int32_t> hyperx_rt_table(const Topology& t, const std::string& algorithm) {
  const Params where("routing");
  const std::vector<int32_t>& W = t.tables.at("widths");
  const std::vector<int32_t>& gap = t.tables.at("gap");
  const int32_t D = int32_t(W.size());
  for (int32_t d = 0; d < D; ++d)
    if (gap[d] != 1)
      where.fail("algorithm", "\"" + algorithm + "\" needs every HyperX dimension fully connected (gap 1), got gap " +
                                  std::to_string(gap[d]) + " in dimension " + std::to_string(d) +
                                  "; use min, valiant or ugal on express meshes");
  if (D > 64) where.fail("algorithm", "\"" + algorithm + "\" supports at most 64 dimensions");
  const std::vector<int32_t>& off = t.tables.at("dim_offset");
  const std::vector<int32_t>& ports = t.tables.at("dim_port");
  std::vector<int32_t> rt{D, off[D]};
  rt.insert(rt.end(), W.begin(), W.end());
  int32_t stride = 1;
  for (int32_t d = 0; d < D; ++d) rt.push_back(stride), stride *= W[d];
  const std::vector<int32_t>& trunk = t.tables.at("trunking");
  rt.insert(rt.end(), trunk.begin(), trunk.end());
  rt.insert(rt.end(), off.begin(), off.end());
  rt.insert(rt.end(), ports.begin(), ports.end());
  return rt;
}

// Which routing function runs, and how many deadlock-avoidance VC classes it needs here.
void choose_routing(const Topology& t, const EngineConfig& cfg, const std::vector<uint8_t>* dist,
                    SimParams& prm, std::vector<int32_t>& rt_table) {
  const Params where("routing");
  const std::string& alg = cfg.algorithm;
  const bool dragonfly = t.kind == "dragonfly" && t.tables.count("gateway_offset");
  const std::vector<std::string> supported = supported_algorithms(t, dragonfly);
  if (std::find(supported.begin(), supported.end(), alg) == supported.end()) {
    std::string list;
    for (const auto& a : supported) list += (list.empty() ? "" : ", ") + a;
    where.fail("algorithm", "\"" + alg + "\" is not supported on " + t.kind + " (" + t.kind + " supports: " + list + ")");
  }
  const bool valiant = alg == "valiant", ugal_g = alg == "ugal-g", par = alg == "par";
  const bool ugal = alg == "ugal" || ugal_g || par;  // the UGAL family: cost rule, candidates, offset
  if (!cfg.valiant.empty() && (valiant || ugal) && !dragonfly)
    where.fail("valiant", "only applies to dragonflies (generic Valiant on " + t.kind +
                              " draws any router with terminals); leave it unset");
  // Selection: random per packet and hop unless adaptive; up*/down* defaults to D-mod-k.
  const std::string& sel = cfg.selection;
  if (sel == "dmodk" && alg != "updown")
    where.fail("selection", "\"dmodk\" only applies to algorithm \"updown\" (trees), not \"" + alg + "\"");
  prm.selection = sel == "adaptive" ? Selection::Adaptive
                  : (sel == "dmodk" || (sel.empty() && alg == "updown")) ? Selection::DModK
                                                                         : Selection::Oblivious;
  // UGAL-L and the weighted HyperX routings (fixed point, see SimParams).
  prm.n_indirect = cfg.n_indirect > 0 ? cfg.n_indirect : dragonfly ? 1 : 4;
  prm.penalty_x256 = int32_t(std::llround(cfg.penalty * 256.0));
  prm.ugal_cost = cfg.cost == "hops" ? UgalCost::Hops : cfg.cost == "booksim" ? UgalCost::BookSim : UgalCost::Queue;
  // Non-minimal bias: BookSim's 30 flits for its rule; 4 flits for the weighted HyperX routings,
  // which with 0 (SuperSim's setting) deroute at low load on the few flits a busy port always
  // has in flight (docs/routing.md); 0 for the other UGAL rules (P3's formulas).
  const bool weighted = alg == "clos-ad" || alg == "dimwar" || alg == "omniwar";
  prm.ugal_offset = cfg.offset >= 0 ? cfg.offset : prm.ugal_cost == UgalCost::BookSim && ugal ? 30 : weighted ? 4 : 0;
  prm.threshold_x256 = std::llround(cfg.threshold / 100.0 * double(cfg.vcs) * double(cfg.buffer) * 256.0);
  prm.multi_deroute = cfg.multi_deroute;
  if (dragonfly) {
    if (alg == "min") {
      prm.routing = RoutingKind::DragonflyMin;
      prm.vc_classes = 2;  // L0 R0 L1
      return;
    }
    if (t.attrs.at("groups") < 3)
      where.fail("algorithm", "\"" + alg + "\" on a dragonfly needs at least 3 groups, got " +
                                  std::to_string(t.attrs.at("groups")));
    prm.routing = par      ? RoutingKind::DragonflyPar
                  : ugal_g ? RoutingKind::DragonflyUgalG
                  : ugal   ? RoutingKind::DragonflyUgal
                           : RoutingKind::DragonflyValiant;
    prm.valiant_any = cfg.valiant == "any";
    prm.vc_classes = prm.valiant_any ? 4 : 3;  // L0 R0 L1 | L2 R1 L3, or L0 R0 | L1 R1 L2
    if (par) ++prm.vc_classes;                 // + L0 for minimal hops in the source group (dragonfly_par.cuh)
    if (ugal_g) prm.snapshot_period = cfg.snapshot_period;
    return;
  }
  if (t.kind == "hyperx" && (alg == "dor" || alg == "clos-ad" || alg == "dimwar" || alg == "omniwar")) {
    rt_table = hyperx_rt_table(t, alg);
    const int32_t D = rt_table[0];
    if (alg == "dor") prm.routing = RoutingKind::HyperxDor, prm.vc_classes = 1;
    if (alg == "clos-ad") prm.routing = RoutingKind::HyperxClosAd, prm.vc_classes = 2;
    if (alg == "dimwar") prm.routing = RoutingKind::HyperxDimWar, prm.vc_classes = 2;
    if (alg == "omniwar") {
      prm.routing = RoutingKind::HyperxOmniWar;
      prm.vc_classes = prm.phase_classes = D + (cfg.deroutes >= 0 ? cfg.deroutes : D);  // N + M
    }
    return;
  }
  int diameter = 0;
  for (uint8_t d : *dist) diameter = std::max<int>(diameter, d);
  auto it = t.attrs.find("min_vc_classes");
  const int32_t min_classes = it != t.attrs.end() ? int32_t(it->second) : std::max(1, diameter);
  if (alg == "min" || alg == "updown") {
    prm.routing = alg == "min" ? RoutingKind::TableMin : RoutingKind::UpDown;
    prm.vc_classes = min_classes;  // trees: 1 (up*/down*)
    return;
  }
  // Valiant and UGAL: routers with terminals (the candidates) and each one's position among them.
  std::vector<int32_t> list, pos(t.num_routers, -1);
  for (int32_t r = 0; r < t.num_routers; ++r)
    for (int32_t gp = t.port_offset[r]; gp < t.port_offset[r + 1]; ++gp)
      if (t.port_node[gp] >= 0) {
        pos[r] = int32_t(list.size());
        list.push_back(r);
        break;
      }
  if (list.size() < 3)
    where.fail("algorithm", "\"" + alg + "\" needs at least 3 routers with terminals, got " +
                                std::to_string(list.size()));
  rt_table = list;
  rt_table.insert(rt_table.end(), pos.begin(), pos.end());
  prm.routing = ugal_g ? RoutingKind::TableUgalG : ugal ? RoutingKind::TableUgal : RoutingKind::TableValiant;
  if (ugal_g) prm.snapshot_period = cfg.snapshot_period;
  prm.phase_classes = min_classes;
  prm.vc_classes = 2 * min_classes;
}

// Uniform random permutation of [0, n) keyed by (seed, purpose).
std::vector<int32_t> seeded_permutation(int32_t n, uint64_t seed, uint64_t purpose) {
  return random_permutation(n, seed * 0x9E3779B97F4A7C15ull ^ (purpose * 0xD1B54A32D192ED03ull));
}

// The destination pattern: kind, parameters, and which per-replica tables it needs.
void choose_pattern(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz) {
  const Params where("traffic");
  const std::string& pat = cfg.pattern;
  const int64_t N = t.num_nodes;
  auto need_shift = [&]() {
    if (!cfg.has_shift) where.fail("shift", "is required for pattern \"" + pat + "\"");
    return cfg.shift;
  };
  auto reduce = [&](int64_t v) { return ((v % N) + N) % N; };
  int bits = 0;
  while ((int64_t(1) << bits) < N) ++bits;
  auto need_pow2 = [&]() {
    if ((int64_t(1) << bits) != N)
      where.fail("pattern", "\"" + pat + "\" needs a power-of-two number of nodes, got " + std::to_string(N));
    prm.pat_bits = bits;
  };
  if (pat == "uniform") prm.pattern = PatternKind::Uniform;
  else if (pat == "bitcomp") prm.pattern = PatternKind::BitComp;
  else if (pat == "bitrev") need_pow2(), prm.pattern = PatternKind::BitRev;
  else if (pat == "shuffle") need_pow2(), prm.pattern = PatternKind::Shuffle;
  else if (pat == "transpose") {
    need_pow2();
    if (bits % 2)
      where.fail("pattern", "\"transpose\" needs a number of nodes that is an even power of two (a 2^k x 2^k "
                            "matrix), got " + std::to_string(N));
    prm.pattern = PatternKind::Transpose;
  } else if (pat == "tornado") {
    prm.pattern = PatternKind::Tornado;
    prm.pat_shift = (N + 1) / 2 - 1;
  } else if (pat == "neighbor") {
    prm.pattern = PatternKind::Neighbor;
    prm.pat_shift = 1;
  } else if (pat == "shift") {
    prm.pattern = PatternKind::Shift;
    prm.pat_shift = reduce(need_shift());
    if (prm.pat_shift == 0)
      where.fail("shift", "shifts every node onto itself (a multiple of the " + std::to_string(N) + " nodes)");
  } else if (pat == "group-shift") {
    if (t.kind != "dragonfly" || !t.attrs.count("a") || !t.attrs.count("p"))
      where.fail("pattern", "\"group-shift\" needs a dragonfly (groups of a*p nodes), not " + t.kind);
    const int64_t group_nodes = t.attrs.at("a") * t.attrs.at("p"), m = need_shift();
    prm.pattern = PatternKind::GroupShift;
    prm.pat_shift = reduce(reduce(m) * group_nodes);
    if (prm.pat_shift == 0)
      where.fail("shift", "group-shift by " + std::to_string(m) + " groups maps every group onto itself");
  } else if (pat == "randperm") {
    prm.pattern = PatternKind::RandPerm;
  } else if (pat == "hotspot") {
    prm.pattern = PatternKind::Hotspot;
    for (int64_t h : cfg.hotspots)
      if (h < 0 || h >= N)
        where.fail("hotspots", "rank " + std::to_string(h) + " is outside [0, " + std::to_string(N) + ")");
    prm.hot_count = int32_t(cfg.hotspots.size());
    prm.hot_all = cfg.hotspot_fraction >= 1.0;
    prm.hot_threshold = uint32_t(std::min(4294967295.0, std::floor(cfg.hotspot_fraction * 4294967296.0)));
  } else {
    where.fail("pattern", "\"" + pat + "\" is not implemented yet (available: uniform, bitcomp, bitrev, transpose, "
                          "shuffle, tornado, neighbor, randperm, shift, group-shift, hotspot)");
  }
  // Per-replica table layout.
  int32_t len = 0;
  if (prm.pattern == PatternKind::RandPerm) prm.tr_perm = len, len += int32_t(N);
  if (cfg.placement == "random" && prm.pattern != PatternKind::Uniform) {
    prm.tr_rank = len, len += int32_t(N);
    prm.tr_node = len, len += int32_t(N);
  }
  if (prm.pattern == PatternKind::Hotspot) prm.tr_hot = len, len += prm.hot_count;
  sz.tr_len = len;
}

// Fills replica rep's traffic table from its seed.
void fill_traffic_table(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                        int32_t* tab) {
  const int32_t N = sz.N;
  if (prm.tr_perm >= 0) {
    std::vector<int32_t> perm = seeded_permutation(N, seed, 1);
    std::copy(perm.begin(), perm.end(), tab + prm.tr_perm);
  }
  if (prm.tr_rank >= 0) {
    std::vector<int32_t> node_of = seeded_permutation(N, seed, 2);  // rank -> node
    for (int32_t k = 0; k < N; ++k) tab[prm.tr_node + k] = node_of[k], tab[prm.tr_rank + node_of[k]] = k;
  }
  if (prm.tr_hot >= 0)
    for (int32_t i = 0; i < prm.hot_count; ++i) tab[prm.tr_hot + i] = int32_t(cfg.hotspots[i]);
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
  choose_pattern(t, cfg, prm, sz);
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
  const int32_t packet_size = wl ? wl->packet_size : cfg.packet_size;

  // Routing tables.
  std::vector<uint8_t> dist;
  const bool dragonfly = t.kind == "dragonfly" && t.tables.count("gateway_offset");
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
  choose_routing(t, cfg, &dist, prm, rt_table);
  sz.rt_len = int32_t(rt_table.size());
  if (!cfg.deadlock_avoidance) prm.vc_classes = 1;
  if (prm.routing == RoutingKind::DragonflyUgal || prm.routing == RoutingKind::TableUgal ||
      prm.routing == RoutingKind::DragonflyUgalG || prm.routing == RoutingKind::TableUgalG ||
      prm.routing == RoutingKind::DragonflyPar ||
      prm.routing == RoutingKind::HyperxClosAd || prm.routing == RoutingKind::HyperxDimWar ||
      prm.routing == RoutingKind::HyperxOmniWar || (dragonfly && prm.selection == Selection::Adaptive))
    sz.demand_P = sz.P;  // adaptive choices sense local output queues too (port_congestion)
  if (prm.snapshot_period > 0) sz.snap_P = sz.P;  // UGAL-G: the congestion snapshot (routing/snapshot.cuh)
  prm.sa_iterations = cfg.sa_iterations;
  if (t.max_radix() > kMaxRadix)
    throw ConfigError("topology: a router has " + std::to_string(t.max_radix()) + " ports; the engine's switch "
                      "allocator handles at most " + std::to_string(kMaxRadix));
  if (sz.V < prm.vc_classes)
    throw ConfigError("router.vcs: routing \"" + cfg.algorithm + "\"" +
                      (dragonfly && prm.routing != RoutingKind::DragonflyMin
                           ? (prm.valiant_any ? " (any)" : " (restricted)")
                           : "") +
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
  int64_t S = cfg.packet_slots;
  if (S == 0) {
    int64_t per_node = int64_t(sz.P) * sz.V * sz.B / sz.N / packet_size + 16;
    S = 16;
    while (S < per_node && S < 1024) S *= 2;
  }
  if (int64_t(sz.N) * S >= (int64_t(1) << 31))
    throw ConfigError("sim.packet_slots: nodes x packet slots must stay below 2^31");
  sz.S = int32_t(S);

  prm.warmup = cfg.warmup;
  prm.measure = cfg.measure;
  prm.packet_size = cfg.packet_size;
  if (wl) {  // every packet is measured: the window spans the whole run
    prm.workload = true;
    prm.wl_packet_size = wl->packet_size;
    prm.warmup = 0;
    prm.measure = int64_t(1) << 62;
  }

  // Channel rings: a port's input ring is fed by the peer's output (router latency + channel
  // latency) or by its node (terminal latency); credits travel back with the channel latency.
  const int32_t term_lat = channel_latency(t, cfg, 0);
  std::vector<int32_t> fring_delay(sz.P), cring_delay(sz.P);
  for (int gp = 0; gp < sz.P; ++gp) {
    const int32_t lat = channel_latency(t, cfg, t.port_class[gp]);
    const bool terminal = t.peer_port[gp] < 0;
    fring_delay[gp] = terminal ? term_lat : cfg.router_latency + lat;
    cring_delay[gp] = terminal ? 0 : lat;  // terminal ports get no credits back (sinks always accept)
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
    if (sum >= (int64_t(1) << 31)) throw ConfigError("channels.latency: channel rings exceed 2^31 slots");
    total = int32_t(sum);
    return off;
  };
  std::vector<int32_t> ering_delay(sz.N, cfg.router_latency + term_lat), nicring_delay(sz.N, term_lat);
  std::vector<int32_t> fring_len = lengths(fring_delay), cring_len = lengths(cring_delay);
  std::vector<int32_t> ering_len = lengths(ering_delay), nicring_len = lengths(nicring_delay);
  std::vector<int32_t> fring_off = offsets(fring_len, sz.fring_total);
  std::vector<int32_t> cring_off = offsets(cring_len, sz.cring_total);
  std::vector<int32_t> ering_off = offsets(ering_len, sz.ering_total);
  std::vector<int32_t> nicring_off = offsets(nicring_len, sz.nicring_total);

  HostState& s = h;
  s.allocate();
  s.fring_off = fring_off, s.fring_len = fring_len, s.cring_off = cring_off, s.cring_len = cring_len;
  s.ering_off = ering_off, s.ering_len = ering_len, s.nicring_off = nicring_off, s.nicring_len = nicring_len;
  s.fring_delay = fring_delay, s.cring_delay = cring_delay, s.ering_delay = ering_delay;
  s.nicring_delay = nicring_delay;
  s.port_offset = t.port_offset;
  s.port_router = t.port_router;
  s.peer_port = t.peer_port;
  s.port_node = t.port_node;
  s.node_port = t.node_port;
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
    const double p = cfg.loads[r] / cfg.packet_size;  // packets per node per cycle
    s.rep_threshold[r] = uint64_t(std::llround(std::min(1.0, p) * 4294967296.0));
    fill_traffic_table(cfg, prm, sz, cfg.seeds[r], s.tr_table.data() + (long long)r * sz.tr_len);
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
  if (wl) init_workload_state(*wl, s);
  return h;
}

}  // namespace flitsim
