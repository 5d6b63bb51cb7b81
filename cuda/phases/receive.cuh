// Phase 1, receive: flits whose channel delay has elapsed enter input VC buffers (or a node's
// sink, where statistics are recorded at tail arrival); credits return to output VCs and to
// the network interfaces.
#pragma once
#include "../rings.cuh"
#include "../routing/minimal_hops.cuh"
#include "../workload/program.cuh"

namespace flitsim {

// Request-reply (traffic.reply_size): the request whose tail reached node n at cycle t becomes
// its reply, in the same packet slot (so a source's packet slots bound its outstanding
// requests, and the slot is freed only when the reply is back), queued at n's interface, which
// inject.cuh sends before n's own packets. Node n's router writes only n's queue and the packet
// it holds; a wake-up at t makes the inject step of this cycle look at n.
FLITSIM_HD void turn_around(const SimView& __restrict__ s, int rep, int n, int32_t pid, long long k, long long t) {
  const long long ni = s.nn(rep, n);
  ReplyInfo& info = s.pk_reply[k];
  info.origin = s.packets[k].create;
  info.src = n;
  info.next = -1;
  s.packets[k].dst = pid / s.sz.S;  // back to the request's source, the slot's owner
  s.packets[k].size = s.prm.traffic.reply_size;
  s.packets[k].mclass = 1;
  s.packets[k].hops = 0;
  s.packets[k].route = 0;
  s.packets[k].nonminimal = 0;
  s.packets[k].create = t;
  s.packets[k].inject = -1;
  if (s.ni_reply_tail[ni] >= 0) s.pk_reply[s.pk(rep, s.ni_reply_tail[ni])].next = pid;
  else s.ni_reply_head[ni] = pid;
  s.ni_reply_tail[ni] = pid;
  if (s.in_window(info.origin)) s.node_tagged_created[ni] += 1;  // a measured reply: the drain waits for it
  if (s.in_window(t)) atomic_add(&s.rep_sums[(long long)rep * kRepSums + kReplyCreatedFlits], s.prm.traffic.reply_size);
  if (s.sz.bern_N && s.ni_wake_at[ni] > t) s.ni_wake_at[ni] = t;
}

// Request-reply statistics of a measured packet delivered at t with latency lat.
FLITSIM_HD void count_message(const SimView& __restrict__ s, int rep, long long k, long long lat, long long t) {
  long long* sums = &s.rep_sums[(long long)rep * kRepSums];
  const long long top = s.sz.bins - 1, h = (long long)rep * s.sz.bins;
  if (!s.packets[k].mclass) {
    atomic_add(&sums[kRequestLatencySum], lat);
    atomic_add(&sums[kRequestsMeasured], 1);
    atomic_add(&s.req_hist[h + (lat < top ? lat : top)], 1);
    return;
  }
  const long long rtt = t - s.pk_reply[k].origin;
  atomic_add(&sums[kReplyLatencySum], lat);
  atomic_add(&sums[kRoundTripSum], rtt);
  atomic_add(&sums[kRepliesMeasured], 1);
  atomic_add(&s.reply_hist[h + (lat < top ? lat : top)], 1);
  atomic_add(&s.rtt_hist[h + (rtt < top ? rtt : top)], 1);
}

// Traffic classes: the first of packet slot k's class's sums (cls_sums).
FLITSIM_HD long long class_sums_at(const SimView& __restrict__ s, int rep, long long k) {
  return ((long long)rep * s.sz.cls_K + s.packets[k].tclass) * kClassSums;
}

// Traffic classes: a measured packet's statistics in its class's sums and histograms.
FLITSIM_HD void count_class(const SimView& __restrict__ s, int rep, long long k, long long lat, long long nlat, int hops) {
  long long* sums = &s.cls_sums[class_sums_at(s, rep, k)];
  atomic_add(&sums[kClsPackets], 1);
  atomic_add(&sums[kClsLatencySum], lat);
  atomic_add(&sums[kClsNetLatencySum], nlat);
  atomic_add(&sums[kClsHopsSum], hops);
  const long long top = s.sz.bins - 1, h = ((long long)rep * s.sz.cls_K + s.packets[k].tclass) * s.sz.bins;
  atomic_add(&s.cls_lat_hist[h + (lat < top ? lat : top)], 1);
  atomic_add(&s.cls_nlat_hist[h + (nlat < top ? nlat : top)], 1);
}

// A flit reaches node n's sink at cycle t. Measured packets are those created in the window
// (a reply: those whose request was).
FLITSIM_HD void sink_accept(const SimView& __restrict__ s, int rep, int n, flit_t f, long long t) {
  const long long ni = s.nn(rep, n);
  const long long k = s.pk(rep, flit_pid(f));
  s.node_flits_received[ni] += 1;
  if (s.in_window(t)) {
    s.node_ejected_flits[ni] += 1;
    s.node_batch_ejected[s.nb(rep, n, t)] += 1;
    if (s.sz.reply_N && s.packets[k].mclass) atomic_add(&s.rep_sums[(long long)rep * kRepSums + kReplyEjectedFlits], 1);
    if (s.sz.cls_K) atomic_add(&s.cls_sums[class_sums_at(s, rep, k) + kClsEjectedFlits], 1);
  }
  if (!flit_tail(f)) return;
  const long long created = s.packets[k].create;
  const bool reply = s.sz.reply_N && s.packets[k].mclass;
  const long long origin = reply ? s.pk_reply[k].origin : created;  // the request's creation
  if (s.in_window(origin)) {
    const long long lat = t - created, nlat = t - s.packets[k].inject;
    const int hops = s.packets[k].hops;
    long long* sums = &s.rep_sums[(long long)rep * kRepSums];
    atomic_add(&sums[kLatencySum], lat);
    atomic_add(&sums[kNetLatencySum], nlat);
    atomic_add(&sums[kHopsSum], hops);
    if (s.packets[k].nonminimal) atomic_add(&sums[kNonMinimal], 1);
    const int src = reply ? s.pk_reply[k].src : flit_pid(f) / s.sz.S;
    const int extra = hops - minimal_hops(s, s.node_router[src], s.node_router[n]);
    if (extra > 0) atomic_add(&sums[kExtraHops], extra);
    const long long top = s.sz.bins - 1;
    atomic_add(&s.lat_hist[(long long)rep * s.sz.bins + (lat < top ? lat : top)], 1);
    atomic_add(&s.nlat_hist[(long long)rep * s.sz.bins + (nlat < top ? nlat : top)], 1);
    atomic_add(&s.hop_hist[(long long)rep * kHopBins + (hops < kHopBins - 1 ? hops : kHopBins - 1)], 1);
    if (s.sz.reply_N) count_message(s, rep, k, lat, t);
    if (s.sz.cls_K) count_class(s, rep, k, lat, nlat, hops);
    s.node_tagged_delivered[ni] += 1;
    s.node_batch_latency[s.nb(rep, n, origin)] += lat;
    s.node_batch_packets[s.nb(rep, n, origin)] += 1;
  }
  if (s.prm.workload.on) wl_packet_arrived(s, rep, n, k, t);  // the destination's own program
  if (s.sz.reply_N && !reply) {
    turn_around(s, rep, n, flit_pid(f), k, t);  // the slot travels on as the reply
    return;
  }
  store_relaxed(&s.packets[k].free_at, t);  // the source may reuse the slot from cycle t+1 on
}

// One port: its input channel and credit channel (or, `terminal`, its node's sink and interface
// credits), those `what` names (rings.cuh, Arrival): the others hold nothing for cycle t.
// `terminal` comes from the router's terminal mask, which the cycle reads anyway: port_node
// here was a cache miss per credit received (benchmarks/results/layout-decisions.md). `cal`: the
// port's calendar index at cycle t (calendar_index; with the calendar, its ring slots').
FLITSIM_HD void step_receive(const SimView& __restrict__ s, int rep, int gp, long long t, uint8_t what, bool terminal,
                             long long cal) {
  if (what & kArriveFlit) {
    flit_t* in = fring_at(s, rep, ring_in_slot(s, cal, s.port_rings[gp].flits, t));
    if (*in != kNoFlit) {
      const flit_t f = *in;
      *in = kNoFlit;
      const long long q = s.pv(rep, gp, flit_vc(f));
      const int c = s.ivc_count[q];
      if (c < s.sz.B) {
        s.ibuf[q * s.sz.B + add_mod(s.ivc[q].head, c, s.sz.B)] = BufferedFlit::of(f);
        s.ivc_count[q] = c + 1;
        s.port_state[s.pp(rep, gp)].vc_mask |= u64(1) << flit_vc(f);
      } else {  // impossible with correct credits; counted so the run fails loudly
        atomic_add(&s.rep_sums[(long long)rep * kRepSums + kBufferOverflows], 1);
      }
    }
  }
  if (!(what & (kArriveCredit | kArriveEject))) return;
  if (!terminal) {
    int32_t* cr = cring_at(s, rep, ring_in_slot(s, cal, s.port_rings[gp].credits, t));
    if (*cr >= 0) {
      s.ovc[s.pv(rep, gp, *cr)].credits += 1;
      *cr = -1;
    }
    return;
  }
  const int n = s.port_node[gp];
  if (what & kArriveEject) {
    flit_t* ej = ering_at(s, rep, ring_in_slot(s, cal, s.node_rings[n].flits, t));
    if (*ej != kNoFlit) {
      sink_accept(s, rep, n, *ej, t);
      *ej = kNoFlit;
    }
  }
  if (what & kArriveCredit) {
    int32_t* cr = nicring_at(s, rep, ring_in_slot(s, cal, s.node_rings[n].credits, t));
    if (*cr >= 0) {
      s.ni_credits[s.nn(rep, n) * s.sz.V + *cr] += 1;
      *cr = -1;
    }
  }
}

}  // namespace flitsim
