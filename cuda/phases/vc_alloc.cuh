// Phase 4, VC allocation (separable, input first). Each routed input VC without an output VC
// requests the free output VC of its allowed range with the most credits; each output VC
// grants the requester nearest after its round-robin pointer, which then moves past it.
// ovc_req is scratch that is all −1 between cycles: the grant loop resets what requests set.
#pragma once
#include "../state.cuh"

namespace flitsim {

// Distance from round-robin pointer `rr` to index i among n entries.
FLITSIM_HD int rr_distance(int i, int rr, int n) { return i >= rr ? i - rr : i - rr + n; }

FLITSIM_HD void phase_vc_alloc(const SimView& s, int rep, int r) {
  const int p0 = s.port_offset[r], p1 = s.port_offset[r + 1];
  const int V = s.sz.V, n_ivc = (p1 - p0) * V;
  bool any = false;
  for (int gp = p0; gp < p1; ++gp)
    for (int v = 0; v < V; ++v) {
      const long long q = s.pv(rep, gp, v);
      const int out = s.ivc_out_port[q];
      if (out < 0 || s.ivc_out_vc[q] >= 0) continue;
      int best = -1, best_credits = -1;
      for (int w = s.ivc_vc_lo[q]; w < s.ivc_vc_hi[q]; ++w) {
        const long long o = s.pv(rep, out, w);
        if (s.ovc_owner[o] < 0 && s.ovc_credits[o] > best_credits) best = w, best_credits = s.ovc_credits[o];
      }
      if (best < 0) continue;
      const long long o = s.pv(rep, out, best);
      const int me = (gp - p0) * V + v, cur = s.ovc_req[o];
      if (cur < 0 || rr_distance(me, s.ovc_rr[o], n_ivc) < rr_distance(cur, s.ovc_rr[o], n_ivc)) s.ovc_req[o] = me;
      any = true;
    }
  if (!any) return;

  for (int gp = p0; gp < p1; ++gp)
    for (int w = 0; w < V; ++w) {
      const long long o = s.pv(rep, gp, w);
      const int me = s.ovc_req[o];
      if (me < 0) continue;
      s.ovc_req[o] = -1;
      const int in_gp = p0 + me / V, in_v = me % V;
      s.ovc_owner[o] = in_gp * V + in_v;
      s.ivc_out_vc[s.pv(rep, in_gp, in_v)] = w;
      s.ovc_rr[o] = next_mod(me, n_ivc);
    }
}

}  // namespace flitsim
