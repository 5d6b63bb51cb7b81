// CUDA schedules (sim.schedule): how the kernels run router_cycle_steps (cycle.cuh) over every
// (replica, router) of a cycle. The step functions are the same in all of them; only the
// mapping of work to threads and the launch pattern differ.
//   router      one thread per (replica, router), one launch per cycle (the first schedule);
//   block       one warp per (replica, router), lanes over ports, __syncwarp between steps;
//               kWarpsPerBlock routers per block; replicas on the grid's second dimension;
//   graph       the block kernel, a chunk of cycles captured once as a CUDA Graph and
//               replayed; the cycle number is read from device memory;
//   persistent  one cooperative launch per chunk: resident blocks loop over the routers of
//               every cycle with a grid-wide barrier between cycles.
// Why a warp per router is legal: within a step a port writes only its own state (proved on
// the CPU by running every step's ports in shuffled order, tests/test_step_order.py); the one
// ordered step (route with demand sensing) runs on lane 0 (`once`).
#pragma once
#include <cooperative_groups.h>

#include "cycle.cuh"

namespace flitsim {

constexpr int kWarpsPerBlock = 4;  // routers per block in the block-type schedules

// Ports of one router, run by the 32 lanes of one warp.
struct WarpPorts {
  int p0, p1, lane;
  template <class F>
  __device__ void each(F&& f) const {
    for (int gp = p0 + lane; gp < p1; gp += 32) f(gp);
    __syncwarp();
  }
  template <class F>
  __device__ void each_of(u64 mask, F&& f) const {
    for (int i = lane; i < p1 - p0; i += 32)
      if ((mask >> i) & 1) f(p0 + i);
    __syncwarp();
  }
  template <class F>
  __device__ PortSets gather(F&& f) const {
    return gather_of(~u64(0), f);
  }
  template <class F>
  __device__ PortSets gather_of(u64 mask, F&& f) const {
    u64 outputs = 0, inputs = 0;
    unsigned bits = 0;  // this lane's mask bits, summed over its rounds
    for (int base = 0; base < p1 - p0; base += 32) {  // radix <= 64: at most two rounds
      const int i = base + lane;
      const u64 m = i < p1 - p0 && ((mask >> i) & 1) ? f(p0 + i) : 0;
      outputs |= m;
      bits += __popcll(m);
      inputs |= u64(__ballot_sync(0xffffffffu, m != 0)) << base;
    }
    const unsigned lo = __reduce_or_sync(0xffffffffu, unsigned(outputs));
    const unsigned hi = __reduce_or_sync(0xffffffffu, unsigned(outputs >> 32));
    // One-to-one: as many bits in all masks as ports returning one and as outputs in their OR.
    const unsigned total = __reduce_add_sync(0xffffffffu, bits);
    __syncwarp();
    const u64 all = (u64(hi) << 32) | lo;
    return PortSets{all, inputs, total == unsigned(__popcll(inputs)) && total == unsigned(__popcll(all))};
  }
  template <class F>
  __device__ PortClasses classify_of(u64 mask, F&& f) const {
    PortClasses c{{0, 0, 0, 0}};
    for (int base = 0; base < p1 - p0; base += 32) {  // radix <= 64: at most two rounds
      const int i = base + lane;
      const PortClassFlags k = i < p1 - p0 && ((mask >> i) & 1) ? f(p0 + i) : PortClassFlags{};
      for (int j = 0; j < kPortClasses; ++j) c.of[j] |= u64(__ballot_sync(0xffffffffu, k.in[j])) << base;
    }
    __syncwarp();
    return c;
  }
  // Lane l keeps the columns of outputs l and l + 32: one ballot per requested output and
  // round of 32 inputs.
  struct Columns {
    int p0;
    u64 lo, hi;
    __device__ u64 of(int gp) const { return gp - p0 < 32 ? lo : hi; }
  };
  template <class Row>
  __device__ Columns transpose(PortSets sets, Row&& row) const {
    Columns c{p0, 0, 0};
    const int radix = p1 - p0;
    const u64 row_lo = lane < radix && ((sets.inputs >> lane) & 1) ? row(p0 + lane) : 0;
    const u64 row_hi = lane + 32 < radix && ((sets.inputs >> (lane + 32)) & 1) ? row(p0 + lane + 32) : 0;
    for (u64 m = sets.outputs; m; m &= m - 1) {  // the same on every lane: no divergence
      const int o = lowest_bit(m);
      const u64 col = u64(__ballot_sync(0xffffffffu, (row_lo >> o) & 1)) |
                      (u64(__ballot_sync(0xffffffffu, (row_hi >> o) & 1)) << 32);
      if (o == lane) c.lo = col;
      if (o == lane + 32) c.hi = col;
    }
    return c;
  }
  template <class F>
  __device__ void once(F&& f) const {
    if (lane == 0) f();
    __syncwarp();
  }
};

// The router a warp of a block-type kernel simulates, or −1 past the last one.
__device__ inline int warp_router(const SimView& s, int block) {
  const int r = block * kWarpsPerBlock + int(threadIdx.x) / 32;
  return r < s.sz.R ? r : -1;
}

__device__ inline void warp_router_cycle(const SimView& s, int rep, int r, long long t) {
  router_cycle_steps(s, rep, r, t, WarpPorts{s.port_offset[r], s.port_offset[r + 1], int(threadIdx.x) % 32});
}

// Every kernel takes the SimView (1,176 bytes) as `const __grid_constant__`: read in place from
// the parameter bank. Taken by plain value and passed on by reference, each thread copied it
// into local memory at every launch (ptxas: a 1,992-byte stack frame, 816 without;
// benchmarks/results/cuda-resources-2026-11-24.md).

// router: a thread per (replica, router).
__global__ void router_schedule_kernel(const __grid_constant__ SimView s, long long t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.sz.reps * s.sz.R) return;
  router_cycle(s, i / s.sz.R, i % s.sz.R, t);
}

// block: a warp per (replica, router); grid (ceil(R / kWarpsPerBlock), reps). The whole warp
// leaves together when past the last router, so __syncwarp always has all lanes.
__global__ void block_schedule_kernel(const __grid_constant__ SimView s, long long t) {
  const int r = warp_router(s, blockIdx.x);
  if (r < 0) return;
  warp_router_cycle(s, blockIdx.y, r, t);
}

// graph: as block, with the cycle read from device memory (a captured graph replays fixed
// parameters) and advanced by a one-thread kernel after each cycle.
__global__ void block_schedule_kernel_at(const __grid_constant__ SimView s, const long long* t) {
  const int r = warp_router(s, blockIdx.x);
  if (r < 0) return;
  warp_router_cycle(s, blockIdx.y, r, *t);
}
__global__ void advance_cycle_kernel(long long* t) { *t += 1; }

// persistent: resident blocks stride over (replica, router-group) work items for each cycle,
// with a grid barrier between cycles (cooperative launch).
__global__ void persistent_schedule_kernel(const __grid_constant__ SimView s, long long t0, long long n) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const int groups = (s.sz.R + kWarpsPerBlock - 1) / kWarpsPerBlock, items = groups * s.sz.reps;
  for (long long t = t0; t < t0 + n; ++t) {
    for (int item = blockIdx.x; item < items; item += gridDim.x) {
      const int r = warp_router(s, item % groups);
      if (r >= 0) warp_router_cycle(s, item / groups, r, t);
    }
    grid.sync();
  }
}

}  // namespace flitsim
