// The engine's view of a configuration: the [router], [channels], [routing], [traffic] and
// [sim] sections as parameter structs, one per concern. Each field's default is stated here
// (or, for the router model, in cuda/params.cuh) and nowhere else: the key tables
// (host/config/keys_<section>.cpp) read into these fields and export their defaults to Python.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/config/params.hpp"
#include "host/init/host_state.hpp"
#include "host/run/backend.hpp"
#include "host/topologies/topology.hpp"
#include "host/workload/workload.hpp"

namespace flitsim {

// [router] keys that size the state and the channel rings (the phases read RouterModel).
struct RouterSizing {
  std::string preset = "flitsim";  // router.preset: the named set of keys it started from
  int32_t vcs = 4, buffer = 32, latency = 2;
  int32_t output_buffer = 0;       // cioq: flits per output queue (default: one VC buffer; 0 with iq)
  int32_t injection_delay = 0;     // extra cycles on the node -> router channel
  int32_t credit_delay = 0;        // extra cycles on router -> router credit rings
};

// [routing] keys that routing_choice.cpp turns into the routing's parameters: "" and -1 are
// unset, the engine picks per algorithm and topology. A key the routing reads as it is fills
// its RoutingParams field directly (EngineConfig::routing_params).
struct RoutingKeys {
  std::string algorithm = "min";
  std::string selection;           // oblivious, adaptive, dmodk
  std::string valiant;             // restricted, any, node, differing-dims
  std::string congestion;          // UGAL-L, DimWAR, OmniWAR, DAL sensing: port (unset), downstream
  std::string vc_scheme;           // unset (the routing's own), booksim (dragonfly UGAL-L)
  int32_t n_indirect = -1, offset = -1, deroutes = -1;
  double penalty = 1.0, threshold = 0;
  std::string cost = "booksim";    // UGAL cost rule: queue, hops, booksim, booksim-flatfly
  int32_t snapshot_period = 1;     // UGAL-G: cycles between congestion snapshots
  bool deadlock_avoidance = true;  // false: every hop on one VC class (to study deadlock)
};

// [traffic] (the load is per replica: EngineConfig::loads).
struct TrafficKeys {
  std::string pattern = "uniform", placement = "contiguous";
  bool uniform_self = false;             // traffic.self: uniform may pick the source (BookSim2)
  bool has_shift = false;
  int64_t shift = 0;                     // traffic.shift (shift: nodes; group-shift: groups)
  std::vector<int64_t> hotspots{0};      // traffic.hotspots (ranks)
  double hotspot_fraction = 1.0;
  int32_t packet_size = 1;
  int32_t packet_size_max = 0;           // traffic.packet_sizes = [packet_size, this]; 0 = fixed size
  std::string injection = "bernoulli";   // bernoulli or onoff
  double burst_on = 8.0, burst_off = 8.0;  // on/off: mean on and off period lengths (cycles)
  std::vector<int64_t> dims;             // targeted HyperX dimensions (urb, swap2)
  int32_t reply_size = 0;                // request-reply: flits per reply; 0 = off (phases/receive.cuh)
  int32_t priority = 0;                  // traffic class priority: higher wins where routers allocate
  std::vector<int64_t> sources;          // [lo, hi): the nodes that create packets; empty = all
};

// One [[traffic.class]] table (host/config/traffic_classes.cpp): the [traffic] keys with the
// class's own given over them, and the class's own load (flits per cycle per node of its source
// set), or −1: the replica's load (EngineConfig::loads, traffic.load).
struct TrafficClassKeys {
  TrafficKeys keys;
  double load = -1;
};

// [sim] (the seed is per replica: EngineConfig::seeds).
// sim.saturation: the rule that calls a replica saturated besides an undrained window
// (replica_stats.cpp, saturated_by_rule), in the order of its choices.
enum class SaturationRule : int32_t { Accepted, Latency, Stable };

struct RunKeys {
  long long warmup = 1000, measure = 2000, drain_limit = 50000, watchdog = 5000, chunk = 128;
  CudaSchedule schedule = CudaSchedule::Auto;
  int32_t packet_slots = 0, latency_bins = 16384, batches = 10;
  double saturation_tolerance = 0.05;  // accepted < (1 − tol)·offered ⇒ saturated
  long long latency_threshold = 0;     // mean latency > this ⇒ saturated (BookSim2's latency_thres); 0: off
  SaturationRule saturation = SaturationRule::Accepted;
};

struct EngineConfig {
  RouterModel model;     // the [router] options the phases read (cuda/params.cuh)
  RouterSizing router;
  Params channels{"channels"};
  RoutingKeys routing;
  RoutingParams routing_params;  // the routing's parameters, those keys that fill them as given (cuda/params.cuh)
  TrafficKeys traffic;
  RunKeys sim;
  std::vector<double> loads{0.1};     // one entry per replica
  std::vector<uint64_t> seeds{1};     // one entry per replica
  // [[traffic.class]] tables, or empty: one class, [traffic] itself. When given, `traffic` is
  // class 0's keys (so everything that reads the traffic keys reads class 0's).
  std::vector<TrafficClassKeys> classes;
  // Closed-loop mode ([workload]): message programs replace the Bernoulli sources, one
  // compiled program set per replica; null in open-loop mode.
  std::shared_ptr<const CompiledWorkload> workload;
};

// Reads the sections (already defaulted by the Python front end; defaults here too so the
// C++ API is usable alone). Throws ConfigError naming the key and the rule. `topology_kind`
// (topology.kind) and routing.algorithm pick a router.preset's per-topology keys.
EngineConfig parse_engine_config(const Params& router, const Params& channels, const Params& routing,
                                 const Params& traffic, const Params& sim,
                                 const std::string& topology_kind = "dragonfly");

// Builds the initial state for `cfg` on `topo`: sizes, parameters, topology tables, channel
// rings, credits. Throws ConfigError for combinations the topology cannot support (too few
// VCs for the routing's deadlock scheme, unknown channel classes, too large a network).
HostState make_initial_state(const Topology& topo, const EngineConfig& cfg);

}  // namespace flitsim
