// Every output a routing can choose, enumerated from the routing's own device code compiled
// on the host (route_packet with a RouteBrancher, cuda/routing/route_choice.cuh): the input of
// the deadlock checker (src/flitsim/deadlock.py), which keeps only the channel dependency
// graph and the cycle search.
#pragma once
#include <cstdint>
#include <vector>

#include "host/config/engine_config.hpp"
#include "host/topologies/topology.hpp"

namespace flitsim {

// A head at `router`, arrived on in_port holding a VC of [in_vc_lo, in_vc_hi) (for in_port a
// terminal port: injection, any VC), headed for dst_router, may leave on out_port on a VC of
// [out_vc_lo, out_vc_hi).
struct CandidateRow {
  int32_t router, in_port, in_vc_lo, in_vc_hi, dst_router, out_port, out_vc_lo, out_vc_hi;
};

struct RouteCandidates {
  std::vector<CandidateRow> rows;  // distinct rows
  long long states = 0;            // (router, input, packet state, source, destination) visited
  long long replays = 0;           // routing function calls (one per combination of choices)
};

// Walks every packet from every source router (those listed in `sources`; empty: all) to every
// destination router (one of its nodes; every one when the routing reads the node itself,
// dst_node in route_choice.cuh) through every choice the routing may make. Throws ConfigError on a route
// failure or a path longer than the bound.
RouteCandidates enumerate_route_candidates(const Topology& topo, const EngineConfig& cfg,
                                           const std::vector<int32_t>& sources = {});

}  // namespace flitsim
