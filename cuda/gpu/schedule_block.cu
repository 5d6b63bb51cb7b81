// The `block` schedule (schedules.cuh): a warp per (replica, router), lanes over its ports; grid
// (ceil(R / kWarpsPerBlock), reps), a launch per cycle.
#include "schedules.cuh"

namespace flitsim {

namespace {

// The whole warp leaves together when past the last router, so __syncwarp always has all lanes.
__global__ void block_schedule_kernel(const __grid_constant__ SimView s, long long t) {
  const int r = warp_router(s, blockIdx.x);
  if (r < 0) return;
  warp_router_cycle(s, blockIdx.y, r, t);
}

}  // namespace

cudaError_t launch_block_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream) {
  for (long long t = t0; t < t0 + n; ++t) block_schedule_kernel<<<warp_grid(s), warp_block(), 0, stream>>>(s, t);
  return cudaGetLastError();
}

}  // namespace flitsim
