// Python bindings: the engine (`simulate`), topology tables (`build_topology`) and backend
// probes. Configuration sections arrive as dicts and become Params; ConfigError surfaces as
// ValueError so every bad value is reported with its key before any simulation starts.
#include <algorithm>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "host/run/backend.hpp"
#include "host/run/driver.hpp"
#include "host/config/router_presets.hpp"
#include "host/config/router_stage_delays.hpp"
#include "host/init/run_memory.hpp"
#include "host/init/state_memory.hpp"
#include "host/init/traffic_choice.hpp"
#include "host/config/traffic_classes.hpp"
#include "host/topologies/topology.hpp"
#include "convert.hpp"
#include "cuda/traffic/injection.cuh"  // creation_gap (test hook)

namespace py = pybind11;
using namespace flitsim;
using namespace flitsim::bindings;

namespace flitsim::bindings {

Params to_params(const std::string& section, py::handle obj) {
  Params p(section);
  if (obj.is_none()) return p;
  for (auto item : py::reinterpret_borrow<py::dict>(obj)) {
    const std::string k = py::cast<std::string>(item.first);
    py::handle v = item.second;
    if (py::isinstance<py::bool_>(v)) {
      p.set_int(k, v.cast<bool>() ? 1 : 0);
    } else if (py::isinstance<py::int_>(v)) {
      p.set_int(k, v.cast<int64_t>());
    } else if (py::isinstance<py::float_>(v)) {
      p.set_float(k, v.cast<double>());
    } else if (py::isinstance<py::str>(v)) {
      p.set_str(k, v.cast<std::string>());
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      std::vector<int64_t> xs;
      for (auto x : py::reinterpret_borrow<py::sequence>(v)) {
        if (py::isinstance<py::bool_>(x)) {  // a list of true/false (topology.wrap): 1/0, as a single bool
          xs.push_back(x.cast<bool>() ? 1 : 0);
          continue;
        }
        if (!py::isinstance<py::int_>(x)) p.fail(k, "must be a list of integers");
        xs.push_back(x.cast<int64_t>());
      }
      p.set_ints(k, std::move(xs));
    } else {
      p.fail(k, "unsupported value type " + std::string(py::str(py::type::handle_of(v))));
    }
  }
  return p;
}

py::dict section(const py::dict& cfg, const char* name) {
  return cfg.contains(name) ? py::dict(cfg[name]) : py::dict();
}

// topology.kind, which picks a router.preset's per-topology keys (router_presets.cpp).
std::string topology_kind(const py::dict& cfg) {
  const py::dict topo = section(cfg, "topology");
  return topo.contains("kind") ? std::string(py::str(topo["kind"])) : std::string("dragonfly");
}

// The engine's reading of a config's [router] [channels] [routing] [traffic] [sim] sections,
// with `replicas` copies of its load and seed.
EngineConfig engine_config_of(const py::dict& cfg, int replicas) {
  // [[traffic.class]] tables travel in the [traffic] dict as the list "class"
  // (host/config/traffic_classes.cpp): read apart from the [traffic] keys.
  py::dict traffic = section(cfg, "traffic");
  std::vector<Params> class_tables;
  if (traffic.contains("class")) {
    for (auto table : py::reinterpret_borrow<py::sequence>(traffic["class"]))
      class_tables.push_back(to_params("traffic", table));
    traffic = py::dict(traffic.attr("copy")());  // a copy: the caller's config keeps its classes
    PyDict_DelItemString(traffic.ptr(), "class");
  }
  EngineConfig ec = parse_engine_config(to_params("router", section(cfg, "router")),
                                        to_params("channels", section(cfg, "channels")),
                                        to_params("routing", section(cfg, "routing")),
                                        to_params("traffic", traffic),
                                        to_params("sim", section(cfg, "sim")), topology_kind(cfg));
  parse_traffic_classes(class_tables, ec);
  ec.loads.assign(size_t(replicas), ec.loads[0]);
  ec.seeds.assign(size_t(replicas), ec.seeds[0]);
  return ec;
}

}  // namespace flitsim::bindings

namespace {

template <class T>
py::array_t<T> arr(const std::vector<T>& v) {
  return py::array_t<T>(py::ssize_t(v.size()), v.data());
}

py::dict topology_dict(const Topology& t) {
  py::dict d;
  d["kind"] = t.kind;
  d["num_routers"] = t.num_routers;
  d["num_nodes"] = t.num_nodes;
  d["port_offset"] = arr(t.port_offset);
  d["port_router"] = arr(t.port_router);
  d["peer_port"] = arr(t.peer_port);
  d["port_node"] = arr(t.port_node);
  d["port_class"] = arr(t.port_class);
  d["node_port"] = arr(t.node_port);
  d["class_names"] = t.class_names;
  d["coord_names"] = t.coord_names;
  d["router_coords"] = arr(t.router_coords);
  py::dict tables;
  for (auto& [k, v] : t.tables) tables[py::str(k)] = arr(v);
  d["tables"] = tables;
  d["attrs"] = t.attrs;
  return d;
}

// A 1-D integer array (numpy or sequence) as a vector, copied in one go.
template <class T>
std::vector<T> int_vector(py::handle obj) {
  auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(obj);
  if (!a || a.ndim() != 1) throw ConfigError("workload: expected a 1-D integer array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

// flitsim.workload's Program.to_arrays() as a JobProgram.
JobProgram job_program(const py::dict& d) {
  JobProgram p;
  p.label = d.contains("label") ? py::cast<std::string>(d["label"]) : std::string("program");
  p.ranks = py::cast<int32_t>(d["ranks"]);
  p.step_ptr = int_vector<int64_t>(d["step_ptr"]);
  p.send_ptr = int_vector<int64_t>(d["send_ptr"]);
  p.send_dst = int_vector<int64_t>(d["send_dst"]);
  p.send_bytes = int_vector<int64_t>(d["send_bytes"]);
  p.recv_ptr = int_vector<int64_t>(d["recv_ptr"]);
  p.recv_src = int_vector<int64_t>(d["recv_src"]);
  p.compute = int_vector<int64_t>(d["compute"]);
  return p;
}

// compile_inputs() of flitsim.workload: programs, per-replica job placements, packetisation.
WorkloadSpec workload_spec(const py::dict& w) {
  WorkloadSpec spec;
  for (auto p : py::reinterpret_borrow<py::list>(w["programs"])) spec.programs.push_back(job_program(py::reinterpret_borrow<py::dict>(p)));
  for (auto rep : py::reinterpret_borrow<py::list>(w["replicas"])) {
    std::vector<JobPlacement> jobs;
    for (auto j : py::reinterpret_borrow<py::list>(rep)) {
      auto jd = py::reinterpret_borrow<py::dict>(j);
      JobPlacement jp;
      jp.program = py::cast<int32_t>(jd["program"]);
      jp.nodes = int_vector<int32_t>(jd["nodes"]);
      jp.background = py::cast<bool>(jd["background"]);
      jobs.push_back(std::move(jp));
    }
    spec.replicas.push_back(std::move(jobs));
  }
  spec.packet_size = py::cast<int32_t>(w["packet_size"]);
  spec.flit_bytes = py::cast<int64_t>(w["flit_bytes"]);
  spec.max_cycles = py::cast<int64_t>(w["max_cycles"]);
  if (w.contains("ni_queues")) spec.ni_queues = py::cast<int32_t>(w["ni_queues"]);
  return spec;
}

py::dict workload_dict(const WorkloadStats& w) {
  py::dict d;
  d["job_messages"] = arr(w.job_messages);
  d["job_delivered"] = arr(w.job_delivered);
  d["job_bytes"] = arr(w.job_bytes);
  d["job_flits"] = arr(w.job_flits);
  d["job_packets"] = arr(w.job_packets);
  d["job_first_inject"] = arr(w.job_first_inject);
  d["job_last_delivery"] = arr(w.job_last_delivery);
  d["job_finish"] = arr(w.job_finish);
  d["job_unfinished"] = arr(w.job_unfinished);
  d["node_first_inject"] = arr(w.node_first_inject);
  d["node_last_delivery"] = arr(w.node_last_delivery);
  d["node_finish"] = arr(w.node_finish);
  d["node_job"] = arr(w.node_job);
  d["node_rank"] = arr(w.node_rank);
  d["step_job"] = arr(w.step_job);
  d["step_rank"] = arr(w.step_rank);
  d["step_index"] = arr(w.step_index);
  d["step_start"] = arr(w.step_start);
  d["step_done"] = arr(w.step_done);
  d["foreground_end"] = w.foreground_end;
  return d;
}

py::dict simulate(const py::dict& cfg, const std::string& backend, int threads, py::object progress,
                  py::object loads, py::object seeds, py::object workload) {
  const Params topo_params = to_params("topology", section(cfg, "topology"));
  EngineConfig ec = engine_config_of(cfg);
  if (!loads.is_none()) ec.loads = loads.cast<std::vector<double>>();
  if (!seeds.is_none()) ec.seeds = seeds.cast<std::vector<uint64_t>>();
  if (ec.loads.empty() || ec.loads.size() != ec.seeds.size())
    throw ConfigError("replicas: loads and seeds must be non-empty lists of equal length");
  for (double l : ec.loads)
    if (!(l >= 0 && l <= 1)) throw ConfigError("traffic.load: must be in [0, 1], got " + std::to_string(l));
  check_run_memory(topo_params, ec);  // topology, routing tables and every replica's state, before building any
  const Topology topo = build_topology(topo_params);
  if (!workload.is_none()) {  // closed loop: programs checked and laid out before the run
    ec.workload = compile_workload(workload_spec(py::dict(workload)), topo.num_nodes);
    if (size_t(ec.workload->reps) != ec.seeds.size())
      throw ConfigError("workload: " + std::to_string(ec.workload->reps) + " replicas of programs for " +
                        std::to_string(ec.seeds.size()) + " seeds");
  }

  ProgressFn cb;
  if (!progress.is_none()) {
    cb = [progress](long long t, long long window_end, int done, double fraction) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      progress(t, window_end, done, fraction);
    };
  }
  RunOutput out;
  {
    py::gil_scoped_release nogil;
    out = run_engine(topo, ec, backend, threads, cb);
  }
  py::dict d;
  d["backend"] = out.backend;
  d["schedule"] = out.schedule;
  d["cycles"] = out.cycles;
  d["wall_seconds"] = out.wall_seconds;
  d["state_bytes"] = out.state_bytes;
  d["packet_slots"] = out.packet_slots;
  d["vc_classes"] = out.vc_classes;
  d["workload"] = out.workload;
  d["nodes"] = topo.num_nodes;
  d["routers"] = topo.num_routers;
  d["port_router"] = arr(topo.port_router);
  d["peer_port"] = arr(topo.peer_port);
  d["port_class"] = arr(topo.port_class);
  d["class_names"] = topo.class_names;
  py::list reps;
  for (const ReplicaStats& s : out.replicas) {
    py::dict r;
    r["load"] = s.load;
    r["seed"] = s.seed;
    r["saturated"] = s.saturated;
    r["drained"] = s.drained;
    r["cycles"] = s.cycles;
#define FLITSIM_DICT_SCALAR(name, ...) r[#name] = s.name;
#define FLITSIM_DICT_SUM(e, name, ...) r[#name] = s.name;
#define FLITSIM_DICT_ARRAY(name, ...) r[#name] = arr(s.name);
    FLITSIM_NODE_SUMS(FLITSIM_DICT_SCALAR)
    FLITSIM_RESULT_SUMS(FLITSIM_DICT_SUM)
    FLITSIM_REPLICA_SLICES(FLITSIM_DICT_ARRAY)
    FLITSIM_BATCH_SUMS(FLITSIM_DICT_ARRAY)
#undef FLITSIM_DICT_ARRAY
#undef FLITSIM_DICT_SUM
#undef FLITSIM_DICT_SCALAR
    if (out.workload) r["workload"] = workload_dict(s.workload);
    reps.append(r);
  }
  d["replicas"] = reps;
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "flitsim engine: cycle-level interconnection network simulation (CPU and CUDA backends)";
  // A subclass of the front end's flitsim.ConfigError (a leaf module: importing it here imports
  // nothing that needs this one), so that `except flitsim.ConfigError` catches the rules the
  // engine checks as well as those the front end checks.
  py::register_exception<ConfigError>(m, "ConfigError", py::module_::import("flitsim.validation").attr("ConfigError"));
  py::register_exception<DeadlockError>(m, "DeadlockError", PyExc_RuntimeError);
  py::register_exception<InvariantError>(m, "InvariantError", PyExc_RuntimeError);
  py::register_exception<WorkloadError>(m, "WorkloadError", PyExc_RuntimeError);

  m.def("simulate", &simulate, py::arg("config"), py::arg("backend") = "auto", py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("loads") = py::none(), py::arg("seeds") = py::none(),
        py::arg("workload") = py::none(),
        "Run the engine on a normalised configuration dict; returns raw integer statistics. "
        "workload: flitsim.workload.compile_inputs() for a closed-loop run.");
  m.def(
      "match_program",
      [](py::dict d) {
        JobProgram p = job_program(d);
        match_program(p);
        return arr(p.send_match_step);
      },
      py::arg("program"),
      "Static check of one job program (Program.to_arrays()): matches every send to a receive and "
      "proves that every rank finishes (ValueError naming rank and step otherwise); returns the "
      "receiving step of every send.");
  m.def(
      "build_topology", [](py::dict sec) { return topology_dict(build_topology(to_params("topology", sec))); },
      py::arg("section"), "Build the topology tables of a [topology] section.");
  m.def("topology_kinds", &topology_kinds);
  m.def("topology_keys", &topology_keys, "The keys each topology kind's builder reads (besides kind).");
  m.def(
      "replica_stats",
      []() {
        py::list out;
        for (const StatInfo& i : replica_stat_schema()) {
          py::dict d;
          d["name"] = i.name, d["kind"] = i.kind, d["doc"] = i.doc;
          out.append(d);
        }
        return out;
      },
      "The statistics schema (host/run/replica_stats.hpp): every per-replica statistic simulate() returns.");
  m.def("patterns", &pattern_names, "traffic.pattern names (the host's pattern registry).");
  m.def("traffic_class_keys", &traffic_class_keys, "The [traffic] keys a [[traffic.class]] table may hold.");
  m.def("max_traffic_classes", &max_traffic_classes, "The most [[traffic.class]] tables a run may have.");
  m.def(
      "class_sum_names",
      [] {
        std::vector<std::string> names;
#define FLITSIM_CLASS_SUM_NAME(e, name, ...) names.push_back(#name);
        FLITSIM_CLASS_SUMS(FLITSIM_CLASS_SUM_NAME)
#undef FLITSIM_CLASS_SUM_NAME
        return names;
      },
      "The per-class sums of Result.class_sums, in order (cuda/state.cuh).");
  bind_routing(m);  // bindings/routing.cpp
  bind_config_keys(m);  // bindings/config_keys.cpp
  m.def(
      "router_distances",
      [](py::dict sec) {
        Topology t = build_topology(to_params("topology", sec));
        std::vector<uint8_t> d = router_distances(t);
        return py::array_t<uint8_t>({py::ssize_t(t.num_routers), py::ssize_t(t.num_routers)}, d.data());
      },
      py::arg("section"), "All-pairs router hop distances (255 = unreachable).");
  m.def(
      "state_layout",
      [](const py::dict& cfg, int replicas) {
        // Sizes of every state array for this configuration, without simulating: the byte
        // count a device must hold (benchmarks/byte_model.py turns it into a floor).
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        EngineConfig ec = engine_config_of(cfg, replicas);
        const HostState h = make_initial_state(topo, ec);
        py::dict arrays;
#define FLITSIM_LAYOUT(type, name, count) arrays[#name] = py::make_tuple(h.name.size(), sizeof(type));
        FLITSIM_STATE_ARRAYS(FLITSIM_LAYOUT)
#undef FLITSIM_LAYOUT
        py::dict d;
        d["arrays"] = arrays;
        d["replicated"] = std::vector<std::string>{
#define FLITSIM_NAME(type, name, count) #name,
            FLITSIM_REPLICA_ARRAYS(FLITSIM_NAME)
#undef FLITSIM_NAME
        };
        d["bytes"] = h.bytes();
        d["replica_bytes"] = h.replica_bytes();
        d["routers"] = h.sz.R, d["ports"] = h.sz.P, d["nodes"] = h.sz.N, d["vcs"] = h.sz.V;
        d["buffer"] = h.sz.B, d["packet_slots"] = h.sz.S, d["replicas"] = h.sz.reps;
        return d;
      },
      py::arg("config"), py::arg("replicas") = 1, "Bytes of every state array for a configuration.");
  m.def(
      "router_presets",
      [] {  // router_presets.cpp
        py::dict out;
        for (const RouterPreset& p : router_presets()) {
          py::dict keys;
          for (const PresetKey& k : p.keys) {
            const auto same = std::count_if(p.keys.begin(), p.keys.end(), [&](const PresetKey& o) { return o.key == k.key; });
            if (k.conditional() || same > 1) continue;  // depends on the topology or routing
            keys[py::str(k.key)] = k.is_int ? py::object(py::int_(k.int_value)) : py::object(py::str(k.str_value));
          }
          out[py::str(p.name)] = keys;
        }
        return out;
      },
      "router.preset name -> {key: value}: every preset's keys whose value is the same on every topology and "
      "routing (router_presets.cpp; router_preset_rules lists the others).");
  m.def(
      "router_preset_keys",
      [](const std::string& name, const std::string& kind, const std::string& algorithm) {
        py::dict keys;
        for (const PresetKey& k : preset_keys_for(name, kind, algorithm))
          keys[py::str(k.key)] = k.is_int ? py::object(py::int_(k.int_value)) : py::object(py::str(k.str_value));
        return keys;
      },
      py::arg("name"), py::arg("kind"), py::arg("algorithm"),
      "{key: value}: the keys router.preset = name sets on topology kind `kind` with routing `algorithm`.");
  m.def(
      "router_preset_rules",
      [] {  // every entry of every preset, in order (the first that applies to a key wins)
        py::list out;
        for (const RouterPreset& p : router_presets())
          for (const PresetKey& k : p.keys) {
            py::dict d;
            d["preset"] = p.name, d["key"] = k.key, d["why"] = k.why;
            d["value"] = k.is_int ? py::object(py::int_(k.int_value)) : py::object(py::str(k.str_value));
            d["kinds"] = k.kinds, d["algorithms"] = k.algorithms;
            out.append(d);
          }
        return out;
      },
      "Every router.preset entry in table order: {preset, key, value, kinds, algorithms, why} (empty kinds or "
      "algorithms: every one; the first entry that applies to a key wins).");
  m.def(
      "router_stage_delay_keys", [] { return router_stage_delay_keys(); },
      "The [router] stage-delay keys, the pipeline's four then credit_delay (router_stage_delays.cpp).");
  m.def(
      "memory_estimate",
      [](const py::dict& cfg, int replicas, bool check) {
        // The run's memory from its configuration alone, nothing built (run_memory.hpp).
        if (replicas < 1) throw ConfigError("replicas: must be >= 1");
        const Params topo = to_params("topology", section(cfg, "topology"));
        EngineConfig ec = engine_config_of(cfg, replicas);
        if (check) check_run_memory(topo, ec);
        const RunMemory m = run_memory(topo, ec);
        py::dict d;
        d["known"] = m.known;
        d["routers"] = m.routers, d["ports"] = m.ports, d["nodes"] = m.nodes;
        d["topology"] = m.topology, d["routing"] = m.routing, d["state"] = m.state, d["total"] = m.total();
        d["keys"] = m.keys;
        d["host_available"] = available_host_bytes();
        return d;
      },
      py::arg("config"), py::arg("replicas") = 1, py::arg("check") = false,
      "Estimated bytes of a run (topology, routing tables, state of every replica) from the configuration "
      "alone; check=True raises the refusal a run would get.");
  m.def(
      "state_estimate",
      [](const py::dict& cfg, int replicas) {
        // The state's bytes without allocating it (flitsim info; refusals name the same numbers).
        if (replicas < 1) throw ConfigError("replicas: must be >= 1");
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        EngineConfig ec = engine_config_of(cfg, replicas);
        const Sizes sz = initial_sizes(topo, ec);
        py::dict d;
        d["bytes"] = state_bytes(sz);
        d["replica_bytes"] = state_replica_bytes(sz);
        d["replicas"] = sz.reps;
        d["host_available"] = available_host_bytes();
        return d;
      },
      py::arg("config"), py::arg("replicas") = 1,
      "Bytes the simulation state of a configuration takes (total, per replica) and the host "
      "memory available, computed without allocating the state.");
  m.def(
      "destination_map",
      [](const py::dict& cfg) -> py::object {
        // Rank -> rank map of a fixed destination pattern (worst-case, swap2, dcr, randperm) as
        // the engine will use it; None for patterns without one (docs/traffic.md).
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        const EngineConfig ec = engine_config_of(cfg);
        const HostState h = make_initial_state(topo, ec);
        if (h.prm.traffic.tr_perm < 0) return py::none();
        const int32_t* tab = h.tr_table.data() + h.prm.traffic.tr_perm;
        return py::array_t<int32_t>(py::ssize_t(h.sz.N), tab);
      },
      py::arg("config"), "Rank -> rank map of a fixed destination pattern, or None.");
  m.def(
      "creation_gaps",
      [](const py::dict& cfg, int node, int64_t count) {
        // Test hook (tests/test_injection_process.py): the first `count` gaps between node's
        // packets under the Bernoulli process of the configuration's first replica.
        const Topology topo = build_topology(to_params("topology", section(cfg, "topology")));
        const HostState h = make_initial_state(topo, engine_config_of(cfg));
        if (!h.sz.bern_N) throw ConfigError("traffic.injection: creation_gaps needs the Bernoulli process");
        if (node < 0 || node >= h.sz.N) throw ConfigError("creation_gaps: node must be in [0, N)");
        py::array_t<int64_t> gaps(count);
        auto g = gaps.mutable_unchecked<1>();
        for (int64_t k = 0; k < count; ++k) g(k) = creation_gap(h.rep_seed[0], h.rep_gap_cdf.data(), node, k);
        return gaps;
      },
      py::arg("config"), py::arg("node"), py::arg("count"),
      "Gaps (cycles) between a node's first `count` packets under Bernoulli injection (test hook).");
  m.def("cuda_compiled", &cuda_compiled);
  m.def("cuda_build", &cuda_build, "What the CUDA backend was compiled with, \"\" without one.");
  m.def("cuda_device", []() -> py::object {
    std::string name;
    size_t free_b = 0, total_b = 0;
    if (!cuda_device(&name, &free_b, &total_b)) return py::none();
    return py::make_tuple(name, free_b, total_b);
  }, "(name, free bytes, total bytes) of the GPU a CUDA run would use; None without one.");
  m.def("cuda_usable", []() {
    std::string why;
    bool ok = cuda_usable(&why);
    return py::make_tuple(ok, why);
  });
}
