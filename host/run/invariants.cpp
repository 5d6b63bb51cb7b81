#include "invariants.hpp"

#include <sstream>

#include "cuda/flit.cuh"

namespace flitsim {

namespace {

// Flits in replica rep's output queues (cioq, ioq), in total and per (output port, VC) into
// `per_vc`; reports a queue holding more than router.output_buffer flits, a flit in the queue
// of another VC (ioq) or an overflow.
long long output_queue_flits(const HostState& h, int rep, std::vector<long long>& per_vc, std::ostream& err) {
  const Sizes& sz = h.sz;
  if (sz.O == 0) return 0;
  const long long overflow = h.rep_sums[(long long)rep * kRepSums + kOutputOverflows];
  if (overflow) err << "replica " << rep << ": " << overflow << " flits crossed the switch into a full output queue\n";
  long long total = 0;
  for (int gp = 0; gp < sz.P; ++gp)
    for (int k = 0; k < sz.OQ; ++k) {
      const long long oq = ((long long)rep * sz.P + gp) * sz.OQ + k;
      const int count = h.oq_count[oq];
      if (count < 0 || count > sz.O)
        err << "replica " << rep << ": output queue " << k << " of port " << gp << " holds " << count
            << " flits, outside [0, router.output_buffer = " << sz.O << "]\n";
      for (int i = 0; i < count && i < sz.O; ++i) {
        const int v = flit_vc(h.oq_buf[oq * sz.O + (h.oq_head[oq] + i) % sz.O]);
        if (h.prm.router.ioq() && v != k)
          err << "replica " << rep << ": output queue " << k << " of port " << gp << " holds a flit of VC " << v << "\n";
        ++per_vc[size_t(gp) * sz.V + v];
      }
      total += count;
    }
  return total;
}

// cioq and ioq (output_queue.cuh): the output queues' occupancy and the credits inputs still
// owe, for the deadlock report. With cioq the queues are normally empty in a deadlock (each
// queued flit already owns its downstream credit, so the link always drains it): flits left
// there point at the drain, not at the VC dependencies. With ioq the flits there wait for
// their VC's credit, part of the blocked chain.
std::string describe_output_queues(const HostState& h, int rep, int limit) {
  const Sizes& sz = h.sz;
  std::ostringstream rows;
  long long flits = 0, owed = 0;
  int queues = 0;
  for (int gp = 0; gp < sz.P; ++gp) {
    const long long op = (long long)rep * sz.P + gp;
    for (int v = 0; v < sz.V; ++v) owed += h.ivc_owed[op * sz.V + v];
    for (int k = 0; k < sz.OQ; ++k) {
      const long long oq = op * sz.OQ + k;
      const int count = h.oq_count[oq];
      if (count == 0) continue;
      flits += count, ++queues;
      if (queues > limit) continue;
      const int r = h.port_router[gp], v = flit_vc(h.oq_buf[oq * sz.O + h.oq_head[oq]]);
      rows << "  router " << r << " output port " << gp - h.port_offset[r] << ": " << count << " flits, front flit VC "
           << v;
      if (h.prm.router.ioq() && h.peer_port[gp] >= 0)
        rows << " with " << h.ovc[op * sz.V + v].credits << " downstream credits";
      rows << "\n";
    }
  }
  std::ostringstream out;
  out << "output queues (router.output_buffer = " << sz.O << " flits each): " << flits << " flits in " << queues
      << " of " << (long long)sz.P * sz.OQ << " queues, " << owed << " credits owed upstream" << (queues ? ":\n" : "\n")
      << rows.str();
  return out.str();
}

}  // namespace

std::string check_conservation(const HostState& h) {
  const Sizes& sz = h.sz;
  std::ostringstream err;
  for (int rep = 0; rep < sz.reps; ++rep) {
    const long long pv0 = (long long)rep * sz.P * sz.V;
    // Flits per (input port, VC) on the channel into it, and credits per (output port, VC).
    std::vector<long long> in_flight(size_t(sz.P) * sz.V, 0), credit_flight(size_t(sz.P) * sz.V, 0);
    std::vector<long long> nic_flight(size_t(sz.N) * sz.V, 0);
    long long sent = 0, received = 0, buffered = 0, on_wire = 0;
    // Index of slot k of a ring in one replica's ring array (rings.cuh: the layouts).
    auto slot = [](const RingSpan& ring, int k) { return ring.off + (long long)k * ring.stride; };
    for (int gp = 0; gp < sz.P; ++gp) {
      for (int k = 0; k < h.port_rings[gp].flits.len; ++k) {
        flit_t f = h.fring[(long long)rep * sz.fring_total + slot(h.port_rings[gp].flits, k)];
        if (f != kNoFlit) ++on_wire, ++in_flight[size_t(gp) * sz.V + flit_vc(f)];
      }
      for (int k = 0; k < h.port_rings[gp].credits.len; ++k) {
        int v = h.cring[(long long)rep * sz.cring_total + slot(h.port_rings[gp].credits, k)];
        if (v >= 0) ++credit_flight[size_t(gp) * sz.V + v];
      }
      for (int v = 0; v < sz.V; ++v) buffered += h.ivc_count[pv0 + (long long)gp * sz.V + v];
    }
    // Output queues (cioq, ioq): flits per (output port, VC) they hold (output_queue.cuh).
    std::vector<long long> queued_vc(size_t(sz.P) * sz.V, 0);
    const long long queued = output_queue_flits(h, rep, queued_vc, err);
    for (int n = 0; n < sz.N; ++n) {
      sent += h.node_flits_sent[(long long)rep * sz.N + n];
      received += h.node_flits_received[(long long)rep * sz.N + n];
      for (int k = 0; k < h.node_rings[n].flits.len; ++k)
        if (h.ering[(long long)rep * sz.ering_total + slot(h.node_rings[n].flits, k)] != kNoFlit) ++on_wire;
      for (int k = 0; k < h.node_rings[n].credits.len; ++k) {
        int v = h.nicring[(long long)rep * sz.nicring_total + slot(h.node_rings[n].credits, k)];
        if (v >= 0) ++nic_flight[size_t(n) * sz.V + v];
      }
    }
    if (sent != received + buffered + on_wire + queued)
      err << "replica " << rep << ": flits sent " << sent << " != received " << received << " + buffered "
          << buffered << " + on channels " << on_wire << " + in output queues " << queued << "\n";
    const long long overflow = h.rep_sums[(long long)rep * kRepSums + kBufferOverflows];
    if (overflow) err << "replica " << rep << ": " << overflow << " flits arrived at a full buffer\n";
    auto owed = [&](int port, int v) { return sz.O ? (long long)h.ivc_owed[pv0 + (long long)port * sz.V + v] : 0LL; };
    // Credits: for each router output (gp, v) feeding input (peer, v).
    for (int gp = 0; gp < sz.P; ++gp) {
      const int peer = h.peer_port[gp];
      for (int v = 0; v < sz.V; ++v) {
        long long total;
        if (peer >= 0) {
          total = h.ovc[pv0 + (long long)gp * sz.V + v].credits + credit_flight[size_t(gp) * sz.V + v] +
                  // cioq's queued flits spent their credit on entry; ioq's spend it on leaving
                  (h.prm.router.cioq() ? queued_vc[size_t(gp) * sz.V + v] : 0) +
                  in_flight[size_t(peer) * sz.V + v] + h.ivc_count[pv0 + (long long)peer * sz.V + v] +
                  owed(peer, v);  // credits the input still owes (speedup, output_queue.cuh)
        } else {  // the node interface feeds terminal port gp
          const int n = h.port_node[gp];
          total = h.ni_credits[((long long)rep * sz.N + n) * sz.V + v] + nic_flight[size_t(n) * sz.V + v] +
                  in_flight[size_t(gp) * sz.V + v] + h.ivc_count[pv0 + (long long)gp * sz.V + v] + owed(gp, v);
        }
        if (total != sz.B) {
          err << "replica " << rep << ": credits for port " << gp << " VC " << v << " sum to " << total
              << " instead of the buffer depth " << sz.B << "\n";
          return err.str();
        }
      }
    }
  }
  return err.str();
}

std::string describe_blocked(const HostState& h, int rep, int limit) {
  const Sizes& sz = h.sz;
  std::ostringstream out;
  int shown = 0;
  for (int gp = 0; gp < sz.P && shown < limit; ++gp)
    for (int v = 0; v < sz.V && shown < limit; ++v) {
      const long long q = ((long long)rep * sz.P + gp) * sz.V + v;
      if (h.ivc_count[q] == 0) continue;
      const int op = h.ivc[q].out_port, ov = h.ivc[q].out_vc;
      out << "  router " << h.port_router[gp] << " input port " << gp - h.port_offset[h.port_router[gp]] << " VC "
          << v << ": " << h.ivc_count[q] << " flits";
      if (op < 0) {
        out << ", not routed";
      } else {
        out << ", to port " << op - h.port_offset[h.port_router[op]];
        if (ov < 0) out << " waiting for an output VC";
        else out << " VC " << ov << " with " << h.ovc[((long long)rep * sz.P + op) * sz.V + ov].credits << " credits";
      }
      out << "\n";
      ++shown;
    }
  if (sz.O > 0) out << describe_output_queues(h, rep, limit);
  return out.str();
}

}  // namespace flitsim
