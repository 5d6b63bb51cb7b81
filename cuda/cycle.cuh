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
#include "phases/inject.cuh"
#include "phases/receive.cuh"
#include "phases/route.cuh"
#include "phases/switch_alloc.cuh"
#include "phases/traverse.cuh"
#include "phases/vc_alloc.cuh"

namespace flitsim {

// Sets of a router's ports as bits of their local index.
struct PortSets {
  u64 outputs;  // OR of the masks the ports returned
  u64 inputs;   // ports that returned a non-empty mask
};

// Runs the cycle's steps for (rep, r). Ports must provide
//   each(f):        f(gp) for every port gp of the router, then a barrier among its threads;
//   each_of(m, f):  f(gp) for the ports whose local index is set in mask m, then a barrier;
//   gather(f):      f(gp) for every port (f returns a mask of local output indices), giving
//                   every thread the OR of the masks and the set of ports whose mask is set;
//   gather_of(m, f): as gather, for the ports whose local index is set in mask m;
//   transpose(sets, row): for sets from gather, the request matrix by columns: c.of(out) is
//                   the set of ports i in sets.inputs whose row(i) names output out (out in
//                   sets.outputs, asked by the thread that runs `out` in each_of);
//   once(f):        f() on one thread, then a barrier.
template <class Ports>
FLITSIM_HD void router_cycle_steps(const SimView& s, int rep, int r, long long t, const Ports& ports) {
  // Receive only at ports with something arriving (the arrival calendar, rings.cuh).
  const u64 arrived = arrivals_at(s, rep, r, t);
  ports.each_of(arrived, [&](int gp) { step_receive(s, rep, gp, t); });
  ports.each([&](int gp) {
    if (s.port_node[gp] >= 0) step_inject(s, rep, gp, t);  // terminal ports only
  });
  // Ports whose input VCs hold flits after receive and inject. Route, the allocators and
  // traverse do nothing for the others, so they run for these only, and not at all in an idle
  // router (idle skipping).
  const u64 busy = ports.gather([&](int gp) { return u64(s.port_vc_mask[s.pp(rep, gp)] != 0); }).inputs;
  if (busy) {
    if (s.sz.demand_P)
      ports.once([&] { step_route_in_port_order(s, rep, r, t); });
    else
      ports.each_of(busy, [&](int gp) { step_route(s, rep, r, gp, t); });
    // Allocation steps run only for the ports that take part: `gather_of` reduces the masks the
    // request steps return into the outputs requested and the inputs requesting (a reduction
    // every thread of the router sees), and later steps run for those ports only.
    const PortSets va = ports.gather_of(busy, [&](int gp) { return step_va_request(s, rep, r, gp); });
    if (va.outputs) {
      const auto va_to = ports.transpose(va, [&](int gp) { return s.va_request[s.pp(rep, gp)]; });
      ports.each_of(va.outputs, [&](int gp) { step_va_grant(s, rep, r, gp, va_to.of(gp)); });
      ports.each_of(va.inputs, [&](int gp) { step_va_accept(s, rep, gp, t); });
    }
    PortSets sent{0, 0};  // outputs matched and inputs that send, over all iterations
    for (int it = 0; it < s.prm.sa_iterations; ++it) {
      const PortSets sa = ports.gather_of(busy, [&](int gp) { return step_sa_request(s, rep, r, gp, it, t); });
      if (!sa.outputs) break;  // nothing left to match: later iterations would change nothing
      const auto sa_to = ports.transpose(sa, [&](int gp) { return s.sa_request[s.pp(rep, gp)]; });
      ports.each_of(sa.outputs, [&](int gp) { step_sa_grant(s, rep, r, gp, sa_to.of(gp), t); });
      const PortSets won =
          ports.gather_of(sa.inputs, [&](int gp) { return step_sa_accept(s, rep, r, gp, it, sa.inputs, t); });
      ports.each_of(won.outputs, [&](int gp) { step_sa_update(s, rep, r, gp, it); });
      sent.outputs |= won.outputs, sent.inputs |= won.inputs;
    }
    ports.each_of(sent.outputs, [&](int gp) { step_traverse_out(s, rep, r, gp, t); });
    ports.each_of(sent.inputs, [&](int gp) { step_traverse_in(s, rep, gp, t); });
  }
  if (snapshot_due(s, t)) {  // UGAL-G's congestion snapshot (routing/snapshot.cuh)
    if (s.sz.demand_P) ports.once([&] { build_port_demand(s, rep, r); });
    ports.each([&](int gp) { step_snapshot_port(s, rep, gp, t); });
  }
  // Every thread has read this cycle's calendar slot (steps since end with barriers): clear it
  // for its next use, cal_len cycles on.
  if (arrived && s.sz.cal_len) ports.once([&] { clear_arrivals(s, rep, r, t); });
}

// A router's request matrix by columns (the grant steps' "who requests me"), built by one
// thread: zeroes the requested columns, then sets a bit per request, O(requests) instead of
// each output scanning every requesting input's row.
struct RequestColumns {
  int p0;
  u64 col[kMaxRadix];
  FLITSIM_HD u64 of(int gp) const { return col[gp - p0]; }
};
template <class Row>
FLITSIM_HD RequestColumns transpose_serially(int p0, PortSets sets, Row&& row) {
  RequestColumns c;
  c.p0 = p0;
  for (u64 m = sets.outputs; m; m &= m - 1) c.col[lowest_bit(m)] = 0;
  for (u64 in = sets.inputs; in; in &= in - 1) {
    const int i = lowest_bit(in);
    for (u64 m = row(p0 + i); m; m &= m - 1) c.col[lowest_bit(m)] |= u64(1) << i;
  }
  return c;
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
  FLITSIM_HD PortSets gather_of(u64 mask, F&& f) const {
    PortSets sets{0, 0};
    for (; mask; mask &= mask - 1) {
      const int i = lowest_bit(mask);
      const u64 m = f(p0 + i);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << i;
    }
    return sets;
  }
  template <class Row>
  FLITSIM_HD RequestColumns transpose(PortSets sets, Row&& row) const {
    return transpose_serially(p0, sets, row);
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
