// Router buffering (issue 12): router.architecture "iq" | "cioq" | "ioq" with router.speedup and
// router.output_buffer, buffers in bytes (router.buffer_bytes, router.output_buffer_bytes with
// traffic.flit_bytes). The device side is cuda/phases/output_queue.cuh.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/params.hpp"

namespace flitsim {

struct EngineConfig;

// router.architecture, speedup, output_buffer, buffer_bytes, output_buffer_bytes (with
// traffic.flit_bytes) into c.router.output_buffer and
// c.router.buffer, checking them against c.model.architecture and speedup. Throws ConfigError
// naming the key and the rule.
void parse_router_buffering(const Params& router, const Params& traffic, EngineConfig& c);

// Output queues per port (Sizes::OQ): one with cioq, one per VC with ioq, none with iq.
int32_t output_queues_per_port(const EngineConfig& c);

// The largest packet router.flow_control = "vct" can move: router.buffer, and with ioq (whose
// switch asks the output VC's queue for room for the whole packet) router.output_buffer too;
// `named` is the rule's wording, e.g. "router.buffer (8)" or "router.buffer (8) and
// router.output_buffer (4)".
int32_t vct_packet_room(const EngineConfig& c, std::string* named);

}  // namespace flitsim
