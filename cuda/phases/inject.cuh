// Phase 2, inject: each node's network interface takes the oldest packet of its (implicit)
// source queue, gives it a packet slot, and sends one flit per cycle into its router's
// terminal port while it holds a credit for the chosen VC. In workload mode (prm.workload.on)
// the packets come from the node's message program (workload/program.cuh) instead.
#pragma once
#include "../packet_slot.cuh"
#include "../rings.cuh"
#include "../routing/dispatch.cuh"
#include "../traffic/injection.cuh"
#include "../workload/program.cuh"

namespace flitsim {

// Offered load, counted at creation: a packet node n creates at cycle t.
FLITSIM_HD void count_created(const SimView& __restrict__ s, int rep, int n, long long t) {
  if (!s.in_window(t)) return;
  const long long ni = s.nn(rep, n);
  const int size = packet_size_of(s, rep, n, t);
  s.node_created_flits[ni] += size;
  s.node_batch_created[s.nb(rep, n, t)] += size;
  s.node_tagged_created[ni] += 1;
}

// Bernoulli source (traffic/injection.cuh): at its next packet's creation cycle it counts the
// packet and draws the gap to the one after; when the interface is free it starts the oldest
// queued packet (index ni_scan_k, created at ni_scan) and moves the scan pointer on by that
// packet's successor's gap. Work per packet, not per cycle.
FLITSIM_HD void bernoulli_source(const SimView& __restrict__ s, int rep, int n, long long t) {
  const long long ni = s.nn(rep, n);
  if (s.ni_next_at[ni] == t) {
    count_created(s, rep, n, t);
    const long long k = s.ni_next_k[ni] + 1;
    s.ni_next_k[ni] = k;
    s.ni_next_at[ni] = t + creation_gap(s, rep, n, k);
  }
  if (s.ni_pid[ni] >= 0 || s.ni_scan_k[ni] == s.ni_next_k[ni]) return;  // busy, or nothing queued
  const int32_t pid = free_slot(s, rep, n, t);
  if (pid < 0) {  // all slots in flight: wait
    if (s.in_window(t)) s.node_slot_stalls[ni] += 1;
    return;
  }
  const long long c = s.ni_scan[ni], k = s.ni_scan_k[ni] + 1;
  s.ni_scan_k[ni] = k;
  // The next queued packet's cycle; when that is the front's next packet, the front has
  // already drawn its gap (the usual case below saturation: one gap draw per packet).
  s.ni_scan[ni] = k == s.ni_next_k[ni] ? s.ni_next_at[ni] : c + creation_gap(s, rep, n, k);
  begin_packet(s, rep, n, pid, destination(s, rep, n, c), packet_size_of(s, rep, n, c), c);
}

// On/off source: the oldest queued creation cycle of node n at or before t; -1 if the queue is
// empty. `created_now` is this cycle's draw, already made for the offered-load count. The
// chain is replayed from the scan pointer's state; `on_prev` is the state at t − 1, and
// `on_before` returns the state at the cycle before the one found.
FLITSIM_HD long long oldest_queued_onoff(const SimView& __restrict__ s, int rep, int n, long long t, bool created_now,
                                         bool on_prev, bool& on_before) {
  const long long ni = s.nn(rep, n);
  long long c = s.ni_scan[ni];
  bool on = s.ni_scan_on[ni];
  for (; c < t; ++c) {
    const bool next = burst_next(s, rep, n, c, on);
    if (next && creates_packet(s, rep, n, c)) {
      on_before = on;
      return c;
    }
    on = next;
  }
  on_before = on_prev;
  if (created_now) return t;
  s.ni_scan[ni] = t + 1;  // nothing queued: skip the empty cycles for good
  s.ni_scan_on[ni] = s.ni_on[ni];
  return -1;
}

FLITSIM_HD void start_packet_onoff(const SimView& __restrict__ s, int rep, int n, long long t, bool created_now, bool on_prev) {
  const long long ni = s.nn(rep, n);
  bool on_before = true;
  const long long c = oldest_queued_onoff(s, rep, n, t, created_now, on_prev, on_before);
  if (c < 0) return;
  const int32_t pid = free_slot(s, rep, n, t);
  if (pid < 0) {  // all slots in flight: wait
    s.ni_scan[ni] = c;
    s.ni_scan_on[ni] = on_before;
    if (s.in_window(t)) s.node_slot_stalls[ni] += 1;
    return;
  }
  s.ni_scan[ni] = c + 1;
  s.ni_scan_on[ni] = 1;  // a packet was created at c, so the source was on
  begin_packet(s, rep, n, pid, destination(s, rep, n, c), packet_size_of(s, rep, n, c), c);
}

// Request-reply: a free interface takes the oldest queued reply (receive.cuh, turn_around)
// before its node's own packets, so replies never wait behind the requests a node makes; the
// reply's packet entry is ready (it travels in its request's slot).
FLITSIM_HD void start_reply(const SimView& __restrict__ s, int rep, int n) {
  const long long ni = s.nn(rep, n);
  const int32_t pid = s.ni_reply_head[ni];
  if (s.ni_pid[ni] >= 0 || pid < 0) return;
  const int32_t next = s.pk_reply[s.pk(rep, pid)].next;
  s.ni_reply_head[ni] = next;
  if (next < 0) s.ni_reply_tail[ni] = -1;
  s.ni_pid[ni] = pid;
  s.ni_sent[ni] = 0;
  s.ni_vc[ni] = -1;
}

// Node n's source and interface (step_inject).
FLITSIM_HD void inject_node(const SimView& __restrict__ s, int rep, int gp, int n, long long t) {
  const long long ni = s.nn(rep, n);
  if (s.sz.reply_N) start_reply(s, rep, n);  // before the source, which then finds the interface busy
  if (s.prm.workload.on) {
    wl_advance(s, rep, n, t);
    if (s.ni_pid[ni] < 0) wl_start_packet(s, rep, n, t);
  } else if (s.prm.traffic.injection == InjectionKind::OnOff) {  // advance the source's chain to t
    const bool on_prev = s.ni_on[ni];
    const bool on = burst_next(s, rep, n, t, on_prev);
    s.ni_on[ni] = on;
    const bool created_now = on && creates_packet(s, rep, n, t);
    if (created_now) count_created(s, rep, n, t);
    if (s.ni_pid[ni] < 0) start_packet_onoff(s, rep, n, t, created_now, on_prev);
  } else {
    bernoulli_source(s, rep, n, t);
  }
  const int32_t pid = s.ni_pid[ni];
  if (pid < 0) return;
  int* credits = &s.ni_credits[ni * s.sz.V];
  int v = s.ni_vc[ni];
  if (v < 0) {  // a new packet picks its injection VC (router.vc_policy), among its message class's
    const long long k = s.pk(rep, pid);
    const int lo = s.sz.reply_N ? s.packets[k].mclass * s.sz.mc_V : 0, hi = lo + s.sz.mc_V;
    if (s.prm.router.vc_policy == VcPolicy::Spread) {  // the one with the most free space
      for (int w = lo; w < hi; ++w)
        if (credits[w] > 0 && (v < 0 || credits[w] > credits[v])) v = w;
      if (v < 0) return;
    } else {  // by-hop and random: one drawn per packet, waiting for its credits (BookSim2's dragonfly)
      v = lo + int(draw_below(draw32(s.rep_seed[rep], uint32_t(k), s.packets[k].create, kRngVc, 0), uint32_t(s.sz.mc_V)));
    }
    s.ni_vc[ni] = v;
  }
  if (credits[v] == 0) return;
  const long long k = s.pk(rep, pid);
  const int sent = s.ni_sent[ni];
  const bool head = sent == 0, tail = sent == s.packets[k].size - 1;
  send_flit_from_node(s, rep, gp, make_flit(pid, v, head, tail), t);
  credits[v] -= 1;
  if (head) {
    s.packets[k].inject = t;
    // routing.decide_at_injection (BookSim2's lookahead routing): the source router's
    // decision is taken now, from its state as the packet enters the injection channel.
    if (s.prm.routing.decide_at_injection) route_packet(s, rep, s.port_router[gp], pid, t);
    if (s.prm.workload.on && s.wl_first_inject[ni] < 0) s.wl_first_inject[ni] = t;
  }
  s.node_flits_sent[ni] += 1;
  s.ni_sent[ni] = sent + 1;
  if (tail) s.ni_pid[ni] = -1;
}

// One terminal port: its node's source (or program) and network interface. A Bernoulli node
// with no packet in its interface and none queued has nothing to do until its next packet's
// creation cycle: ni_wake_at keeps that cycle (or the next cycle while it has work), so the
// many idle nodes at low load cost one load each, not four.
FLITSIM_HD void step_inject(const SimView& __restrict__ s, int rep, int gp, long long t) {
  const int n = s.port_node[gp];
  if (n < 0) return;
  if (!s.prm.workload.on && s.prm.traffic.injection == InjectionKind::Bernoulli) {
    const long long ni = s.nn(rep, n);
    if (t < s.ni_wake_at[ni]) return;
    inject_node(s, rep, gp, n, t);
    // Only this step changes the node's interface and queue (ni_pid, ni_scan_k, ni_next_k,
    // ni_next_at, which is > t once the step has run), so the cycle stays right until then.
    const bool replies = s.sz.reply_N && s.ni_reply_head[ni] >= 0;  // queued replies (receive.cuh wakes for new ones)
    s.ni_wake_at[ni] = s.ni_pid[ni] >= 0 || s.ni_scan_k[ni] != s.ni_next_k[ni] || replies ? t + 1 : s.ni_next_at[ni];
    return;
  }
  inject_node(s, rep, gp, n, t);
}

// The first cycle one of a router's Bernoulli nodes (its terminal ports, local bits) has
// something to do: the cycle runs no inject step before it (cycle.cuh). At load 0.1 a node is
// idle in most cycles and a router with four nodes in about half of them, where the step
// cost a loop over its terminal ports and a load per node.
FLITSIM_HD long long first_node_wake(const SimView& __restrict__ s, int rep, int p0, u64 terminals) {
  long long first = kNeverCreated;  // no terminal port: never
  for (; terminals; terminals &= terminals - 1) {
    const long long at = s.ni_wake_at[s.nn(rep, s.port_node[p0 + lowest_bit(terminals)])];
    first = at < first ? at : first;
  }
  return first;
}

}  // namespace flitsim
