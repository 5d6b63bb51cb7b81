// CUDA executor (DESIGN.md §4): the schedules of schedules.cuh (their kernels in
// schedule_<name>.cu), chosen by sim.schedule, all running the same router_cycle_steps() as
// the CPU backend. Device arrays mirror HostState array by array.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_segmented_reduce.cuh>

#include <map>
#include <stdexcept>
#include <string>

#include "host/run/backend.hpp"
#include "host/config/params.hpp"
#include "schedules.cuh"

namespace flitsim {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Host arrays are std::vector or StateVector (host/run/huge_page_allocator.hpp).
template <class T, class A>
void to_device(T*& dev, const std::vector<T, A>& host) {
  check(cudaMalloc(&dev, host.size() * sizeof(T) + 1), "cudaMalloc");
  check(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
}
template <class T, class A>
void to_host(std::vector<T, A>& host, const T* dev) {
  check(cudaMemcpy(host.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(CudaSchedule schedule) : schedule_(schedule == CudaSchedule::Auto ? kAutoSchedule : schedule) {}
  ~CudaBackend() override {
#define FLITSIM_FREE(type, name, count) if (dev_.name) cudaFree(dev_.name);
    FLITSIM_STATE_ARRAYS(FLITSIM_FREE)
#undef FLITSIM_FREE
    for (auto& [n, exec] : graphs_) cudaGraphExecDestroy(exec);
    for (void* p : {(void*)offsets_dev_, (void*)counters_dev_, temp_dev_})
      if (p) cudaFree(p);
    if (t_dev_) cudaFree(t_dev_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  std::string name() const override { return "cuda"; }
  std::string schedule() const override { return schedule_name(schedule_); }
  void upload(HostState& h) override {
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (h.bytes() > free_b)  // refused before any allocation, as the CPU's check_host_memory: exit 2, not a crash
      throw ConfigError("sim: the simulation state needs " + std::to_string(h.bytes() >> 20) + " MiB of device memory, " +
                        std::to_string(free_b >> 20) + " MiB are free on the GPU; lower sim.replicas or the network size");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMalloc(&t_dev_, sizeof(long long)), "cudaMalloc");
    dev_ = SimView{};
    dev_.sz = h.sz;
    dev_.prm = h.prm;
#define FLITSIM_UP(type, name, count) to_device(dev_.name, h.name);
    FLITSIM_STATE_ARRAYS(FLITSIM_UP)
#undef FLITSIM_UP
    prepare_counters();
  }
  void run(long long t0, long long n) override {
    switch (schedule_) {  // each schedule's kernels: schedule_<name>.cu
      case CudaSchedule::Router:
        check(launch_router_schedule(dev_, t0, n, stream_), "router schedule launch");
        break;
      case CudaSchedule::Auto:  // resolved in the constructor
      case CudaSchedule::Block:
        check(launch_block_schedule(dev_, t0, n, stream_), "block schedule launch");
        break;
      case CudaSchedule::Graph:
        check(cudaMemcpyAsync(t_dev_, &t0, sizeof t0, cudaMemcpyHostToDevice, stream_), "cycle upload");
        check(cudaGraphLaunch(graph_for(n), stream_), "cudaGraphLaunch");
        break;
      case CudaSchedule::Persistent:
        check(launch_persistent_schedule(dev_, t0, n, stream_), "persistent schedule (occupancy, cooperative launch)");
        break;
    }
    check(cudaGetLastError(), "cycle kernel launch");
    check(cudaStreamSynchronize(stream_), "cycle kernels");
  }
  // The driver's counters: one CUB segmented reduction per counter (a segment per replica)
  // into counters_dev_, then one copy of kCounters × reps values.
  void sync_counters(HostState& h) override {
    const int reps = dev_.sz.reps;
    int k = 0;
#define FLITSIM_DEVICE_REDUCE(field, array, stride, first, length, op) \
    reduce_counter(CounterOp::op, dev_.array, k++, reps);
    FLITSIM_DRIVER_COUNTERS(FLITSIM_DEVICE_REDUCE)
#undef FLITSIM_DEVICE_REDUCE
    std::vector<long long> flat(size_t(kCounters) * reps);
    check(cudaMemcpyAsync(flat.data(), counters_dev_, flat.size() * sizeof(long long), cudaMemcpyDeviceToHost, stream_),
          "counters download");
    check(cudaStreamSynchronize(stream_), "counters");
    h.counters.assign(size_t(reps), ReplicaCounters{});
    for (int rep = 0; rep < reps; ++rep) {
      k = 0;
#define FLITSIM_UNPACK(field, array, stride, first, length, op) h.counters[rep].field = flat[size_t(k++) * reps + rep];
      FLITSIM_DRIVER_COUNTERS(FLITSIM_UNPACK)
#undef FLITSIM_UNPACK
    }
  }
  void stop_replica(HostState& h, int rep, long long t) override {
    h.rep_stop_at[size_t(rep)] = t;
    check(cudaMemcpyAsync(dev_.rep_stop_at + rep, &t, sizeof t, cudaMemcpyHostToDevice, stream_), "replica stop upload");
    check(cudaStreamSynchronize(stream_), "replica stop upload");  // before `t` goes out of scope
  }
  void download(HostState& h) override {
#define FLITSIM_DOWN(type, name, count) to_host(h.name, dev_.name);
    FLITSIM_REPLICA_ARRAYS(FLITSIM_DOWN)
#undef FLITSIM_DOWN
  }

 private:
  static constexpr int kCounters = 0
#define FLITSIM_COUNT(...) +1
      FLITSIM_DRIVER_COUNTERS(FLITSIM_COUNT)
#undef FLITSIM_COUNT
      ;

  // Segment offsets of every counter (begin, end per replica) and CUB's scratch, made once.
  void prepare_counters() {
    const Sizes& sz = dev_.sz;
    std::vector<long long> offsets;
#define FLITSIM_OFFSETS(field, array, stride, first, length, op)              \
    for (int rep = 0; rep < sz.reps; ++rep) offsets.push_back((long long)rep * (stride) + (first)); \
    for (int rep = 0; rep < sz.reps; ++rep) offsets.push_back((long long)rep * (stride) + (first) + (length));
    FLITSIM_DRIVER_COUNTERS(FLITSIM_OFFSETS)
#undef FLITSIM_OFFSETS
    to_device(offsets_dev_, offsets);
    check(cudaMalloc(&counters_dev_, sizeof(long long) * kCounters * sz.reps + 1), "cudaMalloc");
    check(cudaMemset(counters_dev_, 0, sizeof(long long) * kCounters * sz.reps), "cudaMemset");
    size_t need = 0;
    int k = 0;
#define FLITSIM_TEMP(field, array, stride, first, length, op) need = std::max(need, temp_bytes(CounterOp::op, dev_.array, k++, sz.reps));
    FLITSIM_DRIVER_COUNTERS(FLITSIM_TEMP)
#undef FLITSIM_TEMP
    temp_bytes_ = need;
    check(cudaMalloc(&temp_dev_, temp_bytes_ + 1), "cudaMalloc");
  }
  const long long* seg_begin(int k, int reps) const { return offsets_dev_ + size_t(k) * 2 * reps; }
  const long long* seg_end(int k, int reps) const { return seg_begin(k, reps) + reps; }
  template <class T>
  size_t temp_bytes(CounterOp op, const T* in, int k, int reps) {
    size_t bytes = 0;
    if (op == CounterOp::Max)
      check(cub::DeviceSegmentedReduce::Max(nullptr, bytes, in, counters_dev_, reps, seg_begin(k, reps), seg_end(k, reps), stream_), "CUB");
    else
      check(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, in, counters_dev_, reps, seg_begin(k, reps), seg_end(k, reps), stream_), "CUB");
    return bytes;
  }
  template <class T>
  void reduce_counter(CounterOp op, const T* in, int k, int reps) {
    size_t bytes = temp_bytes_;
    long long* out = counters_dev_ + size_t(k) * reps;  // empty segments (unused arrays) sum to 0
    if (op == CounterOp::Max)
      check(cub::DeviceSegmentedReduce::Max(temp_dev_, bytes, in, out, reps, seg_begin(k, reps), seg_end(k, reps), stream_), "CUB");
    else
      check(cub::DeviceSegmentedReduce::Sum(temp_dev_, bytes, in, out, reps, seg_begin(k, reps), seg_end(k, reps), stream_), "CUB");
  }

  // The schedule `auto` picks until GPU measurements say otherwise (docs/gpu.md).
  static constexpr CudaSchedule kAutoSchedule = CudaSchedule::Block;

  // A graph of n cycles of the block kernel, captured once per chunk length and replayed.
  cudaGraphExec_t graph_for(long long n) {
    auto it = graphs_.find(n);
    if (it != graphs_.end()) return it->second;
    cudaGraph_t graph;
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "graph capture");
    for (long long i = 0; i < n; ++i) check(launch_graph_cycle(dev_, t_dev_, stream_), "graph capture launch");
    check(cudaStreamEndCapture(stream_, &graph), "graph capture");
    cudaGraphExec_t exec;
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(graph);
    return graphs_[n] = exec;
  }

  CudaSchedule schedule_;
  SimView dev_{};
  long long* offsets_dev_ = nullptr;   // counter segments (prepare_counters)
  long long* counters_dev_ = nullptr;  // kCounters × reps reduced values
  void* temp_dev_ = nullptr;           // CUB scratch
  size_t temp_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  long long* t_dev_ = nullptr;  // the cycle the graph schedule's kernels simulate
  std::map<long long, cudaGraphExec_t> graphs_;
};

}  // namespace

bool cuda_compiled() { return true; }

std::string cuda_build() {
  return "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + ", CCCL " +
         std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
         std::to_string(CUB_SUBMINOR_VERSION);
}

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

bool cuda_device(std::string* name, size_t* free_bytes, size_t* total_bytes) {
  int dev = 0;
  cudaDeviceProp prop{};
  if (!cuda_usable(nullptr) || cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
      cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess)
    return false;
  *name = prop.name;
  return true;
}

std::unique_ptr<Backend> make_cuda_backend(CudaSchedule schedule) { return std::make_unique<CudaBackend>(schedule); }

}  // namespace flitsim
