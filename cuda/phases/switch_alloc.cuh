// Phase 5, switch allocation: iSLIP-style request-grant-accept (McKeown), as BookSim2's
// default `islip` allocator. Each unmatched input port requests every output port that one of
// its VCs could use now (a flit, an output VC and a downstream credit); each output grants the
// requesting input nearest after its grant pointer; each input accepts the granting output
// nearest after its accept pointer and sends from its VC for that output that is nearest after
// its VC pointer. Pointers move only on grants accepted in the first iteration, which
// desynchronises them under load. `router.sa_iterations` further iterations match what is
// left. Ejection ports need no credit: sinks always accept. Ports are local indices 0..radix−1
// (radix <= kMaxRadix, checked at set-up) so requests fit in 64-bit masks.
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

// Output port (local index) VC v of input gp can use this cycle, or −1.
FLITSIM_HD int ready_output(const SimView& s, int rep, int gp, int v, int p0) {
  const long long q = s.pv(rep, gp, v);
  const int ov = s.ivc_out_vc[q];
  if (ov < 0 || !has_downstream_credit(s, rep, s.ivc_out_port[q], ov)) return -1;
  return s.ivc_out_port[q] - p0;
}

FLITSIM_HD void phase_switch_alloc(const SimView& s, int rep, int r) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, V = s.sz.V;
  u64 requests_to[kMaxRadix];  // per output: inputs requesting it
  u64 grants_to[kMaxRadix];    // per input: outputs granting it
  u64 matched_in = 0, matched_out = 0;
  for (int i = 0; i < radix; ++i) s.sa_req_vc[s.pp(rep, p0 + i)] = -1;

  for (int it = 0; it < s.prm.sa_iterations; ++it) {
    for (int o = 0; o < radix; ++o) requests_to[o] = 0, grants_to[o] = 0;
    bool any = false;
    for (int i = 0; i < radix; ++i) {
      if ((matched_in >> i) & 1) continue;
      for (u64 m = s.port_vc_mask[s.pp(rep, p0 + i)]; m; m &= m - 1) {
        const int o = ready_output(s, rep, p0 + i, lowest_bit(m), p0);
        if (o >= 0 && !((matched_out >> o) & 1)) requests_to[o] |= u64(1) << i, any = true;
      }
    }
    if (!any) break;
    for (int o = 0; o < radix; ++o)
      if (requests_to[o]) grants_to[rr_pick(requests_to[o], s.out_rr[s.pp(rep, p0 + o)])] |= u64(1) << o;
    for (int i = 0; i < radix; ++i) {
      if (!grants_to[i]) continue;
      const long long ip = s.pp(rep, p0 + i);
      const int o = rr_pick(grants_to[i], s.acc_rr[ip]);
      // The input's VC for output o nearest after its VC pointer.
      u64 for_o = 0;
      for (u64 m = s.port_vc_mask[ip]; m; m &= m - 1)
        if (ready_output(s, rep, p0 + i, lowest_bit(m), p0) == o) for_o |= u64(1) << lowest_bit(m);
      const int v = rr_pick(for_o, s.in_rr[ip]);
      s.sa_req_vc[ip] = v;
      s.in_rr[ip] = next_mod(v, V);
      matched_in |= u64(1) << i;
      matched_out |= u64(1) << o;
      if (it == 0) {
        s.out_rr[s.pp(rep, p0 + o)] = next_mod(i, radix);
        s.acc_rr[ip] = next_mod(o, radix);
      }
    }
  }
}

}  // namespace flitsim
