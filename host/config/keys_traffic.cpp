// The [traffic] keys (config_keys.hpp): defaults in TrafficKeys (engine_config.hpp); the load
// is per replica (EngineConfig::loads). Every key read by some patterns (or by the on/off
// process) only is refuse_unread: given with another, a run refuses it (config_keys.py). Cross-key
// rules (packet_sizes, the on/off process, the load) are engine_config.cpp's; a pattern's own rules
// are its setup's (host/init/traffic_choice.cpp).
#include "host/config/config_keys.hpp"
#include "host/init/traffic_choice.hpp"

namespace flitsim {

const std::vector<KeySpec>& traffic_keys() {
  static const std::vector<KeySpec> k = [] {
    KeySpec load = filled(booksim_name("injection_rate", float_key("traffic", "load", 0, 1, FLITSIM_FIELD(loads[0]),
                                                                    "offered load, flits per node per cycle")));
    return std::vector<KeySpec>{
        filled(booksim_name("traffic", choice_key("traffic", "pattern", pattern_names(), FLITSIM_FIELD(traffic.pattern),
                          "destination pattern (docs/traffic.md)"))),
        load,
        filled(booksim_name("packet_size", int_key("traffic", "packet_size", 1, int64_t(1) << 20, FLITSIM_FIELD(traffic.packet_size),
                       "flits per packet", "flits per packet (int32)"))),
        refuse_unread(read_by("shift group-shift", int_rules_key("traffic", "shift", INT64_MIN + 1, INT64_MAX,
                                                   "offset of shift (nodes) and group-shift (groups)"))),
        filled(choice_key("traffic", "placement", {"contiguous", "random", "booksim-flatfly"}, FLITSIM_FIELD(traffic.placement),
                          "process ranks on nodes: in order, a random permutation per replica, or BookSim2's flatfly "
                          "node numbering (2-D HyperX)")),
        refuse_unread(read_by("hotspot", int_list_key("traffic", "hotspots", 0, FLITSIM_FIELD(traffic.hotspots),
                                        "the hotspot ranks"))),
        refuse_unread(read_by("hotspot", float_key("traffic", "hotspot_fraction", 0, 1, FLITSIM_FIELD(traffic.hotspot_fraction),
                                     "fraction of packets sent to a hotspot (the rest uniform)"))),
        refuse_unread(read_by("urb swap2", int_list_key("traffic", "dims", 0, FLITSIM_FIELD(traffic.dims),
                                          "targeted HyperX dimensions"))),
        booksim_name("injection_process", choice_key("traffic", "injection", {"bernoulli", "onoff"}, FLITSIM_FIELD(traffic.injection),
                   "packet creation process: Bernoulli, or on/off bursts")),
        refuse_unread(read_by("onoff", float_key("traffic", "burst_on", 1, 1e9, FLITSIM_FIELD(traffic.burst_on),
                                   "on/off: mean on period (cycles)"))),
        refuse_unread(read_by("onoff", float_key("traffic", "burst_off", 1, 1e9, FLITSIM_FIELD(traffic.burst_off),
                                   "on/off: mean off period (cycles)"))),
        rules_key("traffic", "packet_sizes", KeyType::IntList,
                  "[min, max]: packet sizes uniform in that range (flits), instead of packet_size"),
        int_rules_key("traffic", "flit_bytes", 1, int64_t(1) << 20, "bytes per flit (router buffers in bytes)",
                      "bytes per flit (router buffers in bytes)"),
        int_key("traffic", "reply_size", 0, int64_t(1) << 20, FLITSIM_FIELD(traffic.reply_size),
                "request-reply: each delivered packet (a request) makes a reply of this many flits back to "
                "its source, in a message class of its own (half the VCs each; docs/traffic.md); 0: off",
                "flits per packet (int32)"),
        int_key("traffic", "priority", -1000, 1000, FLITSIM_FIELD(traffic.priority),
                "traffic class priority: where a router allocates, a packet of a higher priority wins over "
                "a lower one (docs/traffic.md \"Traffic classes\")", "kept small: an arbitration key"),
        int_list_key("traffic", "sources", 0, FLITSIM_FIELD(traffic.sources),
                     "[lo, hi): only nodes lo .. hi-1 create packets (of this traffic class); unset: every node"),
        refuse_unread(read_by("uniform", bool_key("traffic", "self", FLITSIM_FIELD(traffic.uniform_self),
                                    "uniform may pick the source itself (BookSim2)"))),
    };
  }();
  return k;
}

}  // namespace flitsim
