// Standalone check of the topology builders without Python: builds one topology from
// key=value arguments and prints counts, degree range, diameter and (optionally) tables.
//   g++ -O1 -std=c++17 -I. tests/cpp/topology_harness.cpp host/topologies/topology.cpp (cont.)
//       host/topologies/topology_registry.cpp host/topologies/*.cpp -o /tmp/topo && /tmp/topo kind=oft k=4
// Values: integers (1), lists (1,2,3) or strings; "table=NAME" prints a routing table.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "host/topologies/topology.hpp"

using namespace flitsim;

int main(int argc, char** argv) {
  Params prm("topology");
  std::vector<std::string> show;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto eq = a.find('=');
    std::string k = a.substr(0, eq), v = a.substr(eq + 1);
    if (k == "table") { show.push_back(v); continue; }
    char* end = nullptr;
    if (v.find(',') != std::string::npos) {
      std::vector<int64_t> xs;
      size_t pos = 0;
      while (pos <= v.size()) {
        size_t c = v.find(',', pos);
        xs.push_back(std::strtoll(v.substr(pos, c - pos).c_str(), nullptr, 10));
        if (c == std::string::npos) break;
        pos = c + 1;
      }
      prm.set_ints(k, xs);
    } else {
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (!v.empty() && *end == 0) prm.set_int(k, x); else prm.set_str(k, v);
    }
  }
  try {
    Topology t = build_topology(prm);
    std::vector<int64_t> by_class(t.class_names.size(), 0);
    for (int32_t gp = 0; gp < t.num_ports(); ++gp)
      if (t.peer_port[gp] > gp) by_class[t.port_class[gp]]++;
    int64_t links = 0;
    for (size_t c = 1; c < by_class.size(); ++c) links += by_class[c];
    int32_t rmin = 1 << 30;
    for (int32_t r = 0; r < t.num_routers; ++r) rmin = std::min(rmin, t.radix(r));
    std::printf("kind=%s routers=%d nodes=%d links=%lld radix=%d..%d ports=%d\n", t.kind.c_str(),
                t.num_routers, t.num_nodes, (long long)links, rmin, t.max_radix(), t.num_ports());
    for (size_t c = 1; c < by_class.size(); ++c) std::printf("  class %s: %lld\n", t.class_names[c].c_str(), (long long)by_class[c]);
    for (auto& [k, v] : t.attrs) std::printf("  attr %s=%lld\n", k.c_str(), (long long)v);
    if (t.num_routers <= 6000) {
      auto d = router_distances(t);
      int diam = 0;
      for (auto x : d) diam = std::max<int>(diam, x);
      std::printf("  diameter=%d\n", diam);
    }
    for (auto& name : show) {
      auto& v = t.tables.at(name);
      std::printf("  table %s[%zu]:", name.c_str(), v.size());
      for (auto x : v) std::printf(" %d", x);
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  return 0;
}
