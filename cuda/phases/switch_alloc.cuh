// Phase 5, switch allocation (separable, input first, round robin at both stages): each input
// port nominates one VC that holds a flit, an output VC and a downstream credit; each output
// port grants one nominating input port. Ejection ports need no credit: sinks always accept.
#pragma once
#include "vc_alloc.cuh"

namespace flitsim {

FLITSIM_HD bool has_downstream_credit(const SimView& s, int rep, int out, int ov) {
  return s.peer_port[out] < 0 || s.ovc_credits[s.pv(rep, out, ov)] > 0;
}

FLITSIM_HD void phase_switch_alloc(const SimView& s, int rep, int r) {
  const int p0 = s.port_offset[r], p1 = s.port_offset[r + 1], radix = p1 - p0, V = s.sz.V;
  for (int gp = p0; gp < p1; ++gp) s.sa_grant[s.pp(rep, gp)] = -1;
  for (int gp = p0; gp < p1; ++gp) {
    const long long ip = s.pp(rep, gp);
    s.sa_req_vc[ip] = -1;
    for (int k = 0; k < V; ++k) {
      const int v = add_mod(s.in_rr[ip], k, V);
      const long long q = s.pv(rep, gp, v);
      const int ov = s.ivc_out_vc[q];
      if (s.ivc_count[q] == 0 || ov < 0 || !has_downstream_credit(s, rep, s.ivc_out_port[q], ov)) continue;
      s.sa_req_vc[ip] = v;
      const long long op = s.pp(rep, s.ivc_out_port[q]);
      const int me = gp - p0, cur = s.sa_grant[op];
      if (cur < 0 || rr_distance(me, s.out_rr[op], radix) < rr_distance(cur, s.out_rr[op], radix)) s.sa_grant[op] = me;
      break;
    }
  }
}

}  // namespace flitsim
