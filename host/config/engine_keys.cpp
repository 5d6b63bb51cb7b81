#include "engine_keys.hpp"

#include <stdexcept>

namespace flitsim {

namespace {

constexpr int64_t kCycles = int64_t(1) << 44;  // ~1.8e13 cycles: 3 of them and x 2^16 batches fit int64

std::string show_bound(int64_t v) {
  for (int e = 10; e < 63; ++e)
    if (v == (int64_t(1) << e)) return "2^" + std::to_string(e);
  if (v == INT64_MAX) return "2^63-1";
  return std::to_string(v);
}

}  // namespace

const std::vector<IntKeyBound>& engine_int_keys() {
  static const std::vector<IntKeyBound> k = {
      {"router", "vcs", 1, 63, "one bit per VC in a 64-bit mask"},
      {"router", "buffer", 1, int64_t(1) << 16, "flits per VC"},
      {"router", "latency", 0, int64_t(1) << 20, "channel ring slots (int32)"},
      {"router", "sa_iterations", 1, 8, "switch allocator iterations"},
      {"router", "alloc_iterations", 1, 8, "allocator iterations"},
      {"router", "speedup", 1, 8, "switch passes per cycle (cioq)"},
      {"router", "output_buffer", 1, int64_t(1) << 16, "flits per output queue (cioq)"},
      {"router", "buffer_bytes", 1, int64_t(1) << 40, "bytes per VC (with traffic.flit_bytes)"},
      {"router", "output_buffer_bytes", 1, int64_t(1) << 40, "bytes per output queue (with traffic.flit_bytes)"},
      {"router", "injection_delay", 0, int64_t(1) << 20, "channel ring slots (int32)"},
      // router_stage_delays.cpp: the pipeline keys fold into router.latency (at most st_delay + 1)
      {"router", "routing_delay", 0, int64_t(1) << 20, "cycles (only 0 is modelled)"},
      {"router", "vc_alloc_delay", 0, int64_t(1) << 20, "cycles (0 or 1 are modelled)"},
      {"router", "sw_alloc_delay", 0, int64_t(1) << 20, "cycles (0 or 1 are modelled)"},
      {"router", "st_delay", 0, (int64_t(1) << 20) - 1, "router.latency = st_delay + 1 at most: channel ring slots"},
      {"router", "credit_delay", 0, int64_t(1) << 20, "credit ring slots (int32)"},
      {"channels", "*", 1, int64_t(1) << 20, "channel ring slots (int32)"},
      {"traffic", "packet_size", 1, int64_t(1) << 20, "flits per packet (int32)"},
      {"traffic", "flit_bytes", 1, int64_t(1) << 20, "bytes per flit (router buffers in bytes)"},
      {"sim", "seed", 0, INT64_MAX, "a 64-bit seed"},
      {"sim", "warmup", 0, kCycles, "cycle counts: warmup + measure + drain_limit stays in int64"},
      {"sim", "measure", 1, kCycles, "cycle counts: warmup + measure + drain_limit stays in int64"},
      {"sim", "drain_limit", 1, kCycles, "cycle counts: warmup + measure + drain_limit stays in int64"},
      {"sim", "watchdog", 1, kCycles, "cycle counts"},
      {"sim", "packet_slots", 0, int64_t(1) << 16, "packet ids node x slots stay in int32"},
      {"sim", "latency_bins", 16, int64_t(1) << 24, "histogram bins per replica (int32)"},
      {"sim", "chunk", 1, int64_t(1) << 20, "cycles between Ctrl-C checks and progress"},
      {"sim", "batches", 1, int64_t(1) << 16, "batch index (cycle x batches stays in int64)"},
  };
  return k;
}

std::string int_key_rule(const IntKeyBound& b) {
  return "must be an integer in [" + show_bound(b.lo) + ", " + show_bound(b.hi) + "]";
}

int64_t engine_int(const Params& p, const std::string& key, int64_t def) {
  for (const IntKeyBound& b : engine_int_keys()) {
    if (b.section != p.section() || (b.key != key && b.key != "*")) continue;
    if (!p.has(key)) return def;
    const int64_t v = p.get_int(key);
    if (v < b.lo || v > b.hi)
      p.fail(key, int_key_rule(b) + ", got " + std::to_string(v));
    return v;
  }
  throw std::logic_error("engine_int: " + p.name(key) + " is not in engine_int_keys()");
}

}  // namespace flitsim
