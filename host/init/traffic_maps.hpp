// Fixed destination maps of the traffic patterns (rank -> rank, computed on the host):
// HyperX coordinate maps (swap2, dcr) and each topology's worst case for minimal routing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/engine_config.hpp"
#include "host/config/params.hpp"
#include "host/topologies/topology.hpp"

namespace flitsim {

// HyperX rank coordinates (host/topologies/hyperx.cpp: rank = t + T·(x_0 + W_0·(x_1 + …))).
struct HxShape {
  int64_t T = 1;
  std::vector<int64_t> W;
  std::vector<int64_t> split(int64_t k, int64_t& t) const {
    t = k % T;
    k /= T;
    std::vector<int64_t> x(W.size());
    for (size_t d = 0; d < W.size(); ++d) x[d] = k % W[d], k /= W[d];
    return x;
  }
  int64_t join(int64_t t, const std::vector<int64_t>& x) const {
    int64_t r = 0;
    for (size_t d = W.size(); d-- > 0;) r = r * W[d] + x[d];
    return t + T * r;
  }
};

// The HyperX rank shape of t; fails naming traffic.pattern `pat` on other topologies.
HxShape hyperx_shape(const Topology& t, const Params& where, const std::string& pat);
// Torus or mesh (k-ary n-cubes).
bool is_cube(const Topology& t);
// Tornado and neighbour in the k-ary n-cube sense (Dally & Towles §3.2; BookSim2's tornado and
// neighbor): every router coordinate moves by ⌈W_d/2⌉ − 1 (tornado) or 1 (neighbour) modulo
// W_d, in every dimension at once; the terminal index is kept.
std::vector<int32_t> cube_digit_map(const Topology& t, int64_t N, bool tornado);
// traffic.dims checked against D; `def` when unset.
std::vector<int64_t> targeted_dims(const EngineConfig& cfg, const Params& where, size_t D,
                                   const std::string& pat, std::vector<int64_t> def);
std::vector<int32_t> swap2_map(const HxShape& h, const std::vector<int64_t>& dims, int64_t N);
std::vector<int32_t> dcr_map(const HxShape& h, const Params& where, int64_t N);
// Rank k -> k + shift (mod N).
std::vector<int32_t> shift_map(int64_t N, int64_t shift);
// traffic.placement = "booksim-flatfly": BookSim2's flatfly numbers its nodes row by row over the
// grid of W_0·r x W_1·r nodes in which each router owns an r x r block (xr = yr = r, c = r²),
// and maps a node to its router with flatfly_transformation. Rank b (BookSim2's node b, at
// column b mod (W_0·r), row b div (W_0·r)) runs on flitsim's router (col div r, row div r),
// terminal r·(row mod r) + (col mod r). Needs a 2-D HyperX with a square number of terminals.
std::vector<int32_t> booksim_flatfly_nodes(const Topology& t, const Params& where);

// The topology's adversarial pattern for minimal routing (docs/traffic.md "worst-case"): the
// map its kind registered (FLITSIM_REGISTER_WORST_CASE, next to each builder).
std::vector<int32_t> worst_case_map(const Topology& t, const Params& where);

}  // namespace flitsim
