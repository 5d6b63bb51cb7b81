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

// X(field of the view, its value in the pinned model).
#define FLITSIM_PINNED_MODEL(X)                  \
  X(prm.sa_iterations, 1)                        \
  X(prm.va_iterations, 1)                        \
  X(prm.sw_allocator, Allocator::Islip)          \
  X(prm.vc_allocator, Allocator::SeparableInputFirst) \
  X(prm.speculative, false)                      \
  X(prm.va_sa_separate, false)                   \
  X(prm.vc_policy, VcPolicy::Spread)             \
  X(prm.sw_input_by_output, false)               \
  X(prm.eject_on_arrival_class, false)           \
  X(prm.age_arbitration, false)                  \
  X(prm.vct, false)                              \
  X(prm.cioq, false)                             \
  X(prm.speedup, 1)                              \
  X(prm.injection, InjectionKind::Bernoulli)     \
  X(prm.workload, false)                         \
  X(prm.decide_at_injection, false)

constexpr bool is_pinned_model(const SimView& s) {
  bool same = true;
#define FLITSIM_SAME(field, value) same = same && s.field == (value);
  FLITSIM_PINNED_MODEL(FLITSIM_SAME)
#undef FLITSIM_SAME
  return same;
}
// The pinned values are the engine's defaults: change a default and this fails, rather than the
// default model silently losing its fast instance.
static_assert(is_pinned_model(SimView{}), "FLITSIM_PINNED_MODEL must list SimParams' default values");

// Only on a view the executor owns by value (see above).
inline void pin_model(SimView& s) {
#define FLITSIM_PIN(field, value) s.field = (value);
  FLITSIM_PINNED_MODEL(FLITSIM_PIN)
#undef FLITSIM_PIN
}

}  // namespace flitsim
