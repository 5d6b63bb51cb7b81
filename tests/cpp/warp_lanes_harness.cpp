// Runs the warp executor of the block-type CUDA schedules (LanePorts, cuda/lane_ports.cuh) on
// the CPU's emulated warp (host/run/warp_emulator.hpp) against fixed or random inputs, so that
// tests/test_warp_emulator.py can check the emulator and the warp executor exactly:
//   g++ -O1 -std=c++17 -I. tests/cpp/warp_lanes_harness.cpp host/run/warp_emulator.cpp -o /tmp/lanes
//   /tmp/lanes collectives      one ballot, reduce_or and reduce_add of known votes
//   /tmp/lanes order KEY        the order the lanes ran in before their first collective
//   /tmp/lanes ports RADIX SEED TRIALS
//                               every Ports operation of LanePorts against the serial executor
//                               (cycle.cuh, PortsInOrder) on random masks; prints "ok" or the
//                               first difference
//   /tmp/lanes diverge-kind | diverge-site | diverge-exit
//                               lanes that part ways; prints the emulator's error
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/cycle.cuh"
#include "cuda/lane_ports.cuh"
#include "host/init/seeded_random.hpp"
#include "host/run/warp_emulator.hpp"

using namespace flitsim;

namespace {

int collectives() {
  WarpEmulator warp;
  unsigned got[3][32];
  auto body = [&](int l) {
    const EmulatedLanes lanes{&warp, l};
    got[0][l] = lanes.ballot(l % 3 == 0);
    got[1][l] = lanes.reduce_or(1u << (l % 8));
    got[2][l] = lanes.reduce_add(unsigned(l));
  };
  warp.run(body, 1);
  for (int k = 0; k < 3; ++k)
    for (int l = 1; l < 32; ++l)
      if (got[k][l] != got[k][0]) return std::printf("lanes disagree\n"), 1;
  std::printf("ballot %08x or %x add %u collectives %lld\n", got[0][0], got[1][0], got[2][0], warp.collectives());
  return 0;
}

int order(uint64_t key) {
  WarpEmulator warp;
  std::vector<int> ran;
  auto body = [&](int l) {
    ran.push_back(l);
    EmulatedLanes{&warp, l}.sync();
  };
  warp.run(body, key);
  for (int l : ran) std::printf("%d ", l);
  std::printf("\n");
  return 0;
}

// A port's random answer: a mask of 0–2 outputs (often one-to-one, sometimes not), classes.
u64 hash(uint64_t seed, int trial, int gp, int what) {
  SplitMix rng{seed * 1000003ull + uint64_t(trial) * 7919ull + uint64_t(gp) * 131ull + uint64_t(what)};
  return rng.next();
}
u64 random_mask(uint64_t seed, int trial, int radix, int gp) {
  const u64 h = hash(seed, trial, gp, 0);
  u64 m = 0;
  for (int k = 0; k < int(h % 3); ++k) m |= u64(1) << (hash(seed, trial, gp, k + 1) % radix);
  return m;
}

int ports(int radix, uint64_t seed, int trials) {
  WarpEmulator warp;
  const int p0 = 5, p1 = p0 + radix;
  const PortsInOrder serial{p0, p1};
  const u64 all = radix == 64 ? ~u64(0) : (u64(1) << radix) - 1;
  for (int trial = 0; trial < trials; ++trial) {
    const u64 selected = hash(seed, trial, -1, 9) & all;
    auto row = [&](int gp) { return random_mask(seed, trial, radix, gp); };
    auto classes = [&](int gp) {
      PortClassFlags k;
      for (int j = 0; j < kPortClasses; ++j) k.in[j] = (hash(seed, trial, gp, 20 + j) & 3) == 0;
      return k;
    };
    const PortSets want = serial.gather_of(selected, row);
    const PortClasses want_classes = serial.classify_of(selected, classes);
    const RequestColumns want_columns = serial.transpose(want, row);
    std::vector<int> visits(radix, 0);
    int onces = 0;
    std::string error;
    auto body = [&](int l) {
      const LanePorts<EmulatedLanes> lanes{p0, p1, EmulatedLanes{&warp, l}};
      const PortSets got = lanes.gather_of(selected, row);
      if (got.outputs != want.outputs || got.inputs != want.inputs || got.one_to_one != want.one_to_one)
        error = "gather_of";
      const PortClasses c = lanes.classify_of(selected, classes);
      for (int j = 0; j < kPortClasses; ++j)
        if (c.of[j] != want_classes.of[j]) error = "classify_of";
      const auto columns = lanes.transpose(got, row);
      lanes.each_of(got.outputs, [&](int gp) {
        if (columns.of(gp) != want_columns.of(gp)) error = "transpose at output " + std::to_string(gp - p0);
      });
      lanes.each_of(selected, [&](int gp) { visits[gp - p0] += 1; });
      lanes.once([&] { onces += 1; });
    };
    warp.run(body, seed + uint64_t(trial));
    for (int i = 0; i < radix; ++i)
      if (visits[i] != int((selected >> i) & 1)) error = "each_of visited port " + std::to_string(i) + " " + std::to_string(visits[i]) + " times";
    if (onces != 1) error = "once ran " + std::to_string(onces) + " times";
    if (!error.empty()) return std::printf("radix %d trial %d: %s differs\n", radix, trial, error.c_str()), 1;
  }
  std::printf("ok %d trials\n", trials);
  return 0;
}

int diverge(const std::string& how) {
  WarpEmulator warp;
  auto body = [&](int l) {
    const EmulatedLanes lanes{&warp, l};
    if (how == "diverge-kind") {
      if (l < 16) lanes.sync();
      else lanes.ballot(true);
    } else if (how == "diverge-site") {
      if (l == 7) lanes.ballot(false);
      else lanes.ballot(true);
    } else if (how == "diverge-exit") {
      if (l == 5) return;
      lanes.sync();
    }
  };
  try {
    warp.run(body, 3);
  } catch (const WarpDivergence& e) {
    std::printf("%s\n", e.what());
    return 0;
  }
  std::printf("no error\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "collectives") return collectives();
  if (mode == "order" && argc == 3) return order(std::strtoull(argv[2], nullptr, 10));
  if (mode == "ports" && argc == 5) return ports(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::atoi(argv[4]));
  if (mode.rfind("diverge-", 0) == 0) return diverge(mode);
  std::fprintf(stderr, "usage: see the top of tests/cpp/warp_lanes_harness.cpp\n");
  return 2;
}
