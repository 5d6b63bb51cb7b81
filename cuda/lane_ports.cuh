// The ports of one router run by the 32 lanes of one warp: the executor of the block-type CUDA
// schedules (block, graph, persistent; schedules.cuh). Lane l runs ports l and l + 32 of each
// step; the lanes meet in a warp-wide collective (a barrier, a ballot, a reduction) at the end
// of every step.
//
// Written once for two kinds of lanes (`Lanes`):
//   - CudaWarpLanes (schedules.cuh): a warp of a GPU; the collectives are the warp intrinsics;
//   - EmulatedLanes (host/run/warp_emulator.hpp): 32 coroutines on one CPU thread, each run until
//     it reaches a collective, in a shuffled order. FLITSIM_STEP_ORDER=warp runs the whole
//     corpus through this executor on the CPU (tests/test_step_order.py), so the warp code
//     below is checked — result for result, and for lanes that fail to meet at one collective —
//     before any GPU runs it.
// Lanes provides lane(), sync(), ballot(bool) -> unsigned (bit l: lane l's vote),
// reduce_or(unsigned) and reduce_add(unsigned), each a collective of all 32 lanes.
#pragma once
#include "phases/allocation.cuh"

#if defined(__CUDACC__)
#define FLITSIM_LANES __device__ __forceinline__
#else
#define FLITSIM_LANES inline
#endif

namespace flitsim {

constexpr int kWarpLanes = 32;

template <class Lanes>
struct LanePorts {
  int p0, p1;
  Lanes lanes;
  template <class F>
  FLITSIM_LANES void each(F&& f) const {
    for (int gp = p0 + lanes.lane(); gp < p1; gp += kWarpLanes) f(gp);
    lanes.sync();
  }
  template <class F>
  FLITSIM_LANES void each_of(u64 mask, F&& f) const {
    for (int i = lanes.lane(); i < p1 - p0; i += kWarpLanes)
      if ((mask >> i) & 1) f(p0 + i);
    lanes.sync();
  }
  template <class F>
  FLITSIM_LANES PortSets gather(F&& f) const {
    return gather_of(~u64(0), f);
  }
  template <class F>
  FLITSIM_LANES PortSets gather_of(u64 mask, F&& f) const {
    u64 outputs = 0, inputs = 0;
    unsigned bits = 0;  // this lane's mask bits, summed over its rounds
    for (int base = 0; base < p1 - p0; base += kWarpLanes) {  // radix <= 64: at most two rounds
      const int i = base + lanes.lane();
      const u64 m = i < p1 - p0 && ((mask >> i) & 1) ? f(p0 + i) : 0;
      outputs |= m;
      bits += bit_count(m);
      inputs |= u64(lanes.ballot(m != 0)) << base;
    }
    const unsigned lo = lanes.reduce_or(unsigned(outputs));
    const unsigned hi = lanes.reduce_or(unsigned(outputs >> 32));
    // One-to-one: as many bits in all masks as ports returning one and as outputs in their OR.
    const unsigned total = lanes.reduce_add(bits);
    lanes.sync();
    const u64 all = (u64(hi) << 32) | lo;
    return PortSets{all, inputs, total == unsigned(bit_count(inputs)) && total == unsigned(bit_count(all))};
  }
  template <class F>
  FLITSIM_LANES PortClasses classify_of(u64 mask, F&& f) const {
    PortClasses c{{0, 0, 0, 0}};
    for (int base = 0; base < p1 - p0; base += kWarpLanes) {  // radix <= 64: at most two rounds
      const int i = base + lanes.lane();
      const PortClassFlags k = i < p1 - p0 && ((mask >> i) & 1) ? f(p0 + i) : PortClassFlags{};
      for (int j = 0; j < kPortClasses; ++j) c.of[j] |= u64(lanes.ballot(k.in[j])) << base;
    }
    lanes.sync();
    return c;
  }
  // Lane l keeps the columns of outputs l and l + 32: one ballot per requested output and
  // round of 32 inputs.
  struct Columns {
    int p0;
    u64 lo, hi;
    FLITSIM_LANES u64 of(int gp) const { return gp - p0 < kWarpLanes ? lo : hi; }
  };
  template <class Row>
  FLITSIM_LANES Columns transpose(PortSets sets, Row&& row) const {
    Columns c{p0, 0, 0};
    const int radix = p1 - p0, lane = lanes.lane();
    const u64 row_lo = lane < radix && ((sets.inputs >> lane) & 1) ? row(p0 + lane) : 0;
    const u64 row_hi = lane + kWarpLanes < radix && ((sets.inputs >> (lane + kWarpLanes)) & 1) ? row(p0 + lane + kWarpLanes) : 0;
    for (u64 m = sets.outputs; m; m &= m - 1) {  // the same on every lane: no divergence
      const int o = lowest_bit(m);
      const u64 col = u64(lanes.ballot((row_lo >> o) & 1)) | (u64(lanes.ballot((row_hi >> o) & 1)) << 32);
      if (o == lane) c.lo = col;
      if (o == lane + kWarpLanes) c.hi = col;
    }
    return c;
  }
  template <class F>
  FLITSIM_LANES void once(F&& f) const {
    if (lanes.lane() == 0) f();
    lanes.sync();
  }
};

}  // namespace flitsim
