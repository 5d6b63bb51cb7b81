// Picks the CPU executor's thread count for each run from the speed it measured, when the user
// did not fix the count. On a machine whose cores other work holds, a second thread waits for
// a core at every cycle's barrier and the run gets slower than on one thread (1,056-node
// dragonfly at load 0.5: 1,149 cycles/s on two threads against 1,572 on one,
// benchmarks/results/cpu-2core-2026-11-24-speed.md, run 1); on an idle machine two threads are
// up to twice as fast. Which holds changes while a run goes on, so the tuner keeps measuring.
// Results do not depend on the thread count (DESIGN.md §2), so switching between runs is free.
//
// Policy: try each candidate once (the most threads first), then run the fastest by the
// median cost per cycle of its last kSamples runs (one run's time swings on a shared machine),
// and every kExploreEvery runs re-measure the candidate measured least recently. A run is one piece of the driver's chunk (about 0.25 s, host/run/driver.cpp), so a
// wrong choice lasts at most a few seconds and exploring costs about 1/kExploreEvery of them.
// Header-only and free of OpenMP so that tests/cpp/thread_tuner_harness.cpp runs its policy
// on synthetic timings.
#pragma once

#include <algorithm>
#include <vector>

namespace flitsim {

class ThreadTuner {
 public:
  static constexpr int kExploreEvery = 16;
  static constexpr size_t kSamples = 3;

  // Candidates: 1, 2, 4, ... below max_threads, and max_threads itself.
  explicit ThreadTuner(int max_threads) {
    for (int t = 1; t < max_threads; t *= 2) candidates_.push_back(t);
    candidates_.push_back(std::max(1, max_threads));
    samples_.assign(candidates_.size(), {});
    measured_at_.assign(candidates_.size(), -1);
  }

  // The thread count of the next run.
  int next() const { return candidates_[pick()]; }

  // What the run with `threads` threads cost: `cycles` cycles in `seconds`.
  void record(int threads, long long cycles, double seconds) {
    if (cycles <= 0) return;
    const auto it = std::find(candidates_.begin(), candidates_.end(), threads);
    if (it == candidates_.end()) return;
    const size_t i = size_t(it - candidates_.begin());
    std::vector<double>& v = samples_[i];
    if (v.size() == kSamples) v.erase(v.begin());
    v.push_back(seconds / double(cycles));
    measured_at_[i] = runs_++;
  }

  const std::vector<int>& candidates() const { return candidates_; }

 private:
  size_t pick() const {
    if (candidates_.size() == 1) return 0;
    for (size_t k = candidates_.size(); k-- > 0;)  // untried ones first, most threads first
      if (samples_[k].empty()) return k;
    size_t best = 0;
    for (size_t k = 1; k < samples_.size(); ++k)
      if (cost(k) < cost(best)) best = k;
    if (runs_ % kExploreEvery != kExploreEvery - 1) return best;
    size_t stalest = best == 0 ? 1 : 0;
    for (size_t k = 0; k < samples_.size(); ++k)
      if (k != best && measured_at_[k] < measured_at_[stalest]) stalest = k;
    return stalest;
  }

  double cost(size_t k) const {  // median of the samples (the lower middle of two)
    std::vector<double> v = samples_[k];
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
  }

  std::vector<int> candidates_;
  std::vector<std::vector<double>> samples_;  // seconds per cycle of the latest runs on each
  std::vector<long> measured_at_; // index of that run
  long runs_ = 0;
};

}  // namespace flitsim
