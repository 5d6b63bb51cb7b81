// Phase 3, route computation: a head flit at the front of an input VC gets its output port
// and allowed output VC range from the configured routing function (route_packet,
// routing/dispatch.cuh).
#pragma once
#include "../routing/dispatch.cuh"

namespace flitsim {

// Output demand of router r (port_congestion): flits in its input VCs per output they are
// routed to. Only routings that sense it set sz.demand_P.
FLITSIM_HD void build_port_demand(const SimView& __restrict__ s, int rep, int r) {
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) s.port_demand[s.pp(rep, gp)] = 0;
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp)
    for (u64 m = s.port_state[s.pp(rep, gp)].vc_mask; m; m &= m - 1) {
      const long long q = s.pv(rep, gp, lowest_bit(m));
      if (s.ivc[q].out_port >= 0) s.port_demand[s.pp(rep, s.ivc[q].out_port)] += s.ivc_count[q];
    }
}

// One input port's heads get their route. With demand sensing (sz.demand_P) a head also adds
// its flits to its output's demand, which heads routed after it in the same cycle see: that
// dependency makes route the one step whose ports run in port order (cycle.cuh).
FLITSIM_HD void step_route(const SimView& __restrict__ s, int rep, int r, int gp, long long t) {
  const long long ip = s.pp(rep, gp);
  // Occupied VCs without a route; with prm.routing.reroute_waiting (Duato's protocol,
  // routing/torus_min_adapt.cuh) also the routed ones still without an output VC.
  const u64 redo = s.prm.routing.reroute_waiting ? s.port_state[ip].held_mask : s.port_state[ip].routed_mask;
  for (u64 m = s.port_state[ip].vc_mask & ~redo; m; m &= m - 1) {
    const int v = lowest_bit(m);
    const long long q = s.pv(rep, gp, v);
    const int32_t pid = s.ibuf[q * s.sz.B + s.ivc[q].head].pid();  // a head's: tails reset out_port
    const RouteChoice c = route_packet(s, rep, r, pid, t);
    if (c.port < 0 || c.vc_lo >= c.vc_hi) {  // never silently stall a packet: the driver fails the run
      atomic_add(&s.rep_sums[(long long)rep * kRepSums + kRouteFailures], 1);
      continue;
    }
    s.ivc[q].out_port = c.port;
    s.port_state[ip].routed_mask |= u64(1) << v;
    s.ivc[q].vc_lo = int16_t(c.vc_lo);
    s.ivc[q].vc_hi = int16_t(c.vc_hi);
    if (s.sz.demand_P) s.port_demand[s.pp(rep, c.port)] += s.ivc_count[q];  // later heads see it
  }
}

// The whole route phase of a router when routing senses demand: demand rebuilt, then the
// input ports in port order.
FLITSIM_HD void step_route_in_port_order(const SimView& __restrict__ s, int rep, int r, long long t) {
  build_port_demand(s, rep, r);
  for (int gp = s.port_offset[r]; gp < s.port_offset[r + 1]; ++gp) step_route(s, rep, r, gp, t);
}

// The snapshot step (routing/snapshot.cuh), after traverse: at the end of an epoch router r
// publishes the congestion of its ports as they stand at the end of the cycle (its output
// demand rebuilt from its input VCs; the route step rebuilds that scratch again next cycle).
// build_port_demand runs once per router (snapshot_demand), then each port publishes its own.
FLITSIM_HD bool snapshot_due(const SimView& __restrict__ s, long long t) { return s.sz.snap_P && snap_write_base(s, 0, t) >= 0; }
FLITSIM_HD void step_snapshot_port(const SimView& __restrict__ s, int rep, int gp, long long t) {
  s.cong_snap[snap_write_base(s, rep, t) + gp] = port_congestion(s, rep, gp);
}

}  // namespace flitsim
