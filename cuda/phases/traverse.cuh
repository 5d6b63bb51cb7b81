// Phase 6, switch traversal and credit return: each input VC the switch allocator chose
// (sa_req_vc) moves its front flit onto
// the output channel (router pipeline latency is part of that channel's delay), returns a credit
// upstream, and on a tail releases the output VC so the next packet in the VC can route.
#pragma once
#include "../rings.cuh"
#include "switch_alloc.cuh"

namespace flitsim {

FLITSIM_HD void phase_traverse(const SimView& s, int rep, int r, long long t) {
  const int p0 = s.port_offset[r], p1 = s.port_offset[r + 1], B = s.sz.B;
  bool moved = false;
  for (int gp = p0; gp < p1; ++gp) {
    const long long ip = s.pp(rep, gp);
    const int v = s.sa_req_vc[ip];
    if (v < 0) continue;
    const long long q = s.pv(rep, gp, v);
    const int out = s.ivc_out_port[q], ov = s.ivc_out_vc[q];
    const long long op = s.pp(rep, out);

    const flit_t f = s.ibuf[q * B + s.ivc_head[q]];
    s.ivc_head[q] = next_mod(s.ivc_head[q], B);
    if (--s.ivc_count[q] == 0) s.port_vc_mask[ip] &= ~(u64(1) << v);
    return_credit(s, rep, gp, v, t);

    const int32_t pid = flit_pid(f);
    const flit_t g = make_flit(pid, ov, flit_head(f), flit_tail(f));
    const int peer = s.peer_port[out];
    if (peer >= 0) {
      send_flit_to_port(s, rep, peer, g, t);
      s.ovc_credits[s.pv(rep, out, ov)] -= 1;
      if (flit_head(f)) s.pk_hops[s.pk(rep, pid)] += 1;
    } else {
      send_flit_to_node(s, rep, s.port_node[out], g, t);
    }
    if (s.in_window(t)) s.port_flits[op] += 1;
    if (flit_tail(f)) {
      s.ovc_owner[s.pv(rep, out, ov)] = -1;
      s.ivc_out_port[q] = -1;
      s.ivc_out_vc[q] = -1;
    }
    moved = true;
  }
  if (moved) s.router_last_move[(long long)rep * s.sz.R + r] = t;
}

}  // namespace flitsim
