#include "routing_choice.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/routing/dispatch.cuh"  // the classes functions next to each routing

namespace flitsim {

const std::vector<RoutingInfo>& routing_registry() {
  static const std::vector<RoutingInfo> r = {
#define FLITSIM_ROUTING_INFO(Kind, id, alg, family, header, route_fn, classes_fn, eject, sensing, table, candidates) \
  {RoutingKind::Kind, #Kind, alg, #family, header, #eject, #sensing, #table, #candidates, &classes_fn},
      FLITSIM_ROUTINGS(FLITSIM_ROUTING_INFO)
#undef FLITSIM_ROUTING_INFO
  };
  return r;
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

// The keys BookSim2's UGAL conventions added (routing.valiant = "differing-dims", routing.vc_scheme,
// routing.congestion): each refused where it would not apply.
void check_booksim_convention_keys(const Topology& t, const EngineConfig& cfg, bool dor_phases) {
  const Params where("routing");
  const std::string& alg = cfg.routing.algorithm;
  const std::string& v = cfg.routing.valiant;
  if (v == "differing-dims" && !dor_phases)
    where.fail("valiant", "\"differing-dims\" applies to algorithms \"valiant-dor\" and \"ugal-dor\" (HyperX), not \"" +
                              alg + "\"");
  if (dor_phases && !v.empty() && v != "node" && v != "differing-dims")
    where.fail("valiant", "must be unset, \"node\" or \"differing-dims\" with algorithm \"" + alg + "\", got \"" + v + "\"");
  if (cfg.routing.congestion == "downstream" && alg != "ugal" && alg != "ugal-dor")
    where.fail("congestion", "\"downstream\" applies to algorithms \"ugal\" and \"ugal-dor\", not \"" + alg + "\"");
  if (!cfg.routing.vc_scheme.empty() && (alg != "ugal" || !dragonfly_tables(t)))
    where.fail("vc_scheme", "\"" + cfg.routing.vc_scheme + "\" applies to algorithm \"ugal\" on dragonflies, not \"" + alg +
                                "\" on " + t.kind);
  if (cfg.routing.decide_at_injection && alg != "ugal" && alg != "ugal-dor")
    where.fail("decide_at_injection", "applies to algorithms \"ugal\" and \"ugal-dor\", not \"" + alg + "\"");
  if (dor_phases && t.num_routers < 3)
    where.fail("algorithm", "\"" + alg + "\" needs at least 3 routers, got " + std::to_string(t.num_routers));
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
  const Params where("routing");
  const std::string& alg = cfg.routing.algorithm;
  const RoutingInfo& info = find_routing(t, alg);
  const std::string family = info.family, table = info.table, sensing = info.sensing;
  const bool dragonfly = family == "Dragonfly";
  const bool valiant = alg == "valiant";
  const bool dor_phases = alg == "valiant-dor" || alg == "ugal-dor";  // HyperX, phases in dimension order
  const bool ugal = alg == "ugal" || alg == "ugal-g" || alg == "par" || alg == "ugal-dor";  // cost rule, candidates, offset
  const bool node = cfg.routing.valiant == "node";  // BookSim2's intermediate: a random node (all topologies)
  check_booksim_convention_keys(t, cfg, dor_phases);
  if (!cfg.routing.valiant.empty() && !node && (valiant || ugal) && !dragonfly && !dor_phases)
    where.fail("valiant", "only applies to dragonflies as \"" + cfg.routing.valiant + "\" (generic Valiant on " + t.kind +
                              " draws any router with terminals, \"node\" the router of any node); leave it unset "
                              "or use \"node\"");
  if (node && (alg == "ugal-g" || alg == "par"))  // like every routing.valiant value, ignored by non-Valiant routings
    where.fail("valiant", "\"node\" applies to algorithms \"valiant\" and \"ugal\", not \"" + alg + "\"");
  prm.valiant_node = node;
  prm.valiant_dims = cfg.routing.valiant == "differing-dims";
  prm.ugal_downstream = cfg.routing.congestion == "downstream";
  prm.df_booksim_vcs = cfg.routing.vc_scheme == "booksim";
  prm.decide_at_injection = cfg.routing.decide_at_injection;
  // Selection: random per packet and hop unless adaptive; up*/down* defaults to D-mod-k.
  const std::string& sel = cfg.routing.selection;
  if (sel == "dmodk" && alg != "updown")
    where.fail("selection", "\"dmodk\" only applies to algorithm \"updown\" (trees), not \"" + alg + "\"");
  prm.selection = sel == "adaptive" ? Selection::Adaptive
                  : (sel == "dmodk" || (sel.empty() && alg == "updown")) ? Selection::DModK
                                                                         : Selection::Oblivious;
  // UGAL-L and the weighted HyperX routings (fixed point, see SimParams).
  prm.n_indirect = cfg.routing.n_indirect > 0 ? cfg.routing.n_indirect : dragonfly ? 1 : 4;
  prm.penalty_x256 = int32_t(std::llround(cfg.routing.penalty * 256.0));
  prm.ugal_cost = cfg.routing.cost == "hops"              ? UgalCost::Hops
                  : cfg.routing.cost == "booksim"         ? UgalCost::BookSim
                  : cfg.routing.cost == "booksim-flatfly" ? UgalCost::BookSimFlatfly
                                                  : UgalCost::Queue;
  // Non-minimal bias: BookSim's 30 flits for its rule; 4 flits for the weighted HyperX routings,
  // which with 0 (SuperSim's setting) deroute at low load on the few flits a busy port always
  // has in flight (docs/routing.md); 0 for the other UGAL rules (P3's formulas).
  const bool weighted = alg == "clos-ad" || alg == "dimwar" || alg == "omniwar";
  prm.ugal_offset = cfg.routing.offset >= 0                                      ? cfg.routing.offset
                    : prm.ugal_cost == UgalCost::BookSim && ugal        ? 30
                    : prm.ugal_cost == UgalCost::BookSimFlatfly && ugal ? 2
                    : weighted                                          ? 4
                                                                        : 0;
  prm.threshold_x256 = std::llround(cfg.routing.threshold / 100.0 * double(cfg.router.vcs) * double(cfg.router.buffer) * 256.0);
  prm.multi_deroute = cfg.routing.multi_deroute;
  prm.routing = info.kind;
  if (sensing == "snapshot") prm.snapshot_period = cfg.routing.snapshot_period;

  ClassInputs in{false, 0, cfg.routing.deroutes, 1, cfg.routing.vc_scheme == "booksim"};
  if (table == "df_groups") {
    if (t.attrs.at("groups") < 3)
      where.fail("algorithm", "\"" + alg + "\" on a dragonfly needs at least 3 groups, got " +
                                  std::to_string(t.attrs.at("groups")));
    prm.valiant_any = in.valiant_any = cfg.routing.valiant == "any" || node;  // node: VA's classes and phases
  } else if (table == "hx_coords") {
    rt_table = hyperx_rt_table(t, alg);
    in.dims = rt_table[0];
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
  prm.vc_classes = c.vc_classes;
  prm.phase_classes = c.phase_classes;
}

}  // namespace flitsim
