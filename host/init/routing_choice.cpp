#include "routing_choice.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/routing/dispatch.cuh"  // the classes functions next to each routing
#include "host/config/config_keys.hpp"

namespace flitsim {

const std::vector<RoutingInfo>& routing_registry() {
  static const std::vector<RoutingInfo> r = {
#define FLITSIM_ROUTING_INFO(Kind, id, alg, family, header, route_fn, classes_fn, eject, sensing, table, candidates, \
                             traits)                                                                              \
  {RoutingKind::Kind, #Kind, alg, #family, header, #eject, #sensing, #table, #candidates, &classes_fn, &traits},
      FLITSIM_ROUTINGS(FLITSIM_ROUTING_INFO)
#undef FLITSIM_ROUTING_INFO
  };
  return r;
}

bool RoutingInfo::reads(const std::string& key) const {
  const std::string all = std::string(" ") + traits->reads + " ";
  return all.find(" " + key + " ") != std::string::npos;
}

namespace {

// "\"a\"", "\"a\" and \"b\"", "\"a\", \"b\" and \"c\"": names as messages list them.
std::string and_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

std::string reader_names(const std::string& key) {
  std::vector<std::string> names;
  for (const RoutingInfo& i : routing_registry())
    if (i.reads(key)) add_once(names, i.algorithm);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

std::string readers_of(const std::string& key) {
  std::vector<std::string> parts;
  for (const RoutingInfo& i : routing_registry()) {
    if (!i.reads(key)) continue;
    bool everywhere = true;  // every registry line of this name reads it
    for (const RoutingInfo& j : routing_registry()) everywhere &= j.algorithm != std::string(i.algorithm) || j.reads(key);
    add_once(parts, "\"" + std::string(i.algorithm) + "\"" + (everywhere ? "" : std::string(" (") + i.family + ")"));
  }
  return (parts.size() == 1 ? "algorithm " : "algorithms ") + and_list(parts);
}

const RoutingInfo& routing_info(RoutingKind kind) {
  for (const RoutingInfo& i : routing_registry())
    if (i.kind == kind) return i;
  throw std::logic_error("routing kind missing from the registry");
}

bool dragonfly_tables(const Topology& t) { return t.kind == "dragonfly" && t.tables.count("gateway_offset"); }

bool family_fits(const std::string& family, const Topology& t) {
  if (family == "Dragonfly") return dragonfly_tables(t);
  if (family == "Hyperx") return t.kind == "hyperx";
  if (family == "Torus") return t.kind == "torus" || t.kind == "mesh";
  if (family == "Tree") return t.kind == "fattree" || t.kind == "xgft";
  return !dragonfly_tables(t);  // Table: the all-pairs distance table
}

std::vector<std::string> supported_algorithms(const Topology& t) {
  std::vector<std::string> names;
  for (const RoutingInfo& i : routing_registry())
    if (family_fits(i.family, t)) names.push_back(i.algorithm);
  return names;
}

namespace {

// HyperX tables for the coordinate routings, in the layout of cuda/routing/hyperx_common.cuh.
std::vector<int32_t> hyperx_rt_table(const Topology& t, const std::string& algorithm) {
  const Params where("routing");
  const std::vector<int32_t>& W = t.tables.at("widths");
  const std::vector<int32_t>& gap = t.tables.at("gap");
  const int32_t D = int32_t(W.size());
  for (int32_t d = 0; d < D; ++d)
    if (gap[d] != 1)
      where.fail("algorithm", "\"" + algorithm + "\" needs every HyperX dimension fully connected (gap 1), got gap " +
                                  std::to_string(gap[d]) + " in dimension " + std::to_string(d) +
                                  "; use min, valiant or ugal on express meshes");
  if (D > 64) where.fail("algorithm", "\"" + algorithm + "\" supports at most 64 dimensions");
  const std::vector<int32_t>& off = t.tables.at("dim_offset");
  const std::vector<int32_t>& ports = t.tables.at("dim_port");
  std::vector<int32_t> rt{D, off[D]};
  rt.insert(rt.end(), W.begin(), W.end());
  int32_t stride = 1;
  for (int32_t d = 0; d < D; ++d) rt.push_back(stride), stride *= W[d];
  const std::vector<int32_t>& trunk = t.tables.at("trunking");
  rt.insert(rt.end(), trunk.begin(), trunk.end());
  rt.insert(rt.end(), off.begin(), off.end());
  rt.insert(rt.end(), ports.begin(), ports.end());
  return rt;
}

// k-ary n-cube tables for the torus and mesh routings, in the layout of
// cuda/routing/torus_common.cuh.
std::vector<int32_t> cube_rt_table(const Topology& t, const std::string& algorithm, bool intermediate) {
  const std::vector<int32_t>& W = t.tables.at("widths");
  const int32_t D = int32_t(W.size());
  if (intermediate && t.num_routers < 3)
    Params("routing").fail("algorithm", "\"" + algorithm + "\" needs at least 3 routers, got " +
                                            std::to_string(t.num_routers));
  std::vector<int32_t> rt{D};
  rt.insert(rt.end(), W.begin(), W.end());
  int32_t stride = 1;
  for (int32_t d = 0; d < D; ++d) rt.push_back(stride), stride *= W[d];
  const std::vector<int32_t>& wrap = t.tables.at("wrap");
  rt.insert(rt.end(), wrap.begin(), wrap.end());
  const std::vector<int32_t>& ports = t.tables.at("cube_port");
  rt.insert(rt.end(), ports.begin(), ports.end());
  return rt;
}

// Valiant intermediates: routers with terminals, then each router's position among them.
std::vector<int32_t> terminal_router_table(const Topology& t, const std::string& algorithm) {
  std::vector<int32_t> list, pos(t.num_routers, -1);
  for (int32_t r = 0; r < t.num_routers; ++r)
    for (int32_t gp = t.port_offset[r]; gp < t.port_offset[r + 1]; ++gp)
      if (t.port_node[gp] >= 0) {
        pos[r] = int32_t(list.size());
        list.push_back(r);
        break;
      }
  if (list.size() < 3)
    Params("routing").fail("algorithm", "\"" + algorithm + "\" needs at least 3 routers with terminals, got " +
                                            std::to_string(list.size()));
  list.insert(list.end(), pos.begin(), pos.end());
  return list;
}

// A [routing] key that the chosen routing does not read and that is set away from its default
// (keys_routing.cpp marks which are refused so rather than ignored) names its readers.
void check_unread_keys(const Topology& t, const EngineConfig& cfg, const RoutingInfo& info) {
  static const EngineConfig defaults;
  for (const KeySpec& k : routing_keys()) {
    if (!k.refuse_unread || info.reads(k.name) || k.value(cfg) == k.value(defaults)) continue;
    const KeyValue v = k.value(cfg);
    const std::string shown = std::holds_alternative<std::string>(v) ? "\"" + std::get<std::string>(v) + "\" " : "";
    Params("routing").fail(k.name, shown + "applies to " + readers_of(k.name) + ", not \"" + cfg.routing.algorithm +
                                       "\" on " + t.kind);
  }
}

// routing.congestion as the engine reads it. "output" and "output_and_downstream" sense the
// per-VC output queues only router.architecture = "ioq" has.
Congestion congestion_mode(const EngineConfig& cfg, const Params& where) {
  const std::string& c = cfg.routing.congestion;
  if ((c == "output" || c == "output_and_downstream") && !cfg.model.ioq())
    where.fail("congestion", "\"" + c + "\" senses the output queues of router.architecture = \"ioq\" (per port "
                             "and VC); this router has none (use \"port\" or \"downstream\")");
  if (c == "downstream") return Congestion::Downstream;
  if (c == "output") return Congestion::Output;
  if (c == "output_and_downstream") return Congestion::OutputAndDownstream;
  return Congestion::Port;
}

// The algorithms with a flag, as messages name them: "\"updown\"", "\"a\" and \"b\"".
std::string with_flag(uint32_t flag) {
  std::vector<std::string> names;
  for (const RoutingInfo& i : routing_registry())
    if (i.traits->flags & flag) add_once(names, "\"" + std::string(i.algorithm) + "\"");
  return and_list(names);
}

const RoutingInfo& find_routing(const Topology& t, const std::string& alg) {
  for (const RoutingInfo& i : routing_registry())
    if (i.algorithm == alg && family_fits(i.family, t)) return i;
  std::string list;
  for (const auto& a : supported_algorithms(t)) list += (list.empty() ? "" : ", ") + a;
  Params("routing").fail("algorithm",
                         "\"" + alg + "\" is not supported on " + t.kind + " (" + t.kind + " supports: " + list + ")");
}

}  // namespace

void choose_routing(const Topology& t, const EngineConfig& cfg, const std::vector<uint8_t>& dist,
                    SimParams& prm, std::vector<int32_t>& rt_table) {
  prm.routing = cfg.routing_params;  // the keys the routing reads as given; the others below
  const Params where("routing");
  const std::string& alg = cfg.routing.algorithm;
  const RoutingInfo& info = find_routing(t, alg);
  const std::string family = info.family, table = info.table, sensing = info.sensing;
  const bool dragonfly = family == "Dragonfly";
  const uint32_t flags = info.traits->flags;
  const bool intermediate = flags & kDrawsIntermediate, dor_phases = flags & kDorPhases, ugal = flags & kUgalDecision;
  const bool node = cfg.routing.valiant == "node";  // BookSim2's intermediate: a random node (all topologies)
  check_unread_keys(t, cfg, info);
  const std::string& v = cfg.routing.valiant;
  if (v == "differing-dims" && !dor_phases)
    where.fail("valiant", "\"differing-dims\" applies to algorithms " + with_flag(kDorPhases) + " (HyperX), not \"" + alg +
                              "\"");
  if (dor_phases && !v.empty() && v != "node" && v != "differing-dims")
    where.fail("valiant", "must be unset, \"node\" or \"differing-dims\" with algorithm \"" + alg + "\", got \"" + v + "\"");
  if (dor_phases && t.num_routers < 3)
    where.fail("algorithm", "\"" + alg + "\" needs at least 3 routers, got " + std::to_string(t.num_routers));
  if (!v.empty() && !node && intermediate && !dragonfly && !dor_phases)
    where.fail("valiant", "only applies to dragonflies as \"" + v + "\" (generic Valiant on " + t.kind +
                              " draws any router with terminals, \"node\" the router of any node); leave it unset "
                              "or use \"node\"");
  if (node && (flags & kNoNodeIntermediate))  // like every routing.valiant value, ignored by non-Valiant routings
    where.fail("valiant", "\"node\" applies to algorithms \"valiant\" and \"ugal\", not \"" + alg + "\"");
  prm.routing.valiant_node = node;
  prm.routing.valiant_dims = cfg.routing.valiant == "differing-dims";
  prm.routing.congestion = congestion_mode(cfg, where);
  prm.routing.df_booksim_vcs = cfg.routing.vc_scheme == "booksim";
  // Selection: random per packet and hop unless adaptive; up*/down* defaults to D-mod-k.
  const std::string& sel = cfg.routing.selection;
  const bool dmodk = flags & kDModK;
  if ((sel == "dmodk" || sel == "two-choice") && !dmodk)
    where.fail("selection", "\"" + sel + "\" only applies to algorithm " + with_flag(kDModK) + " (trees), not \"" + alg +
                                "\"");
  prm.routing.selection = sel == "adaptive"                          ? Selection::Adaptive
                  : sel == "two-choice"                        ? Selection::TwoChoice
                  : (sel == "dmodk" || (sel.empty() && dmodk)) ? Selection::DModK
                                                               : Selection::Oblivious;
  // UGAL-L and the weighted HyperX routings (fixed point, see SimParams); unset keys take the
  // routing's own defaults (its traits).
  prm.routing.n_indirect = cfg.routing.n_indirect > 0 ? cfg.routing.n_indirect : info.traits->n_indirect;
  prm.routing.penalty_x256 = int32_t(std::llround(cfg.routing.penalty * 256.0));
  prm.routing.ugal_cost = cfg.routing.cost == "hops"              ? UgalCost::Hops
                  : cfg.routing.cost == "booksim"         ? UgalCost::BookSim
                  : cfg.routing.cost == "booksim-flatfly" ? UgalCost::BookSimFlatfly
                                                  : UgalCost::Queue;
  // Non-minimal bias: BookSim's 30 flits for its rule, 2 for its flatfly rule, 0 for the other
  // UGAL rules (P3's formulas); otherwise the routing's own default (4 flits for the weighted
  // HyperX routings, which with 0, SuperSim's setting, deroute at low load on the few flits a
  // busy port always has in flight: docs/routing.md).
  prm.routing.ugal_offset = cfg.routing.offset >= 0                                   ? cfg.routing.offset
                    : ugal && prm.routing.ugal_cost == UgalCost::BookSim        ? 30
                    : ugal && prm.routing.ugal_cost == UgalCost::BookSimFlatfly ? 2
                    : ugal                                              ? 0
                                                                        : info.traits->offset;
  prm.routing.threshold_x256 = std::llround(cfg.routing.threshold / 100.0 * double(cfg.router.vcs) * double(cfg.router.buffer) * 256.0);
  prm.routing.kind = info.kind;
  prm.routing.reroute_waiting = flags & kReroutesWaiting;
  if (sensing == "snapshot") prm.routing.snapshot_period = cfg.routing.snapshot_period;

  ClassInputs in{false, 0, cfg.routing.deroutes, 1, cfg.routing.vc_scheme == "booksim"};
  if (table == "df_groups") {
    if (t.attrs.at("groups") < 3)
      where.fail("algorithm", "\"" + alg + "\" on a dragonfly needs at least 3 groups, got " +
                                  std::to_string(t.attrs.at("groups")));
    prm.routing.valiant_any = in.valiant_any = cfg.routing.valiant == "any" || node;  // node: VA's classes and phases
  } else if (table == "hx_coords") {
    rt_table = hyperx_rt_table(t, alg);
    in.dims = rt_table[0];
    if (in.dims > info.traits->max_dims)
      where.fail("algorithm", "\"" + alg + "\" supports at most " + std::to_string(info.traits->max_dims) +
                                  " HyperX dimensions (its packet state), got " + std::to_string(in.dims));
  } else if (table == "cube_coords") {
    rt_table = cube_rt_table(t, alg, intermediate);
    in.dims = rt_table[0];
    in.rings = int32_t(t.attrs.at("wraps"));
  } else if (table == "terminal_routers") {
    rt_table = terminal_router_table(t, alg);
  }
  if (!dragonfly) {
    int diameter = 0;
    for (uint8_t d : dist) diameter = std::max<int>(diameter, d);
    auto it = t.attrs.find("min_vc_classes");
    in.min_classes = it != t.attrs.end() ? int32_t(it->second) : std::max(1, diameter);
  }
  const VcClasses c = info.classes(in);
  prm.routing.vc_classes = c.vc_classes;
  prm.routing.phase_classes = c.phase_classes;
  prm.routing.escape_classes = c.escape_classes;
}

}  // namespace flitsim
