// What the binding files share: configuration sections (Python dicts) as the engine reads them.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "host/config/engine_config.hpp"
#include "host/config/params.hpp"

namespace flitsim::bindings {

namespace py = pybind11;

// A section dict as Params (ConfigError, i.e. ValueError, names the key of a bad value).
Params to_params(const std::string& section, py::handle obj);
// cfg[name], or an empty dict.
py::dict section(const py::dict& cfg, const char* name);
// The engine's reading of a config's [router] [channels] [routing] [traffic] [sim] sections,
// with `replicas` copies of its load and seed.
EngineConfig engine_config_of(const py::dict& cfg, int replicas = 1);

// Registers the routing registry's functions (bindings/routing.cpp).
void bind_routing(py::module_& m);
// Registers the key schema and the engine's reading of a config (bindings/config_keys.cpp).
void bind_config_keys(py::module_& m);

}  // namespace flitsim::bindings
