// Phase 4, VC allocation (separable, input first), as three per-port steps. Each step writes
// only the state of the port it runs for and reads only what earlier steps or cycles wrote,
// so the ports of a router may run a step in any order or in parallel (cycle.cuh).
//   request (per input port): each routed input VC without an output VC picks the free output
//     VC of its allowed range with the most credits and records the request as
//     ivc_out_vc = kRequesting − w; va_request marks the output ports requested;
//   grant (per output port): each of its output VCs grants the requester nearest after its
//     round-robin pointer, which moves past it, and records the winner as its owner;
//   accept (per input port): a requester that finds itself the owner keeps the VC, the others
//     request again next cycle.
#pragma once
#include "../state.cuh"

namespace flitsim {

constexpr int kRequesting = -2;  // ivc_out_vc values <= kRequesting encode a pending request
constexpr int kMaxVcs = 64;      // VCs per port fit the 64-bit occupancy masks (checked at set-up)

// Distance from round-robin pointer `rr` to index i among n entries.
FLITSIM_HD int rr_distance(int i, int rr, int n) { return i >= rr ? i - rr : i - rr + n; }

// Returns the output ports (local bits) this input requests, for the executor's skip masks.
FLITSIM_HD u64 step_va_request(const SimView& s, int rep, int r, int gp) {
  const int p0 = s.port_offset[r];
  u64 requested = 0;
  for (u64 m = s.port_vc_mask[s.pp(rep, gp)]; m; m &= m - 1) {
    const long long q = s.pv(rep, gp, lowest_bit(m));
    const int out = s.ivc_out_port[q];
    if (out < 0 || s.ivc_out_vc[q] >= 0) continue;
    int best = -1, best_credits = -1;
    for (int w = s.ivc_vc_lo[q]; w < s.ivc_vc_hi[q]; ++w) {
      const long long o = s.pv(rep, out, w);
      if (s.ovc_owner[o] < 0 && s.ovc_credits[o] > best_credits) best = w, best_credits = s.ovc_credits[o];
    }
    if (best < 0) {
      s.ivc_out_vc[q] = -1;
      continue;
    }
    s.ivc_out_vc[q] = kRequesting - best;
    requested |= u64(1) << (out - p0);
  }
  s.va_request[s.pp(rep, gp)] = requested;
  return requested;
}

// `inputs`: the router's input ports (local bits) that made a request this cycle.
FLITSIM_HD void step_va_grant(const SimView& s, int rep, int r, int out, u64 inputs) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, V = s.sz.V, n_ivc = radix * V;
  const u64 me_bit = u64(1) << (out - p0);
  int winner[kMaxVcs];  // per output VC: requester (local input VC index), −1 none
  bool any = false;
  for (; inputs; inputs &= inputs - 1) {
    const int i = lowest_bit(inputs);
    if (!(s.va_request[s.pp(rep, p0 + i)] & me_bit)) continue;
    if (!any)
      for (int w = 0; w < V; ++w) winner[w] = -1;
    any = true;
    for (u64 m = s.port_vc_mask[s.pp(rep, p0 + i)]; m; m &= m - 1) {
      const int v = lowest_bit(m);
      const long long q = s.pv(rep, p0 + i, v);
      if (s.ivc_out_vc[q] > kRequesting || s.ivc_out_port[q] != out) continue;
      const int w = kRequesting - s.ivc_out_vc[q], me = i * V + v, rr = s.ovc_rr[s.pv(rep, out, w)];
      if (winner[w] < 0 || rr_distance(me, rr, n_ivc) < rr_distance(winner[w], rr, n_ivc)) winner[w] = me;
    }
  }
  if (!any) return;
  for (int w = 0; w < V; ++w) {
    if (winner[w] < 0) continue;
    const long long o = s.pv(rep, out, w);
    s.ovc_owner[o] = (p0 + winner[w] / V) * V + winner[w] % V;
    s.ovc_rr[o] = next_mod(winner[w], n_ivc);
  }
}

FLITSIM_HD void step_va_accept(const SimView& s, int rep, int gp) {
  const long long ip = s.pp(rep, gp);
  if (!s.va_request[ip]) return;
  s.va_request[ip] = 0;
  for (u64 m = s.port_vc_mask[ip]; m; m &= m - 1) {
    const int v = lowest_bit(m);
    const long long q = s.pv(rep, gp, v);
    if (s.ivc_out_vc[q] > kRequesting) continue;
    const int w = kRequesting - s.ivc_out_vc[q];
    // Lost: request again next cycle.
    s.ivc_out_vc[q] = s.ovc_owner[s.pv(rep, s.ivc_out_port[q], w)] == gp * s.sz.V + v ? w : -1;
  }
}

}  // namespace flitsim
