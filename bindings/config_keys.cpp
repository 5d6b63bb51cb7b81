// The key schema (host/config/config_keys.hpp) for Python, and the engine's reading of a
// configuration: every declared key with the value the engine uses.
#include <pybind11/stl.h>

#include "convert.hpp"
#include "host/config/config_keys.hpp"

namespace flitsim::bindings {

namespace {

py::object to_py(const KeyValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return py::none();
        else return py::cast(x);
      },
      v);
}

const char* type_name(KeyType t) {
  switch (t) {
    case KeyType::Int: return "int";
    case KeyType::Float: return "float";
    case KeyType::Bool: return "bool";
    case KeyType::Choice: return "choice";
    case KeyType::IntList: return "int_list";
  }
  return "?";
}

}  // namespace

void bind_config_keys(py::module_& m) {
  m.def(
      "config_keys",
      [] {
        const EngineConfig defaults;
        py::list out;
        for (const KeySpec& k : config_keys()) {
          py::dict d;
          d["section"] = k.section, d["name"] = k.name, d["type"] = type_name(k.type);
          d["filled"] = k.filled, d["read_by"] = k.read_by, d["doc"] = k.doc, d["booksim"] = k.booksim;
          d["refuse_unread"] = k.refuse_unread;
          d["default"] = k.value ? to_py(k.value(defaults)) : py::object(py::none());
          if (k.type == KeyType::Int || k.type == KeyType::IntList) d["lo"] = k.lo, d["hi"] = k.hi;
          if (k.type == KeyType::Int) d["rule"] = int_key_rule(k), d["why"] = k.why;
          if (k.type == KeyType::Float) d["lo"] = k.flo, d["hi"] = k.fhi;
          if (k.type == KeyType::Choice) d["choices"] = k.choices;
          out.append(d);
        }
        return out;
      },
      "Every key of [router] [routing] [traffic] [sim] (host/config/keys_*.cpp): section, name, type, "
      "default (None: unset, the engine picks), bounds, choices, filled, read_by, refuse_unread, doc.");
  m.def(
      "engine_values",
      [](py::dict cfg) {
        const EngineConfig ec = engine_config_of(cfg);
        py::dict out;
        for (const KeySpec& k : config_keys()) {
          if (!k.value) continue;
          if (!out.contains(k.section.c_str())) out[k.section.c_str()] = py::dict();
          py::dict sec = out[k.section.c_str()];
          sec[k.name.c_str()] = to_py(k.value(ec));
        }
        return out;
      },
      py::arg("config"),
      "The engine's reading of a config: {section: {key: value}} for every key that fills a field "
      "(None: unset), router.preset and the stage delays applied.");
}

}  // namespace flitsim::bindings
