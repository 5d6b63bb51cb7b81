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

// A packet slot that is not in use holds the cycle it was freed; in-use slots hold kBusy.
constexpr long long kSlotBusy = 0x7fffffffffffffffLL;

}  // namespace flitsim
