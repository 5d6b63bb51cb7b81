// The CPU executor's specialised instance for the engine's default router model. Every router
// option is a run-time field of SimParams, tested where it applies (cioq, speculation, age
// arbitration, ...), so the common model pays for every option it does not use. A cycle
// function that assigns these fields their default values on its own by-value copy of the
// view, before any step runs, lets the compiler fold each test to a constant and drop the
// options' code from that instance; the executor calls it only when the run's values already
// are the defaults (`is_pinned_model`), so the assignment changes nothing it computes.
// Only router and source options are pinned, not the routing's (its congestion sensing, UGAL-G's
// snapshot): those are one test per router and cycle, and leaving them free gives the adaptive
// routings of the papers the fast instance too.
#pragma once
#include "cuda/state.cuh"

namespace flitsim {

// The pinned model: SimParams' defaults (cuda/params.cuh states them once) for the router model
// and the source; the routing's options stay free.
constexpr bool is_pinned_model(const SimView& s) {
  constexpr SimParams d{};
  return same_model(s.prm.router, d.router) && s.prm.traffic.injection == d.traffic.injection &&
         s.prm.workload.on == d.workload.on && s.prm.routing.decide_at_injection == d.routing.decide_at_injection;
}

// Only on a view the executor owns by value (see above).
inline void pin_model(SimView& s) {
  constexpr SimParams d{};
  s.prm.router = d.router;
  s.prm.traffic.injection = d.traffic.injection;
  s.prm.workload.on = d.workload.on;
  s.prm.routing.decide_at_injection = d.routing.decide_at_injection;
}

}  // namespace flitsim
