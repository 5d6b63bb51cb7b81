// Phase 5, switch allocation (separable, input first, round robin at both stages): each input
// port nominates one VC that holds a flit, an output VC and a downstream credit; each output
// port grants one nominating input port. Ejection ports need no credit: sinks always accept.
#pragma once
#include "vc_alloc.cuh"

namespace flitsim {

FLITSIM_HD bool has_downstream_credit(const SimView& s, int rep, int out, int ov) {
  return s.peer_port[out] < 0 || s.ovc_credits[s.pv(rep, out, ov)] > 0;
}

// First occupied VC of input port gp, in round-robin order from in_rr, that can move a flit.
FLITSIM_HD int nominate_vc(const SimView& s, int rep, int gp) {
  const long long ip = s.pp(rep, gp);
  const u64 occupied = s.port_vc_mask[ip];
  const u64 from_pointer = occupied & (~u64(0) << s.in_rr[ip]);
  for (int pass = 0; pass < 2; ++pass)
    for (u64 m = pass == 0 ? from_pointer : occupied & ~from_pointer; m; m &= m - 1) {
      const int v = lowest_bit(m);
      const long long q = s.pv(rep, gp, v);
      const int ov = s.ivc_out_vc[q];
      if (ov >= 0 && has_downstream_credit(s, rep, s.ivc_out_port[q], ov)) return v;
    }
  return -1;
}

FLITSIM_HD void phase_switch_alloc(const SimView& s, int rep, int r) {
  const int p0 = s.port_offset[r], p1 = s.port_offset[r + 1], radix = p1 - p0;
  for (int gp = p0; gp < p1; ++gp) s.sa_grant[s.pp(rep, gp)] = -1;
  for (int gp = p0; gp < p1; ++gp) {
    const int v = nominate_vc(s, rep, gp);
    s.sa_req_vc[s.pp(rep, gp)] = v;
    if (v < 0) continue;
    const long long op = s.pp(rep, s.ivc_out_port[s.pv(rep, gp, v)]);
    const int me = gp - p0, cur = s.sa_grant[op];
    if (cur < 0 || rr_distance(me, s.out_rr[op], radix) < rr_distance(cur, s.out_rr[op], radix)) s.sa_grant[op] = me;
  }
}

}  // namespace flitsim
