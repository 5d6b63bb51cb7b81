// Phase 4, VC allocation (separable, input first). Each routed input VC without an output VC
// requests the free output VC of its allowed range with the most credits; each output VC
// grants the requester nearest after its round-robin pointer, which then moves past it.
// Requests are recorded as ivc_out_vc = kRequesting − w (w the requested VC) so the grant pass
// visits requesters, not every output VC; ovc_req is scratch that is −1 between cycles.
#pragma once
#include "../state.cuh"

namespace flitsim {

constexpr int kRequesting = -2;  // ivc_out_vc values <= kRequesting encode a pending request

// Distance from round-robin pointer `rr` to index i among n entries.
FLITSIM_HD int rr_distance(int i, int rr, int n) { return i >= rr ? i - rr : i - rr + n; }

FLITSIM_HD void phase_vc_alloc(const SimView& s, int rep, int r) {
  const int p0 = s.port_offset[r], p1 = s.port_offset[r + 1];
  const int V = s.sz.V, n_ivc = (p1 - p0) * V;
  int requests = 0;
  for (int gp = p0; gp < p1; ++gp)
    for (u64 m = s.port_vc_mask[s.pp(rep, gp)]; m; m &= m - 1) {
      const int v = lowest_bit(m);
      const long long q = s.pv(rep, gp, v);
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
      const long long o = s.pv(rep, out, best);
      const int me = (gp - p0) * V + v, cur = s.ovc_req[o];
      if (cur < 0 || rr_distance(me, s.ovc_rr[o], n_ivc) < rr_distance(cur, s.ovc_rr[o], n_ivc)) s.ovc_req[o] = me;
      s.ivc_out_vc[q] = kRequesting - best;
      ++requests;
    }

  for (int gp = p0; gp < p1 && requests > 0; ++gp)
    for (u64 m = s.port_vc_mask[s.pp(rep, gp)]; m; m &= m - 1) {
      const int v = lowest_bit(m);
      const long long q = s.pv(rep, gp, v);
      if (s.ivc_out_vc[q] > kRequesting) continue;
      --requests;
      const int w = kRequesting - s.ivc_out_vc[q];
      const long long o = s.pv(rep, s.ivc_out_port[q], w);
      const int me = (gp - p0) * V + v;
      if (s.ovc_req[o] != me) {  // lost: request again next cycle
        s.ivc_out_vc[q] = -1;
        continue;
      }
      s.ovc_req[o] = -1;
      s.ovc_owner[o] = gp * V + v;
      s.ivc_out_vc[q] = w;
      s.ovc_rr[o] = next_mod(me, n_ivc);
    }
}

}  // namespace flitsim
