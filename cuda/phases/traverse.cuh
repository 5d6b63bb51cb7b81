// Phase 6, switch traversal and credit return, as two per-port steps:
//   out (per output port): the output matched to an input (sa_match) moves that input VC's
//     front flit onto its channel (router pipeline latency is part of the channel's delay) or,
//     with router.architecture = "cioq" or "ioq", into its output queue (output_queue.cuh),
//     spends a downstream credit (iq, cioq) and, on a tail, releases the output VC;
//   in (per input port): the input VC that sent (sa_req_vc) pops its front flit, returns a
//     credit upstream and, on a tail, forgets its route so the next packet can route.
// `out` only reads the input's state and `in` only writes it, so neither step writes what
// another port reads in the same step.
#pragma once
#include "../rings.cuh"
#include "output_queue.cuh"
#include "switch_alloc.cuh"

namespace flitsim {

// Returns whether a flit left through `out` (a wasted speculative match sends none).
FLITSIM_HD bool step_traverse_out(const SimView& __restrict__ s, int rep, int r, int out, long long t) {
  const long long op = s.pp(rep, out);
  const int i = s.port_state[op].sa_match;
  if (i < 0) return false;
  s.port_state[op].sa_match = -1;  // its last use this cycle; the next request step reads it
  const int gp = s.port_offset[r] + i, v = s.port_state[s.pp(rep, gp)].sa_req_vc;
  const long long q = s.pv(rep, gp, v);
  const int ov = s.ivc[q].out_vc;
  const BufferedFlit f = s.ibuf[q * s.sz.B + s.ivc[q].head];
  const int32_t pid = f.pid();
  const flit_t g = make_flit(pid, ov, f.head(), f.tail());
  if (s.peer_port[out] >= 0) {
    // The downstream credit is spent here by iq and cioq; ioq spends it when the flit leaves
    // its output queue (output_queue.cuh).
    if (!s.prm.router.ioq()) s.ovc[s.pv(rep, out, ov)].credits -= 1;
    if (f.head()) s.packets[s.pk(rep, pid)].hops += 1;
  }
  if (f.tail()) s.ovc[s.pv(rep, out, ov)].owner = -1;
  if (s.prm.router.output_queued()) output_queue_push(s, rep, out, g);  // the link drains it from the next cycle
  else send_on_output(s, rep, out, g, t);
  return true;
}

FLITSIM_HD void step_traverse_in(const SimView& __restrict__ s, int rep, int gp, long long t) {
  const long long ip = s.pp(rep, gp);
  const int v = s.port_state[ip].sa_req_vc;
  if (v < 0) return;
  const long long q = s.pv(rep, gp, v);
  const int B = s.sz.B;
  const bool tail = s.ibuf[q * B + s.ivc[q].head].tail();
  // An emptied VC starts again at its home slot: at low load a VC then holds its few flits in
  // one cache line of its buffer instead of walking all B slots, so the buffers the network
  // touches fit in cache (B = 32: half the lines). Home lines differ between neighbouring VCs
  // so that they spread over the cache's sets: slot 0 of every VC would put them all
  // B·sizeof(BufferedFlit) bytes apart, in a fraction of the sets. Flits keep their order
  // either way.
  if (--s.ivc_count[q] == 0) {
    s.port_state[ip].vc_mask &= ~(u64(1) << v);
    const int home = int(q & 3) * (64 / int(sizeof(BufferedFlit)));  // up to four home lines, no division
    s.ivc[q].head = home < B ? home : 0;
  } else {
    s.ivc[q].head = next_mod(s.ivc[q].head, B);
  }
  if (s.prm.router.output_queued()) return_input_credit(s, rep, gp, v, t);  // at most one per cycle (output_queue.cuh)
  else return_credit(s, rep, gp, v, t);
  s.port_state[ip].sa_req_vc = -1;
  if (tail) {
    s.ivc[q].out_port = -1;
    s.ivc[q].out_vc = -1;
    s.port_state[ip].routed_mask &= ~(u64(1) << v);
    s.port_state[ip].held_mask &= ~(u64(1) << v);
  }
}

}  // namespace flitsim
