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

// Offered load, counted at creation: a packet node n creates at cycle t (in traffic class c).
FLITSIM_HD void count_created(const SimView& __restrict__ s, int rep, int n, long long t, int c = 0) {
  if (!s.in_window(t)) return;
  const long long ni = s.nn(rep, n);
  const int size = packet_size_of(s, rep, n, t, c);
  s.node_created_flits[ni] += size;
  s.node_batch_created[s.nb(rep, n, t)] += size;
  s.node_tagged_created[ni] += 1;
  if (s.sz.cls_K) atomic_add(&s.cls_sums[((long long)rep * s.sz.cls_K + c) * kClassSums + kClsCreatedFlits], size);
}

// Traffic class c's Bernoulli chain at node index ni (replica-major): class 0's is the node's
// own arrays, classes 1 .. K − 1 have theirs in cls_* (state.cuh). Entry i of the four arrays.
struct SourceChain {
  i64 *scan, *scan_k, *next_at, *next_k;
  long long i;
};
FLITSIM_HD SourceChain source_chain(const SimView& __restrict__ s, long long ni, int c) {
  if (c == 0) return SourceChain{s.ni_scan, s.ni_scan_k, s.ni_next_at, s.ni_next_k, ni};
  return SourceChain{s.cls_scan, s.cls_scan_k, s.cls_next_at, s.cls_next_k, (long long)(c - 1) * s.sz.reps * s.sz.N + ni};
}

// The traffic class whose queued packet node ni's free interface takes next, or −1: the
// highest priority; among equal priorities the oldest packet (ties: the lower class), so that
// classes of equal priority share the interface first come, first served.
FLITSIM_HD int next_source_class(const SimView& __restrict__ s, long long ni) {
  int best = -1;
  long long best_at = 0;
  for (int c = 0; c < s.prm.classes.count; ++c) {
    const SourceChain q = source_chain(s, ni, c);
    if (q.scan_k[q.i] == q.next_k[q.i]) continue;  // nothing queued
    const int pr = s.prm.classes.priority[c];
    if (best < 0 || pr > s.prm.classes.priority[best] || (pr == s.prm.classes.priority[best] && q.scan[q.i] < best_at))
      best = c, best_at = q.scan[q.i];
  }
  return best;
}

// Bernoulli source (traffic/injection.cuh): at its next packet's creation cycle it counts the
// packet and draws the gap to the one after; when the interface is free it starts the oldest
// queued packet (index ni_scan_k, created at ni_scan) and moves the scan pointer on by that
// packet's successor's gap. Work per packet, not per cycle. With traffic classes each class
// has such a chain, and the interface takes from next_source_class.
FLITSIM_HD void bernoulli_source(const SimView& __restrict__ s, int rep, int n, long long t) {
  const long long ni = s.nn(rep, n);
  for (int cls = 0; cls < s.prm.classes.count; ++cls) {
    const SourceChain q = source_chain(s, ni, cls);
    if (q.next_at[q.i] == t) {
      count_created(s, rep, n, t, cls);
      const long long k = q.next_k[q.i] + 1;
      q.next_k[q.i] = k;
      q.next_at[q.i] = t + creation_gap(s, rep, n, k, cls);
    }
  }
  if (s.ni_pid[ni] >= 0) return;  // busy
  const int cls = s.prm.classes.count == 1 ? (s.ni_scan_k[ni] == s.ni_next_k[ni] ? -1 : 0) : next_source_class(s, ni);
  if (cls < 0) return;  // nothing queued
  const int32_t pid = free_slot(s, rep, n, t);
  if (pid < 0) {  // all slots in flight: wait
    if (s.in_window(t)) s.node_slot_stalls[ni] += 1;
    return;
  }
  const SourceChain q = source_chain(s, ni, cls);
  const long long c = q.scan[q.i], k = q.scan_k[q.i] + 1;
  q.scan_k[q.i] = k;
  // The next queued packet's cycle; when that is the front's next packet, the front has
  // already drawn its gap (the usual case below saturation: one gap draw per packet).
  q.scan[q.i] = k == q.next_k[q.i] ? q.next_at[q.i] : c + creation_gap(s, rep, n, k, cls);
  begin_packet(s, rep, n, pid, destination(s, rep, n, c, cls), packet_size_of(s, rep, n, c, cls), c);
  s.packets[s.pk(rep, pid)].tclass = uint8_t(cls);
}

// The first cycle node ni's Bernoulli chains have work (step_inject's ni_wake_at): the next
// cycle while a packet is queued, else the earliest next creation.
FLITSIM_HD long long next_source_wake(const SimView& __restrict__ s, long long ni, long long t) {
  long long at = kNeverCreated;
  for (int c = 0; c < s.prm.classes.count; ++c) {
    const SourceChain q = source_chain(s, ni, c);
    if (q.scan_k[q.i] != q.next_k[q.i]) return t + 1;
    at = q.next_at[q.i] < at ? q.next_at[q.i] : at;
  }
  return at;
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
    if (s.prm.classes.count == 1)
      s.ni_wake_at[ni] = s.ni_pid[ni] >= 0 || s.ni_scan_k[ni] != s.ni_next_k[ni] || replies ? t + 1 : s.ni_next_at[ni];
    else
      s.ni_wake_at[ni] = s.ni_pid[ni] >= 0 || replies ? t + 1 : next_source_wake(s, ni, t);
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
