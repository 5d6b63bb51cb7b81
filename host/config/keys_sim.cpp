// The [sim] keys (config_keys.hpp): defaults in RunKeys (engine_config.hpp); the seed is per
// replica (EngineConfig::seeds). The bounds keep each value inside the type that stores it and
// the sums built from it (warmup + measure + drain_limit, slot counts, batch indices) from overflowing.
#include "host/config/config_keys.hpp"

namespace flitsim {

namespace {

constexpr int64_t kCycles = int64_t(1) << 44;  // ~1.8e13 cycles: 3 of them and x 2^16 batches fit int64
constexpr const char* kCycleSums = "cycle counts: warmup + measure + drain_limit stays in int64";

std::vector<std::string> schedule_list() {
  std::vector<std::string> names;
#define FLITSIM_SCHEDULE_ITEM(id, name) names.push_back(name);
  FLITSIM_CUDA_SCHEDULES(FLITSIM_SCHEDULE_ITEM)
#undef FLITSIM_SCHEDULE_ITEM
  return names;
}

}  // namespace

const std::vector<KeySpec>& sim_keys() {
  static const std::vector<KeySpec> k = {
      filled(int_key("sim", "warmup", 0, kCycles, FLITSIM_FIELD(sim.warmup), "cycles before the measurement window",
                     kCycleSums)),
      filled(booksim_name("sample_period", int_key("sim", "measure", 1, kCycles, FLITSIM_FIELD(sim.measure),
                     "cycles of the measurement window (packets created in it are measured)", kCycleSums))),
      filled(booksim_name("seed", int_key("sim", "seed", 0, INT64_MAX, FLITSIM_FIELD(seeds[0]), "random seed", "a 64-bit seed"))),
      filled(int_key("sim", "drain_limit", 1, kCycles, FLITSIM_FIELD(sim.drain_limit),
                     "cycles after the window to wait for measured packets (then: saturated)", kCycleSums)),
      filled(int_key("sim", "watchdog", 1, kCycles, FLITSIM_FIELD(sim.watchdog),
                     "cycles without a flit moving, while flits are buffered, that make a deadlock", "cycle counts")),
      filled(int_key("sim", "packet_slots", 0, int64_t(1) << 16, FLITSIM_FIELD(sim.packet_slots),
                     "packet slots per node (0: sized from the network's buffers)",
                     "packet ids node x slots stay in int32")),
      filled(int_key("sim", "latency_bins", 16, int64_t(1) << 24, FLITSIM_FIELD(sim.latency_bins),
                     "latency histogram bins (one cycle each; the last counts the overflow)",
                     "histogram bins per replica (int32)")),
      filled(int_key("sim", "chunk", 1, int64_t(1) << 20, FLITSIM_FIELD(sim.chunk),
                     "cycles between Ctrl-C checks and progress updates", "cycles between Ctrl-C checks and progress")),
      filled(float_key("sim", "saturation_tolerance", 0, 1, FLITSIM_FIELD(sim.saturation_tolerance),
                       "saturated when accepted < (1 - this) x offered")),
      // Not written into normalised configs (as latency_threshold): configs and sweep files made
      // before the key existed stay the same configs, and the engine's default is today's rule.
      choice_key("sim", "saturation", {"accepted", "latency", "stable"}, FLITSIM_FIELD(sim.saturation),
                 "what makes a replica saturated besides measured packets still missing after sim.drain_limit: "
                 "\"accepted\" (the engine's default): accepted < (1 - sim.saturation_tolerance) x offered; "
                 "\"latency\": only sim.latency_threshold (BookSim2's criterion; required then); \"stable\": "
                 "latency or accepted rate still drifting between the window's halves by more than "
                 "sim.saturation_tolerance"),
      booksim_name("latency_thres", int_key("sim", "latency_threshold", 1, kCycles, FLITSIM_FIELD(sim.latency_threshold),
              "also saturated when the measured packets' mean latency exceeds this many cycles (BookSim2's "
              "latency_thres); unset: off", "cycle counts")),
      filled(int_key("sim", "batches", 1, int64_t(1) << 16, FLITSIM_FIELD(sim.batches),
                     "time batches of the window (time series, batch-means intervals)",
                     "batch index (cycle x batches stays in int64)")),
      filled(choice_key("sim", "schedule", schedule_list(), FLITSIM_FIELD(sim.schedule),
                        "how the CUDA backend maps routers to threads and cycles to launches (docs/gpu.md)")),
  };
  return k;
}

}  // namespace flitsim
