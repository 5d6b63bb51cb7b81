#include "route_candidates.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_set>

#include "cuda/routing/dispatch.cuh"
#include "host/config/params.hpp"

namespace flitsim {
namespace {

// What the routing functions read from the packet table besides source and destination.
struct PacketState {
  int32_t route, gport, hops;
};

// A head waiting at a router: where it is, what it holds, and its packet state.
struct Walk {
  int32_t router, in_port, vc_lo, vc_hi;
  PacketState pk;
  bool operator==(const Walk& o) const {
    return std::tie(router, in_port, vc_lo, vc_hi, pk.route, pk.gport, pk.hops) ==
           std::tie(o.router, o.in_port, o.vc_lo, o.vc_hi, o.pk.route, o.pk.gport, o.pk.hops);
  }
};

inline size_t mix(size_t h, long long v) { return (h ^ size_t(v)) * 0x100000001B3ull; }

struct WalkHash {
  size_t operator()(const Walk& w) const {
    size_t h = 0xCBF29CE484222325ull;
    for (long long v : {w.router, w.in_port, w.vc_lo, w.vc_hi, w.pk.route, w.pk.gport, w.pk.hops}) h = mix(h, v);
    return h;
  }
};

struct RowHash {
  size_t operator()(const CandidateRow& c) const {
    size_t h = 0xCBF29CE484222325ull;
    for (long long v : {c.router, c.in_port, c.in_vc_lo, c.in_vc_hi, c.dst_router, c.out_port, c.out_vc_lo, c.out_vc_hi})
      h = mix(h, v);
    return h;
  }
};
struct RowEq {
  bool operator()(const CandidateRow& a, const CandidateRow& b) const {
    return std::tie(a.router, a.in_port, a.in_vc_lo, a.in_vc_hi, a.dst_router, a.out_port, a.out_vc_lo, a.out_vc_hi) ==
           std::tie(b.router, b.in_port, b.in_vc_lo, b.in_vc_hi, b.dst_router, b.out_port, b.out_vc_lo, b.out_vc_hi);
  }
};

// One decision of the routing, and the packet state it leaves.
struct Outcome {
  RouteChoice choice;
  PacketState pk;
};

// Every outcome of route_packet for the head of packet `pid` at router r in state pk: replays
// the routing with each combination of choices (an odometer over the choice points, whose
// widths each replay reports; a prefix of choices replays identically, so it is a depth-first
// walk of the choice tree).
template <class Emit>
long long each_outcome(const SimView& s, int r, int32_t pid, const PacketState& pk, bool* dst_node_read, Emit&& emit) {
  const long long k = s.pk(0, pid);
  RouteBrancher br;
  long long replays = 0;
  for (;;) {
    s.packets[k].route = pk.route, s.packets[k].hops = pk.hops;
    if (s.sz.df_G) s.packets[k].gport = pk.gport;
    br.depth = 0, br.raw_draws = 0;
    const RouteChoice c = route_packet(s, 0, r, pid, 0, &br);
    ++replays;
    if (br.raw_draws)
      throw ConfigError("routing.algorithm: the routing makes a random choice with route_draw, which the candidate "
                        "enumeration cannot list (use route_pick, cuda/routing/route_choice.cuh)");
    if (br.depth > RouteBrancher::kMaxChoices)
      throw ConfigError("routing.algorithm: a route decision has more than " +
                        std::to_string(RouteBrancher::kMaxChoices) + " choice points (RouteBrancher::kMaxChoices)");
    *dst_node_read |= br.dst_node_read;
    emit(Outcome{c, PacketState{s.packets[k].route, s.sz.df_G ? s.packets[k].gport : -1, pk.hops}});
    for (int i = br.scripted; i < br.depth; ++i) br.script[i] = 0;  // unscripted points took 0
    int i = br.depth - 1;
    while (i >= 0 && br.script[i] + 1 >= br.width[i]) --i;
    if (i < 0) return replays;
    ++br.script[i];
    br.scripted = i + 1;
  }
}

}  // namespace

RouteCandidates enumerate_route_candidates(const Topology& topo, const EngineConfig& cfg,
                                           const std::vector<int32_t>& sources) {
  HostState h = make_initial_state(topo, cfg);
  const SimView s = h.view();
  const int V = s.sz.V, N = s.sz.N, R = s.sz.R;
  const int max_hops = 4 * R + 16;  // far beyond any routing's longest path: a loop
  std::unordered_set<CandidateRow, RowHash, RowEq> rows;
  RouteCandidates out;
  // The nodes of each router (a packet's route depends on its destination's router unless the
  // routing reads the node itself, dst_node: then every node is walked).
  std::vector<std::vector<int32_t>> nodes_of(static_cast<size_t>(R));
  for (int n = 0; n < N; ++n) nodes_of[size_t(s.node_router[n])].push_back(n);
  std::vector<int32_t> walk_from = sources;
  if (walk_from.empty())
    for (int r = 0; r < R; ++r) walk_from.push_back(r);
  for (const int32_t src_router : walk_from) {
    if (src_router < 0 || src_router >= R) throw ConfigError("sources: router " + std::to_string(src_router) + " does not exist");
    if (nodes_of[size_t(src_router)].empty()) continue;
    const int32_t src = nodes_of[size_t(src_router)][0];
    const int32_t pid = src * s.sz.S;  // its first packet slot (draws are all enumerated)
    const long long k = s.pk(0, pid);
    for (int dst_router = 0; dst_router < R; ++dst_router) {
      bool node_read = false;  // does the route depend on the node, not only on its router?
      int walked = 0;
      for (const int32_t dst : nodes_of[size_t(dst_router)]) {
        if (dst == src) continue;
        if (walked++ > 0 && !node_read) break;  // the first node stands for its router's
        s.packets[k].dst = dst;
        s.packets[k].create = 0;
        // Each message class (traffic.reply_size: requests, then replies) on its own VCs; a
        // reply's route is that of a packet from src to dst as well, in its class's range.
        for (int mc = 0; mc < (s.sz.reply_N ? 2 : 1); ++mc) {
        s.packets[k].mclass = uint8_t(mc);
        if (s.sz.reply_N) s.pk_reply[k].src = src;
        const int vc_lo = s.sz.reply_N ? mc * s.sz.mc_V : 0, vc_hi = s.sz.reply_N ? vc_lo + s.sz.mc_V : V;
        std::unordered_set<Walk, WalkHash> seen;
        std::vector<Walk> todo{Walk{src_router, s.node_port[src], vc_lo, vc_hi, PacketState{0, -1, 0}}};
        while (!todo.empty()) {
          const Walk w = todo.back();
          todo.pop_back();
          if (!seen.insert(w).second) continue;
          ++out.states;
          out.replays += each_outcome(s, w.router, pid, w.pk, &node_read, [&](const Outcome& o) {
            const RouteChoice& c = o.choice;
            if (c.port < 0 || c.vc_lo >= c.vc_hi)
              throw ConfigError("routing.algorithm: the routing found no output at router " + std::to_string(w.router) +
                                " for destination router " + std::to_string(dst_router));
            rows.insert(CandidateRow{w.router, w.in_port, w.vc_lo, w.vc_hi, dst_router, c.port, c.vc_lo, c.vc_hi});
            const int peer = s.peer_port[c.port];
            if (peer < 0) return;  // ejection
            if (o.pk.hops + 1 > max_hops)
              throw ConfigError("routing.algorithm: a route exceeds " + std::to_string(max_hops) + " hops (a loop)");
            todo.push_back(
                Walk{s.port_router[peer], peer, c.vc_lo, c.vc_hi, PacketState{o.pk.route, o.pk.gport, o.pk.hops + 1}});
          });
        }
        }  // message classes
      }
    }
  }
  out.rows.assign(rows.begin(), rows.end());
  std::sort(out.rows.begin(), out.rows.end(), [](const CandidateRow& a, const CandidateRow& b) {
    return std::tie(a.router, a.in_port, a.in_vc_lo, a.in_vc_hi, a.dst_router, a.out_port, a.out_vc_lo, a.out_vc_hi) <
           std::tie(b.router, b.in_port, b.in_vc_lo, b.in_vc_hi, b.dst_router, b.out_port, b.out_vc_lo, b.out_vc_hi);
  });
  return out;
}

}  // namespace flitsim
