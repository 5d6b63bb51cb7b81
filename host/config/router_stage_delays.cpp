#include "router_stage_delays.hpp"

#include <algorithm>

#include "host/config/config_keys.hpp"

namespace flitsim {

const std::vector<std::string>& router_stage_delay_keys() {
  static const std::vector<std::string> k = {"routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_delay",
                                             "credit_delay"};
  return k;
}

// A stage of d cycles in BookSim2's iq router starts in cycle t and hands over in t + d, so a
// head spends routing + alloc + st cycles in a router (alloc: vc_alloc + sw_alloc, or their
// maximum when speculative), and a VC starts its next head routing + vc_alloc + sw_alloc cycles
// after its last one started switch allocation. flitsim's router spends router.latency cycles
// (a pure pipeline delay that holds no VC) plus one more with va_sa = "separate" (a head
// crosses the switch the cycle after it won its VC; speculation removes that cycle), and starts
// a VC's next head 1 cycle ("same-cycle", or speculative) or 2 cycles ("separate") after. So
// the per-router times agree for every st_delay, while the VC turnaround agrees only with
// routing_delay = 0 and allocation delays of at most 1: those are the delays modelled here. A
// zero allocation delay (which BookSim2 refuses) means that allocation shares the other's cycle.
Params with_router_stage_delays(const Params& router) {
  const std::vector<std::string>& keys = router_stage_delay_keys();
  std::string given;  // the pipeline keys given, for messages
  for (size_t i = 0; i + 1 < keys.size(); ++i)
    if (router.has(keys[i])) given += (given.empty() ? "" : ", ") + router.name(keys[i]);
  if (given.empty()) return router;
  // Unset ones default to BookSim2's iq router with lookahead routing (the booksim preset's pipeline).
  const int64_t routing = checked_int(router, "routing_delay", 0), vc_alloc = checked_int(router, "vc_alloc_delay", 1);
  const int64_t sw_alloc = checked_int(router, "sw_alloc_delay", 1), st = checked_int(router, "st_delay", 1);
  const std::string turnaround = ": flitsim starts a VC's next head 1 or 2 cycles after its last (va_sa), while "
                                 "BookSim2 takes routing_delay + vc_alloc_delay + sw_alloc_delay cycles; "
                                 "add the cycles to router.st_delay for the same zero-load latency";
  if (routing != 0) router.fail("routing_delay", "must be 0 (lookahead routing), got " + std::to_string(routing) + turnaround);
  if (vc_alloc > 1) router.fail("vc_alloc_delay", "must be 0 or 1, got " + std::to_string(vc_alloc) + turnaround);
  if (sw_alloc > 1) router.fail("sw_alloc_delay", "must be 0 or 1, got " + std::to_string(sw_alloc) + turnaround);
  const bool separate = vc_alloc >= 1 && sw_alloc >= 1;  // each allocation takes a cycle of its own
  const bool speculative = router.get_int("speculative", 0) != 0;
  if (speculative && !separate)
    router.fail("speculative", "needs router.vc_alloc_delay >= 1 and router.sw_alloc_delay >= 1 (speculation "
                               "overlaps two allocations that take a cycle each; given " + given + ")");
  const int64_t alloc = speculative ? std::max(vc_alloc, sw_alloc) : vc_alloc + sw_alloc;
  const int64_t per_router = routing + alloc + st;                  // BookSim2's cycles in a router
  const int64_t latency = per_router - (separate && !speculative);  // "separate" adds its cycle itself
  const std::string va_sa = separate ? "separate" : "same-cycle";
  const std::string why = " disagrees with the stage delays (" + given +
                          " given; unset ones: routing_delay 0, vc_alloc_delay 1, sw_alloc_delay 1, st_delay 1), "
                          "which give router.latency = " + std::to_string(latency) +
                          " and router.va_sa = \"" + va_sa + "\" (latency = routing_delay + " +
                          (speculative ? "max(vc_alloc_delay, sw_alloc_delay)" : "vc_alloc_delay + sw_alloc_delay") +
                          " + st_delay" + (separate && !speculative ? " - 1" : "") +
                          "; \"separate\" when both allocation delays are >= 1); give one or the other";
  if (router.has("latency") && router.get_int("latency") != latency)
    router.fail("latency", std::to_string(router.get_int("latency")) + why);
  if (router.has("va_sa") && router.get_str("va_sa") != va_sa)
    router.fail("va_sa", "\"" + router.get_str("va_sa") + "\"" + why);
  Params out = router;
  out.set_int("latency", latency);
  out.set_str("va_sa", va_sa);
  return out;
}

}  // namespace flitsim
