// Test-only executor orders (issue: order independence, checked on the CPU). The CPU backend
// normally runs each step's ports in port order and routers in index order; with
// FLITSIM_STEP_ORDER=reversed or shuffled[:SEED] it runs every step's ports, and the routers of
// each cycle, in reversed or seeded-shuffled order; with warp[:SEED] it runs each router's cycle
// on an emulated 32-lane warp (the block-type CUDA schedules' executor, cuda/lane_ports.cuh;
// host/run/warp_emulator.hpp), the routers in shuffled order. Results must be bit-identical to the normal
// order: that proves no step has a read-after-write between ports of one router, nor any
// dependence between routers within a cycle — the CPU stand-in for compute-sanitizer's
// racecheck of the parallel CUDA schedules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cycle.cuh"

namespace flitsim {

struct StepOrder {
  enum Kind { Natural, Reversed, Shuffled, Warp } kind = Natural;
  uint64_t seed = 0;
  // Parses FLITSIM_STEP_ORDER ("" = natural); throws ConfigError-like std::invalid_argument.
  static StepOrder from_env();
};

// A permutation of 0..n-1 for the given key (SplitMix64-driven Fisher–Yates).
inline void shuffled_indices(std::vector<int>& out, int n, uint64_t key) {
  out.resize(n);
  for (int i = 0; i < n; ++i) out[i] = i;
  for (int i = n - 1; i > 0; --i) {
    key += 0x9E3779B97F4A7C15ull;
    uint64_t z = key;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const int j = int(z % uint64_t(i + 1));
    std::swap(out[i], out[j]);
  }
}

// Ports in a test order: a new permutation for every step of every cycle.
struct PortsInTestOrder {
  PortsInTestOrder(int first, int last, StepOrder o, uint64_t k) : p0(first), p1(last), order(o), key(k) {}
  int p0, p1;
  StepOrder order;
  uint64_t key;                 // (seed, replica, router, cycle)
  mutable uint64_t calls = 0;   // steps run so far this cycle
  mutable std::vector<int> perm;
  template <class F>
  void each(F&& f) const {
    const int n = p1 - p0;
    if (order.kind == StepOrder::Reversed) {
      for (int gp = p1 - 1; gp >= p0; --gp) f(gp);
      return;
    }
    shuffled_indices(perm, n, key * 1000003ull + ++calls);
    for (int i = 0; i < n; ++i) f(p0 + perm[i]);
  }
  template <class F>
  void each_of(u64 mask, F&& f) const {  // the selected ports, in the test order
    each([&](int gp) {
      if ((mask >> (gp - p0)) & 1) f(gp);
    });
  }
  template <class F>
  PortSets gather(F&& f) const {
    PortSets sets{0, 0};
    u64 clash = 0;
    each([&](int gp) {
      const u64 m = f(gp);
      clash |= (m & (m - 1)) | (sets.outputs & m);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << (gp - p0);
    });
    sets.one_to_one = !clash;
    return sets;
  }
  template <class F>
  PortSets gather_of(u64 mask, F&& f) const {  // the selected ports, in the test order
    PortSets sets{0, 0};
    u64 clash = 0;
    each_of(mask, [&](int gp) {
      const u64 m = f(gp);
      clash |= (m & (m - 1)) | (sets.outputs & m);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << (gp - p0);
    });
    sets.one_to_one = !clash;
    return sets;
  }
  template <class F>
  PortClasses classify_of(u64 mask, F&& f) const {  // the selected ports, in the test order
    PortClasses c{{0, 0, 0, 0}};
    each_of(mask, [&](int gp) {
      const PortClassFlags k = f(gp);
      for (int j = 0; j < kPortClasses; ++j)
        if (k.in[j]) c.of[j] |= u64(1) << (gp - p0);
    });
    return c;
  }
  template <class Row>
  RequestColumns transpose(PortSets sets, Row&& row) const {  // a pure function: order-free
    return transpose_serially(p0, sets, row);
  }
  template <class F>
  void once(F&& f) const {
    f();
  }
};

}  // namespace flitsim
