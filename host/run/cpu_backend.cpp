// CPU executor: OpenMP threads over (replica, router) pairs, one barrier per cycle. Results do
// not depend on the thread count: each router writes only its own state, its outgoing ring
// slots and integer atomics (DESIGN.md §2). A test-only option runs steps and routers in
// reversed or shuffled order (host/run/step_order.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cuda/cycle.cuh"
#include "cuda/lane_ports.cuh"
#include "host/config/params.hpp"
#include "pinned_model.hpp"
#include "step_order.hpp"
#include "thread_tuner.hpp"
#include "warp_emulator.hpp"

namespace flitsim {

StepOrder StepOrder::from_env() {
  StepOrder o;
  const char* v = std::getenv("FLITSIM_STEP_ORDER");
  const std::string s = v ? v : "";
  if (s.empty() || s == "natural") return o;
  if (s == "reversed") {
    o.kind = Reversed;
    return o;
  }
  for (const auto& [name, kind] : {std::pair<std::string, StepOrder::Kind>{"shuffled", Shuffled}, {"warp", Warp}}) {
    if (s.rfind(name, 0) != 0) continue;
    const std::string rest = s.substr(name.size());
    if (!rest.empty() && (rest[0] != ':' || rest.size() == 1 || rest.find_first_not_of("0123456789", 1) != std::string::npos))
      break;
    o.kind = kind;
    if (!rest.empty()) o.seed = std::stoull(rest.substr(1));
    return o;
  }
  throw ConfigError("FLITSIM_STEP_ORDER: must be natural, reversed, shuffled[:SEED] or warp[:SEED], got \"" + s + "\"");
}

namespace {

// Router r's cycle in a replica's own view (CpuBackend::replica_views) as replica 0, flattened
// (every step inlined) so that the constant reaches every index and drops its replica term.
//
// The view is taken by value, and routers r0..r1−1 run in one call: a view whose address never
// leaves this function cannot be changed by the engine's stores into the state arrays, so the
// compiler keeps its sizes, parameters and array bases in registers instead of reloading them
// after every store (through a reference it must assume any int store may alias them).
// `kPinned`: the instance for the default router model (host/run/pinned_model.hpp).
template <bool kPinned>
__attribute__((flatten)) void replica_routers_cycle(SimView s, int r0, int r1, long long t) {
  if constexpr (kPinned) pin_model(s);
  for (int r = r0; r < r1; ++r) router_cycle_steps(s, 0, r, t, PortsInOrder{s.port_offset[r], s.port_offset[r + 1]});
}

class CpuBackend : public Backend {
 public:
  // threads > 0: that many, always; 0: up to all cores, the count of each run measured
  // (host/run/thread_tuner.hpp).
  explicit CpuBackend(int threads)
      : threads_(threads > 0 ? threads : omp_get_max_threads()), tuned_(threads <= 0), order_(StepOrder::from_env()) {}
  std::string name() const override { return "cpu"; }
  void upload(HostState& h) override {
    view_ = h.view();
    replica_views_ = replica_views(view_);
    // No more threads than there is work for: a barrier per cycle costs more than a few
    // routers' work, and idle threads spinning at it steal cores on a shared machine.
    const int items = view_.sz.reps * view_.sz.R;
    max_threads_ = std::max(1, std::min(threads_, items / kMinRoutersPerThread));
    tuner_ = tuned_ && max_threads_ > 1 ? std::make_unique<ThreadTuner>(max_threads_) : nullptr;
  }
  void run(long long t0, long long n) override {
    if (order_.kind != StepOrder::Natural) return run_in_test_order(t0, n);
    if (!tuner_) return run_on(max_threads_, t0, n);
    const int threads = tuner_->next();
    const auto start = std::chrono::steady_clock::now();
    run_on(threads, t0, n);
    tuner_->record(threads, n, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  void sync_counters(HostState& h) override { h.reduce_counters(); }  // the state lives in h
  void download(HostState&) override {}
  void stop_replica(HostState& h, int rep, long long t) override { h.rep_stop_at[size_t(rep)] = t; }  // view_ reads h

 private:
  static constexpr int kMinRoutersPerThread = 64;  // measured: docs/gpu.md, CPU executor

  void run_on(int threads, long long t0, long long n) {
    const SimView s = view_;
    const int R = s.sz.R;
    const bool pinned = is_pinned_model(s);
    // The replicas still simulated (stops happen between runs), their routers cut evenly
    // among the threads, so that a stopped replica's threads do not sit idle.
    std::vector<int> live;
    for (int rep = 0; rep < s.sz.reps; ++rep)
      if (t0 < s.rep_stop_at[rep]) live.push_back(rep);
    const int items = int(live.size()) * R;
    if (items == 0) return;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      // This thread's views, their switch-allocation scratch in its own buffer.
      ThreadScratch scratch;
      std::vector<SimView> views = replica_views_;
      for (SimView& v : views) scratch.attach(v);
      SimView all = s;
      scratch.attach(all);
      // This thread's items (replica-major (replica, router) pairs), as schedule(static) cuts them.
      const int k = omp_get_thread_num(), nt = omp_get_num_threads();
      const int i0 = int((long long)items * k / nt), i1 = int((long long)items * (k + 1) / nt);
      for (long long t = t0; t < t0 + n; ++t) {
        if (!views.empty()) {
          for (int i = i0; i < i1;) {  // a call per replica the range touches
            const int j = i / R, rep = live[size_t(j)], end = std::min(i1, (j + 1) * R);
            if (pinned) replica_routers_cycle<true>(views[rep], i - j * R, end - j * R, t);
            else replica_routers_cycle<false>(views[rep], i - j * R, end - j * R, t);
            i = end;
          }
        } else {
          for (int i = i0; i < i1; ++i) router_cycle(all, live[size_t(i / R)], i % R, t);
        }
#pragma omp barrier
      }
    }
  }

  // The switch allocator's scratch for one router at a time (SimView::sp): written and read
  // only within a router's cycle, so one thread reuses it for every router it runs, and it
  // stays in L1 instead of missing there once per busy port and array (benchmarks/results/
  // layout-decisions.md). Every CPU executor
  // must attach one: on the CPU, SimView::sp indexes by the port's local number.
  struct ThreadScratch {
    u64 request[kMaxRadix], ready[kMaxRadix];
    int32_t grant[kMaxRadix], accept[kMaxRadix];
    ThreadScratch() {
      std::fill(std::begin(grant), std::end(grant), -1);
      std::fill(std::begin(accept), std::end(accept), -1);
    }
    void attach(SimView& v) {
      v.sa_request = request, v.sa_ready = ready, v.sa_grant = grant, v.sa_accept = accept;
    }
  };

  // One thread; routers of each cycle and ports of each step in the test order (with `warp`,
  // each router's ports on an emulated warp).
  void run_in_test_order(long long t0, long long n) {
    SimView s = view_;
    ThreadScratch scratch;
    scratch.attach(s);
    const int R = s.sz.R, items = s.sz.reps * R;
    std::vector<int> routers(items);
    const auto warp = order_.kind == StepOrder::Warp ? std::make_unique<WarpEmulator>() : nullptr;
    for (long long t = t0; t < t0 + n; ++t) {
      if (order_.kind == StepOrder::Reversed)
        for (int i = 0; i < items; ++i) routers[i] = items - 1 - i;
      else
        shuffled_indices(routers, items, order_.seed * 0x2545F4914F6CDD1Dull + uint64_t(t));
      for (int i : routers) {
        const int rep = i / R, r = i % R;
        const uint64_t key = ((order_.seed * 31 + rep) * 1000003ull + r) * 0x100000001B3ull + uint64_t(t);
        if (order_.kind == StepOrder::Warp) {
          auto lane = [&](int l) {
            router_cycle_steps(s, rep, r, t, LanePorts<EmulatedLanes>{s.port_offset[r], s.port_offset[r + 1], EmulatedLanes{warp.get(), l}});
          };
          warp->run(lane, key);
        } else {
          router_cycle_steps(s, rep, r, t, PortsInTestOrder{s.port_offset[r], s.port_offset[r + 1], order_, key});
        }
      }
    }
  }

  // Per replica, a view whose replicated arrays start at that replica's slice, so that its
  // routers run as replica 0 (replica_routers_cycle) and no index computes a replica offset:
  // with the flattening, fewer instructions per cycle (benchmarks/results/layout-decisions.md). Not
  // with a workload, whose tables are indexed by replica and node together (wl_node_step):
  // empty then, and the general path runs. The test-order executor always runs the general
  // path, so tests/test_step_order.py also checks these views against it.
  static std::vector<SimView> replica_views(const SimView& all) {
    if (all.prm.workload.on) return {};
    std::vector<SimView> views(all.sz.reps, all);
    const Sizes& sz = all.sz;
    for (int rep = 0; rep < sz.reps; ++rep) {
#define FLITSIM_REBASE(type, name, count) views[rep].name += (long long)rep * ((long long)(count) / sz.reps);
      FLITSIM_REPLICA_ARRAYS(FLITSIM_REBASE)
#undef FLITSIM_REBASE
      views[rep].sz.reps = 1;
    }
    return views;
  }

  int threads_;
  bool tuned_;
  std::vector<SimView> replica_views_;
  int max_threads_ = 1;
  std::unique_ptr<ThreadTuner> tuner_;
  StepOrder order_;
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
std::unique_ptr<Backend> make_cuda_backend(CudaSchedule) { return nullptr; }
bool cuda_device(std::string*, size_t*, size_t*) { return false; }
std::string cuda_build() { return ""; }
#endif

}  // namespace flitsim
