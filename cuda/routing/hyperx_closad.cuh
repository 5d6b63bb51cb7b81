// Clos-AD on HyperX (Kim et al., flattened butterfly, ISCA'07; P4 §4.1, evaluated as here
// without the sequential allocator, P4:L123). A source-adaptive UGAL variant: once, at the
// source router, every output port in a dimension where source and destination differ is a
// candidate. DOR's first minimal port weighs H·q (H = differing dimensions, q = the port's
// occupancy, P4 "weight = congestion × hopcount"); any other such port leads to a Valiant
// path through an intermediate drawn among the least common ancestors that route DOR over
// that port first — coordinates equal to the source in aligned dimensions and in the
// unaligned ones before the port's dimension, the port's coordinate in its dimension, random
// in the later unaligned ones — and weighs (hops of that path)·(q + routing.offset). The
// lightest port wins (a tie stays minimal; among equal ports the first after a random start).
// The packet leaves on that very port, then follows DOR to the intermediate and DOR to the
// destination.
// Deadlock avoidance: 2 VC classes (P4 Table 1), one per DOR phase: class 0 toward the
// intermediate, class 1 after it. Each phase is DOR (acyclic on one class, hyperx_dor.cuh)
// and dependencies only lead from class 0 to class 1. Minimal packets are phase-0 packets
// whose intermediate is the destination (class 0 only).
// Packet state pk_route: 0 = not decided, 1 + x = phase 0 toward router x, −1 = phase 1.
#pragma once
#include "hyperx_dor.cuh"

namespace flitsim {

FLITSIM_HD uint32_t mix32(uint32_t x) {  // murmur3 finaliser: a cheap, exact integer hash
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

// The intermediate that routes DOR over (d, c) first: r's coordinates before d, c in d, r's
// again where r and dst agree, and coord_of(e) in each later dimension e where they differ.
template <class CoordOf>
FLITSIM_HD int closad_intermediate(const Hx& hx, int r, int dst, int d, int c, const CoordOf& coord_of) {
  int x = r + (c - hx.coord(r, d)) * hx.stride(d);
  for (int e = d + 1; e < hx.dims(); ++e) {
    if (hx.coord(r, e) == hx.coord(dst, e)) continue;
    x += (coord_of(e) - hx.coord(r, e)) * hx.stride(e);
  }
  return x;
}

inline VcClasses classes_hyperx_closad(const ClassInputs&) { return {2}; }  // one per DOR phase

FLITSIM_HD RouteChoice route_hyperx_closad(const SimView& s, int rep, int r, const PacketInfo& p) {
  const Hx hx = hyperx(s);
  int32_t st = s.packets[p.slot].route;
  if (st == 0) {  // at the source router
    if (r == p.dst_router) return eject_choice(s, p);
    const int D = hx.dims(), dst = p.dst_router, H = hx.unaligned(r, dst);
    int d0 = 0;
    while (hx.coord(r, d0) == hx.coord(dst, d0)) ++d0;
    const uint32_t u = route_order_draw(s, rep, p, 0x70000);  // (intermediates re-drawn below when enumerating)
    BestChoice best;
    best.enumerate(p);  // (enumeration: every offered port)
    {  // the minimal (DOR) output: its parallel ports from a random start
      const int base = hx.port(r, d0, hx.coord(dst, d0)), n = hx.trunk(d0);
      for (int i = 0, k = int(draw_below(u, uint32_t(n))); i < n; ++i, k = next_mod(k, n))
        best.offer((long long)H * port_congestion(s, rep, base + k), base + k, dst, false);
    }
    const int e0 = int(draw_below(mix32(u + 1), uint32_t(D)));
    for (int i = 0, d = e0; i < D; ++i, d = next_mod(d, D)) {
      const int cur = hx.coord(r, d), W = hx.width(d), n = hx.trunk(d);
      if (cur == hx.coord(dst, d)) continue;
      for (int j = 0, c = int(draw_below(mix32(u + 2 + d), uint32_t(W))); j < W; ++j, c = next_mod(c, W)) {
        if (c == cur || (d == d0 && c == hx.coord(dst, d))) continue;
        // The intermediate that routes DOR over (d, c) first, random in later unaligned dimensions.
        uint32_t v = mix32(u ^ (uint32_t(d) * 0x9E3779B9u) ^ (uint32_t(c) * 0x7F4A7C15u));
        const int x = closad_intermediate(hx, r, dst, d, c, [&](int e) {
          v = mix32(v + uint32_t(e));
          return int(draw_below(v, uint32_t(hx.width(e))));
        });
        const int hops = hx.unaligned(r, x) + hx.unaligned(x, dst);
        const int base = hx.port(r, d, c);
        for (int k = 0; k < n; ++k)
          best.offer((long long)hops * (port_congestion(s, rep, base + k) + s.prm.routing.ugal_offset), base + k, x, true);
      }
    }
    best.settle(p);
    if (branching(p) && best.nonminimal) {  // enumeration: every coordinate the hash can draw
      int d = 0;
      while (hx.coord(best.aux, d) == hx.coord(r, d)) ++d;
      best.aux = closad_intermediate(hx, r, dst, d, hx.coord(best.aux, d), [&](int e) { return p.branch->take(hx.width(e)); });
    }
    s.packets[p.slot].route = 1 + best.aux;
    if (best.nonminimal) mark_nonminimal(s, p);
    return route_in_class(s, best.port, 0);
  }
  if (st > 0) {  // phase 0
    if (r != st - 1) return route_hyperx_dor_toward(s, rep, r, p, st - 1, 0);
    st = -1;
    s.packets[p.slot].route = st;
  }
  if (r == p.dst_router) return eject_choice(s, p);
  return route_hyperx_dor_toward(s, rep, r, p, p.dst_router, 1);
}

// Its keys, defaults, label and flags (route_choice.cuh, RoutingTraits).
constexpr RoutingTraits traits_hyperx_closad{"Clos-AD", "offset", 0, 0, 4};

}  // namespace flitsim
