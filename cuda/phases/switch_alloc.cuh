// Phase 5, switch allocation: iSLIP-style request-grant-accept (McKeown), as BookSim2's
// default `islip` allocator, cut into per-port steps (cycle.cuh runs them in order, each over
// all ports of a router, once per iteration):
//   request (per input): an unmatched input requests every unmatched output that one of its
//     VCs could use now (a flit, an output VC and a downstream credit);
//   grant (per output): the output grants the requesting input nearest after its pointer;
//   accept (per input): the input accepts the granting output nearest after its accept pointer
//     and sends from its VC for that output nearest after its VC pointer;
//   (router.arbitration = "age" replaces the pointers of grant and accept by the age of the
//   packets: the oldest wins, ties to the lowest index; the pointers still move);
//   update (per output): an output whose grant was accepted is matched.
// Pointers move only on grants accepted in the first iteration, which desynchronises them
// under load; `router.sa_iterations` further iterations match what is left. Ejection ports
// need no credit: sinks always accept. Ports are local indices 0..radix−1 (radix <=
// kMaxRadix, checked at set-up) so requests fit in 64-bit masks. Each step writes only its own
// port's entries; sa_match is reset by traverse, after its last use in the cycle.
#pragma once
#include "vc_alloc.cuh"

namespace flitsim {

constexpr int kMaxRadix = 64;

FLITSIM_HD bool has_downstream_credit(const SimView& s, int rep, int out, int ov) {
  return s.peer_port[out] < 0 || s.ovc_credits[s.pv(rep, out, ov)] > 0;
}

// Lowest set bit of `mask` at or after `ptr`, wrapping around (mask != 0).
FLITSIM_HD int rr_pick(u64 mask, int ptr) {
  const u64 from = mask & (~u64(0) << ptr);
  return lowest_bit(from ? from : mask);
}

// Output port (local index) VC v of input gp can use in cycle t, or −1. With router.va_sa =
// "separate" a VC that won its output VC in cycle t waits for cycle t + 1 (VC and switch
// allocation in separate pipeline stages, as BookSim2's iq router).
FLITSIM_HD int ready_output(const SimView& s, int rep, int gp, int v, int p0, long long t) {
  const long long q = s.pv(rep, gp, v);
  const int ov = s.ivc_out_vc[q];
  if (ov < 0 || !has_downstream_credit(s, rep, s.ivc_out_port[q], ov)) return -1;
  if (s.prm.va_sa_separate && s.ivc_va_at[q] == t) return -1;
  return s.ivc_out_port[q] - p0;
}

// With router.arbitration = "age": input gp's VC ready for output o (local) whose packet is
// oldest (ties: the lowest VC), or −1, and that packet's creation cycle in *age.
FLITSIM_HD int oldest_ready_vc(const SimView& s, int rep, int gp, int o, int p0, long long t, long long* age) {
  int best = -1;
  for (u64 m = s.port_vc_mask[s.pp(rep, gp)]; m; m &= m - 1) {
    const int v = lowest_bit(m);
    if (ready_output(s, rep, gp, v, p0, t) != o) continue;
    const long long a = front_created(s, rep, s.pv(rep, gp, v));
    if (best < 0 || a < *age) best = v, *age = a;
  }
  return best;
}

// Returns the outputs (local bits) this input requests, for the executor's skip masks.
FLITSIM_HD u64 step_sa_request(const SimView& s, int rep, int r, int gp, int it, long long t) {
  const int p0 = s.port_offset[r];
  const long long ip = s.pp(rep, gp);
  if (it == 0) s.sa_accept[ip] = -1;
  u64 wanted = 0;
  if (s.sa_req_vc[ip] < 0)
    for (u64 m = s.port_vc_mask[ip]; m; m &= m - 1) {
      const int o = ready_output(s, rep, gp, lowest_bit(m), p0, t);
      if (o >= 0 && s.sa_match[s.pp(rep, p0 + o)] < 0) wanted |= u64(1) << o;
    }
  s.sa_request[ip] = wanted;
  return wanted;
}

// `requests`: the input ports (local bits) whose sa_request names this output, transposed by
// the executor once for all outputs (cycle.cuh, Ports::transpose).
FLITSIM_HD void step_sa_grant(const SimView& s, int rep, int r, int out, u64 requests, long long t) {
  const int p0 = s.port_offset[r];
  const long long op = s.pp(rep, out);
  if (requests && s.prm.age_arbitration) {  // the input with the oldest packet for me; ties: lowest
    int best = -1;
    long long best_age = 0;
    for (u64 m = requests; m; m &= m - 1) {
      long long a = 0;
      oldest_ready_vc(s, rep, p0 + lowest_bit(m), out - p0, p0, t, &a);
      if (best < 0 || a < best_age) best = lowest_bit(m), best_age = a;
    }
    s.sa_grant[op] = best;
    return;
  }
  s.sa_grant[op] = requests ? rr_pick(requests, s.out_rr[op]) : -1;
}

// Returns the output accepted (a local bit), or 0.
FLITSIM_HD u64 step_sa_accept(const SimView& s, int rep, int r, int gp, int it, u64 inputs, long long t) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, me = gp - p0;
  const long long ip = s.pp(rep, gp);
  if (!((inputs >> me) & 1)) return 0;  // granted only what it requested
  u64 grants = 0;  // outputs granting this input (grant ran this iteration for each it requested)
  for (u64 m = s.sa_request[ip]; m; m &= m - 1)
    if (s.sa_grant[s.pp(rep, p0 + lowest_bit(m))] == me) grants |= u64(1) << lowest_bit(m);
  if (!grants) return 0;
  int o, v;
  if (s.prm.age_arbitration) {  // the granting output whose VC holds the oldest packet
    long long best_age = 0;
    o = v = -1;
    for (u64 m = grants; m; m &= m - 1) {
      long long a = 0;
      const int w = oldest_ready_vc(s, rep, gp, lowest_bit(m), p0, t, &a);
      if (o < 0 || a < best_age) o = lowest_bit(m), v = w, best_age = a;
    }
  } else {
    o = rr_pick(grants, s.acc_rr[ip]);
    // The input's VC for output o nearest after its VC pointer.
    u64 for_o = 0;
    for (u64 m = s.port_vc_mask[ip]; m; m &= m - 1)
      if (ready_output(s, rep, gp, lowest_bit(m), p0, t) == o) for_o |= u64(1) << lowest_bit(m);
    v = rr_pick(for_o, s.in_rr[ip]);
  }
  s.sa_req_vc[ip] = v;
  s.sa_accept[ip] = o;
  s.in_rr[ip] = next_mod(v, s.sz.V);
  if (it == 0) s.acc_rr[ip] = next_mod(o, radix);
  return u64(1) << o;
}

FLITSIM_HD void step_sa_update(const SimView& s, int rep, int r, int out, int it) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0;
  const long long op = s.pp(rep, out);
  const int i = s.sa_grant[op];
  if (i < 0 || s.sa_accept[s.pp(rep, p0 + i)] != out - p0) return;
  s.sa_match[op] = i;
  if (it == 0) s.out_rr[op] = next_mod(i, radix);
}

}  // namespace flitsim
