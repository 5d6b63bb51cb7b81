#include "topology.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace flitsim {

int32_t Topology::max_radix() const {
  int32_t m = 0;
  for (int32_t r = 0; r < num_routers; ++r) m = std::max(m, radix(r));
  return m;
}

int32_t Topology::class_index(const std::string& name) const {
  for (size_t i = 0; i < class_names.size(); ++i)
    if (class_names[i] == name) return int32_t(i);
  return -1;
}

void Topology::validate() const {
  auto bad = [&](const std::string& what) {
    throw std::logic_error("topology '" + kind + "' is malformed: " + what);
  };
  const int32_t P = num_ports();
  if (int32_t(port_offset.size()) != num_routers + 1 || port_offset[0] != 0 ||
      port_offset[num_routers] != P)
    bad("port_offset is not a CSR over routers");
  if (int32_t(port_router.size()) != P || int32_t(port_node.size()) != P ||
      int32_t(port_class.size()) != P)
    bad("per-port arrays differ in length");
  if (int32_t(node_port.size()) != num_nodes) bad("node_port length != num_nodes");
  for (int32_t gp = 0; gp < P; ++gp) {
    int32_t q = peer_port[gp];
    if (q >= 0) {
      if (q >= P || peer_port[q] != gp) bad("link at port " + std::to_string(gp) + " is not symmetric");
      if (port_router[q] == port_router[gp]) bad("self-loop at port " + std::to_string(gp));
      if (port_class[q] != port_class[gp]) bad("link ends differ in class at port " + std::to_string(gp));
      if (port_node[gp] != -1) bad("router link port carries a node");
    } else {
      int32_t n = port_node[gp];
      if (n < 0 || n >= num_nodes || node_port[n] != gp) bad("terminal port " + std::to_string(gp) + " has no node");
      if (port_class[gp] != 0) bad("terminal port not of class 'terminal'");
    }
  }
  if (!coord_names.empty() && router_coords.size() != size_t(num_routers) * coord_names.size())
    bad("router_coords has the wrong size");
}

TopologyBuilder::TopologyBuilder(std::string kind, int32_t num_routers) : ports_(num_routers) {
  t_.kind = std::move(kind);
  t_.num_routers = num_routers;
}

int32_t TopologyBuilder::add_class(const std::string& name) {
  int32_t i = t_.class_index(name);
  if (i >= 0) return i;
  t_.class_names.push_back(name);
  return int32_t(t_.class_names.size() - 1);
}

int32_t TopologyBuilder::add_terminal(int32_t router) {
  int32_t node = t_.num_nodes++;
  ports_.at(router).push_back({-1, node, 0});
  return node;
}

std::pair<int32_t, int32_t> TopologyBuilder::add_link(int32_t r1, int32_t r2, int32_t cls) {
  if (r1 == r2) throw std::logic_error("add_link: self-loop at router " + std::to_string(r1));
  int32_t l1 = int32_t(ports_.at(r1).size());
  int32_t l2 = int32_t(ports_.at(r2).size());
  ports_[r1].push_back({r2, l2, int8_t(cls)});
  ports_[r2].push_back({r1, l1, int8_t(cls)});
  return {l1, l2};
}

void TopologyBuilder::set_coords(std::vector<std::string> names, std::vector<int32_t> coords) {
  t_.coord_names = std::move(names);
  t_.router_coords = std::move(coords);
}

Topology TopologyBuilder::finish() {
  Topology& t = t_;
  const int32_t R = t.num_routers;
  t.port_offset.assign(R + 1, 0);
  for (int32_t r = 0; r < R; ++r) t.port_offset[r + 1] = t.port_offset[r] + int32_t(ports_[r].size());
  const int32_t P = t.port_offset[R];
  t.port_router.assign(P, 0);
  t.peer_port.assign(P, -1);
  t.port_node.assign(P, -1);
  t.port_class.assign(P, 0);
  t.node_port.assign(t.num_nodes, -1);
  for (int32_t r = 0; r < R; ++r) {
    for (size_t l = 0; l < ports_[r].size(); ++l) {
      const PortSpec& s = ports_[r][l];
      int32_t gp = t.port_offset[r] + int32_t(l);
      t.port_router[gp] = r;
      t.port_class[gp] = s.cls;
      if (s.peer_router < 0) {
        t.port_node[gp] = s.peer_local;
        t.node_port[s.peer_local] = gp;
      } else {
        t.peer_port[gp] = t.port_offset[s.peer_router] + s.peer_local;
      }
    }
  }
  t.validate();
  return std::move(t_);
}

std::vector<uint8_t> router_distances(const Topology& t) {
  const int32_t R = t.num_routers;
  std::vector<uint8_t> d(size_t(R) * R, 255);
  std::vector<int32_t> queue(R);
  for (int32_t s = 0; s < R; ++s) {
    uint8_t* row = &d[size_t(s) * R];
    int32_t head = 0, tail = 0;
    row[s] = 0;
    queue[tail++] = s;
    while (head < tail) {
      int32_t u = queue[head++];
      for (int32_t gp = t.port_offset[u]; gp < t.port_offset[u + 1]; ++gp) {
        int32_t q = t.peer_port[gp];
        if (q < 0) continue;
        int32_t v = t.port_router[q];
        if (row[v] == 255) {
          row[v] = uint8_t(std::min<int>(row[u] + 1, 254));
          queue[tail++] = v;
        }
      }
    }
  }
  return d;
}

}  // namespace flitsim
