// Runs the CPU executor's thread tuner (host/run/thread_tuner.hpp) on synthetic timings and prints
// the thread count it chose for each run, so tests/test_thread_tuner.py can check its policy:
//   g++ -O1 -std=c++17 -I. tests/cpp/thread_tuner_harness.cpp -o /tmp/tuner
//   /tmp/tuner MAX RUNS COST1@T1:COST2@T2...
// MAX is the most threads; each COST is "threads=seconds_per_cycle,..." and holds from run T
// on (the first from run 0), e.g. "1=2,2=1@0;1=1,2=3@100": two threads twice as fast, then,
// from run 100, three times slower than one (a machine whose other work took a core).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/run/thread_tuner.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const int max_threads = std::atoi(argv[1]);
  const long runs = std::atol(argv[2]);
  std::vector<std::pair<long, std::map<int, double>>> phases;  // (first run, cost by threads)
  std::stringstream all(argv[3]);
  for (std::string phase; std::getline(all, phase, ';');) {
    const size_t at = phase.find('@');
    std::map<int, double> cost;
    std::stringstream items(phase.substr(0, at));
    for (std::string item; std::getline(items, item, ',');)
      cost[std::atoi(item.c_str())] = std::atof(item.substr(item.find('=') + 1).c_str());
    phases.emplace_back(at == std::string::npos ? 0 : std::atol(phase.c_str() + at + 1), cost);
  }
  flitsim::ThreadTuner tuner(max_threads);
  for (long r = 0; r < runs; ++r) {
    const int threads = tuner.next();
    const std::map<int, double>* cost = &phases[0].second;
    for (const auto& p : phases)
      if (r >= p.first) cost = &p.second;
    const long long cycles = 100;
    tuner.record(threads, cycles, cost->at(threads) * double(cycles));
    std::printf("%d\n", threads);
  }
  return 0;
}
