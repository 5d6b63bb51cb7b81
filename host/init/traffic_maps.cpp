#include "traffic_maps.hpp"

#include "host/topologies/topology_registry.hpp"

namespace flitsim {

HxShape hyperx_shape(const Topology& t, const Params& where, const std::string& pat) {
  if (t.kind != "hyperx") where.fail("pattern", "\"" + pat + "\" needs a hyperx, not " + t.kind);
  HxShape h;
  h.T = t.attrs.at("terminals");
  const std::vector<int32_t>& w = t.tables.at("widths");
  h.W.assign(w.begin(), w.end());
  return h;
}

std::vector<int32_t> booksim_flatfly_nodes(const Topology& t, const Params& where) {
  const int64_t T = t.kind == "hyperx" ? int64_t(t.attrs.at("terminals")) : 0;
  int64_t r = 1;
  while (r * r < T) ++r;
  if (t.kind != "hyperx" || t.tables.at("widths").size() != 2 || r * r != T)
    where.fail("placement", "\"booksim-flatfly\" needs a 2-D hyperx whose terminals per router is a square (BookSim2's "
                            "flatfly with xr = yr), not " + t.kind + (t.kind == "hyperx" ? " with " + std::to_string(
                            t.tables.at("widths").size()) + " dimensions and " + std::to_string(T) + " terminals" : ""));
  const int64_t W0 = t.tables.at("widths")[0], W1 = t.tables.at("widths")[1], cols = W0 * r;
  std::vector<int32_t> node_of(size_t(W0 * W1 * T));
  for (int64_t b = 0; b < int64_t(node_of.size()); ++b) {
    const int64_t col = b % cols, row = b / cols;
    node_of[size_t(b)] = int32_t((col / r + W0 * (row / r)) * T + r * (row % r) + col % r);
  }
  return node_of;
}

bool is_cube(const Topology& t) { return t.kind == "torus" || t.kind == "mesh"; }

std::vector<int32_t> cube_digit_map(const Topology& t, int64_t N, bool tornado) {
  HxShape h;  // torus and mesh number ranks as HyperX does (host/topologies/torus.cpp)
  h.T = t.attrs.at("terminals");
  const std::vector<int32_t>& w = t.tables.at("widths");
  h.W.assign(w.begin(), w.end());
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t term;
    std::vector<int64_t> x = h.split(k, term);
    for (size_t d = 0; d < x.size(); ++d) x[d] = (x[d] + (tornado ? (h.W[d] + 1) / 2 - 1 : 1)) % h.W[d];
    m[size_t(k)] = int32_t(h.join(term, x));
  }
  return m;
}

std::vector<int64_t> targeted_dims(const EngineConfig& cfg, const Params& where, size_t D,
                                   const std::string& pat, std::vector<int64_t> def) {
  std::vector<int64_t> dims = cfg.traffic.dims.empty() ? def : cfg.traffic.dims;
  if (dims.empty()) where.fail("dims", "is required for pattern \"" + pat + "\" (a list of HyperX dimensions)");
  std::vector<bool> seen(D, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= int64_t(D))
      where.fail("dims", "dimension " + std::to_string(d) + " is outside [0, " + std::to_string(D) + ")");
    if (seen[size_t(d)]) where.fail("dims", "dimension " + std::to_string(d) + " is listed twice");
    seen[size_t(d)] = true;
  }
  return dims;
}

// Swap-2 (P4 S2; TARGETS §3.5 item 1): even ranks move in dims[0], odd ranks in dims[1];
// the coordinate is half-swapped, c -> c + ⌈W/2⌉ if c < ⌊W/2⌋ else c − ⌈W/2⌉ (an odd width's
// middle coordinate stays); the terminal index is kept.
std::vector<int32_t> swap2_map(const HxShape& h, const std::vector<int64_t>& dims, int64_t N) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    std::vector<int64_t> x = h.split(k, t);
    const size_t d = size_t(dims[size_t(k % 2)]);
    const int64_t W = h.W[d], lo = W / 2, hi = (W + 1) / 2;
    if (x[d] < lo) x[d] += hi;
    else if (x[d] >= hi) x[d] -= hi;
    m[size_t(k)] = int32_t(h.join(t, x));
  }
  return m;
}

// Dimension complement reverse (P4 DCR; TARGETS §3.5 item 1), any number D of dimensions:
// x'_d = W − 1 − x_(D−1−d), terminal kept; needs W_d = W_(D−1−d).
std::vector<int32_t> dcr_map(const HxShape& h, const Params& where, int64_t N) {
  const size_t D = h.W.size();
  for (size_t d = 0; d < D; ++d)
    if (h.W[d] != h.W[D - 1 - d])
      where.fail("pattern", "\"dcr\" needs widths that read the same reversed (W_d = W_(D-1-d)), got width " +
                                std::to_string(h.W[d]) + " in dimension " + std::to_string(d) + " and " +
                                std::to_string(h.W[D - 1 - d]) + " in dimension " + std::to_string(D - 1 - d));
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) {
    int64_t t;
    const std::vector<int64_t> x = h.split(k, t);
    std::vector<int64_t> y(D);
    for (size_t d = 0; d < D; ++d) y[d] = h.W[d] - 1 - x[D - 1 - d];
    m[size_t(k)] = int32_t(h.join(t, y));
  }
  return m;
}

std::vector<int32_t> shift_map(int64_t N, int64_t shift) {
  std::vector<int32_t> m(static_cast<size_t>(N));
  for (int64_t k = 0; k < N; ++k) m[size_t(k)] = int32_t((k + shift) % N);
  return m;
}


std::vector<int32_t> worst_case_map(const Topology& t, const Params& where) {
  const WorstCaseFn fn = worst_case_of(t.kind);
  std::vector<int32_t> m = fn ? fn(t) : std::vector<int32_t>();
  if (m.empty()) {
    std::string kinds;
    for (const std::string& k : worst_case_kinds()) kinds += (kinds.empty() ? "" : ", ") + k;
    where.fail("pattern", "\"worst-case\" is not defined for " + t.kind + " (defined for " + kinds + ")");
  }
  return m;
}

}  // namespace flitsim
