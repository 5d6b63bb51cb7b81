// The [router] keys (config_keys.hpp). Defaults: RouterSizing (engine_config.hpp) and RouterModel
// (cuda/params.cuh); router.preset replaces them where the user gave none (router_presets.cpp).
#include "host/config/config_keys.hpp"
#include "host/config/router_presets.hpp"

namespace flitsim {

namespace {

constexpr int64_t kSlots = int64_t(1) << 20;
const std::vector<std::string> kAllocators = {"islip", "separable-input-first", "separable-output-first", "wavefront"};

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const RouterPreset& p : router_presets()) names.push_back(p.name);
  return names;
}

}  // namespace

const std::vector<KeySpec>& router_keys() {
  static const std::vector<KeySpec> k = {
      filled(booksim_name("num_vcs", int_key("router", "vcs", 1, 63, FLITSIM_FIELD(router.vcs), "virtual channels per port",
                     "one bit per VC in a 64-bit mask"))),
      filled(booksim_name("vc_buf_size", int_key("router", "buffer", 1, int64_t(1) << 16, FLITSIM_FIELD(router.buffer), "flits per VC buffer",
                     "flits per VC"))),
      filled(int_key("router", "latency", 0, kSlots, FLITSIM_FIELD(router.latency),
                     "cycles from the switch to the output channel (the router pipeline)",
                     "channel ring slots (int32)")),
      filled(booksim_name("alloc_iters", int_key("router", "alloc_iterations", 1, 8, FLITSIM_FIELD(model.va_iterations),
                     "iterations of both allocators", "allocator iterations"))),
      int_key("router", "sa_iterations", 1, 8, FLITSIM_FIELD(model.sa_iterations),
              "iterations of the switch allocator alone (default: alloc_iterations)", "switch allocator iterations"),
      choice_key("router", "preset", preset_names(), FLITSIM_FIELD(router.preset),
                 "a named router model whose keys replace the defaults (explicit keys win)"),
      choice_key("router", "va_sa", {"same-cycle", "separate"}, FLITSIM_FIELD(model.va_sa_separate),
                 "VC and switch allocation in the same cycle or in separate cycles"),
      choice_key("router", "vc_policy", {"spread", "by-hop", "random"}, FLITSIM_FIELD(model.vc_policy),
                 "output VC within the routing's class range: most credits, one per hop type, or random"),
      booksim_name("priority", choice_key("router", "arbitration", {"round-robin", "age"}, FLITSIM_FIELD(model.age_arbitration),
                 "grant order of the VC and switch allocators: round-robin pointers or oldest packet first")),
      choice_key("router", "flow_control", {"wormhole", "vct"}, FLITSIM_FIELD(model.vct),
                 "wormhole, or virtual cut-through (a head takes an output VC only with room for its packet)"),
      choice_key("router", "architecture", {"iq", "cioq", "ioq"}, FLITSIM_FIELD(model.architecture),
                 "input-queued; combined input/output-queued (an output FIFO per port whose flits hold their "
                 "downstream credit, switch speedup); or input-output-queued (an output queue per port and VC "
                 "whose flits wait there for their credit, switch speedup: SuperSim's input_output_queued)"),
      booksim_name("internal_speedup", int_key("router", "speedup", 1, 8, FLITSIM_FIELD(model.speedup),
              "switch passes per cycle (cioq, ioq)", "switch passes per cycle (cioq, ioq)")),
      booksim_name("output_buffer_size", int_key("router", "output_buffer", 1, int64_t(1) << 16, FLITSIM_FIELD(router.output_buffer),
              "flits per output queue (cioq: per port, ioq: per port and VC; default: one VC buffer)",
              "flits per output queue (cioq, ioq)")),
      int_rules_key("router", "buffer_bytes", 1, int64_t(1) << 40, "router.buffer in bytes (with traffic.flit_bytes)",
                    "bytes per VC (with traffic.flit_bytes)"),
      int_rules_key("router", "output_buffer_bytes", 1, int64_t(1) << 40,
                    "router.output_buffer in bytes (with traffic.flit_bytes)",
                    "bytes per output queue (with traffic.flit_bytes)"),
      int_key("router", "injection_delay", 0, kSlots, FLITSIM_FIELD(router.injection_delay),
              "extra cycles on the node -> router channel (BookSim2's injection channel: 1)",
              "channel ring slots (int32)"),
      // router_stage_delays.cpp: BookSim2's pipeline stages fold into router.latency and va_sa
      booksim_name("routing_delay", int_rules_key("router", "routing_delay", 0, kSlots, "BookSim2 stage delay (only 0 is modelled)",
                    "cycles (only 0 is modelled)")),
      booksim_name("vc_alloc_delay", int_rules_key("router", "vc_alloc_delay", 0, kSlots, "BookSim2 stage delay (0 or 1 are modelled)",
                    "cycles (0 or 1 are modelled)")),
      booksim_name("sw_alloc_delay", int_rules_key("router", "sw_alloc_delay", 0, kSlots, "BookSim2 stage delay (0 or 1 are modelled)",
                    "cycles (0 or 1 are modelled)")),
      booksim_name("st_final_delay", int_rules_key("router", "st_delay", 0, kSlots - 1, "BookSim2 stage delay: router.latency = st_delay + 1 at most",
                    "router.latency = st_delay + 1 at most: channel ring slots")),
      booksim_name("credit_delay", int_key("router", "credit_delay", 0, kSlots, FLITSIM_FIELD(router.credit_delay),
              "extra cycles before a credit reaches the upstream router (BookSim2's credit_delay)",
              "credit ring slots (int32)")),
      booksim_name("sw_allocator", choice_key("router", "sw_allocator", kAllocators, FLITSIM_FIELD(model.sw_allocator),
                 "switch allocator (Dally & Towles ch. 19)")),
      booksim_name("vc_allocator", choice_key("router", "vc_allocator", kAllocators, FLITSIM_FIELD(model.vc_allocator), "VC allocator")),
      booksim_name("speculative", bool_key("router", "speculative", FLITSIM_FIELD(model.speculative),
               "heads bid for the switch in the cycle they win their VC, below every other request (va_sa separate)")),
      choice_key("router", "speculation", {"second-pass", "lowest-priority"}, FLITSIM_FIELD(model.spec_lowest_priority),
                 "with router.speculative: speculative requests in a second switch pass for what the first left, or "
                 "in the one pass below every other request (BookSim2's spec_sw_allocator = prio)"),
      choice_key("router", "sw_input_arbiter", {"vc", "output"}, FLITSIM_FIELD(model.sw_input_by_output),
                 "a separable switch allocator's input stage picks a VC, or an output (BookSim2's iq router)"),
      choice_key("router", "eject_vc", {"last-class", "arrival"}, FLITSIM_FIELD(model.eject_on_arrival_class),
                 "by-hop ejection on the last VC class, or on the class the packet arrived in (BookSim2's "
                 "dragonfly MIN)"),
  };
  return k;
}

}  // namespace flitsim
