#include "router_presets.hpp"

#include <algorithm>

namespace flitsim {

namespace {
PresetKey int_key(const char* k, int64_t v, const char* why) { return {k, true, v, "", why}; }
PresetKey str_key(const char* k, const char* v, const char* why, std::vector<std::string> kinds = {},
                  std::vector<std::string> algorithms = {}) {
  return {k, false, 0, v, why, std::move(kinds), std::move(algorithms)};
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}
}  // namespace

bool PresetKey::applies(const std::string& kind, const std::string& algorithm) const {
  return listed(kinds, kind) && listed(algorithms, algorithm);
}

const std::vector<RouterPreset>& router_presets() {
  static const std::vector<RouterPreset> p = {
      {"flitsim", {}},  // the engine's own defaults
      // BookSim2's `iq` router (docs/validation.md compares the two side by side).
      {"booksim",
       {str_key("va_sa", "separate", "vc_alloc_delay = sw_alloc_delay = 1: VC and switch allocation in separate cycles"),
        // BookSim2's routing function decides which VCs a hop may take: its dragonflynew routings
        // give each hop type one VC, its fattree (nca), flatfly and k-ary n-cube routings offer
        // every VC of a range (docs/validation.md "BookSim2's conventions in the preset").
        str_key("vc_policy", "by-hop", "its dragonfly routings give each hop type one VC, ejection included",
                {"dragonfly"}),
        str_key("vc_policy", "spread",
                "its fattree, flatfly, mesh and torus routings offer every VC of a range (and so does "
                "every topology BookSim2 lacks)"),
        str_key("eject_vc", "arrival", "its min_dragonflynew ejects a packet on the VC it arrived on",
                {"dragonfly"}, {"min"}),
        str_key("sw_allocator", "separable-input-first", "its iq default sw_allocator = separable_input_first"),
        str_key("vc_allocator", "separable-input-first", "its iq default vc_allocator = separable_input_first"),
        int_key("alloc_iterations", 1, "its default alloc_iters = 1"),
        str_key("speculation", "lowest-priority",
                "its default spec_sw_allocator = prio: with speculative = 1 a speculative request joins the one "
                "switch allocation at the lowest priority"),
        int_key("injection_delay", 1, "its injection channel takes one cycle more than its latency"),
        str_key("sw_input_arbiter", "output",
                "its switch allocator takes one request per input and output: an input's arbiter picks an output, "
                "the output's VC comes from a round-robin pointer over the input's VCs")}},
      // The HyperX paper's router (McDonald et al., SC 2019, section 6; docs/configuration.md):
      // one cycle is taken as 1 ns, one flit time on a link (the paper gives no flit size or
      // cycle; its DAL bound PktSize x NumVcs / CreditRoundTrip = 8 % for 1-flit packets implies
      // a credit round trip of 100 flit times, i.e. its two 50 ns channels at 1 flit per ns).
      {"hyperx-paper",
       {str_key("architecture", "cioq", "\"combined input and output queued router architecture\""),
        int_key("speedup", 2, "\"sufficient speedup\": not given; 2 lets two inputs feed one output per cycle"),
        str_key("arbitration", "age", "\"age-based arbitration for both virtual channel and crossbar scheduling\""),
        str_key("flow_control", "vct", "\"packet buffer flow control\" (virtual cut-through)"),
        int_key("vcs", 8, "\"All routing algorithms are given 8 VCs\""),
        int_key("latency", 50, "\"router crossbar latency is 50ns\" at 1 ns per cycle"),
        int_key("buffer", 160,
                "not given (\"more than the credit round trip\"): a flit's credit comes back crossbar + "
                "2 x channel + 1 = 151 cycles after it entered the output queue (50-cycle crossbar and "
                "channels), so one VC of 160 flits alone streams at link rate"),
        int_key("output_buffer", 32, "not given: two 16-flit packets per output")}},
      // SuperSim's input_queued router as configured in validation/supersim/ (docs/validation.md
      // "Side by side with SuperSim (HyperX)"): its crossbar has one input per VC, so one input
      // port may send several flits per cycle (to different outputs), but its crossbar scheduler
      // grants each output one flit per cycle, and the output queue sends one per cycle: flitsim's
      // nearest model is cioq with speedup 2 and a 1-flit output queue.
      {"supersim",
       {str_key("architecture", "cioq", "a crossbar input per VC and an output queue per port"),
        int_key("speedup", 2, "its VC-level crossbar inputs: an input port may send more than one flit per cycle"),
        int_key("output_buffer", 1,
                "one flit per output per cycle enters its output queue and one leaves, so its 16-flit queue "
                "never holds more than one: contention for an output waits in the input VCs, where its "
                "downstream-credit congestion sensor cannot see it (16 let flitsim's queue fill and showed "
                "the WARs that contention: DimWAR UR 0.833, against 0.758 with 1 and its 0.600-0.625; "
                "analysis/supersim_war_mechanism.py)"),
        str_key("arbitration", "age", "comparing arbiters on creation_timestamp metadata (oldest first)"),
        int_key("latency", 4, "6 cycles per router-to-router hop at zero load (route, VC, switch, crossbar, "
                              "output queue; with cioq's output FIFO cycle and the 1-cycle channel)"),
        int_key("injection_delay", 3, "10 cycles between two nodes of one router at zero load (its interface)")}},
  };
  return p;
}

std::vector<PresetKey> preset_keys_for(const std::string& name, const std::string& kind, const std::string& algorithm) {
  std::vector<PresetKey> out;
  for (const RouterPreset& p : router_presets()) {
    if (p.name != name) continue;
    for (const PresetKey& k : p.keys) {
      const bool taken = std::any_of(out.begin(), out.end(), [&](const PresetKey& o) { return o.key == k.key; });
      if (!taken && k.applies(kind, algorithm)) out.push_back(k);
    }
  }
  return out;
}

Params with_router_preset(const Params& router, const std::string& kind, const std::string& algorithm) {
  const std::string name = router.get_str("preset", router_presets().front().name);
  bool known = false;
  std::string names;
  for (const RouterPreset& p : router_presets()) {
    known = known || p.name == name;
    names += (names.empty() ? "\"" : ", \"") + p.name + "\"";
  }
  if (!known) router.fail("preset", "must be one of " + names + ", got \"" + name + "\"");
  Params out = router;
  for (const PresetKey& k : preset_keys_for(name, kind, algorithm)) {
    // A size given in bytes replaces the preset's size in flits.
    if (router.has(k.key) || router.has(k.key + "_bytes")) continue;
    // The cioq-only keys do not apply when the user picks the input-queued architecture.
    const bool cioq_only = k.key == "speedup" || k.key == "output_buffer";
    if (cioq_only && router.get_str("architecture", "cioq") == "iq") continue;
    if (k.is_int) out.set_int(k.key, k.int_value);
    else out.set_str(k.key, k.str_value);
  }
  return out;
}

ConfigError with_preset_origin(const Params& given, const ConfigError& e, const std::string& kind,
                               const std::string& algorithm) {
  const std::string msg = e.what(), name = given.get_str("preset", router_presets().front().name);
  for (const PresetKey& k : preset_keys_for(name, kind, algorithm)) {
    const std::string prefix = given.name(k.key) + ":";
    if (msg.compare(0, prefix.size(), prefix) != 0 || given.has(k.key) || given.has(k.key + "_bytes")) continue;
    const std::string value = k.is_int ? std::to_string(k.int_value) : "\"" + k.str_value + "\"";
    return ConfigError(msg + " (" + given.name(k.key) + " = " + value + " comes from " + given.name("preset") +
                       " = \"" + name + "\"; set it to override)");
  }
  return e;
}

}  // namespace flitsim
