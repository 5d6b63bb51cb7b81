// Channels are delay lines: a ring per channel of len slots, len a power of two > delay. The
// sender writes slot t mod len at cycle t; the receiver reads and clears slot (t − delay) mod
// len, i.e. what was written `delay` cycles earlier. Sender and receiver never touch the same
// slot in one cycle, so routers need no barrier between them inside a cycle (DESIGN.md §4).
// Powers of two turn the modulo into a mask: this is the innermost loop of the simulator.
#pragma once
#include <cstring>

#include "state.cuh"

namespace flitsim {

FLITSIM_HD long long ring_write_slot(const RingSpan& r, long long t) { return r.off + (t & (r.len - 1)); }
FLITSIM_HD long long ring_read_slot(const RingSpan& r, long long t) { return r.off + ((t - r.delay) & (r.len - 1)); }

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
FLITSIM_HD uint8_t* arrival_slot(const SimView& __restrict__ s, int rep, int r, long long t) {
  return &s.arrivals[(((long long)rep * s.sz.R + r) * s.sz.cal_len + (t & (s.sz.cal_len - 1))) * s.sz.cal_stride];
}
// The port a ring delivers to has something to receive at cycle `at` (ring.cal: that port's
// byte in its router's calendar, slot 0).
FLITSIM_HD void note_arrival(const SimView& __restrict__ s, int rep, const RingSpan& ring, long long at, Arrival what) {
  if (!s.sz.cal_len) return;
  const long long slot = (long long)rep * s.sz.R * s.sz.cal_len + (at & (s.sz.cal_len - 1));
  s.arrivals[slot * s.sz.cal_stride + ring.cal] |= what;
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
  *fring_at(s, rep, ring_write_slot(ring, t)) = f;
  note_arrival(s, rep, ring, t + ring.delay, kArriveFlit);
}
// Send a flit from output `out` to its peer's input, or (no peer) to its node's sink.
FLITSIM_HD void send_flit_from_port(const SimView& __restrict__ s, int rep, int out, flit_t f, long long t) {
  const RingSpan& ring = s.port_rings[out].flits_out;
  const bool peer = s.peer_port[out] >= 0;
  *(peer ? fring_at(s, rep, ring_write_slot(ring, t)) : ering_at(s, rep, ring_write_slot(ring, t))) = f;
  note_arrival(s, rep, ring, t + ring.delay, peer ? kArriveFlit : kArriveEject);
}
// Return a credit for VC v of input port gp to whoever feeds it (a router's output or a NI).
FLITSIM_HD void return_credit(const SimView& __restrict__ s, int rep, int gp, int v, long long t) {
  const RingSpan& ring = s.port_rings[gp].credits_out;
  *(s.peer_port[gp] >= 0 ? cring_at(s, rep, ring_write_slot(ring, t)) : nicring_at(s, rep, ring_write_slot(ring, t))) = v;
  note_arrival(s, rep, ring, t + ring.delay, kArriveCredit);
}

}  // namespace flitsim
