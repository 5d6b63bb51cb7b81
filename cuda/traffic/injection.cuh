// Open-loop packet generation and destination patterns.
//
// Bernoulli (traffic.injection = "bernoulli"): whether node n creates a packet at cycle c is a
// pure function of (seed, n, c), so the unbounded source queue needs no storage: a node's
// queue is the set of creation cycles between its scan pointer and now, found again by
// re-drawing (DESIGN.md §1, open loop).
//
// On/off (traffic.injection = "onoff"): a two-state Markov chain per node gates the same
// Bernoulli draw (BookSim's on_off process). Its transition at cycle c is a pure function of
// (seed, n, c) and of the state at c − 1, so the chain is deterministic; the node keeps its
// state at two points: the front (ni_on, cycle t − 1, advanced every cycle by the node's
// router) and the scan pointer (ni_scan_on, cycle ni_scan − 1), from which the queue is
// re-derived exactly as in the Bernoulli case.
//
// Packet sizes (traffic.packet_sizes): uniform in [packet_size, packet_size + size_span], a
// pure function of (seed, n, creation cycle).
#pragma once
#include "../rng.cuh"
#include "../state.cuh"
#include "patterns.cuh"

namespace flitsim {

// The Bernoulli draw at (n, c) (with on/off: the draw made while the source is on).
FLITSIM_HD bool creates_packet(const SimView& s, int rep, int n, long long c) {
  return uint64_t(draw32(s.rep_seed[rep], uint32_t(n), c, kRngInject)) < s.rep_threshold[rep];
}

// On/off source: its state at cycle c given its state `on` at c − 1.
FLITSIM_HD bool burst_next(const SimView& s, int rep, int n, long long c, bool on) {
  const uint32_t u = draw32(s.rep_seed[rep], uint32_t(n), c, kRngBurst);
  return on ? u >= s.prm.burst_beta : u < s.prm.burst_alpha;
}

// On/off source: its state at cycle −1 (the stationary distribution, P(on) = α/(α+β), drawn
// once per node; the host fills ni_on and ni_scan_on with it).
FLITSIM_HD bool burst_initial(uint64_t seed, uint32_t alpha, uint32_t beta, int n) {
  const uint64_t a = alpha, b = beta;
  return (uint64_t(draw32(seed, uint32_t(n), -1, kRngBurst)) * (a + b)) >> 32 < a;
}

// Size in flits of the packet node n created at cycle c.
FLITSIM_HD int packet_size_of(const SimView& s, int rep, int n, long long c) {
  if (s.prm.size_span == 0) return s.prm.packet_size;
  return s.prm.packet_size +
         int(draw_below(draw32(s.rep_seed[rep], uint32_t(n), c, kRngSize), uint32_t(s.prm.size_span) + 1));
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
  const int d = pattern_rank(s, rep, n, c, k, tab, u);
  return placed ? tab[s.prm.tr_node + d] : d;
}

}  // namespace flitsim
