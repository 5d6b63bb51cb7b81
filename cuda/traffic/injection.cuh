// Open-loop packet generation (Bernoulli per node and cycle) and destination patterns.
// Whether node n creates a packet at cycle c is a pure function of (seed, n, c), so the
// unbounded source queue needs no storage: a node's queue is the set of creation cycles
// between its scan pointer and now, found again by re-drawing (DESIGN.md §1, open loop).
#pragma once
#include "../rng.cuh"
#include "../state.cuh"
#include "patterns.cuh"

namespace flitsim {

FLITSIM_HD bool creates_packet(const SimView& s, int rep, int n, long long c) {
  return uint64_t(draw32(s.rep_seed[rep], uint32_t(n), c, kRngInject)) < s.rep_threshold[rep];
}

// Destination node of the packet node n created at cycle c: the pattern maps the node's
// process rank to a destination rank, which placement maps back to a node (random placement
// keeps uniform traffic uniform, so it is skipped there).
FLITSIM_HD int destination(const SimView& s, int rep, int n, long long c) {
  const uint32_t u = draw32(s.rep_seed[rep], uint32_t(n), c, kRngDest);
  if (s.prm.pattern == PatternKind::Uniform) return pat_uniform(n, s.sz.N, u);
  const int32_t* tab = s.tr_table + (long long)rep * s.sz.tr_len;
  const bool placed = s.prm.tr_rank >= 0;
  const int k = placed ? tab[s.prm.tr_rank + n] : n;
  const uint32_t u2 = s.prm.pattern == PatternKind::Hotspot ? draw32(s.rep_seed[rep], uint32_t(n), c, kRngDest, 1) : 0;
  const int d = pattern_rank(s.prm, k, s.sz.N, tab, u, u2);
  return placed ? tab[s.prm.tr_node + d] : d;
}

}  // namespace flitsim
