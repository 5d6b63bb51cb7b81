// VC allocators other than separable input-first (router.vc_allocator; Dally & Towles §19.3),
// as per-port steps like phases/vc_alloc.cuh's. Every input VC without an output VC requests
// every output VC of its route's port that requests_vc allows (free, in its range, by-hop's
// one VC), marked ivc_out_vc = kRequesting; the allocator then matches input VCs to output VCs:
//   separable-output-first and islip: grant (per output port): each free output VC grants
//     the requester nearest after its round-robin pointer (or, with router.arbitration =
//     "age", the oldest packet) and records it as owner; accept (per input port): an input VC
//     granted several output VCs keeps the one router.vc_policy prefers (prefer_vc);
//     update (per output port): grants not accepted are released, and the pointer of an
//     accepted grant moves past its winner — in every iteration for separable-output-first,
//     in the first only for islip (McKeown's rule, which keeps the pointers apart).
//   wavefront (Tamir): grant (per output port) finds a maximal matching of the input VCs
//     that request this port with its free output VCs by sweeping the diagonals of their
//     request matrix from a priority diagonal that rotates every cycle (cells of a diagonal
//     share no row or column, so each is granted when its row and column are still free);
//     every input VC requests only its route's port, so the router's request matrix is one
//     block per output port and the per-port sweeps together are the router's wavefront.
//     Priority is positional: router.arbitration = "age" does not apply. Accept as above.
// Input VCs that get nothing request again in the next iteration or cycle.
#pragma once
#include "vc_alloc.cuh"

namespace flitsim {

// Returns the output ports (local bits) this input requests.
FLITSIM_HD u64 step_va_request_all(const SimView& s, int rep, int r, int gp) {
  const int p0 = s.port_offset[r];
  u64 requested = 0;
  for (u64 m = s.port_state[s.pp(rep, gp)].vc_mask; m; m &= m - 1) {
    const long long q = s.pv(rep, gp, lowest_bit(m));
    const int out = s.ivc[q].out_port;
    if (out < 0 || s.ivc[q].out_vc >= 0) continue;
    const bool any = requested_vcs(s, rep, q, out) != 0;
    s.ivc[q].out_vc = any ? kRequesting : -1;
    if (any) requested |= u64(1) << (out - p0);
  }
  s.port_state[s.pp(rep, gp)].va_request = requested;
  return requested;
}

// True when input VC v of local input i requests the switch's output port `out` this round.
FLITSIM_HD bool va_requesting(const SimView& s, int rep, int p0, int i, int v, int out) {
  const long long q = s.pv(rep, p0 + i, v);
  return s.ivc[q].out_vc <= kRequesting && s.ivc[q].out_port == out;
}

FLITSIM_HD void step_va_grant_output_first(const SimView& s, int rep, int r, int out, u64 inputs) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, V = s.sz.V, n_ivc = radix * V;
  const u64 me_bit = u64(1) << (out - p0);
  u64 requesting = 0;  // inputs with a VC requesting this port
  for (u64 m = inputs; m; m &= m - 1)
    if (s.port_state[s.pp(rep, p0 + lowest_bit(m))].va_request & me_bit) requesting |= u64(1) << lowest_bit(m);
  for (int w = 0; w < V && requesting; ++w) {
    const long long o = s.pv(rep, out, w);
    if (s.ovc[o].owner >= 0) continue;
    int winner = -1;  // local input VC index i * V + v
    long long winner_age = 0;
    int winner_prio = 0;  // its packet's class priority (traffic classes: a higher one wins)
    const int rr = s.ovc_rr[o];
    for (u64 m = requesting; m; m &= m - 1) {
      const int i = lowest_bit(m);
      for (u64 vm = s.port_state[s.pp(rep, p0 + i)].vc_mask; vm; vm &= vm - 1) {
        const int v = lowest_bit(vm), me = i * V + v;
        const long long q = s.pv(rep, p0 + i, v);
        if (!va_requesting(s, rep, p0, i, v, out) || !requests_vc(s, rep, q, out, w)) continue;
        const int pr = s.prm.classes.prioritized ? vc_priority(s, rep, q) : 0;
        if (winner >= 0 && pr < winner_prio) continue;
        const bool higher = winner >= 0 && pr > winner_prio;
        if (s.prm.router.age_arbitration) {  // oldest packet; ties: the lowest port, then VC
          const long long age = front_created(s, rep, q);
          if (winner < 0 || higher || age < winner_age) winner = me, winner_age = age, winner_prio = pr;
        } else if (winner < 0 || higher || rr_distance(me, rr, n_ivc) < rr_distance(winner, rr, n_ivc)) {
          winner = me, winner_prio = pr;
        }
      }
    }
    if (winner >= 0) s.ovc[o].owner = p0 * V + winner;  // a grant until update sees it accepted
  }
}

FLITSIM_HD void step_va_grant_wavefront(const SimView& s, int rep, int r, int out, u64 inputs, long long t) {
  const int p0 = s.port_offset[r], radix = s.port_offset[r + 1] - p0, V = s.sz.V, n = radix * V;
  const u64 me_bit = u64(1) << (out - p0);
  u64 free_vcs = 0;  // columns: output VCs not owned
  for (int w = 0; w < V; ++w)
    if (s.ovc[s.pv(rep, out, w)].owner < 0) free_vcs |= u64(1) << w;
  u64 taken[kMaxRadix];  // rows matched so far: bit v of input i
  int rows = 0;          // input VCs requesting this port
  for (int i = 0; i < radix; ++i) {
    taken[i] = 0;
    if (!((inputs >> i) & 1) || !(s.port_state[s.pp(rep, p0 + i)].va_request & me_bit)) continue;
    for (u64 vm = s.port_state[s.pp(rep, p0 + i)].vc_mask; vm; vm &= vm - 1)
      rows += va_requesting(s, rep, p0, i, lowest_bit(vm), out);
  }
  const int first = int(t % n);  // the priority diagonal rotates every cycle
  for (int d = 0; d < n && free_vcs && rows; ++d) {
    const int k = first + d < n ? first + d : first + d - n;  // diagonal k: cells (row, w), w − row ≡ k
    for (u64 m = free_vcs; m; m &= m - 1) {
      const int w = lowest_bit(m), row = w - k < 0 ? w - k + n : w - k, i = row / V, v = row % V;
      if (!((s.port_state[s.pp(rep, p0 + i)].vc_mask >> v) & 1) || ((taken[i] >> v) & 1)) continue;
      if (!va_requesting(s, rep, p0, i, v, out) || !requests_vc(s, rep, s.pv(rep, p0 + i, v), out, w)) continue;
      s.ovc[s.pv(rep, out, w)].owner = p0 * V + row;
      taken[i] |= u64(1) << v;
      free_vcs &= ~(u64(1) << w);
      --rows;
    }
  }
}

// Each requesting input VC keeps the granted output VC router.vc_policy prefers.
FLITSIM_HD void step_va_accept_granted(const SimView& s, int rep, int gp, long long t) {
  const long long ip = s.pp(rep, gp);
  if (!s.port_state[ip].va_request) return;
  s.port_state[ip].va_request = 0;
  for (u64 m = s.port_state[ip].vc_mask; m; m &= m - 1) {
    const int v = lowest_bit(m);
    const long long q = s.pv(rep, gp, v);
    if (s.ivc[q].out_vc > kRequesting) continue;
    const int out = s.ivc[q].out_port;
    u64 granted = 0;
    for (int w = 0; w < s.sz.V; ++w)
      if (s.ovc[s.pv(rep, out, w)].owner == gp * s.sz.V + v) granted |= u64(1) << w;
    const int w = prefer_vc(s, rep, q, out, granted);
    s.ivc[q].out_vc = w;  // −1: lost, request again
    if (w >= 0) s.ivc_va_at[q] = t, s.port_state[ip].held_mask |= u64(1) << v;
  }
}

// Releases grants their input VC did not accept; moves the pointers of accepted ones.
FLITSIM_HD void step_va_update(const SimView& s, int rep, int r, int out, int it, long long t) {
  const int p0 = s.port_offset[r], n_ivc = (s.port_offset[r + 1] - p0) * s.sz.V;
  const bool move = it == 0 || s.prm.router.vc_allocator != Allocator::Islip;
  for (int w = 0; w < s.sz.V; ++w) {
    const long long o = s.pv(rep, out, w);
    const int g = s.ovc[o].owner;
    if (g < 0) continue;
    const long long q = s.pv(rep, g / s.sz.V, g % s.sz.V);
    if (s.ivc[q].out_port != out || s.ivc[q].out_vc != w) {
      s.ovc[o].owner = -1;
    } else if (move && s.ivc_va_at[q] == t) {
      s.ovc_rr[o] = next_mod(g - p0 * s.sz.V, n_ivc);
    }
  }
}

}  // namespace flitsim
