// The traffic pattern registry: every destination rule and every traffic.pattern name, declared
// once. The PatternKind enum (state.cuh), the device dispatch (pattern_rank, patterns.cuh) and
// the host's pattern table (host/init/traffic_choice.cpp, _core.patterns(), read by config.py)
// derive from this list, so a kind cannot lack its device case or its host entry.
//
// X(Kind, id, name, rule, setup, dims)
//   Kind   PatternKind enumerator; id its stable value (recorded nowhere, kept for logs)
//   name   the traffic.pattern value; "" for a device rule that another pattern's setup selects
//          (setup_none: nothing to set up on its own)
//   rule   device function (const PatternArgs&) -> destination rank, in patterns.cuh
//   setup  host function (PatternContext&) in host/init/traffic_choice.cpp: checks the topology and
//          keys, sets the rule's SimParams and tables; prm.traffic.pattern is already Kind (a setup may
//          pick another kind, e.g. a variant of its rule)
//   dims   reads traffic.dims: dims | no_dims
//
// Adding a pattern: its rule in patterns.cuh (or an existing rule, e.g. rule_table for a
// fixed rank map computed by its setup), its setup in host/init/traffic_choice.cpp, one line here.
// The host table keeps this order (traffic.pattern's list of names).
#pragma once

#define FLITSIM_PATTERNS(X)                                                        \
  X(Uniform, 0, "uniform", rule_uniform, setup_uniform, no_dims)                   \
  X(BitComp, 1, "bitcomp", rule_bitcomp, setup_bitcomp, no_dims)                   \
  X(BitRev, 2, "bitrev", rule_bitrev, setup_bitrev, no_dims)                       \
  X(Transpose, 3, "transpose", rule_transpose, setup_transpose, no_dims)           \
  X(Shuffle, 4, "shuffle", rule_shuffle, setup_shuffle, no_dims)                   \
  X(Tornado, 5, "tornado", rule_shift, setup_tornado, no_dims)                     \
  X(Neighbor, 6, "neighbor", rule_shift, setup_neighbor, no_dims)                  \
  X(RandPerm, 7, "randperm", rule_table, setup_randperm, no_dims)                  \
  X(Shift, 8, "shift", rule_shift, setup_shift, no_dims)                           \
  X(GroupShift, 9, "group-shift", rule_shift, setup_group_shift, no_dims)          \
  X(WorstCase, 11, "worst-case", rule_table, setup_worst_case, no_dims)            \
  X(Urb, 12, "urb", rule_urb, setup_urb, dims)                                     \
  X(Swap2, 13, "swap2", rule_table, setup_swap2, dims)                             \
  X(Dcr, 14, "dcr", rule_table, setup_dcr, no_dims)                                \
  X(Hotspot, 10, "hotspot", rule_hotspot, setup_hotspot, no_dims)                 \
  X(UniformSelf, 15, "", rule_uniform_self, setup_none, no_dims)                   \
  X(BadDragon, 16, "bad-dragon", rule_bad_dragon, setup_bad_dragon, no_dims)      \
  X(CubeMap, 17, "", rule_table, setup_none, no_dims)
