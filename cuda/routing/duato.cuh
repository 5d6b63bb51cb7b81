// Duato's protocol (escape sub-network plus adaptive VCs, registry flag kEscapeSubnetwork):
// what its routings share (torus_min_adapt.cuh, hyperx_dal.cuh).
#pragma once
#include "route_choice.cuh"

namespace flitsim {

constexpr int kEscapeAux = -2;  // BestChoice aux of the escape offer

// The first adaptive VC of output gp, at or after `start` in [lo, hi) and wrapping, that is
// free with room downstream for the whole packet, or −1. Room for the whole packet, not only
// free: the engine frees a VC once the previous packet's tail has crossed the switch, while
// that packet may still sit in the next router's buffer. A packet given such a VC without room
// for all its flits would hold its own input VC (perhaps an escape VC) while waiting for a
// packet of another destination to move on, a dependency that Duato's indirect dependencies
// (one packet's own path through adaptive VCs) do not contain; the test suite met that
// deadlock with 4-flit packets on one adaptive VC. With room reserved (the VC is the packet's
// until its tail leaves) every flit crosses without waiting on anything downstream, so the
// packet leaves its input VC whatever the adaptive VC's other occupants do (as in virtual
// cut-through, where Duato's condition needs only the direct dependencies). Escape VCs need no
// such rule: their dependency graph already joins every packet that may hold a channel.
FLITSIM_HD int fitting_adaptive_vc(const SimView& s, int rep, const PacketInfo& p, int gp, int lo, int hi, int start) {
  const int need = s.packets[p.slot].size;
  for (int i = 0, w = start; i < hi - lo; ++i, w = w + 1 == hi ? lo : w + 1) {
    const long long o = s.pv(rep, gp, w);
    // ioq: the flits already queued here for VC w hold none of its credits yet (route_choice.cuh)
    if (s.ovc[o].owner < 0 && s.ovc[o].credits - queued_for_credit(s, rep, gp, w, w + 1) >= need) return w;
  }
  return -1;
}

}  // namespace flitsim
