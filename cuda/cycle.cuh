// One simulated cycle of one router of one replica (DESIGN.md §4), as a fixed sequence of
// per-port steps. Every executor and schedule runs exactly this sequence; they differ only in
// how they run one step over the ports of a router (`Ports`, below):
//   - serially in port order (CPU backend; CUDA `router` schedule: a thread per router),
//   - by the threads of a block or warp, with a barrier between steps (CUDA `block`),
//   - in reversed or shuffled order (a test-only CPU option proving order independence).
//
// The rule that makes this legal: within one step, the step of port p writes only port p's
// own state (its input VCs, its output VCs, its node, its outgoing channel slot) or integer
// atomics, and reads only what earlier steps or earlier cycles wrote. A router reads only its
// own state and what its channels delivered in earlier cycles, so executors need a barrier
// between cycles, not between routers.
//
// The one ordered step: with demand-sensing routings (UGAL, PAR, Clos-AD, DimWAR, OmniWAR,
// adaptive dragonfly links; sz.demand_P) a head routed in a cycle adds its flits to its
// output's demand, which heads of later ports see in the same cycle; the route step then runs
// the router's ports in port order on one thread.
#pragma once
#include "phases/allocation.cuh"
#include "phases/inject.cuh"
#include "phases/output_queue.cuh"
#include "phases/receive.cuh"
#include "phases/route.cuh"
#include "phases/traverse.cuh"

namespace flitsim {

// True when no input VC of router r holds a flit after receive and inject: route, the
// allocators and traverse would then do nothing, so executors skip them (idle skipping).
FLITSIM_HD bool router_idle(const SimView& s, int rep, int r) {
  u64 any = 0;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) any |= s.port_vc_mask[s.pp(rep, gp)];
  return any == 0;
}

// Runs the cycle's steps for (rep, r). Ports must provide
//   each(f):        f(gp) for every port gp of the router, then a barrier among its threads;
//   each_of(m, f):  f(gp) for the ports whose local index is set in mask m, then a barrier;
//   gather(f):      f(gp) for every port (f returns a mask of local output indices), giving
//                   every thread the OR of the masks and the set of ports whose mask is set;
//   once(f):        f() on one thread, then a barrier.
template <class Ports>
FLITSIM_HD void router_cycle_steps(const SimView& s, int rep, int r, long long t, const Ports& ports) {
  ports.each([&](int gp) { step_receive(s, rep, gp, t); });
  ports.each([&](int gp) { step_inject(s, rep, gp, t); });
  if (s.prm.cioq) ports.each([&](int gp) { step_output_drain(s, rep, gp, t); });  // output_queue.cuh
  if (!router_idle(s, rep, r)) {
    if (s.sz.demand_P)
      ports.once([&] { step_route_in_port_order(s, rep, r, t); });
    else
      ports.each([&](int gp) { step_route(s, rep, r, gp, t); });
    run_vc_allocation(s, rep, r, t, ports);  // phases/allocation.cuh
    // router.speedup: with "cioq" the switch runs that many allocation-and-traversal passes per
    // cycle, so up to `speedup` flits leave each input and enter each output queue (one per pass).
    for (int pass = 0; pass < s.prm.speedup; ++pass) {
      const PortSets sent = run_switch_allocation(s, rep, r, t, ports);  // outputs matched, inputs that send
      if (!sent.outputs) break;  // no flit moved: a further pass would find the same state
      ports.each_of(sent.outputs, [&](int gp) { step_traverse_out(s, rep, r, gp, t); });
      ports.each_of(sent.inputs, [&](int gp) { step_traverse_in(s, rep, gp, t); });
    }
  }
  if (snapshot_due(s, t)) {  // UGAL-G's congestion snapshot (routing/snapshot.cuh)
    if (s.sz.demand_P) ports.once([&] { build_port_demand(s, rep, r); });
    ports.each([&](int gp) { step_snapshot_port(s, rep, gp, t); });
  }
}

// Serial execution in port order: the CPU backend and the CUDA `router` schedule.
struct PortsInOrder {
  int p0, p1;
  template <class F>
  FLITSIM_HD void each(F&& f) const {
    for (int gp = p0; gp < p1; ++gp) f(gp);
  }
  template <class F>
  FLITSIM_HD void each_of(u64 mask, F&& f) const {
    for (; mask; mask &= mask - 1) f(p0 + lowest_bit(mask));
  }
  template <class F>
  FLITSIM_HD PortSets gather(F&& f) const {
    PortSets sets{0, 0};
    for (int gp = p0; gp < p1; ++gp) {
      const u64 m = f(gp);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << (gp - p0);
    }
    return sets;
  }
  template <class F>
  FLITSIM_HD void once(F&& f) const {
    f();
  }
};

FLITSIM_HD void router_cycle(const SimView& s, int rep, int r, long long t) {
  router_cycle_steps(s, rep, r, t, PortsInOrder{s.port_offset[r], s.port_offset[r + 1]});
}

}  // namespace flitsim
