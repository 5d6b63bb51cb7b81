// The `router` schedule (schedules.cuh): a thread per (replica, router), a launch per cycle.
#include "schedules.cuh"

namespace flitsim {

namespace {

__global__ void router_schedule_kernel(const __grid_constant__ SimView s, long long t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.sz.reps * s.sz.R) return;
  router_cycle(s, i / s.sz.R, i % s.sz.R, t);
}

}  // namespace

cudaError_t launch_router_schedule(const SimView& s, long long t0, long long n, cudaStream_t stream) {
  const int items = s.sz.reps * s.sz.R, block = 128;
  for (long long t = t0; t < t0 + n; ++t) router_schedule_kernel<<<(items + block - 1) / block, block, 0, stream>>>(s, t);
  return cudaGetLastError();
}

}  // namespace flitsim
