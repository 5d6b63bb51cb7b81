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
// ordered step (route with demand sensing) runs on lane 0 (`once`). The warp executor
// (lane_ports.cuh) also runs on the CPU on an emulated warp (FLITSIM_STEP_ORDER=warp).
#pragma once
#include <cooperative_groups.h>

#include "cycle.cuh"
#include "lane_ports.cuh"

namespace flitsim {

constexpr int kWarpsPerBlock = 4;  // routers per block in the block-type schedules

// A GPU warp's lanes for LanePorts (lane_ports.cuh): the collectives are warp intrinsics over
// all 32 lanes.
struct CudaWarpLanes {
  int lane_;
  __device__ __forceinline__ int lane() const { return lane_; }
  __device__ __forceinline__ void sync() const { __syncwarp(); }
  __device__ __forceinline__ unsigned ballot(bool b) const { return __ballot_sync(0xffffffffu, b); }
  __device__ __forceinline__ unsigned reduce_or(unsigned v) const { return __reduce_or_sync(0xffffffffu, v); }
  __device__ __forceinline__ unsigned reduce_add(unsigned v) const { return __reduce_add_sync(0xffffffffu, v); }
};
using WarpPorts = LanePorts<CudaWarpLanes>;

// The router a warp of a block-type kernel simulates, or −1 past the last one.
__device__ inline int warp_router(const SimView& s, int block) {
  const int r = block * kWarpsPerBlock + int(threadIdx.x) / 32;
  return r < s.sz.R ? r : -1;
}

__device__ inline void warp_router_cycle(const SimView& s, int rep, int r, long long t) {
  router_cycle_steps(s, rep, r, t, WarpPorts{s.port_offset[r], s.port_offset[r + 1], CudaWarpLanes{int(threadIdx.x) % kWarpLanes}});
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
