// Phase 5, switch allocation, cut into per-port steps that phases/allocation.cuh runs in order,
// each over the ports of a router, once per iteration (router.alloc_iterations). The request
// matrix has an input port's row set for every output one of its VCs could use now (a flit, an
// output VC and a downstream credit); router.sw_allocator picks how it is matched (Dally &
// Towles ch. 19):
//   islip (default, BookSim2's `islip`; McKeown):
//     request (per input): an unmatched input requests every unmatched output it can use;
//     grant (per output): the output grants the requesting input nearest after its pointer;
//     accept (per input): the input accepts the granting output nearest after its accept
//       pointer and sends from its VC for that output nearest after its VC pointer;
//     update (per output): an output whose grant was accepted is matched.
//     Pointers move only on grants accepted in the first iteration, which desynchronises them
//     under load; further iterations match what is left.
//   separable-input-first (the v:1-then-P:1 allocator of D&T Fig. 19.8): request: each
//     unmatched input's VC arbiter picks one of its ready VCs (nearest after its VC pointer)
//     and requests only that VC's output; grant as islip; accept: the input is matched if
//     its output granted it.
//   separable-output-first: request and grant as islip; accept: the input's VC arbiter picks,
//     among its ready VCs whose output granted it, the one nearest after its VC pointer.
//   In both separable allocators every pointer moves only past a winner whose match succeeded
//     (in every iteration), as BookSim2's separable allocators do.
//   router.sw_input_arbiter = "output" (BookSim2's iq router, whose switch allocator sees one
//     request per input and output): the input stage of both separable allocators picks an
//     output (nearest after the input's output pointer, acc_rr) among those its ready VCs
//     request, or for output-first among those that granted it, then the VC for that output
//     nearest after its VC pointer; "vc" (default) picks the VC directly. With age arbitration
//     both pick the oldest packet's VC.
//   wavefront: see sw_wavefront.cuh.
//   With one-to-one requests (each requesting input asks for one output nobody else asks
//   for: most iterations at low load) every allocator above matches each input to its output,
//   and one step per input does it (step_sa_accept_sole) in place of grant, accept and update.
// router.arbitration = "age" replaces the pointers of every arbiter by the age of the packets:
// the oldest wins, ties to the lowest index (the pointers still move). Ejection ports need no
// credit: sinks always accept. Ports are local indices 0..radix−1 (radix <= kMaxRadix, checked
// at set-up) so requests fit in 64-bit masks. Each step writes only its own port's entries;
// sa_match is reset by traverse, after its last use in the cycle.
#pragma once
#include "output_queue.cuh"
#include "vc_alloc.cuh"

namespace flitsim {

FLITSIM_HD bool has_downstream_credit(const SimView& __restrict__ s, int rep, int out, int ov) {
  return s.peer_port[out] < 0 || s.ovc[s.pv(rep, out, ov)].credits > 0;
}

// Whether a flit on output VC ov may cross the switch to output `out` now: a downstream
// credit (iq; cioq also room in the port's output FIFO), or with ioq room in the VC's output
// queue alone (the flit waits there for its credit: output_queue.cuh).
FLITSIM_HD bool switch_output_ready(const SimView& __restrict__ s, int rep, int out, int ov) {
  if (s.prm.router.ioq()) return output_queue_has_room(s, rep, out, ov);
  return has_downstream_credit(s, rep, out, ov) && (!s.prm.router.cioq() || output_queue_has_room(s, rep, out, ov));
}

// Lowest set bit of `mask` at or after `ptr`, wrapping around (mask != 0).
FLITSIM_HD int rr_pick(u64 mask, int ptr) {
  const u64 from = mask & (~u64(0) << ptr);
  return lowest_bit(from ? from : mask);
}

// Output port (local index) VC v of input gp can use in cycle t, or −1. With router.va_sa =
// "separate" a VC that won its output VC in cycle t waits for cycle t + 1 (VC and switch
// allocation in separate pipeline stages, as BookSim2's iq router).
// `spec` (router.speculative, with va_sa = "separate"): instead, the output VC v bids for
// speculatively: v is a routed head still VC-allocating in cycle t (it lost or won its output VC
// in this cycle); one that won needs a downstream credit, one that lost cannot know.
FLITSIM_HD_STEP int ready_output(const SimView& __restrict__ s, int rep, int gp, int v, int p0, long long t, bool spec = false) {
  const long long q = s.pv(rep, gp, v);
  const int ov = s.ivc[q].out_vc;
  if (spec) {
    const int out = s.ivc[q].out_port;
    if (out < 0 || (ov >= 0 && (s.ivc_va_at[q] != t || !switch_output_ready(s, rep, out, ov)))) return -1;
    // A speculative bid needs output-queue room too: with speedup a pass may find it full.
    if (s.prm.router.cioq() && !output_queue_has_room(s, rep, out, 0)) return -1;
    return out - p0;
  }
  if (ov < 0 || !switch_output_ready(s, rep, s.ivc[q].out_port, ov)) return -1;
  if (s.prm.router.va_sa_separate && s.ivc_va_at[q] == t) return -1;
  return s.ivc[q].out_port - p0;
}

// Input gp's VCs that may be ready for the switch: occupied and holding an output VC, or in
// the speculative pass every occupied VC (ready_output decides).
FLITSIM_HD u64 sa_candidate_vcs(const SimView& __restrict__ s, long long ip, bool spec) {
  return spec ? s.port_state[ip].vc_mask : s.port_state[ip].vc_mask & s.port_state[ip].held_mask;
}

// With router.arbitration = "age": input gp's VC ready for output o (local) whose packet is
// oldest (ties: the lowest VC), or −1, and that packet's creation cycle in *age.
FLITSIM_HD int oldest_ready_vc(const SimView& __restrict__ s, int rep, int gp, int o, int p0, long long t, long long* age,
                               bool spec = false) {
  int best = -1, best_prio = 0;
  for (u64 m = sa_candidate_vcs(s, s.pp(rep, gp), spec); m; m &= m - 1) {
    const int v = lowest_bit(m);
    if (ready_output(s, rep, gp, v, p0, t, spec) != o) continue;
    const int pr = s.prm.classes.prioritized ? vc_priority(s, rep, s.pv(rep, gp, v)) : 0;  // traffic classes first
    if (best >= 0 && pr < best_prio) continue;
    const long long a = front_created(s, rep, s.pv(rep, gp, v));
    if (best < 0 || pr > best_prio || a < *age) best = v, *age = a, best_prio = pr;
  }
  return best;
}

// The VC of input gp the arbiter of a VC stage picks among the ready VCs whose output is in
// `outputs` (local bits): the oldest packet with router.arbitration = "age" (ties: the lowest
// VC), else the one nearest after the input's VC pointer; −1 if none.
FLITSIM_HD int pick_ready_vc(const SimView& __restrict__ s, int rep, int gp, u64 outputs, int p0, long long t, bool spec = false) {
  u64 vcs = 0;
  int oldest = -1, top = 0;
  long long oldest_age = 0;
  for (u64 m = sa_candidate_vcs(s, s.pp(rep, gp), spec); m; m &= m - 1) {
    const int v = lowest_bit(m), o = ready_output(s, rep, gp, v, p0, t, spec);
    if (o < 0 || !((outputs >> o) & 1)) continue;
    if (s.prm.classes.prioritized) {  // traffic classes: only the highest priority's VCs take part
      const int pr = vc_priority(s, rep, s.pv(rep, gp, v));
      if (vcs && pr < top) continue;
      if (!vcs || pr > top) vcs = 0, oldest = -1, top = pr;
    }
    vcs |= u64(1) << v;
    if (s.prm.router.age_arbitration) {
      const long long a = front_created(s, rep, s.pv(rep, gp, v));
      if (oldest < 0 || a < oldest_age) oldest = v, oldest_age = a;
    }
  }
  if (!vcs) return -1;
  return s.prm.router.age_arbitration ? oldest : rr_pick(vcs, s.port_state[s.pp(rep, gp)].in_rr);
}

// True when the input stage arbitrates among outputs, then among the chosen output's VCs:
// islip's accept always; the separable allocators with router.sw_input_arbiter = "output" and
// round-robin arbitration (with age both stages reduce to the oldest packet's VC).
FLITSIM_HD bool input_arbiter_by_output(const SimView& s) {
  return s.prm.router.sw_allocator == Allocator::Islip || (s.prm.router.sw_input_by_output && !s.prm.router.age_arbitration);
}

// Traffic classes with different priorities: an input bids only with its VCs whose packets
// have the highest priority among those ready (`ready`, VC bits), for their outputs (`wanted`).
FLITSIM_HD void only_top_priority(const SimView& __restrict__ s, int rep, int gp, int p0, long long t, bool spec, u64& ready,
                                  u64& wanted) {
  int top = 0;
  bool first = true;
  for (u64 m = ready; m; m &= m - 1) {
    const int pr = vc_priority(s, rep, s.pv(rep, gp, lowest_bit(m)));
    if (first || pr > top) top = pr, first = false;
  }
  u64 r = 0, w = 0;
  for (u64 m = ready; m; m &= m - 1) {
    const int v = lowest_bit(m);
    if (vc_priority(s, rep, s.pv(rep, gp, v)) != top) continue;
    r |= u64(1) << v;
    w |= u64(1) << ready_output(s, rep, gp, v, p0, t, spec);
  }
  ready = r, wanted = w;
}

// The priority an input bids with (only_top_priority left it only VCs of one priority).
FLITSIM_HD int input_priority(const SimView& __restrict__ s, int rep, int gp, int p0) {
  const u64 ready = s.sa_ready[s.sp(rep, gp, p0)];
  return ready ? vc_priority(s, rep, s.pv(rep, gp, lowest_bit(ready))) : 0;
}

// Of the inputs requesting an output (local bits), those bidding with the highest priority.
FLITSIM_HD u64 top_priority_inputs(const SimView& __restrict__ s, int rep, int p0, u64 requests) {
  u64 top_set = 0;
  int top = 0;
  for (u64 m = requests; m; m &= m - 1) {
    const int pr = input_priority(s, rep, p0 + lowest_bit(m), p0);
    if (top_set && pr < top) continue;
    if (!top_set || pr > top) top_set = 0, top = pr;
    top_set |= m & (~m + 1);
  }
  return top_set;
}

// router.speculation = "lowest-priority" (BookSim2's spec_sw_allocator = prio): speculative
// requests join the one switch pass below every other request. An input with a non-speculative
// request makes no speculative one (its input arbiter picks the highest priority), and an output
// grants a speculative request only when no non-speculative one asks for it. Bit 63 of an
// input's sa_ready (VC masks use bits 0..62: router.vcs <= 63) marks its requests of this pass
// as speculative, so that the grant and accept steps of the pass know.
constexpr u64 kSpecRequest = u64(1) << 63;
FLITSIM_HD bool spec_in_one_pass(const SimView& s) { return s.prm.router.speculative && s.prm.router.spec_lowest_priority; }
// Whether input gp's requests of this pass are speculative: the speculative pass's, or marked.
FLITSIM_HD bool request_is_spec(const SimView& __restrict__ s, int rep, int gp, int p0, bool spec) {
  return spec || (spec_in_one_pass(s) && (s.sa_ready[s.sp(rep, gp, p0)] & kSpecRequest));
}

// Returns the outputs (local bits) this input requests, for the executor's skip masks.
// `spec`: the speculative pass (router.speculative), after the others, for what they left.
FLITSIM_HD_STEP u64 step_sa_request(const SimView& __restrict__ s, int rep, int r, int gp, int it, long long t, bool spec = false) {
  const int p0 = s.port_offset[r];
  const long long ip = s.pp(rep, gp), is = s.sp(rep, gp, p0);
  if (it == 0) s.sa_accept[is] = -1;
  u64 wanted = 0, ready = 0;
  // Outputs are matched only by earlier iterations or passes of this cycle: traverse resets
  // every match before the next pass, so a first non-speculative iteration finds none.
  const bool some_matched = it > 0 || spec;
  const auto collect = [&](bool speculative) {
    for (u64 m = sa_candidate_vcs(s, ip, speculative); m; m &= m - 1) {
      const int v = lowest_bit(m), o = ready_output(s, rep, gp, v, p0, t, speculative);
      if (o >= 0 && (!some_matched || s.port_state[s.pp(rep, p0 + o)].sa_match < 0)) wanted |= u64(1) << o, ready |= u64(1) << v;
    }
  };
  bool spec_now = spec, marked = false;
  if (s.port_state[ip].sa_req_vc < 0) {
    collect(spec);
    if (!wanted && !spec && spec_in_one_pass(s)) {  // nothing firm: the speculative requests, marked
      collect(true);
      spec_now = marked = wanted != 0;
    }
  }
  spec = spec_now;
  if (ready && s.prm.classes.prioritized) only_top_priority(s, rep, gp, p0, t, spec, ready, wanted);
  if (marked) ready |= kSpecRequest;
  s.sa_ready[is] = ready;
  if (wanted && s.prm.router.sw_allocator == Allocator::SeparableInputFirst) {  // one VC, one output
    if (input_arbiter_by_output(s)) {
      wanted = u64(1) << rr_pick(wanted, s.port_state[ip].acc_rr);
    } else {
      const int v = pick_ready_vc(s, rep, gp, wanted, p0, t, spec);
      wanted = u64(1) << ready_output(s, rep, gp, v, p0, t, spec);
    }
  }
  s.sa_request[is] = wanted;
  return wanted;
}

// `requests`: the input ports (local bits) whose sa_request names this output, transposed by
// the executor once for all outputs (cycle.cuh, Ports::transpose). Returns the input granted
// (a local bit), or 0, so that accept runs only for granted inputs.
FLITSIM_HD u64 step_sa_grant(const SimView& __restrict__ s, int rep, int r, int out, u64 requests, long long t, bool spec = false) {
  const int p0 = s.port_offset[r];
  const long long op = s.pp(rep, out), os = s.sp(rep, out, p0);
  if (requests && !spec && spec_in_one_pass(s)) {  // speculative requests only when no other asks
    u64 firm = 0;
    for (u64 m = requests; m; m &= m - 1)
      if (!(s.sa_ready[s.sp(rep, p0 + lowest_bit(m), p0)] & kSpecRequest)) firm |= u64(1) << lowest_bit(m);
    if (firm) requests = firm;
  }
  // Traffic class priorities: only the inputs bidding with the highest take part (among the
  // firm requests when speculation is one pass: a speculative request is below every class).
  if (s.prm.classes.prioritized && (requests & (requests - 1))) requests = top_priority_inputs(s, rep, p0, requests);
  if (requests && s.prm.router.age_arbitration) {  // the input with the oldest packet for me; ties: lowest
    int best = -1;
    long long best_age = 0;
    for (u64 m = requests; m; m &= m - 1) {
      long long a = 0;
      oldest_ready_vc(s, rep, p0 + lowest_bit(m), out - p0, p0, t, &a, request_is_spec(s, rep, p0 + lowest_bit(m), p0, spec));
      if (best < 0 || a < best_age) best = lowest_bit(m), best_age = a;
    }
    s.sa_grant[os] = best;
    return best < 0 ? 0 : u64(1) << best;
  }
  const int g = requests ? rr_pick(requests, s.port_state[op].out_rr) : -1;
  s.sa_grant[os] = g;
  return g < 0 ? 0 : u64(1) << g;
}

// Runs for the inputs some output granted. Returns the output accepted (a local bit).
FLITSIM_HD_STEP u64 step_sa_accept(const SimView& __restrict__ s, int rep, int r, int gp, int it, long long t,
                              bool spec = false) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, me = gp - p0;
  const long long ip = s.pp(rep, gp), is = s.sp(rep, gp, p0);
  spec = request_is_spec(s, rep, gp, p0, spec);
  // Outputs granting this input (grant ran this iteration for each it requested). Accept runs
  // only for granted inputs, so one output requested is one granting (the common case at low
  // load: no scan of the grants).
  const u64 requested = s.sa_request[is];
  u64 grants = requested & (requested - 1) ? 0 : requested;
  if (!grants)
    for (u64 m = requested; m; m &= m - 1)
      if (s.sa_grant[s.sp(rep, p0 + lowest_bit(m), p0)] == me) grants |= u64(1) << lowest_bit(m);
  if (!grants) return 0;
  int o, v;
  if (!input_arbiter_by_output(s)) {
    // Separable: input-first requested one VC's output; output-first's VC arbiter picks
    // among the VCs whose output granted.
    v = pick_ready_vc(s, rep, gp, grants, p0, t, spec);
    o = ready_output(s, rep, gp, v, p0, t, spec);
  } else if (s.prm.router.age_arbitration) {  // the granting output whose VC holds the oldest packet
    long long best_age = 0;
    o = v = -1;
    for (u64 m = grants; m; m &= m - 1) {
      long long a = 0;
      const int w = oldest_ready_vc(s, rep, gp, lowest_bit(m), p0, t, &a, spec);
      if (o < 0 || a < best_age) o = lowest_bit(m), v = w, best_age = a;
    }
  } else {
    o = rr_pick(grants, s.port_state[ip].acc_rr);
    // The input's VC for output o nearest after its VC pointer, among the VCs its request
    // step found ready (ready_output gives their route's output); with one VC ready, that one.
    const u64 ready = s.sa_ready[is] & ~kSpecRequest;
    u64 for_o = ready & (ready - 1) ? 0 : ready;
    if (!for_o)
      for (u64 m = ready; m; m &= m - 1)
        if (s.ivc[s.pv(rep, gp, lowest_bit(m))].out_port == p0 + o) for_o |= u64(1) << lowest_bit(m);
    v = rr_pick(for_o, s.port_state[ip].in_rr);
  }
  // A speculative grant whose VC lost its VC allocation is wasted (nothing is sent, the
  // output idles this cycle) but counts as a match for the pointers, so that the next bid
  // goes to another requester.
  s.port_state[ip].sa_req_vc = spec && s.ivc[s.pv(rep, gp, v)].out_vc < 0 ? -1 : v;
  s.sa_accept[is] = o;
  s.port_state[ip].in_rr = next_mod(v, s.sz.V);
  if (s.prm.router.sw_allocator == Allocator::Islip ? it == 0 : input_arbiter_by_output(s))
    s.port_state[ip].acc_rr = next_mod(o, radix);
  return u64(1) << o;
}

// Output `out` is matched to input i (local), which accepted its grant.
FLITSIM_HD void match_output(const SimView& __restrict__ s, int rep, int r, int out, int i, int it) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0;
  const long long op = s.pp(rep, out);
  // A wasted speculative grant leaves its input no VC to send (only speculation makes one).
  if (!s.prm.router.speculative || s.port_state[s.pp(rep, p0 + i)].sa_req_vc >= 0) s.port_state[op].sa_match = i;
  if (it == 0 || s.prm.router.sw_allocator != Allocator::Islip) s.port_state[op].out_rr = next_mod(i, radix);
}

FLITSIM_HD void step_sa_update(const SimView& __restrict__ s, int rep, int r, int out, int it) {
  const int p0 = s.port_offset[r];
  const int i = s.sa_grant[s.sp(rep, out, p0)];
  if (i < 0 || s.sa_accept[s.sp(rep, p0 + i, p0)] != out - p0) return;
  match_output(s, rep, r, out, i, it);
}

// When the requests are one-to-one (every requesting input asks for one output that no other
// input asks for), each output grants its one requester, whichever arbiter it has, and each
// input accepts its one grant: the input's step makes the whole match, grant and update
// included. It also writes its output's state, which no other port's step touches then.
FLITSIM_HD_STEP u64 step_sa_accept_sole(const SimView& __restrict__ s, int rep, int r, int gp, int it, long long t,
                                   bool spec = false) {
  const int p0 = s.port_offset[r];
  const u64 o = step_sa_accept(s, rep, r, gp, it, t, spec);  // its one requested output: granted
  match_output(s, rep, r, p0 + lowest_bit(o), gp - p0, it);
  return o;
}

}  // namespace flitsim
