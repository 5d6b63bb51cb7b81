#include "topology.hpp"

#include <algorithm>
#include <array>
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

namespace {

// Router adjacency as CSR (one entry per link end; parallel links repeat, which is harmless).
void neighbours(const Topology& t, std::vector<int32_t>& off, std::vector<int32_t>& adj) {
  const int32_t R = t.num_routers;
  off.assign(size_t(R) + 1, 0);
  adj.clear();
  for (int32_t u = 0; u < R; ++u) {
    for (int32_t gp = t.port_offset[u]; gp < t.port_offset[u + 1]; ++gp)
      if (t.peer_port[gp] >= 0) adj.push_back(t.port_router[t.peer_port[gp]]);
    off[u + 1] = int32_t(adj.size());
  }
}

// One BFS from s into row (length R, prefilled with 255); returns the largest distance found.
int bfs_row(const std::vector<int32_t>& off, const std::vector<int32_t>& adj, int32_t s, uint8_t* row,
            std::vector<int32_t>& queue) {
  int32_t head = 0, tail = 0;
  row[s] = 0;
  queue[tail++] = s;
  int depth = 0;
  while (head < tail) {
    const int32_t u = queue[head++];
    for (int32_t k = off[u]; k < off[u + 1]; ++k) {
      const int32_t v = adj[k];
      if (row[v] == 255) {
        row[v] = uint8_t(std::min<int>(row[u] + 1, 254));
        depth = std::max<int>(depth, row[v]);
        queue[tail++] = v;
      }
    }
  }
  return depth;
}

// 256 BFS sources at a time, one bit each: a level costs one pass over all links for the
// whole batch, so the table costs O(R/256 * diameter * (R + links)) word operations instead
// of O(R * (R + links)) for one BFS per source (a 32x32x32 HyperX: seconds instead of
// minutes). Distances are symmetric, so a router's row receives the batch's distances to it.
constexpr int kWords = 4;
using Bits = std::array<uint64_t, kWords>;

void bit_parallel_distances(const std::vector<int32_t>& off, const std::vector<int32_t>& adj, int32_t R,
                            std::vector<uint8_t>& d) {
  std::vector<Bits> seen(R), frontier(R), next(R);
  for (int32_t s0 = 0; s0 < R; s0 += 64 * kWords) {
    const int32_t n = std::min<int32_t>(64 * kWords, R - s0);
    for (auto& b : seen) b.fill(0);
    for (auto& b : frontier) b.fill(0);
    for (int32_t i = 0; i < n; ++i) {
      seen[s0 + i][i / 64] |= uint64_t(1) << (i % 64);
      frontier[s0 + i] = seen[s0 + i];
      d[size_t(s0 + i) * R + s0 + i] = 0;
    }
    for (int level = 1;; ++level) {
      const uint8_t dist = uint8_t(std::min(level, 254));
      int grew = 0;
#pragma omp parallel for schedule(static) reduction(| : grew)
      for (int32_t u = 0; u < R; ++u) {
        Bits acc{};
        for (int32_t k = off[u]; k < off[u + 1]; ++k)
          for (int w = 0; w < kWords; ++w) acc[w] |= frontier[adj[k]][w];
        uint8_t* row = &d[size_t(u) * R + s0];
        for (int w = 0; w < kWords; ++w) {
          uint64_t fresh = acc[w] & ~seen[u][w];
          next[u][w] = fresh;
          seen[u][w] |= fresh;
          grew |= fresh != 0;
          for (; fresh; fresh &= fresh - 1) row[w * 64 + __builtin_ctzll(fresh)] = dist;
        }
      }
      if (!grew) break;
      std::swap(frontier, next);
    }
  }
}

}  // namespace

std::vector<uint8_t> router_distances(const Topology& t) {
  const int32_t R = t.num_routers;
  std::vector<uint8_t> d(size_t(R) * R, 255);
  if (R == 0) return d;
  std::vector<int32_t> off, adj, queue(R);
  neighbours(t, off, adj);
  // The eccentricity of router 0 bounds the diameter by twice itself. Bit-parallel BFS pays
  // one pass over the links per level, so it wins only when levels are few (every regular
  // topology); long, thin graphs (paths, rings) take one BFS per source.
  const int ecc = bfs_row(off, adj, 0, &d[0], queue);
  if (R >= 512 && 2 * ecc <= 48) {
    bit_parallel_distances(off, adj, R, d);
    return d;
  }
  for (int32_t s = 1; s < R; ++s) bfs_row(off, adj, s, &d[size_t(s) * R], queue);
  return d;
}

}  // namespace flitsim
