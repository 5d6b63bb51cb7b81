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


// The stages an input port's occupied VCs are in (classify_of's classes): any flits; a VC
// without its route (a head to route); routed without an output VC (VC allocation); holding
// an output VC (switch allocation). From the port's one PortState line.
enum PortStage { kStageBusy = 0, kStageUnrouted = 1, kStageAwaitingVc = 2, kStageHolding = 3 };
static_assert(kStageHolding < kPortClasses, "one class per stage");
FLITSIM_HD PortClassFlags port_stage(const PortState& ps) {
  const u64 occupied = ps.vc_mask;
  PortClassFlags k;
  k.in[kStageBusy] = occupied != 0;
  k.in[kStageUnrouted] = (occupied & ~ps.routed_mask) != 0;
  k.in[kStageAwaitingVc] = (occupied & ps.routed_mask & ~ps.held_mask) != 0;
  k.in[kStageHolding] = (occupied & ps.held_mask) != 0;
  return k;
}

// Runs the cycle's steps for (rep, r). Ports must provide
//   each(f):        f(gp) for every port gp of the router, then a barrier among its threads;
//   each_of(m, f):  f(gp) for the ports whose local index is set in mask m, then a barrier;
//   gather(f):      f(gp) for every port (f returns a mask of local output indices), giving
//                   every thread the OR of the masks, the set of ports whose mask is set and
//                   whether the masks are one-to-one (one bit each, no bit twice);
//   gather_of(m, f): as gather, for the ports whose local index is set in mask m;
//   classify_of(m, f): f(gp) for the ports set in m (f returns the classes it is in,
//                   PortClassFlags), giving every thread the set of ports in each class;
//   transpose(sets, row): for sets from gather, the request matrix by columns: c.of(out) is
//                   the set of ports i in sets.inputs whose row(i) names output out (out in
//                   sets.outputs, asked by the thread that runs `out` in each_of);
//   once(f):        f() on one thread, then a barrier.
template <class Ports>
FLITSIM_HD void router_cycle_steps(const SimView& __restrict__ s, int rep, int r, long long t, const Ports& ports) {
  // A stopped replica (its measurement decided: host/run/driver.cpp) is frozen as it was, so
  // that its statistics are those of a run of its own whatever its batch-mates still do. The
  // same for every lane of a warp (one replica), so the early return keeps warps uniform.
  if (t >= s.rep_stop_at[rep]) return;
  // Receive only at ports with something arriving (the arrival calendar, rings.cuh).
  const PortArrivals arrivals = arrivals_at(s, rep, r, t);
  const u64 arrived = arrivals.any;
  const int p0 = s.port_offset[r];
  const uint8_t* kinds = s.sz.cal_len ? arrival_slot(s, rep, r, t) : nullptr;  // what each port receives
  const long long cal0 = s.sz.cal_len ? calendar_index(s, r, 0, t) : 0;   // and where (rings.cuh)
  const u64 terminals = s.router_terminals[r];  // local ports with a node
  ports.each_of(arrived, [&](int gp) {
    const int i = gp - p0;
    step_receive(s, rep, gp, t, kinds ? kinds[i] : uint8_t(kArriveAll), (terminals >> i) & 1, cal0 + i);
  });
  const long long rr = (long long)rep * s.sz.R + r;
  // Some node has work (inject.cuh, router_wake_at); with replies, one may have just been queued
  // by receive above (its node's ni_wake_at says so, the router's does not).
  if (!s.sz.bern_N || s.sz.reply_N || t >= s.router_wake_at[rr]) {
    ports.each_of(terminals, [&](int gp) { step_inject(s, rep, gp, t); });  // terminal ports only
    if (s.sz.bern_N) ports.once([&] { s.router_wake_at[rr] = first_node_wake(s, rep, p0, terminals); });
  }
  // Whether a flit left the router this cycle (onto a channel or into an output queue): the
  // watchdog's router_last_move, one write per router and cycle rather than one per flit.
  bool moved = false;
  if (s.prm.router.output_queued())  // output_queue.cuh
    moved = ports.gather([&](int gp) { return u64(step_output_drain(s, rep, gp, t)); }).inputs != 0;
  // Ports whose input VCs hold flits after receive and inject, and the stage their VCs are in.
  // Route, the allocators and traverse do nothing for the others, so they run for these only,
  // and not at all in an idle router (idle skipping). Only a port busy in the last cycle or
  // receiving a flit now can be busy: flits enter input VCs only in receive (a port receiving
  // only a credit is not looked at). Each stage's steps then visit only the ports with VCs in
  // it: most busy ports at low load hold a routed packet with its output VC and only bid for
  // the switch, and a route or VC-request step on them found nothing to do.
  const PortClasses stage = ports.classify_of(s.router_busy[rr] | arrivals.flits, [&](int gp) {
    return port_stage(s.port_state[s.pp(rep, gp)]);
  });
  const u64 busy = stage.of[kStageBusy];
  ports.once([&] { s.router_busy[rr] = busy; });  // every thread has read it (classify ends with a barrier)
  if (busy) {
    // VC allocation runs for ports with a VC routed in this step or before and no output VC
    // yet; the switch for those and the ports whose VCs hold one (the speculative pass bids
    // for every occupied VC: all busy ports).
    const u64 va_ports = stage.of[kStageUnrouted] | stage.of[kStageAwaitingVc];
    const u64 sa_ports = s.prm.router.speculative ? busy : va_ports | stage.of[kStageHolding];
    if (s.sz.demand_P)
      ports.once([&] { step_route_in_port_order(s, rep, r, t); });
    else
      ports.each_of(stage.of[kStageUnrouted] | (s.prm.routing.reroute_waiting ? stage.of[kStageAwaitingVc] : 0),
                    [&](int gp) { step_route(s, rep, r, gp, t); });
    run_vc_allocation(s, rep, r, t, ports, va_ports);  // phases/allocation.cuh
    // router.speedup: with "cioq" and "ioq" the switch runs that many allocation-and-traversal
    // passes per cycle, so up to `speedup` flits leave each input and enter each output (one per pass).
    for (int pass = 0; pass < s.prm.router.speedup; ++pass) {
      const PortSets sent = run_switch_allocation(s, rep, r, t, ports, sa_ports);  // outputs matched, inputs that send
      if (!sent.outputs) break;  // no flit moved: a further pass would find the same state
      moved |= ports.gather_of(sent.outputs, [&](int gp) { return u64(step_traverse_out(s, rep, r, gp, t)); }).inputs != 0;
      ports.each_of(sent.inputs, [&](int gp) { step_traverse_in(s, rep, gp, t); });
    }
  }
  if (moved) ports.once([&] { s.router_last_move[rr] = t; });
  if (snapshot_due(s, t)) {  // UGAL-G's congestion snapshot (routing/snapshot.cuh)
    if (s.sz.demand_P) ports.once([&] { build_port_demand(s, rep, r); });
    ports.each([&](int gp) { step_snapshot_port(s, rep, gp, t); });
  }
  // Every thread has read this cycle's calendar slot (steps since end with barriers): clear it
  // for its next use, cal_len cycles on.
  if (arrived && s.sz.cal_len) ports.once([&] { clear_arrivals(s, rep, r, t); });
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
    u64 clash = 0;  // bits that break one-to-one (the compiler drops it where it is unread)
    for (int gp = p0; gp < p1; ++gp) {
      const u64 m = f(gp);
      clash |= (m & (m - 1)) | (sets.outputs & m);
      sets.outputs |= m;
      sets.inputs |= u64(m != 0) << (gp - p0);  // no branch: whether a port returns a mask is unpredictable
    }
    sets.one_to_one = !clash;
    return sets;
  }
  template <class F>
  FLITSIM_HD PortSets gather_of(u64 mask, F&& f) const {
    PortSets sets{0, 0};
    u64 clash = 0;
    for (; mask; mask &= mask - 1) {
      const int i = lowest_bit(mask);
      const u64 m = f(p0 + i);
      clash |= (m & (m - 1)) | (sets.outputs & m);
      sets.outputs |= m;
      sets.inputs |= u64(m != 0) << i;
    }
    sets.one_to_one = !clash;
    return sets;
  }
  template <class F>
  FLITSIM_HD PortClasses classify_of(u64 mask, F&& f) const {
    PortClasses c{{0, 0, 0, 0}};
    for (; mask; mask &= mask - 1) {
      const int i = lowest_bit(mask);
      const PortClassFlags k = f(p0 + i);
      for (int j = 0; j < kPortClasses; ++j) c.of[j] |= u64(k.in[j]) << i;  // unrolled, no branch
    }
    return c;
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

FLITSIM_HD void router_cycle(const SimView& __restrict__ s, int rep, int r, long long t) {
  router_cycle_steps(s, rep, r, t, PortsInOrder{s.port_offset[r], s.port_offset[r + 1]});
}

}  // namespace flitsim
