// Length in router hops of the minimal route between two routers, as the topology's minimal
// routing defines it (dragonfly: local-global-local over the pair's best link; others: the
// all-pairs distance table). Sinks compare it with the hops a packet took: the difference is
// its deroutes (extra hops).
#pragma once
#include "dragonfly_links.cuh"

namespace flitsim {

FLITSIM_HD int minimal_hops(const SimView& s, int from, int to) {
  if (s.sz.df_a) {
    if (from / s.sz.df_a == to / s.sz.df_a) return df_local_dist(s, from, to);
    return df_min_hops(s, from, to);
  }
  return s.sz.dist_R ? s.dist[(long long)from * s.sz.dist_R + to] : 0;
}

}  // namespace flitsim
