// The [routing] keys (config_keys.hpp): defaults in RoutingKeys (engine_config.hpp), where ""
// and -1 are unset and the engine picks per algorithm and topology (host/init/routing_choice.cpp).
#include "host/config/config_keys.hpp"
#include "host/init/routing_choice.hpp"

namespace flitsim {

namespace {

// read_by of a routing key: the algorithms whose traits list it (cuda/routing/<routing>.cuh).
KeySpec readers(KeySpec k) { return read_by(reader_names(k.name).c_str(), k); }

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const RoutingInfo& i : routing_registry()) {
    bool seen = false;
    for (const std::string& n : names) seen |= n == i.algorithm;
    if (!seen) names.push_back(i.algorithm);
  }
  return names;
}

}  // namespace

const std::vector<KeySpec>& routing_keys() {
  constexpr int64_t kMaxFlits = 1 << 20;
  static const std::vector<KeySpec> k = {
      filled(booksim_name("routing_function", choice_key("routing", "algorithm", algorithm_names(), FLITSIM_FIELD(routing.algorithm),
                        "the routing function (cuda/routing/registry.h)"))),
      readers(choice_key("routing", "valiant", {"restricted", "any", "node", "differing-dims"},
                         FLITSIM_FIELD(routing.valiant),
                         "Valiant intermediate: dragonfly restricted (first router of the group reached) or any router "
                         "of the group (unset: restricted); node: the router of a node drawn from all nodes, minimal "
                         "when it is the source's (BookSim2; valiant, ugal, valiant-dor, ugal-dor); differing-dims: "
                         "drawn only in the dimensions where source and destination differ (BookSim2's ugal_flatfly; "
                         "valiant-dor, ugal-dor)")),
      refuse_unread(readers(int_key("routing", "n_indirect", 1, 64, FLITSIM_FIELD(routing.n_indirect),
                                         "non-minimal candidates (unset: 1 on dragonflies, 4 elsewhere)"))),
      refuse_unread(readers(float_key("routing", "penalty", 0, 1e6, FLITSIM_FIELD(routing.penalty),
                                           "UGAL non-minimal penalty c"))),
      refuse_unread(readers(float_key("routing", "threshold", 0, 100, FLITSIM_FIELD(routing.threshold),
                        "route minimally while the minimal queue is below this % of a port's buffers (0 = off)"))),
      refuse_unread(readers(choice_key("routing", "vc_scheme", {"booksim"}, FLITSIM_FIELD(routing.vc_scheme),
                                 "dragonfly ugal on BookSim2's ugal_dragonflynew VCs (3 classes, not deadlock-free); "
                                 "unset: the routing's own"))),
      refuse_unread(readers(bool_key("routing", "decide_at_injection", FLITSIM_FIELD(routing_params.decide_at_injection),
                       "UGAL-L decides as the packet enters the injection channel, from the source router's state "
                       "then (BookSim2's lookahead routing), not when its head reaches the front of its input VC"))),
      refuse_unread(readers(int_key("routing", "deroutes", 0, 62, FLITSIM_FIELD(routing.deroutes),
                                 "OmniWAR deroutes M (unset: dimensions)"))),
      // booksim by default: near MIN on uniform traffic (1,056-node dragonfly: sustains 0.60 with
      // 4 % misrouted, vs queue's 0.475 with 44 %), while still misrouting adversarial traffic.
      refuse_unread(readers(choice_key("routing", "cost", {"queue", "hops", "booksim", "booksim-flatfly"},
                         FLITSIM_FIELD(routing.cost), "UGAL cost rule (routing/ugal_cost.cuh)"))),
      refuse_unread(readers(int_key("routing", "offset", 0, kMaxFlits, FLITSIM_FIELD(routing.offset),
                      "non-minimal bias in flits (unset: 30 for cost booksim, 2 for booksim-flatfly, 4 for the "
                      "weighted HyperX routings, else 0)"))),
      refuse_unread(readers(choice_key("routing", "congestion", {"port", "downstream", "output", "output_and_downstream"},
                         FLITSIM_FIELD(routing.congestion),
                         "what UGAL-L, DimWAR, OmniWAR and DAL sense of an output: port (unset), its downstream credits "
                         "in use, the flits in its ioq output queues and the flits queued here for it; downstream, the "
                         "credits in use only (BookSim2's UGAL, SuperSim's congestion_mode \"downstream\"); output, "
                         "the ioq output queues' flits only; output_and_downstream, both (SuperSim's modes of those "
                         "names; router.architecture = \"ioq\")"))),
      refuse_unread(readers(bool_key("routing", "multi_deroute", FLITSIM_FIELD(routing_params.multi_deroute),
                                  "OmniWAR: back-to-back deroutes in one dimension allowed"))),
      refuse_unread(readers(choice_key("routing", "sensing", {"port", "class"}, FLITSIM_FIELD(routing_params.sensing),
                         "what DimWAR, OmniWAR and DAL weigh of an output: port (unset), the downstream occupancy of "
                         "all its VCs plus the flits queued here for it; class, the downstream occupancy of the VCs of "
                         "the packet's VC class only (DAL: its adaptive VCs) plus the flits queued here (SuperSim's "
                         "per-VC-set sensing)"))),
      refuse_unread(readers(choice_key("routing", "deroute_class", {"second", "first"},
                         FLITSIM_FIELD(routing_params.deroute_first_class),
                         "DimWAR, the VC class of a deroute: second (unset; P4's text: minimal hops on class 0, "
                         "deroutes on class 1); first, SuperSim's dimension_order DAL (the first hop in a dimension, "
                         "minimal or deroute, on class 0, the hop after a deroute on class 1)"))),
      refuse_unread(readers(choice_key("routing", "dateline", {"crossing", "sticky", "booksim"},
                         FLITSIM_FIELD(routing_params.dateline),
                         "dor on a torus, a hop's dateline class: crossing (unset), 1 while the packet still has to "
                         "cross its ring's wrap-around link; sticky, decided where the packet enters the dimension "
                         "(1 if its way crosses) and kept to its end; booksim, BookSim2's dim_order_torus (sticky, and "
                         "a left-going packet takes class 1 when it does not cross)"))),
      refuse_unread(readers(int_key("routing", "snapshot_period", 1, kMaxFlits, FLITSIM_FIELD(routing.snapshot_period),
                                "cycles between congestion snapshots"))),
      choice_key("routing", "selection", {"oblivious", "adaptive", "dmodk", "two-choice"}, FLITSIM_FIELD(routing.selection),
                 "choice among equivalent next hops (unset: oblivious; updown: dmodk; two-choice: updown's less "
                 "occupied of two random up ports, BookSim2's anca)"),
      filled(bool_key("routing", "deadlock_avoidance", FLITSIM_FIELD(routing.deadlock_avoidance),
                      "false: every hop on one VC class (to study deadlock)")),
  };
  return k;
}

}  // namespace flitsim
