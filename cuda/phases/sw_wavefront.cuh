// router.sw_allocator = "wavefront" (Tamir's wavefront allocator, Dally & Towles §19.4): a
// maximal matching of the request matrix (inputs × outputs, phases/switch_alloc.cuh's request
// step) found by sweeping its wrapped diagonals, output − input ≡ k (mod radix), starting at a
// priority diagonal k = t mod radix that rotates every cycle. The cells of one diagonal share
// no row or column, so every requested cell whose row and column are still free is granted.
//
// Cut into per-port steps without a per-router serial step: sweeping diagonal k is one step
// per input (cell (i, i + k)); the outputs taken so far reach every port through the
// executor's `gather` reduction (the OR of what each input returns), so no step writes
// another port's state. The sweep stops early once every requesting input or every requested
// output is matched. A sweep finds a maximal matching, so further iterations could add
// nothing and router.alloc_iterations does not apply. Priority is positional:
// router.arbitration = "age" (or the VC pointer) only picks which of the matched input's
// VCs for its output sends.
#pragma once
#include "switch_alloc.cuh"

namespace flitsim {

// Cell (i, i + k) of input gp; `taken`: outputs matched in earlier diagonals. Returns the
// output this input is matched to (a local bit), or 0.
FLITSIM_HD u64 step_sa_wavefront_cell(const SimView& s, int rep, int r, int gp, int k, u64 taken) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, i = gp - p0;
  const long long is = s.sp(rep, gp, p0);
  if (s.sa_accept[is] >= 0) return u64(1) << s.sa_accept[is];
  const int o = i + k < radix ? i + k : i + k - radix;
  if (!((s.sa_request[is] >> o) & 1) || ((taken >> o) & 1)) return 0;
  s.sa_accept[is] = o;
  return u64(1) << o;
}

// A matched input picks its VC for the output (oldest packet, or nearest after its pointer).
// A speculative match (spec) whose VC did not win its output VC is wasted: nothing is sent.
FLITSIM_HD void step_sa_wavefront_vc(const SimView& s, int rep, int r, int gp, long long t, bool spec) {
  const int p0 = s.port_offset[r];
  const long long ip = s.pp(rep, gp);
  const int v = pick_ready_vc(s, rep, gp, u64(1) << s.sa_accept[s.sp(rep, gp, p0)], p0, t, spec);
  s.port_state[ip].sa_req_vc = spec && s.ivc[s.pv(rep, gp, v)].out_vc < 0 ? -1 : v;
  s.port_state[ip].in_rr = next_mod(v, s.sz.V);
}

// `inputs`: the matched inputs (local bits); the one matched to this output.
FLITSIM_HD void step_sa_wavefront_match(const SimView& s, int rep, int r, int out, u64 inputs) {
  const int p0 = s.port_offset[r];
  for (; inputs; inputs &= inputs - 1) {
    const long long ip = s.pp(rep, p0 + lowest_bit(inputs));
    if (s.sa_accept[s.sp(rep, p0 + lowest_bit(inputs), p0)] == out - p0 && s.port_state[ip].sa_req_vc >= 0)
      s.port_state[s.pp(rep, out)].sa_match = lowest_bit(inputs);
  }
}

}  // namespace flitsim
