// The engine's view of a configuration: the [router], [channels], [routing], [traffic] and
// [sim] sections, checked against the topology before anything is allocated.
#pragma once
#include "host/run/backend.hpp"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/init/host_state.hpp"
#include "params.hpp"
#include "host/topologies/topology.hpp"
#include "host/workload/workload.hpp"

namespace flitsim {

struct EngineConfig {
  int32_t vcs = 4, buffer = 32, router_latency = 2, sa_iterations = 1;
  // Router model (parse_router_model): router.preset fills the defaults of the keys below.
  bool va_sa_separate = false;     // router.va_sa: "same-cycle" (false) or "separate"
  VcPolicy vc_policy = VcPolicy::Spread;  // router.vc_policy
  bool sw_input_by_output = false;      // router.sw_input_arbiter: "vc" (false) or "output"
  bool eject_on_arrival_class = false;  // router.eject_vc: "last-class" (false) or "arrival"
  bool age_arbitration = false;    // router.arbitration: "round-robin" (false) or "age"
  bool vct = false;                // router.flow_control: "wormhole" (false) or "vct"
  // Buffering (router_buffering.cpp): router.architecture "iq" (false) or "cioq", its switch
  // speedup and output queue depth in flits (0 with "iq").
  bool cioq = false;
  int32_t speedup = 1, output_buffer = 0;
  int32_t injection_delay = 0;     // router.injection_delay: extra cycles on the node -> router channel
  int32_t credit_delay = 0;        // router.credit_delay: extra cycles on router -> router credit rings
  // Allocators (parse_allocators): router.sw_allocator, vc_allocator, alloc_iterations.
  Allocator sw_allocator = Allocator::Islip, vc_allocator = Allocator::SeparableInputFirst;
  int32_t va_iterations = 1;       // router.alloc_iterations (sa_iterations: the switch's alone)
  bool speculative = false;        // router.speculative
  Params channels{"channels"};
  // [routing]: filled by parse_engine_config from the key table (routing_keys.cpp), which
  // holds the defaults and bounds; -1 / "" = unset, the engine picks per algorithm/topology.
  std::string algorithm;
  std::string selection;           // oblivious, adaptive, dmodk
  std::string valiant;             // restricted, any, node, differing-dims
  std::string congestion;          // UGAL-L sensing: port (unset), downstream
  std::string vc_scheme;           // unset (the routing's own), booksim (dragonfly UGAL-L)
  bool decide_at_injection = false;  // UGAL-L decides when the packet enters the injection channel
  int32_t n_indirect = -1, offset = -1, deroutes = -1;
  double penalty = 0, threshold = 0;
  std::string cost;                // UGAL cost rule: queue, hops, booksim, booksim-flatfly
  bool multi_deroute = true;       // OmniWAR: back-to-back deroutes in one dimension allowed
  int32_t snapshot_period = 1;     // UGAL-G: cycles between congestion snapshots
  bool deadlock_avoidance = true;  // false: every hop on one VC class (to study deadlock)
  std::string pattern = "uniform", placement = "contiguous";
  bool uniform_self = false;             // traffic.self: uniform may pick the source (BookSim2)
  bool has_shift = false;
  int64_t shift = 0;                     // traffic.shift (shift: nodes; group-shift: groups)
  std::vector<int64_t> hotspots{0};      // traffic.hotspots (ranks)
  double hotspot_fraction = 1.0;         // traffic.hotspot_fraction
  int32_t packet_size = 1;
  int32_t packet_size_max = 0;           // traffic.packet_sizes = [packet_size, this]; 0 = fixed size
  std::string injection = "bernoulli";   // traffic.injection: bernoulli or onoff
  double burst_on = 8.0, burst_off = 8.0;  // on/off: mean on and off period lengths (cycles)
  std::vector<int64_t> dims;             // traffic.dims: targeted HyperX dimensions (urb, swap2)
  long long warmup = 1000, measure = 2000, drain_limit = 50000, watchdog = 5000, chunk = 128;
  CudaSchedule schedule = CudaSchedule::Auto;  // sim.schedule (host/run/backend.hpp)
  int32_t packet_slots = 0, latency_bins = 16384, batches = 10;
  double saturation_tolerance = 0.05;  // accepted < (1 − tol)·offered ⇒ saturated
  std::vector<double> loads{0.1};     // one entry per replica
  std::vector<uint64_t> seeds{1};     // one entry per replica
  // Closed-loop mode ([workload]): message programs replace the Bernoulli sources, one
  // compiled program set per replica; null in open-loop mode.
  std::shared_ptr<const CompiledWorkload> workload;
};

// Reads the sections (already defaulted by the Python front end; defaults here too so the
// C++ API is usable alone). Throws ConfigError naming the key and the rule.
EngineConfig parse_engine_config(const Params& router, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim);

// Builds the initial state for `cfg` on `topo`: sizes, parameters, topology tables, channel
// rings, credits. Throws ConfigError for combinations the topology cannot support (too few
// VCs for the routing's deadlock scheme, unknown channel classes, too large a network).
HostState make_initial_state(const Topology& topo, const EngineConfig& cfg);

}  // namespace flitsim
