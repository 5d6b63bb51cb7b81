// CUDA executor, simplest schedule (DESIGN.md §4): one kernel launch per cycle, one thread per
// (replica, router), running the same router_cycle() as the CPU backend. Device arrays mirror
// HostState array by array.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cycle.cuh"
#include "host/backend.hpp"

namespace flitsim {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

__global__ void cycle_kernel(SimView s, long long t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.sz.reps * s.sz.R) return;
  router_cycle(s, i / s.sz.R, i % s.sz.R, t);
}

template <class T>
void to_device(T*& dev, const std::vector<T>& host) {
  check(cudaMalloc(&dev, host.size() * sizeof(T) + 1), "cudaMalloc");
  check(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
}
template <class T>
void to_host(std::vector<T>& host, const T* dev) {
  check(cudaMemcpy(host.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

class CudaBackend : public Backend {
 public:
  ~CudaBackend() override {
#define FLITSIM_FREE(type, name, count) if (dev_.name) cudaFree(dev_.name);
    FLITSIM_STATE_ARRAYS(FLITSIM_FREE)
#undef FLITSIM_FREE
  }
  std::string name() const override { return "cuda"; }
  void upload(HostState& h) override {
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (h.bytes() > free_b)
      throw std::runtime_error("the simulation needs " + std::to_string(h.bytes() >> 20) + " MiB of device memory, " +
                               std::to_string(free_b >> 20) + " MiB are free");
    dev_ = SimView{};
    dev_.sz = h.sz;
    dev_.prm = h.prm;
#define FLITSIM_UP(type, name, count) to_device(dev_.name, h.name);
    FLITSIM_STATE_ARRAYS(FLITSIM_UP)
#undef FLITSIM_UP
  }
  void run(long long t0, long long n) override {
    const int items = dev_.sz.reps * dev_.sz.R, block = 128;
    const int grid = (items + block - 1) / block;
    for (long long t = t0; t < t0 + n; ++t) cycle_kernel<<<grid, block>>>(dev_, t);
    check(cudaGetLastError(), "cycle_kernel launch");
    check(cudaDeviceSynchronize(), "cycle_kernel");
  }
  void sync_counters(HostState& h) override {
    to_host(h.node_tagged_created, dev_.node_tagged_created);
    to_host(h.node_tagged_delivered, dev_.node_tagged_delivered);
    to_host(h.node_created_flits, dev_.node_created_flits);
    to_host(h.node_ejected_flits, dev_.node_ejected_flits);
    to_host(h.ivc_count, dev_.ivc_count);
    to_host(h.port_last_move, dev_.port_last_move);
    to_host(h.rep_sums, dev_.rep_sums);
    if (h.sz.wl_reps) {  // workload end: foreground finished and the network empty
      to_host(h.wl_fg_end, dev_.wl_fg_end);
      to_host(h.node_flits_sent, dev_.node_flits_sent);
      to_host(h.node_flits_received, dev_.node_flits_received);
    }
  }
  void download(HostState& h) override {
#define FLITSIM_DOWN(type, name, count) to_host(h.name, dev_.name);
    FLITSIM_REPLICA_ARRAYS(FLITSIM_DOWN)
#undef FLITSIM_DOWN
  }

 private:
  SimView dev_{};
};

}  // namespace

bool cuda_compiled() { return true; }

bool cuda_usable(std::string* why_not) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why_not) {
      if (e == cudaErrorInsufficientDriver)  // also what CUDA says when there is no driver at all
        *why_not = "no NVIDIA driver for CUDA 13 found (no GPU, or a driver older than CUDA 13)";
      else if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0))
        *why_not = "no CUDA device found";
      else
        *why_not = std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
    }
    return false;
  }
  return true;
}

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace flitsim
