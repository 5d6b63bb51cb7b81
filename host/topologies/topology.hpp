// Topology tables: the whole router graph as flat arrays, built once on the host and
// copied to the device (DESIGN.md §5). Every port of every router has a global index
// ("global port", gp); ports of router r are [port_offset[r], port_offset[r+1]).
// A port is either a terminal port (one node attached) or one end of a bidirectional
// router-to-router link (peer_port gives the other end). Channel classes (terminal,
// local, global, ...) select the latency from [channels] and label statistics.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "host/config/params.hpp"

namespace flitsim {

struct Topology {
  std::string kind;
  int32_t num_routers = 0;
  int32_t num_nodes = 0;

  std::vector<int32_t> port_offset;  // R+1, CSR over routers
  std::vector<int32_t> port_router;  // P: owning router
  std::vector<int32_t> peer_port;    // P: global port at the other end; -1 for terminal ports
  std::vector<int32_t> port_node;    // P: node on a terminal port; -1 otherwise
  std::vector<int8_t> port_class;    // P: index into class_names; 0 is always "terminal"
  std::vector<std::string> class_names{"terminal"};
  std::vector<int32_t> node_port;    // N: the terminal port each node is attached to

  // Coordinates routing functions and analysis use (group, index-in-group, dimension
  // digits, tree level, ...): R rows of coord_names.size() values, row-major.
  std::vector<std::string> coord_names;
  std::vector<int32_t> router_coords;

  // Kind-specific integer tables for algorithmic routing (documented by each builder),
  // and scalar attributes (p, a, h, groups, ...).
  std::map<std::string, std::vector<int32_t>> tables;
  std::map<std::string, int64_t> attrs;

  int32_t num_ports() const { return int32_t(peer_port.size()); }
  int32_t radix(int32_t r) const { return port_offset[r + 1] - port_offset[r]; }
  int32_t max_radix() const;
  int32_t node_router(int32_t n) const { return port_router[node_port[n]]; }
  int32_t class_index(const std::string& name) const;  // -1 if absent
  int32_t coord(int32_t r, int32_t i) const {
    return router_coords[size_t(r) * coord_names.size() + i];
  }
  // Structural checks every builder's output must pass (symmetry of links, terminal
  // attachment, CSR consistency); throws std::logic_error naming the broken rule.
  void validate() const;
};

// Builds a Topology by appending ports router by router. Port order within a router is
// the order of the calls that touched it; node ids are the order of add_terminal calls.
class TopologyBuilder {
 public:
  TopologyBuilder(std::string kind, int32_t num_routers);
  int32_t add_class(const std::string& name);  // returns the class index (reuses names)
  int32_t add_terminal(int32_t router);         // returns the new node id
  // One bidirectional link; returns the local port index created at r1 and at r2.
  std::pair<int32_t, int32_t> add_link(int32_t r1, int32_t r2, int32_t cls);
  void set_coords(std::vector<std::string> names, std::vector<int32_t> coords);
  Topology& topo() { return t_; }  // to fill tables/attrs before finish()
  // Freezes the router-major port order into CSR arrays and validates.
  Topology finish();
  // Local port index of the k-th port appended so far at router r.
  int32_t ports_so_far(int32_t r) const { return int32_t(ports_[r].size()); }

 private:
  struct PortSpec {
    int32_t peer_router;  // -1 for a terminal port
    int32_t peer_local;   // local port index at the peer, or the node id for terminals
    int8_t cls;
  };
  Topology t_;
  std::vector<std::vector<PortSpec>> ports_;
};

// Builds the topology named by topo.get_str("kind") (see topology_registry.cpp).
Topology build_topology(const Params& topo);
// Kinds the registry knows, for error messages and `flitsim info`.
std::vector<std::string> topology_kinds();
// The keys each kind's builder reads (besides `kind`), as it registered them.
std::map<std::string, std::vector<std::string>> topology_keys();

// All-pairs router hop distances (BFS), row-major R×R, 255 = unreachable (254 = 254 or more).
// Cost: bit-parallel BFS, O(R/256 · diameter · (R + links)) for low-diameter graphs (a
// 32x32x32 HyperX, 32,768 routers: a few seconds); one BFS per source otherwise.
std::vector<uint8_t> router_distances(const Topology& t);

}  // namespace flitsim
