// The `persistent` schedule (schedules.cuh): one cooperative launch per chunk; resident blocks
// stride over (replica, router-group) work items for each cycle, with a grid barrier between
// cycles.
#include <cooperative_groups.h>

#include <algorithm>

#include "schedules.cuh"

namespace flitsim {

namespace {

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

}  // namespace

cudaError_t launch_persistent_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream) {
  // As many blocks as can be resident at once (a grid barrier needs them all running), at
  // most one per work item.
  int per_sm = 0, sms = 0, dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_schedule_kernel, warp_block().x, 0);
  if (e != cudaSuccess) return e;
  const int items = int(warp_grid(s).x) * s.sz.reps, blocks = std::max(1, std::min(items, per_sm * sms));
  SimView view = s;  // cudaLaunchCooperativeKernel takes the arguments' addresses
  void* args[] = {&view, &t0, &n};
  return cudaLaunchCooperativeKernel((void*)persistent_schedule_kernel, dim3(blocks), warp_block(), args, 0, stream);
}

}  // namespace flitsim
