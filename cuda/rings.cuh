// Channels are delay lines: a ring per channel of len slots (RingSpan), len a power of two >
// delay, the slot of cycle c at off + (c mod len)·stride. The sender writes the slot of cycle
// t + delay at cycle t; the receiver reads and clears the slot of cycle t, i.e. what was
// written `delay` cycles earlier. Sender and receiver never touch the same slot in one cycle,
// so routers need no barrier between them inside a cycle (DESIGN.md §4). Powers of two turn
// the modulo into a mask: this is the innermost loop of the simulator.
//
// Two layouts (host/init/initial_state.cpp). With the arrival calendar (below; sz.cal_len > 0) every
// ring is laid out like the calendar: len = cal_len, stride = cal_stride, and off is the
// receiving port's calendar byte in slot 0, so a ring's slot of cycle c has the index of that
// port's calendar byte for c. A receiving port then needs no ring record to find its slots
// (ring_in_slot), and the slots one router reads in one cycle lie side by side, a few cache
// lines for all its ports instead of one line for each port's record and one for each slot
// (benchmarks/results/layout-decisions.md). Without the calendar (a delay of 0, or of 256 and
// more) each ring has its own len slots (stride 1), found through its record.
#pragma once
#include <cstring>

#include "state.cuh"

namespace flitsim {

// Index of ring r's slot of cycle c in its ring array (one replica's part).
FLITSIM_HD long long ring_slot(const RingSpan& r, long long c) { return r.off + (c & (r.len - 1)) * r.stride; }

// Flit ring feeding the input side of port gp.
FLITSIM_HD flit_t* fring_at(const SimView& __restrict__ s, int rep, long long slot) {
  return &s.fring[(long long)rep * s.sz.fring_total + slot];
}
FLITSIM_HD int32_t* cring_at(const SimView& __restrict__ s, int rep, long long slot) {
  return &s.cring[(long long)rep * s.sz.cring_total + slot];
}
FLITSIM_HD flit_t* ering_at(const SimView& __restrict__ s, int rep, long long slot) {
  return &s.ering[(long long)rep * s.sz.ering_total + slot];
}
FLITSIM_HD int32_t* nicring_at(const SimView& __restrict__ s, int rep, long long slot) {
  return &s.nicring[(long long)rep * s.sz.nicring_total + slot];
}

// The arrival calendar (sz.cal_len > 0): byte i of router r's slot c says what its local port i
// has to receive at a cycle ≡ c (mod cal_len), one bit per ring (`Arrival`): a flit on its
// input ring, a credit on its credit ring (a router port) or for its node's interface (a
// terminal port), a flit for its node's sink. Every ring write sets its bit in the byte of the
// cycle it arrives, so receive visits only those ports and reads only those rings (at low load
// a port receives a flit or a credit, rarely both: each ring read skipped is a cache line not
// touched). A byte, not a bit per port: all the rings into one port are written by one router
// (its peer's sending port, or its own terminal port), so writers of different routers never
// share a byte and need no atomics, and one router's writes to a byte are ordered by the steps
// that make them. The slot of cycle t is read and cleared only by its own router in cycle t,
// and nobody writes it then: every ring delay lies in [1, cal_len).
enum Arrival : uint8_t { kArriveFlit = 1, kArriveCredit = 2, kArriveEject = 4, kArriveAll = 7 };
static_assert(kArriveFlit == 1 && kArriveAll == 7, "arrivals_at folds the bytes assuming these bits");
// Index in one replica's calendar of local port i's byte of router r at cycle t; with the
// calendar, also the index of the slots of cycle t of every ring into that port.
FLITSIM_HD long long calendar_index(const SimView& __restrict__ s, int r, int i, long long t) {
  return ((long long)r * s.sz.cal_len + (t & (s.sz.cal_len - 1))) * s.sz.cal_stride + i;
}
FLITSIM_HD uint8_t* arrival_slot(const SimView& __restrict__ s, int rep, int r, long long t) {
  return &s.arrivals[(long long)rep * s.sz.R * s.sz.cal_len * s.sz.cal_stride + calendar_index(s, r, 0, t)];
}
// The slot a port reads at cycle t on `ring`, whose calendar byte for t has index `cal`: with
// the calendar the same index, and the ring's record is not read (a reference binds no load).
FLITSIM_HD long long ring_in_slot(const SimView& __restrict__ s, long long cal, const RingSpan& ring, long long t) {
  return s.sz.cal_len ? cal : ring_slot(ring, t);
}
// Something arrives in a ring's `slot` (ring_slot): with the calendar, that is the receiving
// port's calendar byte for the cycle it arrives.
FLITSIM_HD void note_arrival(const SimView& __restrict__ s, int rep, long long slot, Arrival what) {
  if (!s.sz.cal_len) return;
  s.arrivals[(long long)rep * s.sz.R * s.sz.cal_len * s.sz.cal_stride + slot] |= what;
}
// Local ports of router r with something to receive at cycle t (`any`), and those of them
// receiving a flit into an input VC (`flits`); every port for both without a calendar. Only
// `flits` can make an idle port busy: credits and ejected flits touch no input VC.
struct PortArrivals {
  u64 any, flits;
};
FLITSIM_HD PortArrivals arrivals_at(const SimView& __restrict__ s, int rep, int r, long long t) {
  if (!s.sz.cal_len) {
    const int radix = s.port_offset[r + 1] - s.port_offset[r];
    const u64 all = radix >= 64 ? ~u64(0) : (u64(1) << radix) - 1;
    return PortArrivals{all, all};
  }
  const uint8_t* slot = arrival_slot(s, rep, r, t);
  PortArrivals a{0, 0};
  constexpr u64 kLow = 0x0101010101010101ull;
  for (int i = 0; i < s.sz.cal_stride; i += 8) {
    u64 bytes;  // eight Arrival bytes, folded to 0/1 flags; the multiply gathers them into the top byte, flag j to bit j
    memcpy(&bytes, slot + i, 8);
    if (!bytes) continue;
    const u64 any = (bytes | bytes >> 1 | bytes >> 2) & kLow, flits = bytes & kLow;  // kArriveFlit is bit 0
    a.any |= ((any * 0x0102040810204080ull) >> 56) << i;
    a.flits |= ((flits * 0x0102040810204080ull) >> 56) << i;
  }
  return a;
}
FLITSIM_HD void clear_arrivals(const SimView& __restrict__ s, int rep, int r, long long t) {
  memset(arrival_slot(s, rep, r, t), 0, s.sz.cal_stride);
}

// Send a flit into the input side of terminal port gp from its node's interface at cycle t.
FLITSIM_HD void send_flit_from_node(const SimView& __restrict__ s, int rep, int gp, flit_t f, long long t) {
  const RingSpan& ring = s.port_rings[gp].flits;
  const long long slot = ring_slot(ring, t + ring.delay);
  *fring_at(s, rep, slot) = f;
  note_arrival(s, rep, slot, kArriveFlit);
}
// Send a flit from output `out` to its peer's input, or (no peer) to its node's sink.
FLITSIM_HD void send_flit_from_port(const SimView& __restrict__ s, int rep, int out, flit_t f, long long t) {
  const RingSpan& ring = s.port_rings[out].flits_out;
  const bool peer = s.peer_port[out] >= 0;
  const long long slot = ring_slot(ring, t + ring.delay);
  *(peer ? fring_at(s, rep, slot) : ering_at(s, rep, slot)) = f;
  note_arrival(s, rep, slot, peer ? kArriveFlit : kArriveEject);
}
// Return a credit for VC v of input port gp to whoever feeds it (a router's output or a NI).
FLITSIM_HD void return_credit(const SimView& __restrict__ s, int rep, int gp, int v, long long t) {
  const RingSpan& ring = s.port_rings[gp].credits_out;
  const long long slot = ring_slot(ring, t + ring.delay);
  *(s.peer_port[gp] >= 0 ? cring_at(s, rep, slot) : nicring_at(s, rep, slot)) = v;
  note_arrival(s, rep, slot, kArriveCredit);
}

}  // namespace flitsim
