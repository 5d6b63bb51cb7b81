// Output queues of the output-queued router architectures (router.architecture):
//
// "cioq", combined input/output-queued. Each output port has one FIFO of sz.O flits, shared
// by its VCs:
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
//
// "ioq", input-output-queued (SuperSim's input_output_queued router). Each output port has
// one FIFO of sz.O flits per VC (sz.OQ = V queues):
//   - the switch writes a flit into the queue of its output VC while that queue has room
//     (ready_output: the queue's room takes the place of the downstream credit), up to
//     router.speedup flits per output per cycle; no downstream credit is spent;
//   - the drain step sends, one per cycle, the front flit of one VC whose downstream buffer has
//     a credit, spending it then; the VCs are offered in a rotating order starting at VC
//     t mod V, so none waits more than V cycles behind the others.
// A flit therefore waits for its credit in the output queue, where the congestion sensors can
// see it (routing/route_choice.cuh, queued_for_credit). A queue holds the flits of one VC
// only, so a flit without credit blocks only its own VC: the queue lengthens the VC's channel
// and adds no dependency between VCs (deadlock freedom is again that of the iq router). VC
// ownership: as with cioq, released when the tail enters the queue, later packets queue
// behind it.
#pragma once
#include "../rings.cuh"

namespace flitsim {

// Room in output `out`'s queue for a flit on output VC ov (its FIFO with cioq, the VC's with
// ioq).
FLITSIM_HD bool output_queue_has_room(const SimView& s, int rep, int out, int ov) {
  return s.oq_count[s.po(rep, out, s.prm.router.ioq() ? ov : 0)] < s.sz.O;
}

// A flit leaves the router through output `out` onto its channel (to the peer's input or the
// node's sink) in cycle t: the last step of every architecture.
FLITSIM_HD void send_on_output(const SimView& s, int rep, int out, flit_t f, long long t) {
  send_flit_from_port(s, rep, out, f, t);
  if (s.in_window(t)) s.port_state[s.pp(rep, out)].flits += 1;
}

// The switch writes flit f (already carrying its output VC) into output `out`'s queue.
FLITSIM_HD void output_queue_push(const SimView& s, int rep, int out, flit_t f) {
  const long long op = s.po(rep, out, s.prm.router.ioq() ? flit_vc(f) : 0);
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

// The front flit of output queue oq (of output `out`) leaves onto the channel.
FLITSIM_HD void send_queue_front(const SimView& s, int rep, int out, long long oq, long long t) {
  const int h = s.oq_head[oq];
  send_on_output(s, rep, out, s.oq_buf[oq * s.sz.O + h], t);
  s.oq_head[oq] = next_mod(h, s.sz.O);
  s.oq_count[oq] -= 1;
}

// ioq: the front flit of the first VC queue from VC t mod V whose downstream buffer has a
// credit (a node's sink always has room) leaves onto the channel, spending that credit.
FLITSIM_HD bool drain_vc_queues(const SimView& s, int rep, int out, long long t) {
  const int V = s.sz.V;
  const bool to_router = s.peer_port[out] >= 0;
  for (int i = 0, v = int(t % V); i < V; ++i, v = next_mod(v, V)) {
    const long long oq = s.po(rep, out, v);
    if (s.oq_count[oq] == 0) continue;
    if (to_router) {
      OutputVc& o = s.ovc[s.pv(rep, out, v)];
      if (o.credits == 0) continue;
      o.credits -= 1;
    }
    send_queue_front(s, rep, out, oq, t);
    return true;
  }
  return false;
}

// Per port, before the switch: the port's input side returns one owed credit, and a flit of
// its output queue(s) goes onto its channel. Returns whether a flit left.
FLITSIM_HD bool step_output_drain(const SimView& s, int rep, int out, long long t) {
  return_owed_credit(s, rep, out, t);
  if (s.prm.router.ioq()) return drain_vc_queues(s, rep, out, t);
  const long long oq = s.po(rep, out, 0);
  if (s.oq_count[oq] == 0) return false;
  send_queue_front(s, rep, out, oq, t);
  return true;
}

}  // namespace flitsim
