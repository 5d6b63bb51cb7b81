#include "run_memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cuda/flit.cuh"
#include "host/config/router_buffering.hpp"
#include "state_memory.hpp"

namespace flitsim {

namespace {

std::string human(double b) {
  char buf[64];
  if (b >= double(1ULL << 40)) std::snprintf(buf, sizeof buf, "%.1f TiB", b / double(1ULL << 40));
  else if (b >= double(1ULL << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", b / double(1ULL << 30));
  else if (b >= double(1ULL << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / double(1ULL << 20));
  else std::snprintf(buf, sizeof buf, "%.0f bytes", b);
  return buf;
}

std::string count(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

constexpr double kInt32 = 2147483647.0;

// Ports and nodes are indexed by 32-bit integers everywhere (tables, flits, packet ids).
void check_indices(const TopologySize& s) {
  if (s.ports > kInt32 || s.nodes > kInt32)
    throw ConfigError(s.keys.substr(0, s.keys.find(',')) +
                      ": this network has " + count(s.ports) + " ports and " + count(s.nodes) +
                      " nodes; flitsim numbers them with 32-bit integers (at most 2^31 - 1 each); it grows with " +
                      s.keys);
}

void refuse(const RunMemory& m, const std::string& what, size_t avail, const std::string& more) {
  throw ConfigError("topology: " + what + " needs about " + human(m.total()) + " of host memory (" + more +
                    ") but only " + human(double(avail)) +
                    " are available (MemAvailable, cgroup and ulimit limits, FLITSIM_MEMORY_LIMIT); its size grows "
                    "with " + m.keys + "; refused before building anything");
}

}  // namespace

RunMemory topology_memory(const Params& topo, const TopologySize& s) {
  RunMemory m;
  if (!s.known) return m;
  m.known = true;
  m.routers = s.routers, m.ports = s.ports, m.nodes = s.nodes;
  m.topology = topology_build_bytes(s);
  if (topo.get_str("kind") != "dragonfly") m.routing = 2 * s.routers * s.routers;  // dist, built then copied
  m.keys = s.keys;
  return m;
}

RunMemory run_memory(const Params& topo, const EngineConfig& cfg) {
  const TopologySize s = topology_size(topo);
  RunMemory m = topology_memory(topo, s);
  if (!m.known) return m;
  check_indices(s);
  // The state's largest arrays for these counts (state_bytes() of the sizes make_initial_state
  // would compute, with the shortest channel rings): a lower bound of the exact layout.
  Sizes sz;
  sz.reps = int32_t(std::max<size_t>(1, cfg.loads.size()));
  sz.R = int32_t(std::min(s.routers, kInt32)), sz.P = int32_t(s.ports), sz.N = int32_t(s.nodes);
  sz.V = cfg.router.vcs, sz.B = cfg.router.buffer;
  sz.bins = cfg.sim.latency_bins, sz.batches = cfg.sim.batches;
  sz.O = cfg.router.output_buffer, sz.OQ = output_queues_per_port(cfg);  // router_buffering.hpp
  sz.fring_total = sz.cring_total = sz.P, sz.ering_total = sz.nicring_total = sz.N;
  // Packet slots as choose_sources() sizes them (initial_state.cpp).
  double S = double(cfg.sim.packet_slots);
  if (S == 0) {
    const double per_node = s.ports * sz.V * sz.B / std::max(1.0, s.nodes) / std::max(1, cfg.traffic.packet_size) + 16;
    S = 16;
    while (S < per_node && S < 1024) S *= 2;
  }
  sz.S = int32_t(S);
  // Per replica, then times the replicas: state_bytes() multiplies in int64, which a product of
  // thousands of replicas and billions of slots would overflow.
  const int32_t reps = sz.reps;
  sz.reps = 1;
  if (cfg.traffic.reply_size > 0) sz.reply_N = sz.N;  // request-reply: reply queues, reply table, histograms
  if (cfg.classes.size() > 1) {  // traffic classes: their chains and statistics
    sz.cls_K = int32_t(cfg.classes.size());
    sz.cls_N = sz.N * (sz.cls_K - 1);
  }
  m.state = double(state_bytes(sz)) * reps;
  m.keys += ", router.vcs, router.buffer, sim.packet_slots, sim.latency_bins and the replicas (" +
            std::to_string(reps) + ")";
  return m;
}

void check_topology_memory(const Params& topo, const TopologySize& s) {
  const RunMemory m = topology_memory(topo, s);
  if (!m.known) return;
  check_indices(s);
  const size_t avail = available_host_bytes();
  if (avail == 0 || m.total() <= double(avail)) return;
  refuse(m, "building this " + topo.get_str("kind"), avail,
         "topology tables " + human(m.topology) + " for " + count(s.routers) + " routers and " + count(s.ports) +
             " ports" + (m.routing > 0 ? ", routing distance table " + human(m.routing) : ""));
}

void check_run_memory(const Params& topo, const EngineConfig& cfg) {
  const RunMemory m = run_memory(topo, cfg);
  if (!m.known) return;
  const size_t avail = available_host_bytes();
  if (avail == 0 || m.total() <= double(avail)) return;
  refuse(m, "this run", avail,
         "topology tables " + human(m.topology) + (m.routing > 0 ? ", routing distance table " + human(m.routing) : "") +
             ", simulation state at least " + human(m.state) + " for " + std::to_string(cfg.loads.size()) +
             " replica(s)");
}

}  // namespace flitsim
