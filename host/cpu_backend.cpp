// CPU executor: OpenMP threads over (replica, router) pairs, one barrier per cycle. Results do
// not depend on the thread count: each router writes only its own state, its outgoing ring
// slots and integer atomics (DESIGN.md §2).
#include <omp.h>

#include "backend.hpp"
#include "cuda/cycle.cuh"

namespace flitsim {

namespace {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_max_threads()) {}
  std::string name() const override { return "cpu"; }
  void upload(HostState& h) override { view_ = h.view(); }
  void run(long long t0, long long n) override {
    const SimView s = view_;
    const int R = s.sz.R, items = s.sz.reps * R;
#pragma omp parallel num_threads(threads_)
    for (long long t = t0; t < t0 + n; ++t) {
#pragma omp for schedule(static)
      for (int i = 0; i < items; ++i) router_cycle(s, i / R, i % R, t);
    }
  }
  void sync_counters(HostState&) override {}  // the state already lives in h
  void download(HostState&) override {}

 private:
  int threads_;
  SimView view_{};
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads); }

#if !defined(FLITSIM_HAVE_CUDA)
bool cuda_compiled() { return false; }
bool cuda_usable(std::string* why_not) {
  if (why_not) *why_not = "this build of flitsim has no CUDA backend (built without nvcc)";
  return false;
}
std::unique_ptr<Backend> make_cuda_backend() { return nullptr; }
#endif

}  // namespace flitsim
