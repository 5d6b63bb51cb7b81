// router.routing_delay, vc_alloc_delay, sw_alloc_delay, st_delay and credit_delay: a router's
// pipeline stated stage by stage, as BookSim2's iq router states it (docs/configuration.md).
// The first four are another way to write router.latency and router.va_sa, derived here once;
// credit_delay stands alone (extra cycles on the credit rings, initial_state.cpp).
#pragma once
#include <string>
#include <vector>

#include "params.hpp"

namespace flitsim {

// The five keys, declared once: the four pipeline keys first, credit_delay last. The bindings
// give the list to Python (config.STAGE_DELAY_KEYS), whose schema follows it.
const std::vector<std::string>& router_stage_delay_keys();

// `router` with router.latency and router.va_sa derived from the pipeline keys when any is
// given (unchanged otherwise). Throws ConfigError naming the key and the rule when a delay
// cannot be modelled or disagrees with a router.latency / router.va_sa given too.
Params with_router_stage_delays(const Params& router);

}  // namespace flitsim
