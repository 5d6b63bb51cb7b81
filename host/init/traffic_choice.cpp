#include "traffic_choice.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/traffic/injection.cuh"  // class_seed
#include "seeded_random.hpp"
#include "traffic_maps.hpp"

namespace flitsim {

namespace {

// What a pattern's setup reads and writes.
struct PatternContext {
  const Topology& t;
  const EngineConfig& cfg;
  SimParams& prm;
  TrafficTables& tables;
  const Params where{"traffic"};
  int64_t N;

  int64_t need_shift() const {
    if (!cfg.traffic.has_shift) where.fail("shift", "is required for pattern \"" + cfg.traffic.pattern + "\"");
    return cfg.traffic.shift;
  }
  int64_t reduce(int64_t v) const { return ((v % N) + N) % N; }
  int bits() const {
    int b = 0;
    while ((int64_t(1) << b) < N) ++b;
    return b;
  }
  void need_pow2() const {
    if ((int64_t(1) << bits()) != N)
      where.fail("pattern", "\"" + cfg.traffic.pattern + "\" needs a power-of-two number of nodes, got " + std::to_string(N));
    prm.traffic.pat_bits = bits();
  }
};

// Setups (registry lines in cuda/traffic/registry.h): prm.traffic.pattern is already the line's kind.
[[maybe_unused]] void setup_none(PatternContext&) {}  // for device-only rules (registry.h)
// traffic.self = true selects BookSim2's uniform, which may pick the source itself.
void setup_uniform(PatternContext& c) {
  if (c.cfg.traffic.uniform_self) c.prm.traffic.pattern = PatternKind::UniformSelf;
}
void setup_bitcomp(PatternContext&) {}
void setup_bitrev(PatternContext& c) { c.need_pow2(); }
void setup_shuffle(PatternContext& c) { c.need_pow2(); }
void setup_transpose(PatternContext& c) {
  c.need_pow2();
  if (c.bits() % 2)
    c.where.fail("pattern", "\"transpose\" needs a number of nodes that is an even power of two (a 2^k x 2^k "
                            "matrix), got " + std::to_string(c.N));
}
// Tornado and neighbour: a shift of the rank ring, or per dimension on a torus or mesh (the
// CubeMap table, traffic_maps.hpp).
void setup_cube_or_shift(PatternContext& c, bool tornado) {
  if (!is_cube(c.t)) {
    c.prm.traffic.pat_shift = tornado ? (c.N + 1) / 2 - 1 : 1;
    return;
  }
  c.tables.fixed = cube_digit_map(c.t, c.N, tornado);
  c.prm.traffic.pattern = PatternKind::CubeMap;
}
void setup_tornado(PatternContext& c) { setup_cube_or_shift(c, true); }
void setup_neighbor(PatternContext& c) { setup_cube_or_shift(c, false); }
void setup_shift(PatternContext& c) {
  c.prm.traffic.pat_shift = c.reduce(c.need_shift());
  if (c.prm.traffic.pat_shift == 0)
    c.where.fail("shift", "shifts every node onto itself (a multiple of the " + std::to_string(c.N) + " nodes)");
}
void setup_group_shift(PatternContext& c) {
  const Topology& t = c.t;
  if (t.kind != "dragonfly" || !t.attrs.count("a") || !t.attrs.count("p"))
    c.where.fail("pattern", "\"group-shift\" needs a dragonfly (groups of a*p nodes), not " + t.kind);
  const int64_t group_nodes = t.attrs.at("a") * t.attrs.at("p"), m = c.need_shift();
  c.prm.traffic.pat_shift = c.reduce(c.reduce(m) * group_nodes);
  if (c.prm.traffic.pat_shift == 0)
    c.where.fail("shift", "group-shift by " + std::to_string(m) + " groups maps every group onto itself");
}
// BookSim2's bad_dragon: every packet to a random node of the next group (dragonfly groups of
// a·p consecutive nodes).
void setup_bad_dragon(PatternContext& c) {
  const Topology& t = c.t;
  if (t.kind != "dragonfly" || !t.attrs.count("a") || !t.attrs.count("p"))
    c.where.fail("pattern", "\"bad-dragon\" needs a dragonfly (groups of a*p nodes), not " + t.kind);
  const int64_t group_nodes = t.attrs.at("a") * t.attrs.at("p");
  if (c.N % group_nodes != 0 || c.N / group_nodes < 2)
    c.where.fail("pattern", "\"bad-dragon\" needs at least 2 whole groups of " + std::to_string(group_nodes) +
                                " nodes, got " + std::to_string(c.N) + " nodes");
  c.prm.traffic.pat_group = int32_t(group_nodes);
}
void setup_randperm(PatternContext&) {}  // the permutation is drawn per replica (fill_traffic_table)
void setup_hotspot(PatternContext& c) {
  for (int64_t h : c.cfg.traffic.hotspots)
    if (h < 0 || h >= c.N)
      c.where.fail("hotspots", "rank " + std::to_string(h) + " is outside [0, " + std::to_string(c.N) + ")");
  c.prm.traffic.hot_count = int32_t(c.cfg.traffic.hotspots.size());
  c.prm.traffic.hot_all = c.cfg.traffic.hotspot_fraction >= 1.0;
  c.prm.traffic.hot_threshold = uint32_t(std::min(4294967295.0, std::floor(c.cfg.traffic.hotspot_fraction * 4294967296.0)));
}
void setup_worst_case(PatternContext& c) {
  c.tables.fixed = worst_case_map(c.t, c.where);
}
void setup_swap2(PatternContext& c) {
  const HxShape h = hyperx_shape(c.t, c.where, "swap2");
  if (h.W.size() < 2 && c.cfg.traffic.dims.empty())
    c.where.fail("pattern", "\"swap2\" needs a hyperx with at least 2 dimensions");
  const std::vector<int64_t> dims = targeted_dims(c.cfg, c.where, h.W.size(), "swap2", {0, 1});
  if (dims.size() != 2) c.where.fail("dims", "\"swap2\" takes exactly 2 dimensions (even ranks, odd ranks)");
  c.tables.fixed = swap2_map(h, dims, c.N);
}
void setup_dcr(PatternContext& c) {
  c.tables.fixed = dcr_map(hyperx_shape(c.t, c.where, "dcr"), c.where, c.N);
}
void setup_urb(PatternContext& c) {
  const HxShape h = hyperx_shape(c.t, c.where, "urb");
  const std::vector<int64_t> dims = targeted_dims(c.cfg, c.where, h.W.size(), "urb", {});
  std::vector<int32_t>& hx = c.tables.hx;
  hx = {int32_t(h.W.size()), int32_t(h.T)};
  for (int64_t w : h.W) hx.push_back(int32_t(w));
  for (size_t d = 0; d < h.W.size(); ++d)
    hx.push_back(std::find(dims.begin(), dims.end(), int64_t(d)) != dims.end() ? 1 : 0);
}

// The pattern registry (cuda/traffic/registry.h) as data: name, device kind, setup, reads dims.
struct PatternInfo {
  const char* name;  // "" for a device rule only another pattern's setup selects
  PatternKind kind;
  void (*setup)(PatternContext&);
  bool reads_dims;
};
#define FLITSIM_READS_dims true
#define FLITSIM_READS_no_dims false
const PatternInfo kPatterns[] = {
#define FLITSIM_PATTERN_INFO(Kind, id, name, rule, setup, dims) {name, PatternKind::Kind, setup, FLITSIM_READS_##dims},
    FLITSIM_PATTERNS(FLITSIM_PATTERN_INFO)
#undef FLITSIM_PATTERN_INFO
};
#undef FLITSIM_READS_dims
#undef FLITSIM_READS_no_dims

// Uniform random permutation of [0, n) keyed by (seed, purpose).
std::vector<int32_t> seeded_permutation(int32_t n, uint64_t seed, uint64_t purpose) {
  return random_permutation(n, seed * 0x9E3779B97F4A7C15ull ^ (purpose * 0xD1B54A32D192ED03ull));
}

}  // namespace

std::vector<std::string> pattern_names() {
  std::vector<std::string> names;
  for (const PatternInfo& p : kPatterns)
    if (*p.name) names.push_back(p.name);
  return names;
}

TrafficTables choose_pattern(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz) {
  TrafficTables tables;
  PatternContext c{t, cfg, prm, tables, Params("traffic"), t.num_nodes};
  const std::string& pat = cfg.traffic.pattern;
  const PatternInfo* info = nullptr;
  for (const PatternInfo& p : kPatterns)
    if (*p.name && pat == p.name) info = &p;
  if (!info) c.where.fail("pattern", "unknown pattern \"" + pat + "\"");
  prm.traffic.pattern = info->kind;
  info->setup(c);
  if (cfg.traffic.uniform_self && std::string(info->name) != "uniform")
    c.where.fail("self", "only applies to pattern \"uniform\" (BookSim2's uniform may pick the source), not \"" +
                             pat + "\"");
  if (!cfg.traffic.dims.empty() && !info->reads_dims) {
    std::string readers;
    for (const PatternInfo& p : kPatterns)
      if (p.reads_dims) readers += std::string(readers.empty() ? "" : " and ") + "\"" + p.name + "\"";
    c.where.fail("dims", "is only used by the " + readers + " patterns, not \"" + pat + "\"");
  }
  // Per-replica table layout.
  const int64_t N = c.N;
  int32_t len = 0;
  if (prm.traffic.pattern == PatternKind::RandPerm || !tables.fixed.empty()) prm.traffic.tr_perm = len, len += int32_t(N);
  if (prm.traffic.pattern == PatternKind::Urb) prm.traffic.tr_hx = len, len += int32_t(tables.hx.size());
  if (cfg.traffic.placement == "booksim-flatfly") tables.node_of = booksim_flatfly_nodes(t, c.where);
  if (cfg.traffic.placement != "contiguous" && prm.traffic.pattern != PatternKind::Uniform) {
    prm.traffic.tr_rank = len, len += int32_t(N);
    prm.traffic.tr_node = len, len += int32_t(N);
  }
  if (prm.traffic.pattern == PatternKind::Hotspot) prm.traffic.tr_hot = len, len += prm.traffic.hot_count;
  sz.tr_len = len;
  return tables;
}

std::vector<TrafficTables> choose_class_patterns(const Topology& t, const EngineConfig& cfg, SimParams& prm, Sizes& sz) {
  if (cfg.classes.empty()) return {choose_pattern(t, cfg, prm, sz)};
  std::vector<TrafficTables> out;
  int32_t total = 0;
  for (size_t c = 0; c < cfg.classes.size(); ++c) {
    EngineConfig cc = cfg;
    cc.traffic = cfg.classes[c].keys;
    SimParams p = prm;
    if (c > 0) p.traffic = TrafficParams{};
    Sizes z = sz;
    try {
      out.push_back(choose_pattern(t, cc, p, z));
    } catch (const ConfigError& e) {
      throw ConfigError("traffic.class." + std::to_string(c) + ": " + e.what());
    }
    prm.classes.tr_base[c] = total;  // the class's slice of the replica's table
    total += z.tr_len;
    (c == 0 ? prm.traffic : prm.classes.more[c - 1]) = p.traffic;
  }
  sz.tr_len = total;
  return out;
}

void fill_class_tables(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                       const std::vector<TrafficTables>& tables, int32_t* tab) {
  if (cfg.classes.empty()) return fill_traffic_table(cfg, prm, sz, seed, tables[0], tab);
  for (size_t c = 0; c < cfg.classes.size(); ++c) {
    EngineConfig cc = cfg;
    cc.traffic = cfg.classes[c].keys;
    SimParams p = prm;
    p.traffic = class_traffic(prm, int(c));
    // A class's random tables (randperm, placement) from its own stream (injection.cuh, class_seed).
    fill_traffic_table(cc, p, sz, class_seed(seed, int(c)), tables[c], tab + prm.classes.tr_base[c]);
  }
}

void fill_traffic_table(const EngineConfig& cfg, const SimParams& prm, const Sizes& sz, uint64_t seed,
                        const TrafficTables& tables, int32_t* tab) {
  const int32_t N = sz.N;
  if (!tables.fixed.empty()) std::copy(tables.fixed.begin(), tables.fixed.end(), tab + prm.traffic.tr_perm);
  if (prm.traffic.tr_hx >= 0) std::copy(tables.hx.begin(), tables.hx.end(), tab + prm.traffic.tr_hx);
  if (prm.traffic.pattern == PatternKind::RandPerm) {
    std::vector<int32_t> perm = seeded_permutation(N, seed, 1);
    std::copy(perm.begin(), perm.end(), tab + prm.traffic.tr_perm);
  }
  if (prm.traffic.tr_rank >= 0) {
    // rank -> node: BookSim2's flatfly numbering, or a random permutation
    std::vector<int32_t> node_of = tables.node_of.empty() ? seeded_permutation(N, seed, 2) : tables.node_of;
    for (int32_t k = 0; k < N; ++k) tab[prm.traffic.tr_node + k] = node_of[k], tab[prm.traffic.tr_rank + node_of[k]] = k;
  }
  if (prm.traffic.tr_hot >= 0)
    for (int32_t i = 0; i < prm.traffic.hot_count; ++i) tab[prm.traffic.tr_hot + i] = int32_t(cfg.traffic.hotspots[i]);
}

}  // namespace flitsim
