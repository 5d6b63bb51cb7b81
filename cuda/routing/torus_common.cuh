// k-ary n-cube building blocks for the coordinate routings of tori and meshes (torus_dor,
// torus_valiant_dor). The host packs the topology tables into rt_table
// (host/init/routing_choice.cpp, cube_rt_table):
//   [0] D, then W[D], stride[D], wrap[D] (1: the dimension is a ring), then
//   cube_port[R·2D]: the global port of router r toward x_d + 1 (dir 0, "+") or x_d − 1
//   (dir 1, "−") at [r·2D + 2d + dir], −1 at a mesh edge. Router id = Σ x_d·stride_d
//   (host/topologies/torus.cpp).
#pragma once
#include "route_choice.cuh"

namespace flitsim {

constexpr int kSaltTorusTie = 0xA0000;  // + 128·hops + dimension: the even-radix tie's draw

struct Cube {
  const int32_t* t;
  FLITSIM_HD int dims() const { return t[0]; }
  FLITSIM_HD int width(int d) const { return t[1 + d]; }
  FLITSIM_HD int stride(int d) const { return t[1 + t[0] + d]; }
  FLITSIM_HD bool wraps(int d) const { return t[1 + 2 * t[0] + d] != 0; }
  FLITSIM_HD int coord(int r, int d) const { return r / stride(d) % width(d); }
  FLITSIM_HD int port(int r, int d, int dir) const {
    const int D = t[0];
    return t[1 + 3 * D + (long long)r * 2 * D + 2 * d + dir];
  }
  // Minimal hops from coordinate c to e in dimension d (around the ring where it wraps).
  FLITSIM_HD int ring_hops(int d, int c, int e) const {
    const int W = width(d), fwd = (e - c + W) % W;
    if (!wraps(d)) return c < e ? e - c : c - e;
    return fwd < W - fwd ? fwd : W - fwd;
  }
  FLITSIM_HD int hops(int r, int x) const {
    int h = 0;
    for (int d = 0; d < dims(); ++d) h += ring_hops(d, coord(r, d), coord(x, d));
    return h;
  }
};

FLITSIM_HD Cube cube(const SimView& s) { return Cube{s.rt_table}; }

// One hop of dimension-order routing from r toward router x ≠ r: the first dimension d where
// they differ, in the direction of the shorter way around (a mesh line: toward x). On a ring of
// even width W with x exactly W/2 away both ways are minimal: the packet draws one, each with
// probability 1/2, as BookSim2's dim_order_torus does (its dor_next_torus draws a random bit
// when k − 2·((dest − cur) mod k) = 0). The draw happens only where the dimension begins: after
// one hop the way back is longer, so the direction holds for the rest of the dimension.
// *ring_class: the dateline class of the hop, 1 while the route still has to cross its ring's
// wrap-around link (between x_d = W − 1 and 0), 0 otherwise (a mesh line: always 0).
FLITSIM_HD int cube_dor_port(const SimView& s, int rep, const PacketInfo& p, int r, int x, int* ring_class) {
  const Cube c = cube(s);
  int d = 0;
  while (c.coord(r, d) == c.coord(x, d)) ++d;  // r ≠ x
  const int W = c.width(d), cur = c.coord(r, d), want = c.coord(x, d);
  int dir;
  if (c.wraps(d)) {
    const int dist2 = W - 2 * ((want - cur + W) % W);
    dir = dist2 > 0 ? 0 : dist2 < 0 ? 1 : route_pick(s, rep, p, kSaltTorusTie + 128 * s.packets[p.slot].hops + d, 2);
    *ring_class = dir == 0 ? (cur > want ? 1 : 0) : (cur < want ? 1 : 0);
  } else {
    dir = want > cur ? 0 : 1;
    *ring_class = 0;
  }
  return c.port(r, d, dir);
}

}  // namespace flitsim
