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
FLITSIM_HD int pat_hotspot(const SimParams& prm, int k, int N, const int32_t* hot, uint32_t u, uint32_t u2) {
  if (prm.hot_all || u < prm.hot_threshold) return hot[draw_below(u2, uint32_t(prm.hot_count))];
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

// Destination rank of source rank k of node n (replica rep) for a packet created at cycle c;
// u is the node's destination draw. One case per PatternKind and no default: with
// -Werror=switch a kind without a case fails to compile instead of falling back to uniform.
FLITSIM_HD int pattern_rank(const SimView& s, int rep, int n, long long c, int k, const int32_t* tab, uint32_t u) {
  const SimParams& prm = s.prm;
  const int N = s.sz.N;
  switch (prm.pattern) {
    case PatternKind::Uniform: return pat_uniform(k, N, u);
    case PatternKind::BitComp: return pat_bitcomp(k, N);
    case PatternKind::BitRev: return pat_bitrev(k, prm.pat_bits);
    case PatternKind::Transpose: return pat_transpose(k, prm.pat_bits);
    case PatternKind::Shuffle: return pat_shuffle(k, prm.pat_bits);
    case PatternKind::Tornado:
    case PatternKind::Neighbor:
    case PatternKind::Shift:
    case PatternKind::GroupShift: return pat_shift(k, N, prm.pat_shift);
    case PatternKind::RandPerm:
    case PatternKind::Table: return pat_randperm(k, tab + prm.tr_perm);
    case PatternKind::Hotspot:
      return pat_hotspot(prm, k, N, tab + prm.tr_hot, u, draw32(s.rep_seed[rep], uint32_t(n), c, kRngDest, 1));
    case PatternKind::Urb: return pat_urb(k, tab + prm.tr_hx, s.rep_seed[rep], uint32_t(n), c);
    case PatternKind::UniformSelf: return pat_uniform_self(N, u);
    case PatternKind::BadDragon: return pat_bad_dragon(k, N, prm.pat_group, u);
  }
  return -1;  // unreachable: every kind has a case
}

}  // namespace flitsim
