#include "router_buffering.hpp"

#include "engine_config.hpp"
#include "engine_keys.hpp"

namespace flitsim {

namespace {

// A size given in flits (`flits_key`) or in bytes (`bytes_key`, with traffic.flit_bytes):
// the number of flits, or `def` when neither is given.
int64_t flits_or_bytes(const Params& router, const Params& traffic, const std::string& flits_key,
                       const std::string& bytes_key, int64_t def) {
  if (!router.has(bytes_key)) return engine_int(router, flits_key, def);
  if (router.has(flits_key))
    router.fail(bytes_key, "give " + router.name(flits_key) + " (flits) or " + router.name(bytes_key) +
                               " (bytes), not both");
  const int64_t bytes = engine_int(router, bytes_key, 0);
  if (!traffic.has("flit_bytes"))
    router.fail(bytes_key, "needs traffic.flit_bytes (bytes per flit) to convert " + std::to_string(bytes) +
                               " bytes to flits");
  const int64_t fb = engine_int(traffic, "flit_bytes", 1);
  if (bytes % fb != 0)
    router.fail(bytes_key, "must be a multiple of traffic.flit_bytes = " + std::to_string(fb) + ", got " +
                               std::to_string(bytes) + " bytes");
  // The flit count must satisfy the flit key's bounds; the error names both keys.
  Params flits(router.section());
  flits.set_int(flits_key, bytes / fb);
  try {
    return engine_int(flits, flits_key, def);
  } catch (const ConfigError& e) {
    router.fail(bytes_key, std::to_string(bytes) + " / traffic.flit_bytes " + std::to_string(fb) +
                               " flits: " + e.what());
  }
}

}  // namespace

void parse_router_buffering(const Params& router, const Params& traffic, EngineConfig& c) {
  // Each integer key's own bounds first, whether or not the architecture uses it.
  for (const char* k : {"speedup", "output_buffer", "buffer_bytes", "output_buffer_bytes"}) engine_int(router, k, 1);
  engine_int(traffic, "flit_bytes", 1);
  const std::string arch = router.get_str("architecture", "iq");
  if (arch != "iq" && arch != "cioq")
    router.fail("architecture", "must be \"iq\" or \"cioq\", got \"" + arch + "\"");
  c.cioq = arch == "cioq";
  c.buffer = int32_t(flits_or_bytes(router, traffic, "buffer", "buffer_bytes", c.buffer));
  c.speedup = int32_t(engine_int(router, "speedup", 1));
  const bool has_output = router.has("output_buffer") || router.has("output_buffer_bytes");
  if (!c.cioq && c.speedup != 1)
    router.fail("speedup", "needs router.architecture = \"cioq\" (an input-queued router moves at most one "
                           "flit per output per cycle), got " + std::to_string(c.speedup));
  if (!c.cioq && has_output)
    router.fail(router.has("output_buffer") ? "output_buffer" : "output_buffer_bytes",
                "needs router.architecture = \"cioq\" (an input-queued router has no output buffer)");
  // Default: an output queue as deep as one input VC buffer.
  c.output_buffer = c.cioq ? int32_t(flits_or_bytes(router, traffic, "output_buffer", "output_buffer_bytes",
                                                    c.buffer))
                           : 0;
}

}  // namespace flitsim
