// Reading the [router], [channels], [routing], [traffic] and [sim] sections: every key's
// default and bound, before anything is built (the initial state is initial_state.cpp).
#include "engine_config.hpp"

#include <algorithm>

#include "engine_keys.hpp"
#include "router_buffering.hpp"
#include "router_presets.hpp"
#include "router_stage_delays.hpp"
#include "routing_keys.hpp"


namespace flitsim {

// router.sw_allocator, vc_allocator, alloc_iterations and sa_iterations (README "The model",
// docs/configuration.md).
static void parse_allocators(const Params& router, EngineConfig& c) {
  static const char* const kNames[] = {"islip", "separable-input-first", "separable-output-first", "wavefront"};
  const std::string allowed = "must be one of \"islip\", \"separable-input-first\", "
                              "\"separable-output-first\", \"wavefront\", got \"";
  auto choice = [&](const char* key, Allocator def) {
    const std::string v = router.get_str(key, kNames[int(def)]);
    for (int i = 0; i < 4; ++i)
      if (v == kNames[i]) return Allocator(i);
    router.fail(key, allowed + v + "\"");
    return def;
  };
  c.sw_allocator = choice("sw_allocator", Allocator::Islip);
  c.vc_allocator = choice("vc_allocator", Allocator::SeparableInputFirst);
  c.va_iterations = int32_t(engine_int(router, "alloc_iterations", 1));
  // router.sa_iterations, the older key, sets the switch allocator's iterations alone.
  c.sa_iterations = int32_t(engine_int(router, "sa_iterations", c.va_iterations));
  // router.speculative (a boolean, passed as 0 or 1): heads bid for the switch in the cycle
  // they allocate a VC. With "same-cycle" they already do (and never waste a grant).
  c.speculative = router.get_int("speculative", 0) != 0;
  if (c.speculative && !c.va_sa_separate)
    router.fail("speculative", "needs router.va_sa = \"separate\" (with \"same-cycle\" a head already bids for "
                               "the switch in the cycle it wins its output VC)");
}

// A key of two values, `off` (the default) or `on`: true for `on`, refused otherwise.
static bool two_way(const Params& p, const std::string& key, const std::string& off, const std::string& on) {
  const std::string v = p.get_str(key, off);
  if (v != off && v != on) p.fail(key, "must be \"" + off + "\" or \"" + on + "\", got \"" + v + "\"");
  return v == on;
}

// router.sw_input_arbiter and eject_vc: two conventions of BookSim2's iq router and dragonfly
// routings that flitsim's own router does differently (docs/configuration.md, docs/validation.md).
static void parse_booksim_router_conventions(const Params& router, EngineConfig& c) {
  c.sw_input_by_output = two_way(router, "sw_input_arbiter", "vc", "output");
  c.eject_on_arrival_class = two_way(router, "eject_vc", "last-class", "arrival");
}

// router.va_sa, vc_policy, arbitration and flow_control: the router model's options (README "The
// model", docs/configuration.md). router.preset's keys are already in `router` (router_presets.cpp).
static void parse_router_model(const Params& router, EngineConfig& c) {
  c.va_sa_separate = two_way(router, "va_sa", "same-cycle", "separate");
  const std::string policy = router.get_str("vc_policy", "spread");
  if (policy == "spread") c.vc_policy = VcPolicy::Spread;
  else if (policy == "by-hop") c.vc_policy = VcPolicy::ByHop;
  else if (policy == "random") c.vc_policy = VcPolicy::Random;
  else router.fail("vc_policy", "must be \"spread\", \"by-hop\" or \"random\", got \"" + policy + "\"");
  c.age_arbitration = two_way(router, "arbitration", "round-robin", "age");
  c.vct = two_way(router, "flow_control", "wormhole", "vct");
  parse_allocators(router, c);
  parse_booksim_router_conventions(router, c);
  // Extra cycles on the node -> router channel (BookSim2's injection channel: 1, docs/validation.md).
  c.injection_delay = int32_t(engine_int(router, "injection_delay", 0));
  // Extra cycles before a credit reaches the upstream router (BookSim2's credit_delay; initial_state.cpp).
  c.credit_delay = int32_t(engine_int(router, "credit_delay", 0));
}

// `router`: the [router] keys with router.preset's added (parse_engine_config).
static EngineConfig parse_sections(const Params& router, const Params& channels, const Params& routing,
                                   const Params& traffic, const Params& sim) {
  EngineConfig c;
  // Integer keys are range-checked (engine_keys.cpp) before they are narrowed to int32_t.
  c.vcs = int32_t(engine_int(router, "vcs", c.vcs));
  c.buffer = int32_t(engine_int(router, "buffer", c.buffer));
  c.router_latency = int32_t(engine_int(router, "latency", c.router_latency));
  parse_router_model(router, c);
  parse_router_buffering(router, traffic, c);
  c.channels = channels;
  for (const auto& k : channels.keys()) engine_int(channels, k, 1);  // every class latency
  // [routing]: defaults and bounds from the key table (routing_keys.cpp).
  c.algorithm = routing.get_str("algorithm", routing_keys().front().def_choice);  // checked per topology
  c.selection = routing_choice(routing, "selection");
  c.valiant = routing_choice(routing, "valiant");
  c.n_indirect = int32_t(routing_int(routing, "n_indirect"));
  c.penalty = routing_float(routing, "penalty");
  c.threshold = routing_float(routing, "threshold");
  c.cost = routing_choice(routing, "cost");
  c.congestion = routing_choice(routing, "congestion");
  c.vc_scheme = routing_choice(routing, "vc_scheme");
  c.decide_at_injection = routing_bool(routing, "decide_at_injection");
  c.offset = int32_t(routing_int(routing, "offset"));
  c.deroutes = int32_t(routing_int(routing, "deroutes"));
  c.multi_deroute = routing_bool(routing, "multi_deroute");
  c.snapshot_period = int32_t(routing_int(routing, "snapshot_period"));
  c.deadlock_avoidance = routing_bool(routing, "deadlock_avoidance");
  c.pattern = traffic.get_str("pattern", c.pattern);
  c.placement = traffic.get_str("placement", c.placement);
  c.uniform_self = traffic.get_int("self", 0) != 0;
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
  const int32_t largest = std::max(c.packet_size, c.packet_size_max);
  if (c.vct && c.buffer < largest)  // a packet larger than a VC buffer could never start
    router.fail("flow_control", "\"vct\" needs router.buffer (" + std::to_string(c.buffer) +
                                    (router.has("buffer_bytes") ? " flits, from router.buffer_bytes" : "") +
                                    ") >= the largest packet (" + std::to_string(largest) + " flits)");
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
  if (sim.has("schedule") && !parse_schedule(sim.get_str("schedule"), &c.schedule))
    sim.fail("schedule", "must be one of " + schedule_names() + ", got \"" + sim.get_str("schedule") + "\"");
  c.saturation_tolerance = sim.get_float("saturation_tolerance", c.saturation_tolerance);
  if (!(c.saturation_tolerance >= 0 && c.saturation_tolerance <= 1))
    sim.fail("saturation_tolerance", "must be in [0, 1]");
  return c;
}

EngineConfig parse_engine_config(const Params& router_given, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim) {
  // latency and va_sa from the stage delays (router_stage_delays.cpp), then a preset's keys where not given
  const Params router = with_router_preset(with_router_stage_delays(router_given));
  try {
    return parse_sections(router, channels, routing, traffic, sim);
  } catch (const ConfigError& e) {
    throw with_preset_origin(router_given, e);  // names the preset when it set the key
  }
}

}  // namespace flitsim
