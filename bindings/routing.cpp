// Python bindings of the routing registry and what derives from it: the [routing] key table,
// the registry lines, the routing a configuration runs, and every output a routing can choose
// (the deadlock checker's input, host/analysis/route_candidates.cpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "convert.hpp"
#include "host/analysis/route_candidates.hpp"
#include "host/init/routing_choice.hpp"

namespace py = pybind11;
using namespace flitsim;

namespace flitsim::bindings {

void bind_routing(py::module_& m) {
  m.def(
      "routings",
      []() {
        // The routing registry (cuda/routing/registry.h), one dict per routing function.
        py::list out;
        for (const RoutingInfo& i : routing_registry()) {
          py::dict d;
          d["kind"] = i.kind_name, d["id"] = int(i.kind), d["algorithm"] = i.algorithm, d["family"] = i.family;
          d["header"] = std::string("cuda/routing/") + i.header, d["eject"] = i.eject, d["sensing"] = i.sensing;
          d["table"] = i.table, d["candidates"] = i.candidates;
          d["label"] = i.traits->label, d["reads"] = i.traits->reads;  // RoutingTraits (route_choice.cuh)
          out.append(d);
        }
        return out;
      },
      "The routing registry: kind, algorithm name, topology family, header, ejection, sensing, host table, "
      "and its traits: display label, the [routing] keys it reads.");
  m.def(
      "routing_setup",
      [](const py::dict& cfg) {
        // The engine's routing choice for a configuration: the registry line and its VC classes.
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        const EngineConfig ec = engine_config_of(cfg);
        const HostState h = make_initial_state(topo, ec);
        const RoutingInfo& i = routing_info(h.prm.routing.kind);
        py::dict d;
        d["kind"] = i.kind_name, d["algorithm"] = i.algorithm, d["family"] = i.family, d["candidates"] = i.candidates;
        d["vc_classes"] = h.prm.routing.vc_classes, d["phase_classes"] = h.prm.routing.phase_classes;
        d["valiant_any"] = h.prm.routing.valiant_any;
        // Duato (kEscapeSubnetwork): the escape sub-network's VCs, 0 .. escape_vcs − 1 (0: none, as
        // without deadlock avoidance, where every VC is one class).
        const int32_t C = h.prm.routing.vc_classes, E = h.prm.routing.escape_classes;
        d["escape_vcs"] = (i.traits->flags & kEscapeSubnetwork) && C > 1 ? E : 0;  // one VC per escape class
        d["message_classes"] = h.sz.reply_N ? 2 : 1, d["class_vcs"] = h.sz.mc_V;  // traffic.reply_size
        return d;
      },
      py::arg("config"), "The routing the engine runs for a configuration and its VC classes.");
  m.def(
      "route_candidates",
      [](const py::dict& cfg, const std::vector<int32_t>& sources) {
        // Every (router, input port, input VC range, destination router) -> (output port, output
        // VC range) the routing can produce, enumerated from its own code (host/analysis/route_candidates.cpp).
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        const EngineConfig ec = engine_config_of(cfg);
        RouteCandidates rc;
        {
          py::gil_scoped_release release;
          rc = enumerate_route_candidates(topo, ec, sources);
        }
        py::dict d;
        const py::ssize_t n = py::ssize_t(rc.rows.size());
#define FLITSIM_CANDIDATE_COLUMN(field)                                            \
  {                                                                                \
    py::array_t<int32_t> a(n);                                                     \
    auto v = a.mutable_unchecked<1>();                                             \
    for (py::ssize_t i = 0; i < n; ++i) v(i) = rc.rows[size_t(i)].field;           \
    d[#field] = a;                                                                 \
  }
        FLITSIM_CANDIDATE_COLUMN(router) FLITSIM_CANDIDATE_COLUMN(in_port) FLITSIM_CANDIDATE_COLUMN(in_vc_lo)
        FLITSIM_CANDIDATE_COLUMN(in_vc_hi) FLITSIM_CANDIDATE_COLUMN(dst_router) FLITSIM_CANDIDATE_COLUMN(out_port)
        FLITSIM_CANDIDATE_COLUMN(out_vc_lo) FLITSIM_CANDIDATE_COLUMN(out_vc_hi)
#undef FLITSIM_CANDIDATE_COLUMN
        d["states"] = rc.states, d["replays"] = rc.replays;
        return d;
      },
      py::arg("config"), py::arg("sources") = std::vector<int32_t>{},
      "Every output the configured routing can choose, per (router, input port, input VC range, "
      "destination router), from the routing's own code compiled on the host; packets from the "
      "routers in `sources` (default: all).");
}

}  // namespace flitsim::bindings
