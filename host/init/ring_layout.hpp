// The channel rings of a run (cuda/rings.cuh): each ring's delay, its slots and the arrival
// calendar, planned before the state is allocated (the totals size the ring arrays) and
// written into the allocated state's PortRings and NodeRings after.
#pragma once
#include <cstdint>
#include <vector>

#include "host/config/engine_config.hpp"

namespace flitsim {

// Every ring's delay, slot count (a power of two > the delay) and offset: flits into a port
// (f), credits into a port (c), flits into a node's sink (e) and credits into its interface (nic).
struct RingPlan {
  std::vector<int32_t> f_delay, c_delay, e_delay, nic_delay;
  std::vector<int32_t> f_len, c_len, e_len, nic_len;
  std::vector<int32_t> f_off, c_off, e_off, nic_off;  // empty with the arrival calendar
};

// Plans the rings of cfg on t and sets sz's ring totals and calendar size. Throws ConfigError
// when a ring array or the calendar would exceed its index type.
RingPlan plan_rings(const Topology& t, const EngineConfig& cfg, Sizes& sz);
// Writes the planned rings into h's port_rings and node_rings (h allocated with plan's sizes).
void write_ring_spans(const Topology& t, const RingPlan& plan, HostState& h);

// [channels]: the latency of channel class cls; ConfigError for a key that names no class of t.
int32_t channel_latency(const Topology& t, const EngineConfig& cfg, int cls);
void check_channel_keys(const Topology& t, const EngineConfig& cfg);

}  // namespace flitsim
