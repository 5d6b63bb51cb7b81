// The routing registry: every routing function, declared once. Everything else derives from
// this list: the RoutingKind enum (state.cuh), the device dispatch (dispatch.cuh), the host's
// choice and validation (host/init/routing_choice.cpp), and _core.routings(), which the Python
// front end (config.py, deadlock.py) reads instead of restating it.
//
// X(Kind, id, algorithm, family, header, route_fn, classes_fn, eject, sensing, table, candidates, traits)
//   Kind        RoutingKind enumerator; id its stable value (recorded nowhere, kept for logs)
//   algorithm   routing.algorithm name; unique per topology (a family picks among equal names)
//   family      the topologies it runs on (RoutingFamily): Dragonfly (dragonflies with gateway
//               tables), Hyperx (HyperX coordinates, gap 1), Torus (torus and mesh: k-ary
//               n-cube coordinates), Tree (fattree, xgft), Table (every
//               topology that is not a Dragonfly-family dragonfly: all-pairs distance table)
//   header      its file in cuda/routing/ (included by dispatch.cuh), stating its VC scheme
//   route_fn    device function (s, rep, r, PacketInfo) -> RouteChoice (+ snapshot base)
//   classes_fn  host function (ClassInputs) -> VcClasses, in the header next to its VC scheme
//   eject       dest: the dispatch ejects at the destination router; self: the routing decides
//               (routings with phases)
//   sensing     none | demand (local output demand, port_demand) | snapshot (demand and the
//               double-buffered congestion snapshot, routing/snapshot.cuh)
//   table       what the host builds into rt_table: none | hx_coords (hyperx_common.cuh) |
//               cube_coords (torus_common.cuh) |
//               terminal_routers (Valiant intermediates) | df_groups (dragonfly, >= 3 groups)
//   candidates  how the deadlock checker learns the routing's outputs: exact = enumerated from
//               this very route function compiled on the host (host/analysis/route_candidates.cpp:
//               every choice point lists all its candidates instead of selecting one, see
//               route_choice.cuh), so every output the routing can produce for some congestion
//               and random draw is listed and no other. (No routing needs another value today;
//               one whose choices cannot be enumerated would say so here and in deadlock.py.)
//   traits      its RoutingTraits (route_choice.cuh), in the header: the [routing] keys it
//               reads and their per-routing defaults, its label, its family flags
//
// Adding a routing: write its header (route function, traits, and a classes function unless it
// reuses one), include it in dispatch.cuh and add one line here (example: table_min_first.cuh). Make
// random choices with route_pick, adaptive ones with the selections of route_choice.cuh
// (pick_parallel, table_min_toward, BestChoice with enumerate/settle, ugal_select) and read
// the destination node with dst_node: then `exact` holds (the enumeration refuses a routing
// that draws with route_draw).
#pragma once

#define FLITSIM_ROUTINGS(X) \
  X(DragonflyMin, 0, "min", Dragonfly, "dragonfly_min.cuh", route_dragonfly_min, \
    classes_dragonfly_min, dest, none, none, exact, traits_dragonfly_min) \
  X(DragonflyValiant, 2, "valiant", Dragonfly, "dragonfly_valiant.cuh", route_dragonfly_valiant, \
    classes_dragonfly_valiant, self, none, df_groups, exact, traits_dragonfly_valiant) \
  X(DragonflyUgal, 4, "ugal", Dragonfly, "dragonfly_ugal.cuh", route_dragonfly_ugal, \
    classes_dragonfly_valiant, self, demand, df_groups, exact, traits_dragonfly_ugal) \
  X(DragonflyUgalG, 11, "ugal-g", Dragonfly, "dragonfly_ugalg.cuh", route_dragonfly_ugalg, \
    classes_dragonfly_valiant, self, snapshot, df_groups, exact, traits_dragonfly_ugalg) \
  X(DragonflyPar, 13, "par", Dragonfly, "dragonfly_par.cuh", route_dragonfly_par, \
    classes_dragonfly_par, self, demand, df_groups, exact, traits_dragonfly_par) \
  X(TableMin, 1, "min", Table, "table_min.cuh", route_table_min, \
    classes_table_min, dest, none, none, exact, traits_table_min) \
  X(TableMinFirst, 14, "min-first", Table, "table_min_first.cuh", route_table_min_first, \
    classes_table_min, dest, none, none, exact, traits_table_min_first) \
  X(TableValiant, 3, "valiant", Table, "table_valiant.cuh", route_table_valiant, \
    classes_table_valiant, self, none, terminal_routers, exact, traits_table_valiant) \
  X(TableUgal, 5, "ugal", Table, "table_ugal.cuh", route_table_ugal, \
    classes_table_valiant, self, demand, terminal_routers, exact, traits_table_ugal) \
  X(TableUgalG, 12, "ugal-g", Table, "table_ugalg.cuh", route_table_ugalg, \
    classes_table_valiant, self, snapshot, terminal_routers, exact, traits_table_ugalg) \
  X(HyperxDor, 6, "dor", Hyperx, "hyperx_dor.cuh", route_hyperx_dor, \
    classes_hyperx_dor, dest, none, hx_coords, exact, traits_hyperx_dor) \
  X(HyperxClosAd, 7, "clos-ad", Hyperx, "hyperx_closad.cuh", route_hyperx_closad, \
    classes_hyperx_closad, self, demand, hx_coords, exact, traits_hyperx_closad) \
  X(HyperxDimWar, 8, "dimwar", Hyperx, "hyperx_dimwar.cuh", route_hyperx_dimwar, \
    classes_hyperx_dimwar, dest, demand, hx_coords, exact, traits_hyperx_dimwar) \
  X(HyperxOmniWar, 9, "omniwar", Hyperx, "hyperx_omniwar.cuh", route_hyperx_omniwar, \
    classes_hyperx_omniwar, dest, demand, hx_coords, exact, traits_hyperx_omniwar) \
  X(HyperxValiantDor, 15, "valiant-dor", Hyperx, "hyperx_valiant_dor.cuh", route_hyperx_valiant_dor, \
    classes_hyperx_valiant_dor, self, none, hx_coords, exact, traits_hyperx_valiant_dor) \
  X(HyperxUgalDor, 16, "ugal-dor", Hyperx, "hyperx_valiant_dor.cuh", route_hyperx_ugal_dor, \
    classes_hyperx_valiant_dor, self, demand, hx_coords, exact, traits_hyperx_ugal_dor) \
  X(HyperxDal, 21, "dal", Hyperx, "hyperx_dal.cuh", route_hyperx_dal, \
    classes_hyperx_dal, dest, demand, hx_coords, exact, traits_hyperx_dal) \
  X(TorusDor, 17, "dor", Torus, "torus_dor.cuh", route_torus_dor, \
    classes_torus_dor, dest, none, cube_coords, exact, traits_torus_dor) \
  X(TorusValiantDor, 18, "valiant-dor", Torus, "torus_valiant_dor.cuh", route_torus_valiant_dor, \
    classes_torus_valiant_dor, self, none, cube_coords, exact, traits_torus_valiant_dor) \
  X(TorusUgalDor, 19, "ugal-dor", Torus, "torus_valiant_dor.cuh", route_torus_ugal_dor, \
    classes_torus_valiant_dor, self, demand, cube_coords, exact, traits_torus_ugal_dor) \
  X(TorusMinAdapt, 20, "min-adapt", Torus, "torus_min_adapt.cuh", route_torus_min_adapt, \
    classes_torus_min_adapt, dest, none, cube_coords, exact, traits_torus_min_adapt) \
  X(UpDown, 10, "updown", Tree, "updown.cuh", route_updown, \
    classes_table_min, dest, none, none, exact, traits_updown)
