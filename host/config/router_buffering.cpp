#include "router_buffering.hpp"

#include <algorithm>

#include "host/config/config_keys.hpp"
#include "host/config/engine_config.hpp"

namespace flitsim {

namespace {

// A size given in flits (`flits_key`) or in bytes (`bytes_key`, with traffic.flit_bytes):
// the number of flits, or `def` when neither is given.
int64_t flits_or_bytes(const Params& router, const Params& traffic, const std::string& flits_key,
                       const std::string& bytes_key, int64_t def) {
  if (!router.has(bytes_key)) return checked_int(router, flits_key, def);
  if (router.has(flits_key))
    router.fail(bytes_key, "give " + router.name(flits_key) + " (flits) or " + router.name(bytes_key) +
                               " (bytes), not both");
  const int64_t bytes = checked_int(router, bytes_key, 0);
  if (!traffic.has("flit_bytes"))
    router.fail(bytes_key, "needs traffic.flit_bytes (bytes per flit) to convert " + std::to_string(bytes) +
                               " bytes to flits");
  const int64_t fb = checked_int(traffic, "flit_bytes", 1);
  if (bytes % fb != 0)
    router.fail(bytes_key, "must be a multiple of traffic.flit_bytes = " + std::to_string(fb) + ", got " +
                               std::to_string(bytes) + " bytes");
  // The flit count must satisfy the flit key's bounds; the error names both keys.
  Params flits(router.section());
  flits.set_int(flits_key, bytes / fb);
  try {
    return checked_int(flits, flits_key, def);
  } catch (const ConfigError& e) {
    router.fail(bytes_key, std::to_string(bytes) + " / traffic.flit_bytes " + std::to_string(fb) +
                               " flits: " + e.what());
  }
}

}  // namespace

void parse_router_buffering(const Params& router, const Params& traffic, EngineConfig& c) {
  // router.architecture and speedup are read into c.model with every key's own bounds (keys_router.cpp).
  c.router.buffer = int32_t(flits_or_bytes(router, traffic, "buffer", "buffer_bytes", c.router.buffer));
  const bool has_output = router.has("output_buffer") || router.has("output_buffer_bytes");
  if (!c.model.output_queued() && c.model.speedup != 1)
    router.fail("speedup", "needs router.architecture = \"cioq\" or \"ioq\" (an input-queued router moves at "
                           "most one flit per output per cycle), got " + std::to_string(c.model.speedup));
  if (!c.model.output_queued() && has_output)
    router.fail(router.has("output_buffer") ? "output_buffer" : "output_buffer_bytes",
                "needs router.architecture = \"cioq\" or \"ioq\" (an input-queued router has no output buffer)");
  // Default: an output queue as deep as one input VC buffer.
  c.router.output_buffer =
      c.model.output_queued()
          ? int32_t(flits_or_bytes(router, traffic, "output_buffer", "output_buffer_bytes", c.router.buffer))
          : 0;
}

int32_t output_queues_per_port(const EngineConfig& c) {
  return c.model.ioq() ? c.router.vcs : c.model.cioq() ? 1 : 0;
}

int32_t vct_packet_room(const EngineConfig& c, std::string* named) {
  *named = "router.buffer (" + std::to_string(c.router.buffer) + ")";
  if (!c.model.ioq()) return c.router.buffer;
  *named += " and router.output_buffer (" + std::to_string(c.router.output_buffer) + ")";
  return std::min(c.router.buffer, c.router.output_buffer);
}

}  // namespace flitsim
