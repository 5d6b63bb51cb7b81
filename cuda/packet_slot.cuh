// Packet slots: a node's packets in flight live in its S slots of the packet table (packet id =
// node·S + slot). Sources take slots in order; a sink releases one by writing the cycle it
// freed it, and the source may reuse it from the next cycle on (either side of that same-cycle
// race gives the same decision, so results do not depend on thread timing).
#pragma once
#include "flit.cuh"
#include "state.cuh"

namespace flitsim {

// Node n's next slot if it is free at cycle t, else −1 (the caller waits and counts a stall).
FLITSIM_HD int32_t free_slot(const SimView& s, int rep, int n, long long t) {
  const int32_t pid = n * s.sz.S + s.ni_next_slot[s.nn(rep, n)];
  return load_relaxed(&s.packets[s.pk(rep, pid)].free_at) < t ? pid : -1;
}

// Fills the packet-table entry of `pid` (from free_slot) and makes it node n's current packet.
FLITSIM_HD void begin_packet(const SimView& s, int rep, int n, int32_t pid, int dst, int size,
                             long long created) {
  const long long ni = s.nn(rep, n), k = s.pk(rep, pid);
  s.ni_next_slot[ni] = next_mod(s.ni_next_slot[ni], s.sz.S);
  s.packets[k].free_at = kSlotBusy;
  s.packets[k].dst = dst;
  s.packets[k].size = size;
  s.packets[k].hops = 0;
  s.packets[k].route = 0;
  s.packets[k].nonminimal = 0;
  s.packets[k].mclass = 0;  // a request (the slot may have come back as a reply)
  s.packets[k].tclass = 0;  // traffic class: the Bernoulli source sets its own (phases/inject.cuh)
  s.packets[k].create = created;
  s.packets[k].inject = -1;
  s.ni_pid[ni] = pid;
  s.ni_sent[ni] = 0;
  s.ni_vc[ni] = -1;
}

}  // namespace flitsim
