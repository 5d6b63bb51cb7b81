// Router buffering (issue 12): router.architecture "iq" | "cioq" with router.speedup and
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
// c.router.buffer, checking them against c.model.cioq and speedup. Throws ConfigError
// naming the key and the rule.
void parse_router_buffering(const Params& router, const Params& traffic, EngineConfig& c);

}  // namespace flitsim
