// Phase 4, VC allocation: router.vc_allocator = "separable-input-first" (the default) as three
// per-port steps, and the helpers every VC allocator shares (the others are in
// vc_alloc_matching.cuh; phases/allocation.cuh runs them). Each step writes
// only the state of the port it runs for and reads only what earlier steps or cycles wrote,
// so the ports of a router may run a step in any order or in parallel (cycle.cuh).
//   request (per input port): each routed input VC without an output VC picks a free output
//     VC of its allowed range by router.vc_policy (pick_output_vc) and records the request as
//     ivc_out_vc = kRequesting − w; va_request marks the output ports requested;
//   grant (per output port): each of its output VCs grants the requester nearest after its
//     round-robin pointer, which moves past it (or, with router.arbitration = "age", the one
//     whose packet is oldest), and records the winner as its owner;
//   accept (per input port): a requester that finds itself the owner keeps the VC (and notes
//     the cycle in ivc_va_at, which router.va_sa = "separate" reads), the others request again
//     in the next iteration (router.alloc_iterations) or cycle.
#pragma once
#include "../rng.cuh"
#include "../state.cuh"

namespace flitsim {

constexpr int kRequesting = -2;  // ivc_out_vc values <= kRequesting encode a pending request
constexpr int kMaxVcs = 64;      // VCs per port fit the 64-bit occupancy masks (checked at set-up)
constexpr int kMaxRadix = 64;    // ports per router fit the allocators' 64-bit masks (checked at set-up)

// Distance from round-robin pointer `rr` to index i among n entries.
FLITSIM_HD int rr_distance(int i, int rr, int n) { return i >= rr ? i - rr : i - rr + n; }

// Creation cycle of the packet at the front of input VC q: its age for router.arbitration =
// "age" (smaller is older).
FLITSIM_HD long long front_created(const SimView& __restrict__ s, int rep, long long q) {
  return s.packets[s.pk(rep, s.ibuf[q * s.sz.B + s.ivc[q].head].pid())].create;
}

// Packet id slot of the front flit of input VC q.
FLITSIM_HD long long front_packet(const SimView& __restrict__ s, int rep, long long q) {
  return s.pk(rep, s.ibuf[q * s.sz.B + s.ivc[q].head].pid());
}

// Traffic classes with different priorities (SimParams::classes.prioritized): the priority of
// the packet at the front of input VC q. Every arbiter that has a choice lets the higher win
// and applies its own rule (round-robin pointer, or age) among equals (docs/traffic.md
// "Traffic classes"); without different priorities no arbiter reads it.
FLITSIM_HD int vc_priority(const SimView& __restrict__ s, int rep, long long q) {
  return s.prm.classes.priority[s.packets[front_packet(s, rep, q)].tclass];
}

// The one output VC router.vc_policy = "by-hop" allows input VC q: the range's first VC, so
// each hop type of a routing uses exactly one VC (as BookSim2's dragonfly routings do). A hop
// the routing leaves unrestricted (all V VCs: ejection, the dragonfly's minimal global hop)
// goes on the last class's first VC, where BookSim2's dragonfly puts them; only ejection or
// last-class hops follow such a hop, so no channel dependency cycle appears.
// With router.eject_vc = "arrival" ejection instead stays in the class of the VC the packet
// arrived on (class 0 from its own node), as BookSim2's min_dragonflynew keeps a packet's VC
// up to its sink. Any ejection VC is deadlock-free: an ejection VC leads only to a sink, which
// takes a flit every cycle, so no channel depends on it and it closes no dependency cycle.
// All of this within the packet's message class (traffic.reply_size): its VCs start at `base`.
FLITSIM_HD int by_hop_vc(const SimView& __restrict__ s, long long q) {
  const int lo = s.ivc[q].vc_lo, hi = s.ivc[q].vc_hi;
  const int base = s.sz.reply_N && lo >= s.sz.mc_V ? s.sz.mc_V : 0;  // a reply's range lies in [mc_V, 2·mc_V)
  if (lo != base || hi != base + s.sz.mc_V) return lo;
  if (!s.prm.router.eject_on_arrival_class || s.peer_port[s.ivc[q].out_port] >= 0)
    return base + s.class_vc_lo(s.prm.routing.vc_classes - 1);
  if (s.port_node[(q / s.sz.V) % s.sz.P] >= 0) return base;  // injected here: no hop taken yet
  const int v = int(q % s.sz.V) - base;
  int c = 0;  // the class holding VC v
  while (c + 1 < s.prm.routing.vc_classes && s.class_vc_lo(c + 1) <= v) ++c;
  return base + s.class_vc_lo(c);
}

// The output VCs (bits) the routing lets input VC q use: its range [vc_lo, vc_hi), or by-hop's
// one VC of that range.
FLITSIM_HD u64 allowed_vcs(const SimView& __restrict__ s, long long q) {
  if (s.prm.router.vc_policy == VcPolicy::ByHop) return u64(1) << by_hop_vc(s, q);
  const int lo = s.ivc[q].vc_lo, n = s.ivc[q].vc_hi - lo;
  const u64 port_vcs = s.sz.V >= 64 ? ~u64(0) : (u64(1) << s.sz.V) - 1;  // never past the port's VCs
  return ((n >= 64 ? ~u64(0) : (u64(1) << n) - 1) << lo) & port_vcs;
}
// Room for a whole packet that router.flow_control = "vct" asks of output VC w of port `out`:
// its downstream credits, or with router.architecture = "ioq" the free slots of its output
// queue, which is what the switch waits for there (phases/output_queue.cuh).
FLITSIM_HD int vct_room(const SimView& __restrict__ s, int rep, int out, int w) {
  if (s.prm.router.ioq()) return s.sz.O - s.oq_count[s.po(rep, out, w)];
  return s.ovc[s.pv(rep, out, w)].credits;
}
// True when output VC w of port `out` can take input VC q's packet now: w is free and, with
// router.flow_control = "vct", has room for the whole packet (vct_room; sinks of iq and cioq
// always have room), so a packet that starts never waits mid-way. Depends only on w's own
// state, so an output step may change other VCs' owners while it asks.
FLITSIM_HD bool output_vc_takes(const SimView& __restrict__ s, int rep, long long q, int out, int w) {
  const bool sized = s.prm.router.vct && (s.peer_port[out] >= 0 || s.prm.router.ioq());
  return s.ovc[s.pv(rep, out, w)].owner < 0 && (!sized || vct_room(s, rep, out, w) >= s.packets[front_packet(s, rep, q)].size);
}
// Output VC w's downstream credits not yet claimed: with ioq less the flits waiting in its
// queue for them, so that "spread" sees what an iq router's credits show (a flit there spends
// its credit at the switch). With ioq's queues drained at once, their free slots alone would
// tie every VC and send every head to the lowest.
FLITSIM_HD int unclaimed_credits(const SimView& __restrict__ s, int rep, int out, int w) {
  const int c = s.ovc[s.pv(rep, out, w)].credits;
  return s.prm.router.ioq() ? c - s.oq_count[s.po(rep, out, w)] : c;
}
// True when input VC q (whose route leads to port `out`) requests output VC w.
FLITSIM_HD bool requests_vc(const SimView& __restrict__ s, int rep, long long q, int out, int w) {
  return ((allowed_vcs(s, q) >> w) & 1) && output_vc_takes(s, rep, q, out, w);
}

// The output VCs (bits) input VC q requests on port `out`.
FLITSIM_HD u64 requested_vcs(const SimView& __restrict__ s, int rep, long long q, int out) {
  u64 m = 0;
  for (u64 a = allowed_vcs(s, q); a; a &= a - 1)
    if (output_vc_takes(s, rep, q, out, lowest_bit(a))) m |= a & (~a + 1);
  return m;
}

// Input VC q's preferred VC among `vcs` (bits of output VCs on port `out`), or −1: the input
// stage of every VC allocator (router.vc_policy):
//   spread: the one with the most unclaimed credits (ties: the lowest), spreading packets over
//     the range;
//   by-hop: the range's one VC (by_hop_vc);
//   random: the first from a start drawn per packet and hop (the same on every retry).
FLITSIM_HD int prefer_vc(const SimView& __restrict__ s, int rep, long long q, int out, u64 vcs) {
  if (!vcs) return -1;
  if (s.prm.router.vc_policy == VcPolicy::ByHop) return lowest_bit(vcs);
  const int lo = s.ivc[q].vc_lo, hi = s.ivc[q].vc_hi;
  if (s.prm.router.vc_policy == VcPolicy::Random) {
    const long long k = front_packet(s, rep, q);
    const uint32_t u = draw32(s.rep_seed[rep], uint32_t(k), s.packets[k].create, kRngVc, uint32_t(s.packets[k].hops) + 1);
    const int n = hi - lo, start = int(draw_below(u, uint32_t(n)));
    for (int i = 0, w = lo + start; i < n; ++i, w = w + 1 == hi ? lo : w + 1)
      if ((vcs >> w) & 1) return w;
    return -1;
  }
  int best = -1, best_credits = INT32_MIN;  // ioq's unclaimed credits may be negative
  for (u64 m = vcs; m; m &= m - 1) {
    const int w = lowest_bit(m), c = unclaimed_credits(s, rep, out, w);
    if (c > best_credits) best = w, best_credits = c;
  }
  return best;
}

// The free output VC on port `out` that input VC q asks for with the separable input-first
// VC allocator, or −1.
FLITSIM_HD int pick_output_vc(const SimView& __restrict__ s, int rep, long long q, int out) {
  return prefer_vc(s, rep, q, out, requested_vcs(s, rep, q, out));
}

// Input VCs of port ip (bits) in VC allocation: occupied, routed, without an output VC.
FLITSIM_HD u64 vcs_awaiting_va(const SimView& __restrict__ s, long long ip) {
  return s.port_state[ip].vc_mask & s.port_state[ip].routed_mask & ~s.port_state[ip].held_mask;
}

// Returns the output ports (local bits) this input requests, for the executor's skip masks.
FLITSIM_HD_STEP u64 step_va_request(const SimView& __restrict__ s, int rep, int r, int gp) {
  const int p0 = s.port_offset[r];
  const long long ip = s.pp(rep, gp);
  u64 requested = 0;
  for (u64 m = vcs_awaiting_va(s, ip); m; m &= m - 1) {
    const long long q = s.pv(rep, gp, lowest_bit(m));
    const int out = s.ivc[q].out_port;
    const int best = pick_output_vc(s, rep, q, out);
    if (best < 0) {
      s.ivc[q].out_vc = -1;
      continue;
    }
    s.ivc[q].out_vc = kRequesting - best;
    requested |= u64(1) << (out - p0);
  }
  s.port_state[ip].va_request = requested;
  return requested;
}

// `requests`: the input ports (local bits) whose va_request names this output, transposed by
// the executor once for all outputs (cycle.cuh, Ports::transpose).
FLITSIM_HD_STEP void step_va_grant(const SimView& __restrict__ s, int rep, int r, int out, u64 requests) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, V = s.sz.V, n_ivc = radix * V;
  int winner[kMaxVcs];  // per output VC: requester (local input VC index), −1 none
  long long winner_age[kMaxVcs];  // its packet's creation cycle (age arbitration)
  int winner_prio[kMaxVcs];  // its packet's class priority (traffic classes)
  const bool prioritized = s.prm.classes.prioritized;
  bool any = false;
  for (; requests; requests &= requests - 1) {
    const int i = lowest_bit(requests);
    if (!any)
      for (int w = 0; w < V; ++w) winner[w] = -1;
    any = true;
    for (u64 m = vcs_awaiting_va(s, s.pp(rep, p0 + i)); m; m &= m - 1) {
      const int v = lowest_bit(m);
      const long long q = s.pv(rep, p0 + i, v);
      if (s.ivc[q].out_vc > kRequesting || s.ivc[q].out_port != out) continue;
      const int w = kRequesting - s.ivc[q].out_vc, me = i * V + v, rr = s.ovc_rr[s.pv(rep, out, w)];
      // Traffic class priorities first: a lower one never wins, a higher one always.
      const int pr = prioritized ? vc_priority(s, rep, q) : 0;
      if (winner[w] >= 0 && pr < winner_prio[w]) continue;
      const bool higher = winner[w] >= 0 && pr > winner_prio[w];
      if (s.prm.router.age_arbitration) {  // oldest packet; ties: the lowest port, then VC (inputs ascend)
        const long long age = front_created(s, rep, q);
        if (winner[w] < 0 || higher || age < winner_age[w]) winner[w] = me, winner_age[w] = age, winner_prio[w] = pr;
      } else if (winner[w] < 0 || higher || rr_distance(me, rr, n_ivc) < rr_distance(winner[w], rr, n_ivc)) {
        winner[w] = me, winner_prio[w] = pr;
      }
    }
  }
  if (!any) return;
  for (int w = 0; w < V; ++w) {
    if (winner[w] < 0) continue;
    const long long o = s.pv(rep, out, w);
    s.ovc[o].owner = (p0 + winner[w] / V) * V + winner[w] % V;
    s.ovc_rr[o] = next_mod(winner[w], n_ivc);
  }
}

FLITSIM_HD void step_va_accept(const SimView& __restrict__ s, int rep, int gp, long long t) {
  const long long ip = s.pp(rep, gp);
  if (!s.port_state[ip].va_request) return;
  s.port_state[ip].va_request = 0;
  u64 held = 0;
  for (u64 m = vcs_awaiting_va(s, ip); m; m &= m - 1) {
    const int v = lowest_bit(m);
    const long long q = s.pv(rep, gp, v);
    if (s.ivc[q].out_vc > kRequesting) continue;
    const int w = kRequesting - s.ivc[q].out_vc;
    // Lost: request again next cycle.
    const bool won = s.ovc[s.pv(rep, s.ivc[q].out_port, w)].owner == gp * s.sz.V + v;
    s.ivc[q].out_vc = won ? w : -1;
    if (won) s.ivc_va_at[q] = t, held |= u64(1) << v;
  }
  s.port_state[ip].held_mask |= held;
}

}  // namespace flitsim
