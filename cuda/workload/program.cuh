// Closed-loop message programs (DESIGN.md §1, "Workloads"). Every node that belongs to a job
// runs a program of steps; step k releases its messages to the node's network interface
// (non-blocking sends, packetised in order, one packet at a time), waits until the
// wl_step_need[k] messages matched to it (on the host, host/workload/workload.cpp) have completely
// arrived, waits wl_step_compute[k] more cycles, and moves on to step k + 1.
//
// Determinism: a node's program, its send queue and its receive counters all belong to the
// router the node is attached to. A message is counted by the sink of its destination node,
// i.e. by the same router that runs the destination's program, in the receive phase of the
// same cycle (before the inject phase). So no router ever writes workload state of another
// router. The only cross-router value is the replica's end of the foreground jobs
// (wl_fg_end), written once with an integer atomic countdown and read under the
// "visible from the next cycle" rule of a packet's free_at, which background jobs use to stop.
#pragma once
#include "../flit.cuh"
#include "../packet_slot.cuh"
#include "../state.cuh"

namespace flitsim {

// Packets of a message of `flits` flits.
FLITSIM_HD int32_t wl_packets(const SimView& s, int32_t flits) {
  return (flits + s.prm.workload.packet_size - 1) / s.prm.workload.packet_size;
}

// Steps node n's program as far as cycle t allows: a step whose messages have all arrived
// starts its compute delay; a step whose delay has elapsed hands over to the next step,
// whose messages are released to the interface at once.
FLITSIM_HD void wl_advance(const SimView& s, int rep, int n, long long t) {
  const long long ni = s.nn(rep, n);
  int k = s.wl_cur[ni];
  const int end = s.wl_node_step[ni + 1];
  if (k >= end) return;
  for (;;) {
    long long w = s.wl_wait_until[ni];
    if (w < 0) {
      if (s.wl_step_got[k] < s.wl_step_need[k]) break;
      w = t + s.wl_step_compute[k];
      s.wl_wait_until[ni] = w;
      s.wl_step_done[k] = t;
    }
    if (t < w) break;
    s.wl_wait_until[ni] = -1;
    if (++k == end) {
      s.wl_done_at[ni] = t;
      if (!s.wl_node_bg[ni] && atomic_fetch_add(&s.wl_fg_left[rep], -1) == 1)
        store_relaxed(&s.wl_fg_end[rep], t);  // several nodes may finish in cycle t: all write t
      break;
    }
    s.wl_step_start[k] = t;
    s.wl_send_end[ni] = s.wl_step_send[k + 1];
  }
  s.wl_cur[ni] = k;
}

// Starts the next packet of node n's released messages in a free packet slot, if any. The
// interface sends up to sz.wl_queues messages at once, packet by packet in round-robin order
// (1: strictly one message after the other); released messages join in program order.
FLITSIM_HD void wl_start_packet(const SimView& s, int rep, int n, long long t) {
  const long long ni = s.nn(rep, n);
  const int W = s.sz.wl_queues;
  int32_t* qm = &s.wl_q_msg[ni * W];
  int32_t* qo = &s.wl_q_off[ni * W];
  for (int i = 0; i < W; ++i)
    if (qm[i] < 0 && s.wl_send_cur[ni] < s.wl_send_end[ni]) {
      qm[i] = s.wl_send_cur[ni]++;
      qo[i] = 0;
    }
  int q = -1;
  for (int j = 0, i = s.wl_q_rr[ni]; j < W; ++j, i = next_mod(i, W))
    if (qm[i] >= 0) {
      q = i;
      break;
    }
  if (q < 0) return;
  if (s.wl_node_bg[ni]) {  // background jobs stop once the foreground jobs are done
    const long long e = load_relaxed(&s.wl_fg_end[rep]);
    if (e >= 0 && e < t) return;
  }
  const int32_t pid = free_slot(s, rep, n, t);
  if (pid < 0) {  // all slots in flight: wait
    s.node_slot_stalls[ni] += 1;
    return;
  }
  const int32_t m = qm[q], flits = s.wl_msg_flits[m], off = qo[q];
  const int32_t size = flits - off < s.prm.workload.packet_size ? flits - off : s.prm.workload.packet_size;
  qo[q] = off + size;
  if (off + size == flits) qm[q] = -1;
  s.wl_q_rr[ni] = next_mod(q, W);
  begin_packet(s, rep, n, pid, s.wl_msg_dst[m], size, t);
  s.pk_msg[s.pk(rep, pid)] = m;
  s.node_created_flits[ni] += size;
  s.node_tagged_created[ni] += 1;
}

// The tail of packet slot k reached node n's sink at cycle t (before the slot is released).
FLITSIM_HD void wl_packet_arrived(const SimView& s, int rep, int n, long long k, long long t) {
  const int32_t m = s.pk_msg[k];
  const int32_t got = s.wl_msg_got[m] + 1;
  s.wl_msg_got[m] = got;
  if (got == wl_packets(s, s.wl_msg_flits[m])) {
    s.wl_step_got[s.wl_msg_step[m]] += 1;
    s.wl_last_recv[s.nn(rep, n)] = t;
  }
}

}  // namespace flitsim
