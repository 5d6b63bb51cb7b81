// Open-loop packet generation (Bernoulli per node and cycle) and destination patterns.
// Whether node n creates a packet at cycle c is a pure function of (seed, n, c), so the
// unbounded source queue needs no storage: a node's queue is the set of creation cycles
// between its scan pointer and now, found again by re-drawing (DESIGN.md §1, open loop).
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

FLITSIM_HD bool creates_packet(const SimView& s, int rep, int n, long long c) {
  return uint64_t(draw32(s.rep_seed[rep], uint32_t(n), c, kRngInject)) < s.rep_threshold[rep];
}

// Destination of the packet node n created at cycle c.
FLITSIM_HD int destination(const SimView& s, int rep, int n, long long c) {
  const uint32_t u = draw32(s.rep_seed[rep], uint32_t(n), c, kRngDest);
  switch (s.prm.pattern) {
    case PatternKind::Uniform:
    default: {  // uniform over the other nodes
      int d = int(draw_below(u, uint32_t(s.sz.N - 1)));
      return d >= n ? d + 1 : d;
    }
  }
}

}  // namespace flitsim
