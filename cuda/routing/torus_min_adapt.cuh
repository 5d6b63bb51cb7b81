// Minimal adaptive routing with an escape channel on tori and meshes: Duato's protocol
// (Duato 1993; Dally & Towles §14.3.4; BookSim2's min_adapt_torus and min_adapt_mesh).
// Adaptive VCs may be taken on any productive output: every dimension still unaligned, in each
// direction that is minimal there (both on an even ring exactly W/2 away). The escape VCs are
// taken only on the DOR output, in its dateline class (torus_dor.cuh): one VC per class, VCs 0
// and 1 on a torus, VC 0 on a mesh (BookSim2's min_adapt_torus and _mesh use the same escape
// VCs); every other VC is adaptive, one class, so router.vcs ≥ 3 on a torus, ≥ 2 on a mesh.
// Selection: among the productive outputs with an adaptive VC that is free with room for the
// whole packet (fitting_adaptive_vc says why), the one with the fewest adaptive-class flits downstream
// (ties: the first after a random start), on that one VC; when no productive output has one,
// the escape VC of the DOR output's dateline class. A packet on
// an escape VC may return to the adaptive VCs at the next router (Duato's theorem allows it).
//
// Why re-routing (registry flag kReroutesWaiting): Duato's protocol needs a head that waits to
// be able to take whichever of its channels frees first, the escape one included. The engine
// routes a head to one output port and a VC range, and the VC allocator picks within it. Rather
// than teach every VC allocator (separable, wavefront, matching) sets of (port, VC range), a
// head of a routing with this flag that did not win an output VC is routed again in the next
// cycle, from the VC state of that cycle: the route step reads the output VCs' owners and
// credits before VC allocation, so a head falls back to the escape VC exactly when no adaptive
// VC it may use is free, and leaves it again when one frees before it wins. A waiting head thus
// waits on all its channels (one per cycle is asked for, the free ones first): Duato's
// condition for deadlock freedom. Routings without the flag are routed once, as before.
//
// Deadlock freedom (Duato's condition, checked by check_deadlock: src/flitsim/deadlock.py): the
// escape sub-network is DOR with dateline classes, whose own dependency graph is acyclic
// (torus_dor.cuh), and it stays acyclic with the indirect dependencies through adaptive VCs: a
// packet that leaves an escape VC of dimension d has all lower dimensions aligned (DOR took d),
// minimal adaptive hops never misalign them, and they only move it further along its
// direction in d or into later dimensions, where its next escape hop is higher in the same
// order (dimension, dateline class 1 before 0, position from the wrap-around link). The escape
// class is read from the router and the destination alone (no packet state), so it is the same
// whichever adaptive hops came before.
#pragma once
#include "duato.cuh"
#include "torus_common.cuh"

namespace flitsim {

constexpr int kSaltTorusMinAdapt = 0xC0000;  // + hops: the start of the scan over outputs

// Escape: the dateline classes of DOR (2 on a torus, 1 on a mesh), VC c for class c; then one
// adaptive class, every other VC (so the class ranges are not the engine's equal split:
// route_torus_min_adapt names its VCs itself). router.vcs ≥ classes, 3 on a torus, 2 on a mesh.
inline VcClasses classes_torus_min_adapt(const ClassInputs& in) {
  const int32_t escape = in.rings > 0 ? 2 : 1;
  return {escape + 1, 1, escape};
}

// True when a hop from coordinate cur in direction dir (0: +, 1: −) of dimension d is minimal
// toward want ≠ cur.
FLITSIM_HD bool cube_productive(const Cube& c, int d, int cur, int want, int dir) {
  if (!c.wraps(d)) return dir == 0 ? want > cur : want < cur;
  const int W = c.width(d), fwd = (want - cur + W) % W;
  return dir == 0 ? 2 * fwd <= W : 2 * fwd >= W;
}

FLITSIM_HD RouteChoice route_torus_min_adapt(const SimView& s, int rep, int r, const PacketInfo& p) {
  const Cube c = cube(s);
  int esc_class;
  const int esc_port = cube_dor_port(s, rep, p, r, p.dst_router, &esc_class);  // may draw the even-radix tie
  // The adaptive VCs; without deadlock avoidance (one class) every VC is adaptive and escape.
  const bool one_class = s.prm.routing.vc_classes == 1;
  // Class-relative like every RouteChoice (route_packet adds p.vc_base, the packet's message
  // class's first VC); the VC state is read at absolute VCs, b + [lo, hi).
  const int lo = one_class ? 0 : s.prm.routing.escape_classes, hi = s.sz.mc_V, b = p.vc_base;
  const int D = c.dims(), outs = 2 * D;
  const int k0 = int(draw_below(route_order_draw(s, rep, p, kSaltTorusMinAdapt + s.packets[p.slot].hops), uint32_t(outs)));
  BestChoice best;
  best.enumerate(p);  // (enumeration: every productive output's adaptive VCs, and the escape)
  for (int i = 0, k = k0; i < outs; ++i, k = next_mod(k, outs)) {
    const int d = k >> 1, dir = k & 1, cur = c.coord(r, d), want = c.coord(p.dst_router, d);
    if (cur == want || !cube_productive(c, d, cur, want, dir)) continue;
    const int gp = c.port(r, d, dir);
    if (gp < 0) continue;
    // aux: the adaptive VC taken (its range is that one VC), or −1 while enumerating (all of them)
    int w = -1;
    if (!branching(p)) {
      w = fitting_adaptive_vc(s, rep, p, gp, b + lo, b + hi, b + lo + k0 % (hi - lo));
      if (w < 0) continue;
      w -= b;
    }
    const int occupied = (hi - lo) * s.sz.B - free_credits(s, rep, gp, b + lo, b + hi);  // adaptive-class flits downstream
    best.offer(occupied, gp, w, false);
  }
  if (branching(p) || best.port < 0) best.offer(0, esc_port, kEscapeAux, false);
  best.settle(p);
  if (best.aux == kEscapeAux) return one_class ? RouteChoice{best.port, 0, hi} : RouteChoice{best.port, esc_class, esc_class + 1};
  return best.aux < 0 ? RouteChoice{best.port, lo, hi} : RouteChoice{best.port, best.aux, best.aux + 1};
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_torus_min_adapt{"min-adapt", "", kReroutesWaiting | kEscapeSubnetwork};

}  // namespace flitsim
