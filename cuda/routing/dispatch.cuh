// Routing dispatch: the head flit's packet facts, then the configured routing function (one
// file per routing in this folder, each stating its deadlock-avoidance VC scheme). Routing
// functions may write the packet's routing state (pk_route, pk_gport): this router holds the head.
#pragma once
#include "dragonfly_min.cuh"
#include "dragonfly_par.cuh"
#include "dragonfly_ugal.cuh"
#include "dragonfly_ugalg.cuh"
#include "dragonfly_valiant.cuh"
#include "hyperx_closad.cuh"
#include "hyperx_dal.cuh"
#include "hyperx_dimwar.cuh"
#include "hyperx_dor.cuh"
#include "hyperx_omniwar.cuh"
#include "hyperx_valiant_dor.cuh"
#include "table_min.cuh"
#include "table_min_first.cuh"
#include "table_ugal.cuh"
#include "table_ugalg.cuh"
#include "table_valiant.cuh"
#include "torus_dor.cuh"
#include "torus_min_adapt.cuh"
#include "torus_valiant_dor.cuh"
#include "updown.cuh"

namespace flitsim {

// Registry fields (registry.h) as code: who ejects at the destination, and the arguments of
// each sensing kind (snapshot routings read the snapshot half of cycle t).
#define FLITSIM_EJECTS_AT_DEST_dest true
#define FLITSIM_EJECTS_AT_DEST_self false
#define FLITSIM_ROUTE_CALL_none(fn) fn(s, rep, r, p)
#define FLITSIM_ROUTE_CALL_demand(fn) fn(s, rep, r, p)
#define FLITSIM_ROUTE_CALL_snapshot(fn) fn(s, rep, r, p, snap_read_base(s, rep, t))

// The routing's decision within one message class's VCs ([0, sz.mc_V)). `branch`: the host's
// candidate enumeration (route_choice.cuh), null in every simulation.
FLITSIM_HD RouteChoice route_in_class(const SimView& s, int rep, int r, int32_t pid, long long t, RouteBrancher* branch) {
  PacketInfo p;
  p.branch = branch;
  p.pid = pid;
  p.slot = s.pk(rep, pid);
  // A reply (traffic.reply_size) travels in its request's slot, from the request's destination.
  const bool reply = s.sz.reply_N && s.packets[p.slot].mclass;
  p.src_router = s.node_router[reply ? s.pk_reply[p.slot].src : pid / s.sz.S];
  p.vc_base = reply ? s.sz.mc_V : 0;
  p.dst_router = s.node_router[s.packets[p.slot].dst];
  switch (s.prm.routing.kind) {  // one case per registry line; no default, so none is forgotten
#define FLITSIM_ROUTE_CASE(Kind, id, alg, family, header, route_fn, classes_fn, eject, sensing, table, candidates, traits) \
  case RoutingKind::Kind:                                                                         \
    if (FLITSIM_EJECTS_AT_DEST_##eject && p.dst_router == r) return eject_choice(s, p);          \
    return FLITSIM_ROUTE_CALL_##sensing(route_fn);
    FLITSIM_ROUTINGS(FLITSIM_ROUTE_CASE)
#undef FLITSIM_ROUTE_CASE
  }
  return RouteChoice{-1, 0, 0};  // unreachable; phase_route would count a route failure
}

// The route of packet pid's head at router r: the routing's choice, moved to the VCs of the
// packet's message class (requests [0, mc_V), replies [mc_V, 2·mc_V)): the classes never
// share a VC, so a reply never waits behind a request (protocol-deadlock freedom).
FLITSIM_HD RouteChoice route_packet(const SimView& s, int rep, int r, int32_t pid, long long t,
                                    RouteBrancher* branch = nullptr) {
  RouteChoice c = route_in_class(s, rep, r, pid, t, branch);
  if (s.sz.reply_N && s.packets[s.pk(rep, pid)].mclass) {
    c.vc_lo += s.sz.mc_V;
    c.vc_hi += s.sz.mc_V;
  }
  return c;
}

}  // namespace flitsim
