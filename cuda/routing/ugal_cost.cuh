// UGAL-L decision rule (P3 §3.3, TARGETS §3.3 item 1 and §3.4 item 3), shared by the dragonfly
// and table UGAL routings. The source router compares the minimal candidate with n_indirect
// Valiant candidates by the occupancy q of each one's first-hop output port (port_congestion:
// downstream occupancy plus the flits queued here for that port)
// and takes the cheapest; a tie goes to the minimal path. Costs are integers scaled by 256
// (penalty c = penalty_x256 / 256), so CPU and GPU decide identically:
//   routing.cost = "queue"   (P3 generic):  C_M = q_M               C_I = c·q_I + offset
//   routing.cost = "hops"    (P3 SF-A):     C_M = q_M               C_I = c·(L_I/L_M)·q_I + offset
//                                           (compared after multiplying both by L_M)
//   routing.cost = "booksim" (BookSim2):    C_M = q_M               C_I = 2·c·q_I + offset
//                                           (dragonfly ugal: minimal iff q_min <= 2·q_nonmin + 30)
//   routing.cost = "booksim-flatfly" (BookSim2's ugal_flatfly):
//                                           C_M = L_M·q_M           C_I = c·L_I·q_I + offset
//                                           (minimal iff L_M·q_M <= L_I·q_I + 2: the bias unweighted)
// L_M, L_I are the router hop counts of the candidate paths. routing.threshold T (percent,
// 0 = off): while q_M < T% of the port's buffer (V·B flits) the packet goes minimally without
// a comparison (P3 "-ATh").
#pragma once
#include "route_choice.cuh"

namespace flitsim {

FLITSIM_HD bool ugal_below_threshold(const SimView& s, int q_min) {
  return s.prm.routing.threshold_x256 > 0 && 256LL * q_min < s.prm.routing.threshold_x256;
}

// Does the cost rule read hop counts (callers may skip computing them otherwise)?
FLITSIM_HD bool ugal_cost_reads_hops(const SimView& s) {
  return s.prm.routing.ugal_cost == UgalCost::Hops || s.prm.routing.ugal_cost == UgalCost::BookSimFlatfly;
}

FLITSIM_HD long long ugal_min_cost(const SimView& s, int q, int hops_min) {
  return ugal_cost_reads_hops(s) ? 256LL * q * hops_min : 256LL * q;
}

FLITSIM_HD long long ugal_nonmin_cost(const SimView& s, int q, int hops_nonmin, int hops_min) {
  const long long c = s.prm.routing.penalty_x256, off = 256LL * s.prm.routing.ugal_offset;
  switch (s.prm.routing.ugal_cost) {
    case UgalCost::Hops: return c * q * hops_nonmin + off * hops_min;
    case UgalCost::BookSim: return 2 * c * q + off;
    case UgalCost::BookSimFlatfly: return c * q * hops_nonmin + off;
    case UgalCost::Queue:
    default: return c * q + off;
  }
}

// The UGAL family's shape (UGAL-L, UGAL-G, PAR on dragonflies; UGAL-L, UGAL-G on table-routed
// topologies): candidate generation (the routing's minimal candidate and its indirect ones),
// congestion sensing (a sensor: live local queues, or the snapshot's path queues) and the
// selection below, which all of them share. A candidate as its sensor judged it:
struct UgalCandidate {
  int q;     // sensed queue (flits)
  int hops;  // router hops of its whole route (read by the "hops" cost rule only)
  int port;  // the output port it leaves this router on
  int aux;   // the routing's state for it (intermediate, target)
  bool usable = true;  // false: not offered (routing.valiant = "node" drew the source's own router)
};

// Selection: the minimal candidate against routing.n_indirect indirect ones, `indirect(j)`
// generating and sensing the j-th, by the cost rule (ties stay minimal); while the minimal
// queue is below routing.threshold no indirect candidate is generated. Under enumeration
// (route_choice.cuh) either kind may win — the minimal candidate (an empty minimal queue), or
// an indirect one (a full one) — and the first indirect candidate stands for all of them: each
// is drawn from the same set, only with its own salt.
template <class Indirect>
FLITSIM_HD BestChoice ugal_select(const SimView& s, const PacketInfo& p, const UgalCandidate& min,
                                  const Indirect& indirect) {
  BestChoice best;
  if (branching(p)) {
    if (s.prm.routing.n_indirect > 0 && p.branch->take(2) == 1) {
      const UgalCandidate c = indirect(0);
      if (c.usable) best.offer(0, c.port, c.aux, true);
      else best.offer(0, min.port, min.aux, false);  // not offered (valiant = "node"): minimal
    } else {
      best.offer(0, min.port, min.aux, false);
    }
    return best;
  }
  best.offer(ugal_min_cost(s, min.q, min.hops), min.port, min.aux, false);
  if (!ugal_below_threshold(s, min.q))
    for (int j = 0; j < s.prm.routing.n_indirect; ++j) {
      const UgalCandidate c = indirect(j);
      if (c.usable) best.offer(ugal_nonmin_cost(s, c.q, c.hops, min.hops), c.port, c.aux, true);
    }
  return best;
}

}  // namespace flitsim
