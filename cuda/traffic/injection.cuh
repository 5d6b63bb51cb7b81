// Open-loop packet generation and destination patterns.
//
// Bernoulli (traffic.injection = "bernoulli"): each node creates a packet in each cycle with
// probability p, independently, so the cycles between a node's packets are geometric,
// P(gap = g) = p (1 − p)^(g − 1). The engine draws the gaps, not the cycles: packet k of node
// n is created creation_gap(n, k) cycles after packet k − 1 (packet 0 at cycle gap − 1), a
// pure function of (seed, n, k), so the work is per packet, not per node and cycle. The
// unbounded source queue needs no storage: it is packets ni_scan_k .. ni_next_k − 1, whose
// creation cycles are found again by re-drawing the same gaps from the scan pointer
// (DESIGN.md §1, open loop).
//
// On/off (traffic.injection = "onoff"): a two-state Markov chain per node gates a per-cycle
// Bernoulli draw (creates_packet, BookSim's on_off process). Its transition at cycle c is a pure function of
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

constexpr long long kNeverCreated = 1LL << 62;  // the gap of a source with p = 0

// Cycles from node n's packet k − 1 to its packet k (Bernoulli). `cdf` is the replica's table:
// cdf[i] = P(gap <= i + 1)·2^32 (host: fill_gap_cdf). One 32-bit draw picks the gap among the
// first kGapTable cycles by binary search; with probability P(gap > kGapTable) the gap is
// longer, and since the geometric law forgets its past the draw is repeated (next salt) for
// the following kGapTable cycles. Integer arithmetic only: CPU and GPU agree bit for bit.
FLITSIM_HD long long creation_gap(uint64_t seed, const u64* cdf, int n, long long k) {
  const u64 within = cdf[kGapTable - 1];  // P(gap <= kGapTable)·2^32
  if (within == 0) return kNeverCreated;
  for (uint32_t round = 0;; ++round) {
    const uint32_t u = draw32(seed, uint32_t(n), k, kRngGap, round);
    if (u >= within) continue;
    int lo = 0, hi = kGapTable - 1;  // the smallest i with u < cdf[i]
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (u < cdf[mid]) hi = mid;
      else lo = mid + 1;
    }
    return (long long)round * kGapTable + lo + 1;
  }
}
// Traffic class c's random stream (SimParams::classes): class 0 draws from the replica's seed
// itself, so a run with one class draws what it drew before classes existed; Philox keys
// (the seed) that differ give independent streams.
FLITSIM_HD uint64_t class_seed(uint64_t seed, int c) { return c == 0 ? seed : seed ^ (0xD1B54A32D192ED03ull * uint64_t(c)); }
FLITSIM_HD uint64_t class_seed(const SimView& s, int rep, int c) { return class_seed(s.rep_seed[rep], c); }

FLITSIM_HD long long creation_gap(const SimView& s, int rep, int n, long long k, int c = 0) {
  if (c == 0) return creation_gap(s.rep_seed[rep], s.rep_gap_cdf + (long long)rep * kGapTable, n, k);
  return creation_gap(class_seed(s, rep, c), s.cls_gap_cdf + ((long long)(c - 1) * s.sz.reps + rep) * kGapTable, n, k);
}

// The on/off source's per-cycle draw at (n, c), made while the source is on.
FLITSIM_HD bool creates_packet(const SimView& s, int rep, int n, long long c) {
  return uint64_t(draw32(s.rep_seed[rep], uint32_t(n), c, kRngInject)) < s.rep_threshold[rep];
}

// On/off source: its state at cycle c given its state `on` at c − 1.
FLITSIM_HD bool burst_next(const SimView& s, int rep, int n, long long c, bool on) {
  const uint32_t u = draw32(s.rep_seed[rep], uint32_t(n), c, kRngBurst);
  return on ? u >= s.prm.traffic.burst_beta : u < s.prm.traffic.burst_alpha;
}

// On/off source: its state at cycle −1 (the stationary distribution, P(on) = α/(α+β), drawn
// once per node; the host fills ni_on and ni_scan_on with it).
FLITSIM_HD bool burst_initial(uint64_t seed, uint32_t alpha, uint32_t beta, int n) {
  const uint64_t a = alpha, b = beta;
  return (uint64_t(draw32(seed, uint32_t(n), -1, kRngBurst)) * (a + b)) >> 32 < a;
}

// Size in flits of the packet node n created at cycle c (in traffic class cls).
FLITSIM_HD int packet_size_of(const SimView& s, int rep, int n, long long c, int cls = 0) {
  const TrafficParams& tp = class_traffic(s.prm, cls);
  if (tp.size_span == 0) return tp.packet_size;
  return tp.packet_size + int(draw_below(draw32(class_seed(s, rep, cls), uint32_t(n), c, kRngSize), uint32_t(tp.size_span) + 1));
}

// Destination node of the packet node n created at cycle c: the pattern maps the node's
// process rank to a destination rank, which placement maps back to a node (random placement
// keeps uniform traffic uniform, so it is skipped there).
// Traffic class cls reads its own parameters, stream and slice of the traffic table.
FLITSIM_HD int destination(const SimView& s, int rep, int n, long long c, int cls = 0) {
  const TrafficParams& tp = class_traffic(s.prm, cls);
  const uint64_t seed = class_seed(s, rep, cls);
  const uint32_t u = draw32(seed, uint32_t(n), c, kRngDest);
  if (tp.pattern == PatternKind::Uniform) return pat_uniform(n, s.sz.N, u);
  const int32_t* tab = s.tr_table + (long long)rep * s.sz.tr_len + s.prm.classes.tr_base[cls];
  const bool placed = tp.tr_rank >= 0;
  const int k = placed ? tab[tp.tr_rank + n] : n;
  const int d = pattern_rank(s, tp, seed, n, c, k, tab, u);
  return placed ? tab[tp.tr_node + d] : d;
}

}  // namespace flitsim
