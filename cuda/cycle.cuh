// One simulated cycle of one router of one replica: the six phases in order (DESIGN.md §4).
// A router reads only its own state and what its channels delivered in earlier cycles, so
// executors need a barrier between cycles, not between phases. Both executors (OpenMP in
// host/cpu_backend.cpp, CUDA in cuda/cuda_backend.cu) call exactly this function.
#pragma once
#include "phases/inject.cuh"
#include "phases/receive.cuh"
#include "phases/route.cuh"
#include "phases/switch_alloc.cuh"
#include "phases/traverse.cuh"
#include "phases/vc_alloc.cuh"

namespace flitsim {

FLITSIM_HD void router_cycle(const SimView& s, int rep, int r, long long t) {
  phase_receive(s, rep, r, t);
  phase_inject(s, rep, r, t);
  phase_route(s, rep, r, t);
  phase_vc_alloc(s, rep, r);
  phase_switch_alloc(s, rep, r);
  phase_traverse(s, rep, r, t);
  if (s.sz.snap_P) phase_snapshot(s, rep, r, t);  // UGAL-G's congestion snapshot (routing/snapshot.cuh)
}

}  // namespace flitsim
