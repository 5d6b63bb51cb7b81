// Reading the [router], [channels], [routing], [traffic] and [sim] sections: every declared key
// through the key tables (config_keys.hpp), then the rules between keys, before anything is
// built (the initial state is host/init/initial_state.cpp).
#include "host/config/engine_config.hpp"

#include <algorithm>

#include "host/config/config_keys.hpp"
#include "host/config/router_buffering.hpp"
#include "host/config/router_presets.hpp"
#include "host/config/router_stage_delays.hpp"

namespace flitsim {

namespace {

// BookSim2 reads alloc_iters in its iSLIP allocators only: its separable and wavefront allocators
// make one pass whatever it says. Under router.preset = "booksim" an iteration count above 1 for
// another allocator is refused rather than ignored: flitsim's allocators do iterate, so a silent
// 1 would make the same key mean two things, and refusing tells the user who ported a BookSim2
// file that its value had no effect there (docs/validation.md "BookSim2's conventions").
void booksim_iteration_rule(const Params& router, const EngineConfig& c) {
  if (router.get_str("preset", "flitsim") != "booksim") return;
  const auto check = [&](int32_t iterations, Allocator a, const char* allocator) {
    if (iterations <= 1 || a == Allocator::Islip) return;
    const char* key = router.has("sa_iterations") && std::string(allocator) == "sw_allocator" ? "sa_iterations"
                                                                                             : "alloc_iterations";
    router.fail(key, "must be 1 with router.preset = \"booksim\" and router." + std::string(allocator) + " = \"" +
                         router.get_str(allocator, "") + "\" (BookSim2's separable and wavefront allocators ignore "
                         "alloc_iters; only its islip iterates), got " + std::to_string(iterations) +
                         (std::string(allocator) == "vc_allocator"
                              ? " (router.sa_iterations sets the switch allocator's alone)"
                              : ""));
  };
  check(c.model.va_iterations, c.model.vc_allocator, "vc_allocator");
  check(c.model.sa_iterations, c.model.sw_allocator, "sw_allocator");
}

// The router model's rules between keys (README "The model", docs/configuration.md).
void router_rules(const Params& router, const Params& traffic, EngineConfig& c) {
  // router.sa_iterations, the older key, sets the switch allocator's iterations alone.
  if (!router.has("sa_iterations")) c.model.sa_iterations = c.model.va_iterations;
  // With "same-cycle" a head already bids for the switch in the cycle it wins its output VC.
  if (c.model.speculative && !c.model.va_sa_separate)
    router.fail("speculative", "needs router.va_sa = \"separate\" (with \"same-cycle\" a head already bids for "
                               "the switch in the cycle it wins its output VC)");
  booksim_iteration_rule(router, c);
  if (c.model.speculative && c.model.spec_lowest_priority && c.model.sw_allocator == Allocator::Wavefront)
    router.fail("speculation", "\"lowest-priority\" needs a separable or islip router.sw_allocator (a wavefront "
                               "allocator has no request priorities: use \"second-pass\")");
  parse_router_buffering(router, traffic, c);
}

void traffic_rules(const Params& router, const Params& traffic, EngineConfig& c) {
  TrafficKeys& tr = c.traffic;
  tr.has_shift = traffic.has("shift");
  tr.shift = traffic.get_int("shift", 0);
  if (tr.hotspots.empty()) traffic.fail("hotspots", "must list at least one rank");
  if (traffic.has("packet_sizes")) {
    const std::vector<int64_t> ps = traffic.get_ints("packet_sizes");
    if (ps.size() != 2 || ps[0] < 1 || ps[1] < ps[0] || ps[1] > (1 << 20))
      traffic.fail("packet_sizes", "must be [min, max] with 1 <= min <= max <= 2^20 flits");
    tr.packet_size = int32_t(ps[0]);
    tr.packet_size_max = int32_t(ps[1]);
  }
  const int32_t largest = std::max({tr.packet_size, tr.packet_size_max, tr.reply_size});
  std::string room;  // a packet larger than a VC buffer (or ioq output queue) could never start
  if (c.model.vct && vct_packet_room(c, &room) < largest)
    router.fail("flow_control", "\"vct\" needs " + room +
                                    (router.has("buffer_bytes") ? " (flits, from router.buffer_bytes)" : "") +
                                    " >= the largest packet (" + std::to_string(largest) + " flits" +
                                    (largest == tr.reply_size ? ", a reply of traffic.reply_size" : "") + ")");
}

// `router`: the [router] keys with router.preset's added (parse_engine_config).
EngineConfig parse_sections(const Params& router, const Params& channels, const Params& routing,
                            const Params& traffic, const Params& sim) {
  EngineConfig c;
  read_declared_keys(router, c);
  read_declared_keys(traffic, c);  // traffic.flit_bytes sizes router buffers given in bytes
  router_rules(router, traffic, c);
  c.channels = channels;
  for (const auto& k : channels.keys()) checked_int(channels, k, 1);  // every class latency
  read_declared_keys(routing, c);  // routing.algorithm is checked per topology (routing_choice.cpp)
  traffic_rules(router, traffic, c);
  read_declared_keys(sim, c);
  if (c.sim.batches > c.sim.measure)
    sim.fail("batches", "must be <= sim.measure = " + std::to_string(c.sim.measure) + ", got " +
                            std::to_string(c.sim.batches));
  if (c.sim.saturation == SaturationRule::Latency && c.sim.latency_threshold <= 0)
    sim.fail("saturation", "\"latency\" (BookSim2's criterion) needs sim.latency_threshold, the mean packet latency "
                           "in cycles above which a replica is saturated (BookSim2's latency_thres; its default is 500)");
  if (c.sim.saturation == SaturationRule::Stable && c.sim.batches < 2)
    sim.fail("saturation", "\"stable\" compares the window's halves, so it needs sim.batches >= 2, got " +
                           std::to_string(c.sim.batches));
  return c;
}

}  // namespace

EngineConfig parse_engine_config(const Params& router_given, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim, const std::string& topology_kind) {
  // A preset's keys may depend on the topology and the routing (router_presets.cpp).
  const std::string algorithm = routing.has("algorithm") ? routing.get_str("algorithm", "") : "min";
  try {
    // latency and va_sa from the stage delays (router_stage_delays.cpp), then a preset's keys where not given
    const Params router = with_router_preset(with_router_stage_delays(router_given), topology_kind, algorithm);
    return parse_sections(router, channels, routing, traffic, sim);
  } catch (const ConfigError& e) {
    throw with_preset_origin(router_given, e, topology_kind, algorithm);  // names the preset when it set the key
  }
}

}  // namespace flitsim
