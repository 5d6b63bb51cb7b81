// Channels are delay lines: a ring per channel of len slots, len a power of two > delay. The
// sender writes slot t mod len at cycle t; the receiver reads and clears slot (t − delay) mod
// len, i.e. what was written `delay` cycles earlier. Sender and receiver never touch the same
// slot in one cycle, so routers need no barrier between them inside a cycle (DESIGN.md §4).
// Powers of two turn the modulo into a mask: this is the innermost loop of the simulator.
#pragma once
#include "state.cuh"

namespace flitsim {

FLITSIM_HD long long ring_write_slot(int off, int len, long long t) { return off + (t & (len - 1)); }
FLITSIM_HD long long ring_read_slot(int off, int len, int delay, long long t) {
  return off + ((t - delay) & (len - 1));
}

// Flit ring feeding the input side of port gp.
FLITSIM_HD flit_t* fring_at(const SimView& s, int rep, long long slot) {
  return &s.fring[(long long)rep * s.sz.fring_total + slot];
}
FLITSIM_HD int32_t* cring_at(const SimView& s, int rep, long long slot) {
  return &s.cring[(long long)rep * s.sz.cring_total + slot];
}
FLITSIM_HD flit_t* ering_at(const SimView& s, int rep, long long slot) {
  return &s.ering[(long long)rep * s.sz.ering_total + slot];
}
FLITSIM_HD int32_t* nicring_at(const SimView& s, int rep, long long slot) {
  return &s.nicring[(long long)rep * s.sz.nicring_total + slot];
}

// Send a flit into the input side of port `to` (a router port) at cycle t.
FLITSIM_HD void send_flit_to_port(const SimView& s, int rep, int to, flit_t f, long long t) {
  *fring_at(s, rep, ring_write_slot(s.fring_off[to], s.fring_len[to], t)) = f;
}
// Send a flit to node n's sink.
FLITSIM_HD void send_flit_to_node(const SimView& s, int rep, int n, flit_t f, long long t) {
  *ering_at(s, rep, ring_write_slot(s.ering_off[n], s.ering_len[n], t)) = f;
}
// Return a credit for VC v of input port gp to whoever feeds it (a router's output or a NI).
FLITSIM_HD void return_credit(const SimView& s, int rep, int gp, int v, long long t) {
  int up = s.peer_port[gp];
  if (up >= 0) {
    *cring_at(s, rep, ring_write_slot(s.cring_off[up], s.cring_len[up], t)) = v;
  } else {
    int n = s.port_node[gp];
    *nicring_at(s, rep, ring_write_slot(s.nicring_off[n], s.nicring_len[n], t)) = v;
  }
}

}  // namespace flitsim
