// Runs flitsim's switch or VC allocator (cuda/phases/allocation.cuh) on one router with a
// fixed request matrix, cycle after cycle, and prints what it matched, so that tests can
// check matchings exactly (tests/test_router_allocators.py builds and runs it):
//   g++ -O1 -std=c++17 -I. tests/cpp/allocator_harness.cpp -o /tmp/alloc
//   /tmp/alloc mode=sa alloc=wavefront radix=3 vcs=2 cycles=4 req=0.0>1,0.1>2,1.0>1
// mode=sa: each "i.v>o" is a VC v of input i whose front flit wants output o, forever (an
//   endless packet; every output is a sink, so never short of credits). Each cycle prints
//   "t: i>o/v ..." for the matched (input, output, VC) triples; the match is then cleared as
//   switch traversal would, the flits staying put.
// mode=va: each "i.v>o" is input VC (i, v) routed to output port o, asking for any of its
//   `vcs` output VCs. Each cycle prints "t: i.v>o.w ..." for the VCs allocated, then frees them
//   and lets every input VC ask again.
// Optional: iters=N (router.alloc_iterations), age=1 (router.arbitration = "age"; the packet
// of VC (i, v) was created at cycle ages[i * vcs + v], given as ages=a,b,...), order=reversed
// (every step runs its ports in reverse order: the result must not change), policy=by-hop,
// spec=1 (router.speculative with va_sa = "separate"; in mode=sa an item "i.v>o~" is a head
// that won its output VC in this cycle, "i.v>o?" one that lost it: both bid speculatively),
// input=output (router.sw_input_arbiter = "output": the separable allocators' input stage
// arbitrates among outputs, as BookSim2's iq router).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cuda/phases/allocation.cuh"

using namespace flitsim;

namespace {

struct Ports {  // cycle.cuh's executor interface, in port order or reversed
  int n;
  bool reversed;
  template <class F>
  void each(F&& f) const {
    for (int k = 0; k < n; ++k) f(reversed ? n - 1 - k : k);
  }
  template <class F>
  void each_of(u64 mask, F&& f) const {
    for (int k = 0; k < n; ++k) {
      const int gp = reversed ? n - 1 - k : k;
      if ((mask >> gp) & 1) f(gp);
    }
  }
  template <class F>
  PortSets gather(F&& f) const {
    PortSets sets{0, 0};
    each([&](int gp) {
      const u64 m = f(gp);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << gp;
    });
    return sets;
  }
  template <class F>
  PortSets gather_of(u64 mask, F&& f) const {
    PortSets sets{0, 0};
    each_of(mask, [&](int gp) {
      const u64 m = f(gp);
      sets.outputs |= m;
      if (m) sets.inputs |= u64(1) << gp;
    });
    return sets;
  }
  template <class Row>
  RequestColumns transpose(PortSets sets, Row&& row) const { return transpose_serially(0, sets, row); }
  template <class F>
  void once(F&& f) const { f(); }
};

Allocator allocator_named(const std::string& a) {
  const char* names[] = {"islip", "separable-input-first", "separable-output-first", "wavefront"};
  for (int i = 0; i < 4; ++i)
    if (a == names[i]) return Allocator(i);
  std::fprintf(stderr, "unknown allocator %s\n", a.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> arg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    arg[a.substr(0, a.find('='))] = a.substr(a.find('=') + 1);
  }
  auto num = [&](const char* k, int def) { return arg.count(k) ? std::atoi(arg[k].c_str()) : def; };
  const bool va = arg["mode"] == "va";
  const int radix = num("radix", 2), V = num("vcs", 1), cycles = num("cycles", 1);
  Sizes sz;
  sz.R = 1, sz.P = radix, sz.V = V, sz.B = 4, sz.N = radix * V, sz.S = 1;
  // Storage for every state array (most stay empty-sized zeros), as HostState holds it.
#define FLITSIM_VEC(type, name, count) std::vector<type> name(std::max<long long>(1, (long long)(count)));
  FLITSIM_STATE_ARRAYS(FLITSIM_VEC)
#undef FLITSIM_VEC
  SimView s;
  s.sz = sz;
  s.prm.routing.vc_classes = 1;
  s.prm.router.age_arbitration = num("age", 0) != 0;
  s.prm.router.vc_policy = arg["policy"] == "by-hop" ? VcPolicy::ByHop : VcPolicy::Spread;
  s.prm.router.sa_iterations = s.prm.router.va_iterations = num("iters", 1);
  s.prm.router.speculative = s.prm.router.va_sa_separate = num("spec", 0) != 0;
  s.prm.router.sw_input_by_output = arg["input"] == "output";
  (va ? s.prm.router.vc_allocator : s.prm.router.sw_allocator) = allocator_named(arg["alloc"]);
#define FLITSIM_POINT(type, name, count) s.name = name.data();
  FLITSIM_STATE_ARRAYS(FLITSIM_POINT)
#undef FLITSIM_POINT
#define FLITSIM_INIT(name, value) std::fill(name.begin(), name.end(), value);
  FLITSIM_STATE_INITIAL(FLITSIM_INIT)
#undef FLITSIM_INIT
  port_offset[0] = 0, port_offset[1] = radix;
  std::fill(peer_port.begin(), peer_port.end(), -1);  // sinks: no credits needed
  for (OutputVc& o : ovc) o.credits = sz.B;
  std::vector<int> ages;
  for (size_t p = 0, c; arg.count("ages") && p <= arg["ages"].size(); p = c + 1) {
    c = arg["ages"].find(',', p);
    ages.push_back(std::atoi(arg["ages"].substr(p, c - p).c_str()));
    if (c == std::string::npos) break;
  }
  const std::string req = arg["req"];
  std::vector<long long> won_now;  // speculative heads that win their output VC every cycle
  for (size_t p = 0, c; p < req.size(); p = c + 1) {  // "i.v>o" items
    c = req.find(',', p);
    if (c == std::string::npos) c = req.size();
    const std::string item = req.substr(p, c - p);
    const int i = std::atoi(item.c_str()), v = std::atoi(item.c_str() + item.find('.') + 1),
              o = std::atoi(item.c_str() + item.find('>') + 1);
    const long long q = s.pv(0, i, v);
    port_state[i].vc_mask |= u64(1) << v;
    ivc_count[q] = 1;
    ivc[q].out_port = o;
    ivc[q].out_vc = va || item.back() == '?' ? -1 : 0;
    port_state[i].routed_mask |= u64(1) << v;  // the stage masks the steps visit (state.cuh)
    if (ivc[q].out_vc >= 0) port_state[i].held_mask |= u64(1) << v;
    if (item.back() == '~') won_now.push_back(q);
    ivc[q].vc_lo = 0, ivc[q].vc_hi = V;
    const int pid = i * V + v;
    ibuf[q * sz.B] = BufferedFlit::of(make_flit(pid, 0, true, false));
    packets[pid].create = ages.empty() ? 0 : ages[pid];
    packets[pid].size = 1;
  }
  const Ports ports{radix, arg["order"] == "reversed"};
  const u64 all_ports = radix == 64 ? ~u64(0) : (u64(1) << radix) - 1;  // every port may request
  for (int t = 0; t < cycles; ++t) {
    std::printf("%d:", t);
    if (va) {
      run_vc_allocation(s, 0, 0, t, ports, all_ports);
      for (int gp = 0; gp < radix; ++gp)
        for (int w = 0; w < V; ++w) {
          const int g = ovc[s.pv(0, gp, w)].owner;
          if (g >= 0) std::printf(" %d.%d>%d.%d", g / V, g % V, gp, w);
        }
      for (long long q = 0; q < (long long)ivc.size(); ++q)  // free them: ask again
        if (ivc[q].out_port >= 0) ivc[q].out_vc = -1;
      for (PortState& ps : port_state) ps.held_mask = 0;
      for (OutputVc& o : ovc) o.owner = -1;
    } else {
      for (long long q : won_now) ivc_va_at[q] = t;
      const PortSets sent = run_switch_allocation(s, 0, 0, t, ports, all_ports);
      for (int o = 0; o < radix; ++o) {
        const int i = port_state[o].sa_match;
        if (i < 0) continue;
        std::printf(" %d>%d/%d", i, o, port_state[i].sa_req_vc);
        if (!((sent.outputs >> o) & 1) || !((sent.inputs >> i) & 1) || ivc[s.pv(0, i, port_state[i].sa_req_vc)].out_vc < 0)
          std::printf("!");  // the sets disagree, or a VC without an output VC would send
      }
      for (PortState& ps : port_state) ps.sa_match = ps.sa_req_vc = -1;
    }
    std::printf("\n");
  }
  return 0;
}
