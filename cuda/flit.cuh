// A flit is one 64-bit word: the packet id plus its VC and head/tail bits (DESIGN.md §3).
// Everything else about the packet lives in the packet table, indexed by id.
#pragma once
#include "hd.cuh"

namespace flitsim {

using flit_t = long long;
constexpr flit_t kNoFlit = -1;

FLITSIM_HD flit_t make_flit(int32_t pid, int vc, bool head, bool tail) {
  return (flit_t(pid) << 8) | (flit_t(vc) << 2) | (flit_t(head) << 1) | flit_t(tail);
}
FLITSIM_HD int32_t flit_pid(flit_t f) { return int32_t(f >> 8); }
FLITSIM_HD int flit_vc(flit_t f) { return int((f >> 2) & 63); }
FLITSIM_HD bool flit_head(flit_t f) { return (f >> 1) & 1; }
FLITSIM_HD bool flit_tail(flit_t f) { return f & 1; }

// A flit as an input VC's buffer holds it (ibuf): the VC is the buffer's own, so the packet id
// and the head and tail bits fit in 32 bits, half a flit_t. The buffers are the largest state a
// cycle writes, and half the bytes per flit put twice the flits in each line (the measurement:
// benchmarks/results/layout-decisions.md). Packet ids stay
// below 2^30 (host/init/initial_state.cpp).
struct BufferedFlit {
  uint32_t bits;
  FLITSIM_HD static BufferedFlit of(flit_t f) { return BufferedFlit{uint32_t(((f >> 8) << 2) | (f & 3))}; }
  FLITSIM_HD int32_t pid() const { return int32_t(bits >> 2); }
  FLITSIM_HD bool head() const { return (bits >> 1) & 1; }
  FLITSIM_HD bool tail() const { return bits & 1; }
};

// A packet slot that is not in use holds the cycle it was freed; in-use slots hold kBusy.
constexpr long long kSlotBusy = 0x7fffffffffffffffLL;

}  // namespace flitsim
