// An executor runs router_cycle() over every (replica, router) for a range of cycles. The CPU
// executor simulates on the driver's HostState in place; the CUDA executor keeps a device copy.
#pragma once
#include <memory>
#include <string>

#include "host_state.hpp"

namespace flitsim {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Takes the initial state (the CPU backend keeps a reference to it).
  virtual void upload(HostState& h) = 0;
  // Simulates cycles [t0, t0 + n).
  virtual void run(long long t0, long long n) = 0;
  // Refreshes the arrays the driver reads between chunks (delivery counters, buffer
  // occupancy, last-move cycles) in h.
  virtual void sync_counters(HostState& h) = 0;
  // Copies the whole state back into h.
  virtual void download(HostState& h) = 0;
};

std::unique_ptr<Backend> make_cpu_backend(int threads);

// The CUDA backend exists only in builds with nvcc; cuda_usable() probes for a device at run
// time and says why not when there is none.
bool cuda_compiled();
bool cuda_usable(std::string* why_not);
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace flitsim
