#include "engine_config.hpp"

#include "cuda/phases/switch_alloc.cuh"  // kMaxRadix
#include "cuda/traffic/injection.cuh"     // burst_initial
#include "engine_keys.hpp"
#include "seeded_random.hpp"

#include <algorithm>
#include <cmath>

namespace flitsim {

EngineConfig parse_engine_config(const Params& router, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim) {
  EngineConfig c;
  // Integer keys are range-checked (engine_keys.cpp) before they are narrowed to int32_t.
  c.vcs = int32_t(engine_int(router, "vcs", c.vcs));
  c.buffer = int32_t(engine_int(router, "buffer", c.buffer));
  c.router_latency = int32_t(engine_int(router, "latency", c.router_latency));
  c.sa_iterations = int32_t(engine_int(router, "sa_iterations", c.sa_iterations));
  c.channels = channels;
  for (const auto& k : channels.keys()) engine_int(channels, k, 1);  // every class latency
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
  c.packet_size = int32_t(engine_int(traffic, "packet_size", c.packet_size));
  if (traffic.has("packet_sizes")) {
    const std::vector<int64_t> ps = traffic.get_ints("packet_sizes");
    if (ps.size() != 2 || ps[0] < 1 || ps[1] < ps[0] || ps[1] > (1 << 20))
      traffic.fail("packet_sizes", "must be [min, max] with 1 <= min <= max <= 2^20 flits");
    c.packet_size = int32_t(ps[0]);
    c.packet_size_max = int32_t(ps[1]);
  }
  c.injection = traffic.get_str("injection", c.injection);
  if (c.injection != "bernoulli" && c.injection != "onoff")
    traffic.fail("injection", "must be \"bernoulli\" or \"onoff\", got \"" + c.injection + "\"");
  c.burst_on = traffic.get_float("burst_on", c.burst_on);
  c.burst_off = traffic.get_float("burst_off", c.burst_off);
  if (!(c.burst_on >= 1.0 && c.burst_on <= 1e9)) traffic.fail("burst_on", "must be in [1, 1e9] cycles");
  if (!(c.burst_off >= 1.0 && c.burst_off <= 1e9)) traffic.fail("burst_off", "must be in [1, 1e9] cycles");
  c.dims = traffic.get_ints("dims", c.dims);
  const double load = traffic.get_float("load", c.loads[0]);
  if (!(load >= 0.0 && load <= 1.0)) traffic.fail("load", "must be in [0, 1], got " + std::to_string(load));
  c.loads = {load};
  c.seeds = {uint64_t(engine_int(sim, "seed", int64_t(c.seeds[0])))};
  c.warmup = engine_int(sim, "warmup", c.warmup);
  c.measure = engine_int(sim, "measure", c.measure);
  c.drain_limit = engine_int(sim, "drain_limit", c.drain_limit);
  c.watchdog = engine_int(sim, "watchdog", c.watchdog);
  c.packet_slots = int32_t(engine_int(sim, "packet_slots", c.packet_slots));
  c.latency_bins = int32_t(engine_int(sim, "latency_bins", c.latency_bins));
  c.batches = int32_t(engine_int(sim, "batches", c.batches));
  if (c.batches > c.measure)
    sim.fail("batches", "must be <= sim.measure = " + std::to_string(c.measure) + ", got " + std::to_string(c.batches));
  c.chunk = engine_int(sim, "chunk", c.chunk);
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

// HyperX rank coordinates (host/topologies/hyperx.cpp: rank = t + T·(x_0 + W_0·(x_1 + …))).
struct HxShape {
  int64_t T = 1;
  std::vector<int64_t> W;
  std::vector<int64_t> split(int64_t k, int64_t& t) const {
    t = k % T;
    k /= T;
    std::vector<int64_t> x(W.size());
    for (size_t d = 0; d < W.size(); ++d) x[d] = k % W[d], k /= W[d];
    return x;
  }
  int64_t join(int64_t t, const std::vector<int64_t>& x) const {
    int64_t r = 0;
    for (size_t d = W.size(); d-- > 0;) r = r * W[d] + x[d];
    return t + T * r;
  }
};

HxShape hyperx_shape(const Topology& t, const Params& where, const std::string& pat) {
  if (t.kind != "hyperx") where.fail("pattern", "\"" + pat + "\" needs a hyperx, not " + t.kind);
  HxShape h;
  h.T = t.attrs.at("terminals");
  const std::vector<int32_t>& w = t.tables.at("widths");
  h.W.assign(w.begin(), w.end());
  return h;
}

// traffic.dims checked against D; `def` when unset.
std::vector<int64_t> targeted_dims(const EngineConfig& cfg, const Params& where, size_t D,
                                   const std::string& pat, std::vector<int64_t> def) {
  std::vector<int64_t> dims = cfg.dims.empty() ? def : cfg.dims;
  if (dims.empty()) where.fail("dims", "is required for pattern \"" + pat + "\" (a list of HyperX dimensions)");
  std::vector<bool> seen(D, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= int64_t(D))
      where.fail("dims", "dimension " + std::to_string(d) + " is outside [0, " + std::to_string(D) + ")");
    if (seen[size_t(d)]) where.fail("dims", "dimension " + std::to_string(d) + " is listed twice");
    seen[size_t(d)] = true;
  }
  return dims;
}

// Swap-2 (P4 S2; TARGETS §3.5 item 1): even ranks move in dims[0], odd ranks in dims[1];
// the coordinate is half-swapped, c -> c + ⌈W/2⌉ if c < ⌊W/2⌋ else c − ⌈W/2⌉ (an odd width's
// middle coordinate stays); the terminal index is kept.
std::vector<int32_t> swap2_map(const HxShape& h, const std::vector<int64_t>& dims, int64_t N) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    std::vector<int64_t> x = h.split(k, t);
    const size_t d = size_t(dims[size_t(k % 2)]);
    const int64_t W = h.W[d], lo = W / 2, hi = (W + 1) / 2;
    if (x[d] < lo) x[d] += hi;
    else if (x[d] >= hi) x[d] -= hi;
    m[size_t(k)] = int32_t(h.join(t, x));
  }
  return m;
}

// Dimension complement reverse (P4 DCR; TARGETS §3.5 item 1), any number D of dimensions:
// x'_d = W − 1 − x_(D−1−d), terminal kept; needs W_d = W_(D−1−d).
std::vector<int32_t> dcr_map(const HxShape& h, const Params& where, int64_t N) {
  const size_t D = h.W.size();
  for (size_t d = 0; d < D; ++d)
    if (h.W[d] != h.W[D - 1 - d])
      where.fail("pattern", "\"dcr\" needs widths that read the same reversed (W_d = W_(D-1-d)), got width " +
                                std::to_string(h.W[d]) + " in dimension " + std::to_string(d) + " and " +
                                std::to_string(h.W[D - 1 - d]) + " in dimension " + std::to_string(D - 1 - d));
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    const std::vector<int64_t> x = h.split(k, t);
    std::vector<int64_t> y(D);
    for (size_t d = 0; d < D; ++d) y[d] = h.W[d] - 1 - x[D - 1 - d];
    m[size_t(k)] = int32_t(h.join(t, y));
  }
  return m;
}

// Slim Fly worst case (P3:L294, Fig. 5; TARGETS §3.4 item 4): routers paired greedily so that
// A -> C runs A–B–C and B -> D runs B–C–D, two distance-2 flows sharing the link B -> C; node i
// of a router sends to node i of its partner. Routers left over take any free distance-2
// destination (else any free one); a router left with only itself swaps with an earlier one.
std::vector<int32_t> slimfly_worst_case(const Topology& t) {
  const int32_t R = t.num_routers;
  std::vector<std::vector<int32_t>> nb(static_cast<size_t>(R));
  std::vector<std::vector<bool>> adj(static_cast<size_t>(R), std::vector<bool>(size_t(R), false));
  for (int32_t gp = 0; gp < t.num_ports(); ++gp)
    if (t.peer_port[gp] >= 0) {
      const int32_t a = t.port_router[gp], b = t.port_router[t.peer_port[gp]];
      if (!adj[a][b]) adj[a][b] = true, nb[a].push_back(b);
    }
  auto far = [&](int32_t a, int32_t c) { return a != c && !adj[a][c]; };
  std::vector<int32_t> dst(static_cast<size_t>(R), -1);
  std::vector<bool> taken(static_cast<size_t>(R), false);  // used as a destination
  for (int32_t A = 0; A < R; ++A) {
    if (dst[A] >= 0) continue;
    bool done = false;
    for (int32_t B : nb[A]) {
      if (done) break;
      if (dst[B] >= 0) continue;
      for (int32_t C : nb[B]) {
        if (done) break;
        if (!far(A, C) || taken[C]) continue;
        for (int32_t D : nb[C])
          if (far(B, D) && !taken[D] && D != C) {
            dst[A] = C, dst[B] = D, taken[C] = taken[D] = true, done = true;
            break;
          }
      }
    }
  }
  for (int pass = 0; pass < 2; ++pass)
    for (int32_t A = 0; A < R; ++A) {
      if (dst[A] >= 0) continue;
      for (int32_t C = 0; C < R; ++C)
        if (!taken[C] && C != A && (pass == 1 || far(A, C))) {
          dst[A] = C, taken[C] = true;
          break;
        }
    }
  for (int32_t A = 0; A < R; ++A)
    if (dst[A] < 0) {  // only A itself is free: take another router's destination, give it A
      const int32_t B = A == 0 ? 1 : 0;
      dst[A] = dst[B], dst[B] = A;
    }
  // Router map -> node map: the i-th node of router r to the i-th node of dst[r].
  std::vector<std::vector<int32_t>> nodes(static_cast<size_t>(R));
  for (int32_t n = 0; n < t.num_nodes; ++n) nodes[t.node_router(n)].push_back(n);
  std::vector<int32_t> m(size_t(t.num_nodes));
  for (int32_t r = 0; r < R; ++r)
    for (size_t i = 0; i < nodes[r].size(); ++i) m[nodes[r][i]] = nodes[dst[r]][i];
  return m;
}

std::vector<int32_t> shift_map(int64_t N, int64_t shift) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t((k + shift) % N);
  return m;
}

// The topology's adversarial pattern for minimal routing (docs/traffic.md "worst-case").
std::vector<int32_t> worst_case_map(const Topology& t, const Params& where) {
  const int64_t N = t.num_nodes;
  if (t.kind == "dragonfly" && t.attrs.count("a") && t.attrs.count("p") && t.attrs.count("h")) {
    const int64_t G = t.attrs.at("groups"), ap = t.attrs.at("a") * t.attrs.at("p");
    int64_t m = (t.attrs.at("h") + 1) % G;  // group shift by h + 1 (P0 "shift", FL-DF2)
    if (m == 0) m = 1;
    return shift_map(N, m * ap);
  }
  if (t.kind == "slimfly") return slimfly_worst_case(t);
  if (t.kind == "mlfm" || t.kind == "oft") return shift_map(N, t.attrs.at("p") % N);  // one router's nodes
  if (t.kind == "hyperx") {
    const HxShape h = hyperx_shape(t, where, "worst-case");
    bool palindrome = true;
    for (size_t d = 0; d < h.W.size(); ++d) palindrome &= h.W[d] == h.W[h.W.size() - 1 - d];
    if (h.W.size() >= 3 && palindrome) return dcr_map(h, where, N);
    std::vector<int32_t> m(static_cast<size_t>(N));
    for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t(N - 1 - k);  // bit complement
    return m;
  }
  where.fail("pattern", "\"worst-case\" is not defined for " + t.kind +
                            " (defined for dragonfly, slimfly, mlfm, oft, hyperx)");
}

// The destination pattern: kind, parameters, and which per-replica tables it needs.
void choose_pattern(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz,
                    std::vector<int32_t>& fixed, std::vector<int32_t>& hx) {
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
  } else if (pat == "worst-case") {
    prm.pattern = PatternKind::Table;
    fixed = worst_case_map(t, where);
  } else if (pat == "swap2") {
    const HxShape h = hyperx_shape(t, where, pat);
    if (h.W.size() < 2 && cfg.dims.empty()) where.fail("pattern", "\"swap2\" needs a hyperx with at least 2 dimensions");
    const std::vector<int64_t> dims = targeted_dims(cfg, where, h.W.size(), pat, {0, 1});
    if (dims.size() != 2) where.fail("dims", "\"swap2\" takes exactly 2 dimensions (even ranks, odd ranks)");
    prm.pattern = PatternKind::Table;
    fixed = swap2_map(h, dims, N);
  } else if (pat == "dcr") {
    prm.pattern = PatternKind::Table;
    fixed = dcr_map(hyperx_shape(t, where, pat), where, N);
  } else if (pat == "urb") {
    const HxShape h = hyperx_shape(t, where, pat);
    const std::vector<int64_t> dims = targeted_dims(cfg, where, h.W.size(), pat, {});
    prm.pattern = PatternKind::Urb;
    hx = {int32_t(h.W.size()), int32_t(h.T)};
    for (int64_t w : h.W) hx.push_back(int32_t(w));
    for (size_t d = 0; d < h.W.size(); ++d)
      hx.push_back(std::find(dims.begin(), dims.end(), int64_t(d)) != dims.end() ? 1 : 0);
  } else {
    where.fail("pattern", "unknown pattern \"" + pat + "\"");
  }
  if (!cfg.dims.empty() && pat != "urb" && pat != "swap2")
    where.fail("dims", "is only used by the \"urb\" and \"swap2\" patterns, not \"" + pat + "\"");
  // Per-replica table layout.
  int32_t len = 0;
  if (prm.pattern == PatternKind::RandPerm || prm.pattern == PatternKind::Table) prm.tr_perm = len, len += int32_t(N);
  if (prm.pattern == PatternKind::Urb) prm.tr_hx = len, len += int32_t(hx.size());
  if (cfg.placement == "random" && prm.pattern != PatternKind::Uniform) {
    prm.tr_rank = len, len += int32_t(N);
    prm.tr_node = len, len += int32_t(N);
  }
  if (prm.pattern == PatternKind::Hotspot) prm.tr_hot = len, len += prm.hot_count;
  sz.tr_len = len;
}

// Fills replica rep's traffic table from its seed.
void fill_traffic_table(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                        const std::vector<int32_t>& fixed, const std::vector<int32_t>& hx, int32_t* tab) {
  const int32_t N = sz.N;
  if (prm.pattern == PatternKind::Table) std::copy(fixed.begin(), fixed.end(), tab + prm.tr_perm);
  if (prm.tr_hx >= 0) std::copy(hx.begin(), hx.end(), tab + prm.tr_hx);
  if (prm.pattern == PatternKind::RandPerm) {
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
  sz.batches = cfg.batches;
  if (int64_t(sz.P) * sz.V * sz.B >= (int64_t(1) << 31))
    throw ConfigError("router.buffer: ports x router.vcs x router.buffer = " +
                      std::to_string(int64_t(sz.P) * sz.V * sz.B) + " flit slots per replica; must stay below 2^31");
  if (sz.N < 2) throw ConfigError("topology: needs at least 2 nodes, got " + std::to_string(sz.N));
  check_channel_keys(t, cfg);
  std::vector<int32_t> fixed_map, hx_table;
  choose_pattern(t, cfg, prm, sz, fixed_map, hx_table);
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
  prm.size_span = cfg.packet_size_max > 0 ? cfg.packet_size_max - cfg.packet_size : 0;
  double on_fraction = 1.0;  // long-run fraction of cycles an on/off source is on
  if (cfg.injection == "onoff" && !wl) {
    auto x32 = [](double q) { return uint32_t(std::min(4294967295.0, std::floor(q * 4294967296.0 + 0.5))); };
    prm.injection = InjectionKind::OnOff;
    prm.burst_alpha = x32(1.0 / cfg.burst_off);
    prm.burst_beta = x32(1.0 / cfg.burst_on);
    on_fraction = double(prm.burst_alpha) / (double(prm.burst_alpha) + double(prm.burst_beta));
    sz.onoff_N = sz.reps * sz.N;
  }
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
    if (sum >= (int64_t(1) << 31))
      throw ConfigError("channels.latency: channel rings (one slot per cycle of router.latency + channel "
                        "latency, per port) exceed 2^31 slots");
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
    // Packets per node per cycle: the load over the mean packet size (an on/off source creates
    // only while on, at the rate that gives the same mean).
    const double mean_size = cfg.packet_size + 0.5 * prm.size_span;
    const double p = cfg.loads[r] / mean_size / on_fraction;
    if (p > 1.0 + 1e-9)
      throw ConfigError("traffic.load: " + std::to_string(cfg.loads[r]) + " flits/node/cycle with on/off bursts (on " +
                        std::to_string(on_fraction) + " of the time) needs " + std::to_string(p) +
                        " packets/cycle while on, more than 1; raise traffic.burst_on, lower traffic.burst_off or "
                        "use larger packets");
    s.rep_threshold[r] = uint64_t(std::llround(std::min(1.0, p) * 4294967296.0));
    fill_traffic_table(cfg, prm, sz, cfg.seeds[r], fixed_map, hx_table, s.tr_table.data() + (long long)r * sz.tr_len);
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
  for (int r = 0; r < sz.reps && sz.onoff_N; ++r)
    for (int n = 0; n < sz.N; ++n)
      s.ni_on[size_t(r) * sz.N + n] = s.ni_scan_on[size_t(r) * sz.N + n] =
          burst_initial(cfg.seeds[r], prm.burst_alpha, prm.burst_beta, n);
  if (wl) init_workload_state(*wl, s);
  return h;
}

}  // namespace flitsim
