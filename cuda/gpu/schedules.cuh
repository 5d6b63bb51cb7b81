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
#include <cuda_runtime.h>

#include "cuda/cycle.cuh"
#include "cuda/lane_ports.cuh"

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
//
// Each schedule's kernels and launcher live in a translation unit of their own
// (schedule_<name>.cu): every kernel inlines the whole router cycle, and ptxas took 560 of the
// 700 s that nvcc spent on the four of them in one file (nvcc --time, 2-core machine), so
// apart they compile side by side. The launchers return their launches' error.

// router: cycles t0 .. t0 + n − 1, a launch each, a thread per (replica, router).
cudaError_t launch_router_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream);
// block: cycles t0 .. t0 + n − 1, a launch each, a warp per (replica, router).
cudaError_t launch_block_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream);
// graph: one cycle of the block kernel at the cycle *t_dev, then *t_dev += 1 (two launches, for
// capture into a CUDA Graph that replays them).
cudaError_t launch_graph_cycle(const SimView& s, long long* t_dev, cudaStream_t stream);
// persistent: cycles t0 .. t0 + n − 1 in one cooperative launch.
cudaError_t launch_persistent_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream);

// The block-type schedules' grid: kWarpsPerBlock routers per block, replicas on y.
inline dim3 warp_grid(const SimView& s) { return dim3((s.sz.R + kWarpsPerBlock - 1) / kWarpsPerBlock, s.sz.reps); }
inline dim3 warp_block() { return dim3(32 * kWarpsPerBlock); }

}  // namespace flitsim
