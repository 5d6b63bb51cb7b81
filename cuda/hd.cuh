// Portability layer for code compiled by both g++ (CPU backend) and nvcc (CUDA backend).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define FLITSIM_HD __host__ __device__ __forceinline__
#define FLITSIM_HD_STEP FLITSIM_HD
#else
#define FLITSIM_HD inline
// The per-port allocation steps, inlined into their executor loop on the CPU too: g++ stops
// inlining them once the router-model options make them a little larger, and the calls then
// cost instructions every cycle (benchmarks/results/layout-decisions.md).
#define FLITSIM_HD_STEP inline __attribute__((always_inline))
#endif

namespace flitsim {

// Single-token names so the state X-macro can write `type{}`.
using i64 = long long;
using u64 = unsigned long long;

// Index of the lowest set bit of a non-zero mask.
FLITSIM_HD int lowest_bit(u64 m) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(m)) - 1;
#else
  return __builtin_ctzll(m);
#endif
}

// Number of set bits of a mask.
FLITSIM_HD int bit_count(u64 m) {
#if defined(__CUDA_ARCH__)
  return __popcll(m);
#else
  return __builtin_popcountll(m);
#endif
}

// Integer atomics: sums of integers do not depend on the order threads add them in, so the
// statistics stay bit-identical across thread counts and backends.
FLITSIM_HD void atomic_add(long long* p, long long v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// The same, returning the value before the addition (the workload's count of unfinished
// foreground nodes: the node that takes it to zero ends the phase).
FLITSIM_HD long long atomic_fetch_add(long long* p, long long v) {
#if defined(__CUDA_ARCH__)
  return static_cast<long long>(atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// Relaxed load/store for the few values one router writes while another may read them in
// the same cycle (packet-slot release). Readers only act on values from earlier cycles, so
// either outcome of the race gives the same decision.
FLITSIM_HD long long load_relaxed(const long long* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile long long*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}
FLITSIM_HD void store_relaxed(long long* p, long long v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile long long*>(p) = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

}  // namespace flitsim
