// The congestion snapshot of global-information routing (UGAL-G; DESIGN.md §4: "reads a
// double-buffered congestion snapshot, never live neighbour state").
//
// cong_snap holds two halves of P entries per replica. Cycles are grouped into epochs of
// routing.snapshot_period cycles (e = t / period). At the end of the last cycle of epoch e
// every router writes the congestion of each of its own ports (port_congestion: downstream
// occupancy + flits queued in its input VCs for that output) into half (e + 1) & 1; during
// epoch e routers read half e & 1 — the state at the end of epoch e − 1 (all zero in epoch 0:
// an empty network). A write in cycle t therefore never goes to the half any router reads in
// cycle t, and the half it overwrites was last read in an earlier cycle, separated from the
// write by the executors' barrier between cycles: results do not depend on the order in which
// routers run. (A schedule that runs several cycles between global barriers must keep one
// barrier at the end of each epoch while the snapshot is on.)
//
// Each router writes only its own ports' entries; the step runs only when sz.snap_P is set
// (routing.algorithm = "ugal-g").
#pragma once
#include "route_choice.cuh"

namespace flitsim {

// Half of cong_snap that routers read during cycle t.
FLITSIM_HD long long snap_read_base(const SimView& s, int rep, long long t) {
  const long long e = t / s.prm.routing.snapshot_period;
  return ((long long)rep * 2 + (e & 1)) * s.sz.snap_P;
}

// Congestion of port gp at the end of the previous epoch (0 for ejection ports).
FLITSIM_HD int snap_q(const SimView& s, long long base, int gp) { return s.cong_snap[base + gp]; }

// Half of cong_snap that the snapshot step at the end of cycle t writes, or −1 when the cycle
// does not end an epoch. (The step itself, phase_snapshot, is in phases/route.cuh.)
FLITSIM_HD long long snap_write_base(const SimView& s, int rep, long long t) {
  const long long period = s.prm.routing.snapshot_period;
  if ((t + 1) % period != 0) return -1;
  return ((long long)rep * 2 + (((t + 1) / period) & 1)) * s.sz.snap_P;
}

}  // namespace flitsim
