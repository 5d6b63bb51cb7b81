// An executor runs router_cycle() over every (replica, router) for a range of cycles. The CPU
// executor simulates on the driver's HostState in place; the CUDA executor keeps a device copy.
#pragma once
#include <memory>
#include <string>

#include "host/init/host_state.hpp"

namespace flitsim {

// How the CUDA backend maps routers to threads and cycles to launches (cuda/gpu/schedules.cuh);
// the CPU backend has one schedule. One list: the enum, the names and parse_schedule.
#define FLITSIM_CUDA_SCHEDULES(X) X(Auto, "auto") X(Router, "router") X(Block, "block") X(Graph, "graph") X(Persistent, "persistent")
enum class CudaSchedule {
#define FLITSIM_SCHEDULE_ENUM(id, name) id,
  FLITSIM_CUDA_SCHEDULES(FLITSIM_SCHEDULE_ENUM)
#undef FLITSIM_SCHEDULE_ENUM
};
inline std::string schedule_name(CudaSchedule s) {
#define FLITSIM_SCHEDULE_NAME(id, name) if (s == CudaSchedule::id) return name;
  FLITSIM_CUDA_SCHEDULES(FLITSIM_SCHEDULE_NAME)
#undef FLITSIM_SCHEDULE_NAME
  return "?";
}
// The schedule called `name`; false when there is none.
inline bool parse_schedule(const std::string& name, CudaSchedule* out) {
#define FLITSIM_SCHEDULE_PARSE(id, n) if (name == n) return *out = CudaSchedule::id, true;
  FLITSIM_CUDA_SCHEDULES(FLITSIM_SCHEDULE_PARSE)
#undef FLITSIM_SCHEDULE_PARSE
  return false;
}
inline std::string schedule_names() {
  std::string all;
#define FLITSIM_SCHEDULE_LIST(id, n) all += std::string(all.empty() ? "" : ", ") + n;
  FLITSIM_CUDA_SCHEDULES(FLITSIM_SCHEDULE_LIST)
#undef FLITSIM_SCHEDULE_LIST
  return all;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The schedule that runs the cycles ("" for the CPU backend).
  virtual std::string schedule() const { return ""; }
  // Takes the initial state (the CPU backend keeps a reference to it).
  virtual void upload(HostState& h) = 0;
  // Simulates cycles [t0, t0 + n).
  virtual void run(long long t0, long long n) = 0;
  // Refreshes the arrays the driver reads between chunks (delivery counters, buffer
  // occupancy, last-move cycles) in h.
  virtual void sync_counters(HostState& h) = 0;
  // Copies the whole state back into h.
  virtual void download(HostState& h) = 0;
  // Stops replica rep from cycle t on (h.rep_stop_at, cuda/state.cuh): no later cycle changes
  // its state. Called between runs, with t the next cycle to run.
  virtual void stop_replica(HostState& h, int rep, long long t) = 0;
};

std::unique_ptr<Backend> make_cpu_backend(int threads);

// The CUDA backend exists only in builds with nvcc; cuda_usable() probes for a device at run
// time and says why not when there is none.
bool cuda_compiled();
bool cuda_usable(std::string* why_not);
// What the CUDA backend was compiled with ("nvcc 13.0, CCCL 3.1.4"), "" without one.
std::string cuda_build();
// The device a CUDA run would use: its name and free/total memory in bytes; false (nothing
// set) where cuda_usable() is false.
bool cuda_device(std::string* name, size_t* free_bytes, size_t* total_bytes);
std::unique_ptr<Backend> make_cuda_backend(CudaSchedule schedule);

}  // namespace flitsim
