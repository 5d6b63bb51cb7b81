// HyperX building blocks for the coordinate routings (hyperx_dor, _closad, _dimwar,
// _omniwar, _dal). Every dimension is a complete graph (gap 1; host/init/routing_choice.cpp rejects
// express meshes), so one hop aligns a dimension. The host packs the topology tables into
// rt_table (host/init/routing_choice.cpp, hyperx_rt_table):
//   [0] D, [1] ΣW, then W[D], stride[D], trunk[D], dim_offset[D+1], then dim_port[R·ΣW]:
//   the first of the trunk[d] parallel ports of router r toward the router that differs from
//   r only in dimension d, where its coordinate is c, at dim_port[r·ΣW + dim_offset[d] + c]
//   (−1 for r itself). Router id = Σ x_d·stride_d (host/topologies/hyperx.cpp).
#pragma once
#include "route_choice.cuh"

namespace flitsim {

struct Hx {
  const int32_t* t;
  FLITSIM_HD int dims() const { return t[0]; }
  FLITSIM_HD int width(int d) const { return t[2 + d]; }
  FLITSIM_HD int stride(int d) const { return t[2 + t[0] + d]; }
  FLITSIM_HD int trunk(int d) const { return t[2 + 2 * t[0] + d]; }
  FLITSIM_HD int coord(int r, int d) const { return r / stride(d) % width(d); }
  // First parallel port of r toward coordinate c of dimension d.
  FLITSIM_HD int port(int r, int d, int c) const {
    const int D = t[0];
    return t[3 + 4 * D + (long long)r * t[1] + t[2 + 3 * D + d] + c];
  }
  // Dimensions in which r and x differ.
  FLITSIM_HD int unaligned(int r, int x) const {
    int n = 0;
    for (int d = 0; d < dims(); ++d) n += coord(r, d) != coord(x, d);
    return n;
  }
};

FLITSIM_HD Hx hyperx(const SimView& s) { return Hx{s.rt_table}; }

// The congestion DimWAR and OmniWAR weigh for output gp (routing.sensing): of all V VCs, or
// with "class" of the VCs of class cls only, each as routing.congestion says
// (sensed_congestion). SuperSim's HyperX routings with port outputs sum the congestion of the VCs of the packet's next VC set only: OmniWAR's packets (one class per hop) then weigh
// the packets at the same hop stage, not those of every stage (docs/routing.md has the measured
// effect).
// `vc_base`: the first VC of the packet's message class (PacketInfo::vc_base).
FLITSIM_HD int hx_congestion(const SimView& s, int rep, int gp, int cls, int vc_base) {
  if (s.prm.routing.sensing == Sensing::Port) return ugal_port_queue(s, rep, gp);
  return sensed_congestion(s, rep, gp, vc_base + s.class_vc_lo(cls), vc_base + s.class_vc_hi(cls));
}

// The outputs of router r that the weighted HyperX routings choose among, in the order they
// offer them: in the dimensions `mask` selects (bit d; dimensions with unaligned coordinates
// toward dst), first every minimal output (toward dst's coordinate), then, when allowed, every
// deroute (any other coordinate) of the dimensions deroute_mask also selects; each kind starts
// at a dimension, a coordinate and a parallel link drawn from u, so no output is favoured.
// Calls f(gp, d, deroute) for each.
template <class F>
FLITSIM_HD void hx_each_output(const Hx& hx, uint32_t u, int r, int dst, unsigned long long mask, bool allow_deroute,
                               unsigned long long deroute_mask, F&& f) {
  const int D = hx.dims();
  for (int pass = 0; pass < 2; ++pass) {  // minimal outputs first, then deroutes
    if (pass == 1 && !allow_deroute) break;
    const int d0 = int(draw_below(u, uint32_t(D)));
    for (int i = 0, d = d0; i < D; ++i, d = next_mod(d, D)) {
      if (!((mask >> d) & 1)) continue;
      if (pass == 1 && !((deroute_mask >> d) & 1)) continue;
      const int W = hx.width(d), n = hx.trunk(d), cur = hx.coord(r, d), want = hx.coord(dst, d);
      const int c0 = int(draw_below(u * 2654435761u + uint32_t(d), uint32_t(W)));
      for (int j = 0, c = c0; j < W; ++j, c = next_mod(c, W)) {
        if (c == cur || (pass == 0) != (c == want)) continue;
        const int base = hx.port(r, d, c), k0 = n > 1 ? (c0 + d) % n : 0;
        for (int j2 = 0, k = k0; j2 < n; ++j2, k = next_mod(k, n)) f(base + k, d, pass == 1);
      }
    }
  }
}

// The weights of the weighted HyperX routings (P4 §5 "congestion × hop count", SuperSim's
// monolithic weighting, TARGETS §3.5 item 2): a minimal output hops·q, a deroute
// (hops + 1)·(q + routing.offset), q its congestion and hops the minimal hops left.
FLITSIM_HD long long hx_weight(const SimView& s, int hops, int q, bool deroute) {
  return deroute ? (long long)(hops + 1) * (q + s.prm.routing.ugal_offset) : (long long)hops * q;
}

// Weighted adaptive choice among the outputs of router r in the dimensions `mask` selects
// (hx_each_output; deroutes when allowed), q the port's occupancy. The minimal weight wins; a
// deroute must be strictly lighter than every minimal output (ties stay minimal); among equal
// outputs of one kind the first after a random start wins. With routing.sensing = "class"
// minimal outputs are sensed on VC class min_cls and deroutes on der_cls (hx_congestion).
// Returns the port; *deroute_dim = the deroute's dimension or −1.
FLITSIM_HD int hx_weighted_choice(const SimView& s, int rep, const PacketInfo& p, int r, int dst, unsigned long long mask,
                                  bool allow_deroute, unsigned long long deroute_mask, int min_cls, int der_cls,
                                  int* deroute_dim) {
  const Hx hx = hyperx(s);
  const int hops = hx.unaligned(r, dst);
  const uint32_t u = route_order_draw(s, rep, p, 0x60000 + s.packets[p.slot].hops);
  BestChoice best;
  best.enumerate(p);  // (enumeration: every offered output)
  hx_each_output(hx, u, r, dst, mask, allow_deroute, deroute_mask, [&](int gp, int d, bool deroute) {
    const int q = hx_congestion(s, rep, gp, deroute ? der_cls : min_cls, p.vc_base);
    best.offer(hx_weight(s, hops, q, deroute), gp, d, deroute);
  });
  best.settle(p);
  *deroute_dim = best.nonminimal ? best.aux : -1;
  return best.port;
}

}  // namespace flitsim
