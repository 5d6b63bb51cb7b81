// The `graph` schedule (schedules.cuh): the block kernel with the cycle read from device memory
// (a captured graph replays fixed parameters) and advanced by a one-thread kernel after each
// cycle; cuda_backend.cu captures a chunk of these cycles once and replays it.
#include "schedules.cuh"

namespace flitsim {

namespace {

__global__ void block_schedule_kernel_at(const __grid_constant__ SimView s, const long long* t) {
  const int r = warp_router(s, blockIdx.x);
  if (r < 0) return;
  warp_router_cycle(s, blockIdx.y, r, *t);
}
__global__ void advance_cycle_kernel(long long* t) { *t += 1; }

}  // namespace

cudaError_t launch_graph_cycle(const SimView& s, long long* t_dev, cudaStream_t stream) {
  block_schedule_kernel_at<<<warp_grid(s), warp_block(), 0, stream>>>(s, t_dev);
  advance_cycle_kernel<<<1, 1, 0, stream>>>(t_dev);
  return cudaGetLastError();
}

}  // namespace flitsim
