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
#include "hyperx_dimwar.cuh"
#include "hyperx_dor.cuh"
#include "hyperx_omniwar.cuh"
#include "table_min.cuh"
#include "table_ugal.cuh"
#include "table_ugalg.cuh"
#include "table_valiant.cuh"
#include "updown.cuh"

namespace flitsim {

FLITSIM_HD RouteChoice route_packet(const SimView& s, int rep, int r, int32_t pid, long long t) {
  PacketInfo p;
  p.pid = pid;
  p.slot = s.pk(rep, pid);
  p.src_router = s.port_router[s.node_port[pid / s.sz.S]];
  p.dst_port = s.node_port[s.pk_dst[p.slot]];
  p.dst_router = s.port_router[p.dst_port];
  switch (s.prm.routing) {  // routings with phases decide themselves when to eject
    case RoutingKind::DragonflyValiant: return route_dragonfly_valiant(s, rep, r, p);
    case RoutingKind::DragonflyUgal: return route_dragonfly_ugal(s, rep, r, p);
    case RoutingKind::TableValiant: return route_table_valiant(s, rep, r, p);
    case RoutingKind::TableUgal: return route_table_ugal(s, rep, r, p);
    case RoutingKind::DragonflyUgalG: return route_dragonfly_ugalg(s, rep, r, p, snap_read_base(s, rep, t));
    case RoutingKind::TableUgalG: return route_table_ugalg(s, rep, r, p, snap_read_base(s, rep, t));
    case RoutingKind::DragonflyPar: return route_dragonfly_par(s, rep, r, p);
    case RoutingKind::HyperxClosAd: return route_hyperx_closad(s, rep, r, p);
    default: break;
  }
  if (p.dst_router == r) return eject_choice(s, p);
  switch (s.prm.routing) {
    case RoutingKind::DragonflyMin: return route_dragonfly_min(s, rep, r, p);
    case RoutingKind::HyperxDor: return route_hyperx_dor(s, rep, r, p);
    case RoutingKind::HyperxDimWar: return route_hyperx_dimwar(s, rep, r, p);
    case RoutingKind::HyperxOmniWar: return route_hyperx_omniwar(s, rep, r, p);
    case RoutingKind::UpDown: return route_updown(s, rep, r, p);
    case RoutingKind::TableMin:
    default: return route_table_min(s, rep, r, p);
  }
}

}  // namespace flitsim
