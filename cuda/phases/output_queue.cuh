// Output queues of the combined input/output-queued router (router.architecture = "cioq").
// Each output port has one FIFO of sz.O flits, shared by its VCs:
//   - the switch (traverse.cuh) writes up to router.speedup flits per cycle into it, one per
//     switch pass, only while it has room (ready_output checks output_queue_has_room), so it
//     never overflows (an overflow is counted as kOutputOverflows and fails the run);
//   - the drain step moves its front flit onto the output's channel, one per cycle.
// The drain runs before the switch in the cycle, so a flit waits in its output queue at least
// one cycle: an empty cioq router adds exactly one cycle per router to an iq router's latency.
//
// Credits: a flit spends its downstream input-VC credit when it ENTERS the output queue (as an
// iq router spends it when the flit enters the channel), so every flit in an output queue
// already owns a slot in the downstream VC buffer and the front flit can always leave. The
// shared FIFO therefore never blocks one VC behind another that lacks credits: it adds no
// channel dependency between VCs, and the deadlock freedom of every routing's VC classes is
// that of the iq router (the queue acts as extra channel latency). VC ownership stays correct
// because the output VC is released when the tail enters the FIFO, and a later packet's flits
// on the same VC enter behind it in FIFO order, so packets never interleave on a VC. Checking
// the credit when the flit leaves instead would let a front flit without credit block the
// other VCs' flits behind it (a dependency the VC classes do not break: deadlock).
#pragma once
#include "../rings.cuh"

namespace flitsim {

FLITSIM_HD bool output_queue_has_room(const SimView& s, int rep, int out) {
  return s.oq_count[s.pp(rep, out)] < s.sz.O;
}

// A flit leaves the router through output `out` onto its channel (to the peer's input or the
// node's sink) in cycle t: the last step of both architectures.
FLITSIM_HD void send_on_output(const SimView& s, int rep, int out, flit_t f, long long t) {
  send_flit_from_port(s, rep, out, f, t);
  if (s.in_window(t)) s.port_state[s.pp(rep, out)].flits += 1;
}

// The switch writes flit f (already carrying its output VC) into output `out`'s queue.
FLITSIM_HD void output_queue_push(const SimView& s, int rep, int out, flit_t f) {
  const long long op = s.pp(rep, out);
  const int c = s.oq_count[op];
  if (c >= s.sz.O) {  // impossible: the switch checks for room; counted so the run fails loudly
    atomic_add(&s.rep_sums[(long long)rep * kRepSums + kOutputOverflows], 1);
    return;
  }
  s.oq_buf[op * s.sz.O + add_mod(s.oq_head[op], c, s.sz.O)] = f;
  s.oq_count[op] = c + 1;
}

// Input credits with speedup: an input port's credit channel carries one credit per cycle, but
// with speedup S up to S flits may leave its VCs in a cycle. The first frees a credit at once;
// the others are owed (ivc_owed) and returned one per cycle, before the switch, starting the
// search at VC t mod V so that no VC waits for more than V cycles behind the others.
FLITSIM_HD void return_input_credit(const SimView& s, int rep, int gp, int v, long long t) {
  const long long ip = s.pp(rep, gp);
  if (s.port_credit_at[ip] == t) {  // this cycle's credit slot is taken
    s.ivc_owed[s.pv(rep, gp, v)] += 1;
    s.port_owed[ip] += 1;
    return;
  }
  s.port_credit_at[ip] = t;
  return_credit(s, rep, gp, v, t);
}

FLITSIM_HD void return_owed_credit(const SimView& s, int rep, int gp, long long t) {
  const long long ip = s.pp(rep, gp);
  if (s.port_owed[ip] == 0) return;
  const int V = s.sz.V;
  for (int i = 0, v = int(t % V); i < V; ++i, v = next_mod(v, V)) {
    const long long q = s.pv(rep, gp, v);
    if (s.ivc_owed[q] == 0) continue;
    s.ivc_owed[q] -= 1;
    s.port_owed[ip] -= 1;
    s.port_credit_at[ip] = t;
    return_credit(s, rep, gp, v, t);
    return;
  }
}

// Per port, before the switch: the port's input side returns one owed credit, and the front
// flit of its output queue goes onto its channel. Returns whether a flit left.
FLITSIM_HD bool step_output_drain(const SimView& s, int rep, int out, long long t) {
  return_owed_credit(s, rep, out, t);
  const long long op = s.pp(rep, out);
  const int c = s.oq_count[op];
  if (c == 0) return false;
  const int h = s.oq_head[op];
  send_on_output(s, rep, out, s.oq_buf[op * s.sz.O + h], t);
  s.oq_head[op] = next_mod(h, s.sz.O);
  s.oq_count[op] = c - 1;
  return true;
}

}  // namespace flitsim
