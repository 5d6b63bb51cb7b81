// Destination patterns (docs/traffic.md). Each function maps a source process rank k in
// [0, N) to a destination rank; traffic.placement maps ranks to nodes (injection.cuh).
// Random choices use the destination draw u (and salted redraws), a pure function of
// (seed, node, creation cycle), so a packet's destination never depends on thread order.
// Bit permutations need N = 2^pat_bits (checked on the host). Table-driven patterns read the
// replica's slice `tab` of tr_table at the offsets in SimParams.
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

// Uniform over the other N − 1 ranks.
FLITSIM_HD int pat_uniform(int k, int N, uint32_t u) {
  const int d = int(draw_below(u, uint32_t(N - 1)));
  return d >= k ? d + 1 : d;
}

// Uniform over all N ranks, the source included (BookSim2's uniform: RandomInt(N − 1)).
FLITSIM_HD int pat_uniform_self(int N, uint32_t u) { return int(draw_below(u, uint32_t(N))); }

// BookSim2's bad_dragon: a rank drawn uniformly from the next group, (g + 1) mod G, of
// `group` consecutive ranks (a new draw per packet, not a fixed shift).
FLITSIM_HD int pat_bad_dragon(int k, int N, int group, uint32_t u) {
  const int next = int((long long)(k / group + 1) * group % N);
  return next + int(draw_below(u, uint32_t(group)));
}

// Bit complement in index form, K − 1 − k (P0:L104); equals ~k & (N − 1) when N = 2^b.
FLITSIM_HD int pat_bitcomp(int k, int N) { return N - 1 - k; }

// Bit reversal of the b-bit rank.
FLITSIM_HD int pat_bitrev(int k, int b) {
  int d = 0;
  for (int i = 0; i < b; ++i) d |= ((k >> i) & 1) << (b - 1 - i);
  return d;
}

// Matrix transpose: the rank is (row, col) with b/2 bits each (b even); (r, c) -> (c, r).
FLITSIM_HD int pat_transpose(int k, int b) {
  const int h = b / 2, mask = (1 << h) - 1;
  return ((k & mask) << h) | ((k >> h) & mask);
}

// Perfect shuffle: rotate the b-bit rank left by one.
FLITSIM_HD int pat_shuffle(int k, int b) {
  const int mask = (1 << b) - 1;
  return ((k << 1) | (k >> (b - 1))) & mask;
}

// Shift by `shift` ranks modulo N (also tornado: ⌈N/2⌉ − 1; neighbor: 1; group-shift:
// m·a·p). `shift` is already reduced into [0, N) on the host.
FLITSIM_HD int pat_shift(int k, int N, long long shift) { return int((k + shift) % N); }

// Random permutation fixed per replica (computed on the host from the seed).
FLITSIM_HD int pat_randperm(int k, const int32_t* perm) { return perm[k]; }

// Hotspot: with probability hot_threshold/2^32 (always when hot_all) a uniform choice among
// the hotspot ranks, otherwise uniform over the other ranks.
FLITSIM_HD int pat_hotspot(const TrafficParams& tp, int k, int N, const int32_t* hot, uint32_t u, uint32_t u2) {
  if (tp.hot_all || u < tp.hot_threshold) return hot[draw_below(u2, uint32_t(tp.hot_count))];
  return pat_uniform(k, N, u2);
}

// HyperX uniform random bisection (URB, P4 Table 3; TARGETS §3.5 item 1). hx = [D, T,
// widths[D], targeted[D]]; rank k = t + T·(x_0 + W_0·(x_1 + …)). The terminal index is
// complemented (T − 1 − t), every targeted dimension's coordinate is complemented
// (W − 1 − x), every other coordinate is uniform over [0, W) from its own draw (salt d of the
// destination purpose, so the choice is a pure function of (seed, node, creation cycle)).
FLITSIM_HD int pat_urb(int k, const int32_t* hx, uint64_t seed, uint32_t n, long long c) {
  const int D = hx[0], T = hx[1];
  const int32_t* W = hx + 2;
  const int32_t* targeted = hx + 2 + D;
  const int t = k % T;
  int rest = k / T, d = 0, stride = 1;
  int dst = T - 1 - t;
  for (int i = 0; i < D; ++i) {
    const int x = rest % W[i];
    rest /= W[i];
    const int x2 = targeted[i] ? W[i] - 1 - x
                               : int(draw_below(draw32(seed, n, c, kRngDest, uint32_t(i)), uint32_t(W[i])));
    d += x2 * stride;
    stride *= W[i];
  }
  return dst + T * d;
}

// The registry's device rules (traffic/registry.h): one signature, so the dispatch below is
// generated from the registry. What a rule may read:
struct PatternArgs {
  const SimView& s;
  const TrafficParams& tp;  // the packet's traffic class's parameters (SimParams::classes)
  uint64_t seed;       // the class's random stream (injection.cuh, class_seed)
  int n;               // source node
  long long c;         // creation cycle
  int k;               // source rank
  const int32_t* tab;  // the replica's traffic table
  uint32_t u;          // the node's destination draw
};
FLITSIM_HD int rule_uniform(const PatternArgs& a) { return pat_uniform(a.k, a.s.sz.N, a.u); }
FLITSIM_HD int rule_bitcomp(const PatternArgs& a) { return pat_bitcomp(a.k, a.s.sz.N); }
FLITSIM_HD int rule_bitrev(const PatternArgs& a) { return pat_bitrev(a.k, a.tp.pat_bits); }
FLITSIM_HD int rule_transpose(const PatternArgs& a) { return pat_transpose(a.k, a.tp.pat_bits); }
FLITSIM_HD int rule_shuffle(const PatternArgs& a) { return pat_shuffle(a.k, a.tp.pat_bits); }
// Shift, tornado, neighbor and group-shift: a shift the host reduced into [0, N).
FLITSIM_HD int rule_shift(const PatternArgs& a) { return pat_shift(a.k, a.s.sz.N, a.tp.pat_shift); }
// A rank -> rank map at tr_perm: the replica's random permutation, or a fixed map the host
// computed (worst-case, swap2, dcr).
FLITSIM_HD int rule_table(const PatternArgs& a) { return pat_randperm(a.k, a.tab + a.tp.tr_perm); }
FLITSIM_HD int rule_hotspot(const PatternArgs& a) {
  return pat_hotspot(a.tp, a.k, a.s.sz.N, a.tab + a.tp.tr_hot, a.u, draw32(a.seed, uint32_t(a.n), a.c, kRngDest, 1));
}
FLITSIM_HD int rule_urb(const PatternArgs& a) {
  return pat_urb(a.k, a.tab + a.tp.tr_hx, a.seed, uint32_t(a.n), a.c);
}
// BookSim2's conventions (docs/traffic.md): uniform over all N ranks, the source included
// (traffic.self = true selects it), and a random rank of the next group (bad-dragon).
FLITSIM_HD int rule_uniform_self(const PatternArgs& a) { return pat_uniform_self(a.s.sz.N, a.u); }
FLITSIM_HD int rule_bad_dragon(const PatternArgs& a) { return pat_bad_dragon(a.k, a.s.sz.N, a.tp.pat_group, a.u); }

// Destination rank of source rank k of node n (traffic class parameters tp, stream seed) for a packet created at cycle c;
// u is the node's destination draw. One case per registry line and no default (-Werror=switch:
// the switch over PatternKind is generated from the list the enum is, so a kind cannot lack its
// case, and a line naming a rule that does not exist fails to compile).
FLITSIM_HD int pattern_rank(const SimView& s, const TrafficParams& tp, uint64_t seed, int n, long long c, int k,
                            const int32_t* tab, uint32_t u) {
  const PatternArgs a{s, tp, seed, n, c, k, tab, u};
  switch (tp.pattern) {
#define FLITSIM_PATTERN_CASE(Kind, id, name, rule, setup, dims) \
  case PatternKind::Kind: return rule(a);
    FLITSIM_PATTERNS(FLITSIM_PATTERN_CASE)
#undef FLITSIM_PATTERN_CASE
  }
  return -1;  // unreachable: every kind has a case
}

}  // namespace flitsim
