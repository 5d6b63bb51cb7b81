// VC and switch allocation of one router in one cycle (phases 4 and 5): which allocator's
// per-port steps run, in which order (router.vc_allocator, router.sw_allocator,
// router.alloc_iterations). `Ports` is cycle.cuh's executor interface; `busy`: the router's
// ports with input VCs in the allocator's stage (cycle.cuh, port_stage: the only ones that can
// request; a request step on another port would request nothing). Allocation steps run
// only for the ports that take part: `gather_of` reduces the masks the request steps return
// into the outputs requested and the inputs requesting (a reduction every thread of the router
// sees), `transpose` turns the requests into "who requests me" per output, and later steps
// run for those ports only.
#pragma once
#include "sw_wavefront.cuh"
#include "switch_alloc.cuh"
#include "vc_alloc.cuh"
#include "vc_alloc_matching.cuh"

namespace flitsim {

// Sets of a router's ports as bits of their local index.
struct PortSets {
  u64 outputs;              // OR of the masks the ports returned
  u64 inputs;               // ports that returned a non-empty mask
  bool one_to_one = false;  // every mask returned has one bit, and no two ports returned the same
};

// Ports sorted into up to kPortClasses classes at once (Ports::classify_of): of[k] holds the
// ports whose classifier flagged class k. A port may be in several classes or none.
constexpr int kPortClasses = 4;
struct PortClasses {
  u64 of[kPortClasses];
};
// The classes one port is in (a classifier's answer): flags, not packed bits, so that the
// serial executor ORs each straight into its mask (packing and unpacking them cost about a
// dozen instructions per port).
struct PortClassFlags {
  bool in[kPortClasses] = {};
};

// A router's request matrix by columns (the grant steps' "who requests me"), built by one
// thread: zeroes the requested columns, then sets a bit per request, O(requests) instead of
// each output scanning every requesting input's row.
struct RequestColumns {
  int p0;
  u64 col[kMaxRadix];
  FLITSIM_HD u64 of(int gp) const { return col[gp - p0]; }
};
template <class Row>
FLITSIM_HD RequestColumns transpose_serially(int p0, PortSets sets, Row&& row) {
  RequestColumns c;
  c.p0 = p0;
  for (u64 m = sets.outputs; m; m &= m - 1) c.col[lowest_bit(m)] = 0;
  for (u64 in = sets.inputs; in; in &= in - 1) {
    const int i = lowest_bit(in);
    for (u64 m = row(p0 + i); m; m &= m - 1) c.col[lowest_bit(m)] |= u64(1) << i;
  }
  return c;
}

template <class Ports>
FLITSIM_HD void run_vc_allocation(const SimView& __restrict__ s, int rep, int r, long long t, const Ports& ports, u64 busy) {
  const Allocator a = s.prm.router.vc_allocator;
  const int iterations = a == Allocator::Wavefront ? 1 : s.prm.router.va_iterations;  // a wavefront is maximal
  for (int it = 0; it < iterations; ++it) {
    if (a == Allocator::SeparableInputFirst) {
      const PortSets va = ports.gather_of(busy, [&](int gp) { return step_va_request(s, rep, r, gp); });
      if (!va.outputs) return;
      const auto va_to = ports.transpose(va, [&](int gp) { return s.port_state[s.pp(rep, gp)].va_request; });
      ports.each_of(va.outputs, [&](int gp) { step_va_grant(s, rep, r, gp, va_to.of(gp)); });
      ports.each_of(va.inputs, [&](int gp) { step_va_accept(s, rep, gp, t); });
      continue;
    }
    const PortSets va = ports.gather_of(busy, [&](int gp) { return step_va_request_all(s, rep, r, gp); });
    if (!va.outputs) return;
    if (a == Allocator::Wavefront)
      ports.each_of(va.outputs, [&](int gp) { step_va_grant_wavefront(s, rep, r, gp, va.inputs, t); });
    else
      ports.each_of(va.outputs, [&](int gp) { step_va_grant_output_first(s, rep, r, gp, va.inputs); });
    ports.each_of(va.inputs, [&](int gp) { step_va_accept_granted(s, rep, gp, t); });
    if (a != Allocator::Wavefront)  // a wavefront grants each input VC at most once: all accepted
      ports.each_of(va.outputs, [&](int gp) { step_va_update(s, rep, r, gp, it, t); });
  }
}

// One switch allocation pass: router.alloc_iterations iterations (one sweep for a
// wavefront), or with `spec` the speculative pass. Returns the outputs matched and the
// inputs matched (a wasted speculative match included: traverse then finds nothing to send).
template <class Ports>
FLITSIM_HD PortSets switch_pass(const SimView& __restrict__ s, int rep, int r, long long t, const Ports& ports, u64 busy,
                               bool spec) {
  if (s.prm.router.sw_allocator == Allocator::Wavefront) {
    const PortSets sa = ports.gather_of(busy, [&](int gp) { return step_sa_request(s, rep, r, gp, 0, t, spec); });
    if (!sa.outputs) return PortSets{0, 0};
    const int radix = s.port_offset[r + 1] - s.port_offset[r], first = int(t % radix);
    PortSets m{0, 0};
    for (int d = 0; d < radix && m.inputs != sa.inputs && (m.outputs & sa.outputs) != sa.outputs; ++d) {
      const int k = first + d < radix ? first + d : first + d - radix;
      const u64 taken = m.outputs;
      // Only the inputs that requested in this pass: an idle input's sa_accept is left from the
      // last cycle it was matched in, and read here it held that output for nobody.
      m = ports.gather_of(sa.inputs, [&](int gp) { return step_sa_wavefront_cell(s, rep, r, gp, k, taken); });
    }
    ports.each_of(m.inputs, [&](int gp) { step_sa_wavefront_vc(s, rep, r, gp, t, spec); });
    ports.each_of(m.outputs, [&](int gp) { step_sa_wavefront_match(s, rep, r, gp, m.inputs); });
    return m;
  }
  PortSets sent{0, 0};
  const int p0 = s.port_offset[r];
  // The speculative pass runs one iteration: a wasted grant idles its output for the cycle.
  const int iterations = spec ? 1 : s.prm.router.sa_iterations;
  for (int it = 0; it < iterations; ++it) {
    const PortSets sa = ports.gather_of(busy, [&](int gp) { return step_sa_request(s, rep, r, gp, it, t, spec); });
    if (!sa.outputs) break;  // nothing left to match: later iterations would change nothing
    PortSets won;
    if (sa.one_to_one) {  // the usual case at low load: no transposition, grant or update step
      won = ports.gather_of(sa.inputs, [&](int gp) { return step_sa_accept_sole(s, rep, r, gp, it, t, spec); });
    } else {
      const auto sa_to = ports.transpose(sa, [&](int gp) { return s.sa_request[s.sp(rep, gp, p0)]; });
      const u64 granted =
          ports.gather_of(sa.outputs, [&](int gp) { return step_sa_grant(s, rep, r, gp, sa_to.of(gp), t, spec); }).outputs;
      won = ports.gather_of(granted, [&](int gp) { return step_sa_accept(s, rep, r, gp, it, t, spec); });
      ports.each_of(won.outputs, [&](int gp) { step_sa_update(s, rep, r, gp, it); });
    }
    sent.outputs |= won.outputs, sent.inputs |= won.inputs;
  }
  return sent;
}

// Returns the outputs matched and the inputs that send, over all passes. With
// router.speculative, heads still VC-allocating bid in a second pass for what the first left:
// non-speculative requests always win over speculative ones. With router.speculation =
// "lowest-priority" they bid in the one pass instead, below the others (switch_alloc.cuh,
// kSpecRequest): an input or output that a non-speculative request lost gets no second chance.
template <class Ports>
FLITSIM_HD PortSets run_switch_allocation(const SimView& __restrict__ s, int rep, int r, long long t, const Ports& ports,
                                          u64 busy) {
  PortSets sent = switch_pass(s, rep, r, t, ports, busy, false);
  if (s.prm.router.speculative && !s.prm.router.spec_lowest_priority) {
    const PortSets more = switch_pass(s, rep, r, t, ports, busy, true);
    sent.outputs |= more.outputs, sent.inputs |= more.inputs;
  }
  return sent;
}

}  // namespace flitsim
