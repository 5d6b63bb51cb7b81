"""router.sw_allocator, router.vc_allocator and router.alloc_iterations (issue 12).

Exact matchings come from tests/cpp/allocator_harness.cpp, which runs the engine's own
allocator steps (cuda/phases/allocation.cuh) on one router with a fixed request matrix; the
rest runs whole simulations: every allocator on every corpus topology and routing, and
bit-identical results across threads and step orders."""
import copy
import itertools
import json
import os
import random
import subprocess

import pytest

import corpus
import flitsim
from conftest import build_cpp_harness, small_dragonfly, run_engine_script
from flitsim.runner import simulate_raw

ALLOCATORS = ["islip", "separable-input-first", "separable-output-first", "wavefront"]
FULL_2X2 = "0.0>0,0.1>1,1.0>0,1.1>1"  # each input has a VC for each output


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    exe = build_cpp_harness(tmp_path_factory, "allocator_harness")

    def run(mode, alloc, req, radix=2, vcs=2, cycles=1, **opts):
        args = [str(exe), f"mode={mode}", f"alloc={alloc}", f"req={req}", f"radix={radix}", f"vcs={vcs}",
                f"cycles={cycles}"] + [f"{k}={v}" for k, v in opts.items()]
        out = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60).stdout
        cycles_out = []
        for line in out.splitlines():
            items = line.split(":", 1)[1].split()
            assert not any(i.endswith("!") for i in items), line  # the sets the executor gets agree
            cycles_out.append(items)
        return cycles_out
    return run


def sa_pairs(items):
    """[(input, output, vc)] of one cycle's switch matching."""
    out = []
    for it in items:
        io, v = it.split("/")
        i, o = io.split(">")
        out.append((int(i), int(o), int(v)))
    return out


@pytest.mark.parametrize("alloc", ["islip", "separable-input-first", "separable-output-first"])
def test_one_iteration_on_a_full_2x2_matrix_matches_one_then_desynchronises_to_two(alloc, harness):
    # All pointers start at 0: both inputs aim at output 0 first, one wins. Pointers move only
    # on success, so the loser keeps its aim while the winner moves on: from the second
    # cycle the two inputs aim at different outputs and both match every cycle (2C − 1 in C
    # cycles). Pointers that moved on every grant would stay in step: one match a cycle.
    cycles = harness("sa", alloc, FULL_2X2, cycles=8)
    assert [len(c) for c in cycles] == [1] + [2] * 7
    # Fair: each (input, output) pair gets half of the cycles after the first.
    pairs = [(i, o) for c in cycles[1:] for i, o, _ in sa_pairs(c)]
    assert sorted(pairs.count(p) for p in itertools.product(range(2), range(2))) == [3, 3, 4, 4]


@pytest.mark.parametrize("alloc", ["islip", "separable-input-first", "separable-output-first"])
def test_two_iterations_fill_the_full_2x2_matrix_from_the_first_cycle(alloc, harness):
    assert [len(c) for c in harness("sa", alloc, FULL_2X2, cycles=4, iters=2)] == [2, 2, 2, 2]


def test_wavefront_matches_the_full_2x2_matrix_completely_every_cycle(harness):
    assert [len(c) for c in harness("sa", "wavefront", FULL_2X2, cycles=4)] == [2, 2, 2, 2]


def random_requests(rng, radix, vcs):
    items = []
    for i in range(radix):
        for v in range(vcs):
            if rng.random() < 0.5:
                items.append(f"{i}.{v}>{rng.randrange(radix)}")
    return items


def is_maximal(requests, matching):
    """No unmatched input holds a request for an unmatched output."""
    ins = {i for i, _, _ in matching}
    outs = {o for _, o, _ in matching}
    return all(i in ins or o in outs for i, o in requests)


def test_wavefront_always_finds_a_maximal_matching_and_separable_sometimes_not(harness):
    rng = random.Random(5)
    separable_misses = 0
    for trial in range(25):
        radix, vcs = rng.randint(2, 6), rng.randint(1, 3)
        items = random_requests(rng, radix, vcs)
        if not items:
            continue
        req = {(int(s.split(".")[0]), int(s.split(">")[1])) for s in items}
        vc_of = {(int(s.split(".")[0]), int(s.split(".")[1].split(">")[0])): int(s.split(">")[1]) for s in items}
        for c in harness("sa", "wavefront", ",".join(items), radix=radix, vcs=vcs, cycles=radix):
            m = sa_pairs(c)
            assert is_maximal(req, m), (items, c)
            assert len({i for i, _, _ in m}) == len(m) == len({o for _, o, _ in m})
            assert all(vc_of[(i, v)] == o for i, o, v in m)  # the VC sent wants that output
        for c in harness("sa", "separable-input-first", ",".join(items), radix=radix, vcs=vcs, cycles=1):
            separable_misses += not is_maximal(req, sa_pairs(c))
    assert separable_misses > 0  # the check can fail: one-iteration separable is not maximal


def test_wavefront_priority_diagonal_rotates_every_cycle(harness):
    # Two inputs want output 0 only: the diagonal through cell (t mod 2, 0) has priority in
    # cycle t, so the inputs alternate; with age arbitration too (the wavefront's priority is
    # positional), while the other allocators give it to the older packet every time.
    for age in (0, 1):
        got = harness("sa", "wavefront", "0.0>0,1.0>0", vcs=1, cycles=4, age=age, ages="5,3")
        assert [sa_pairs(c)[0][0] for c in got] == [0, 1, 0, 1]
    for alloc in ["islip", "separable-input-first", "separable-output-first"]:
        got = harness("sa", alloc, "0.0>0,1.0>0", vcs=1, cycles=4, age=1, ages="5,3")
        assert [sa_pairs(c)[0][0] for c in got] == [1, 1, 1, 1]
        got = harness("sa", alloc, "0.0>0,1.0>0", vcs=1, cycles=4)
        assert [sa_pairs(c)[0][0] for c in got] == [0, 1, 0, 1]


@pytest.mark.parametrize("alloc", ["separable-input-first", "separable-output-first"])
def test_separable_input_stage_picks_a_vc_or_an_output(alloc, harness):
    # One input whose VCs 0, 1, 2 want output 0 and VC 3 output 1 (endless packets, sinks).
    # input=vc (Dally & Towles' v:1 arbiter): the VC pointer visits the four VCs in turn, so
    # output 0 gets three cycles of four. input=output (BookSim2's iq router: one request per
    # input and output): the input's arbiter alternates the two outputs, and output 0's VC is
    # the one nearest after the VC pointer, which VC 3's turn sets back to 0.
    req, kw = "0.0>0,0.1>0,0.2>0,0.3>1", dict(radix=2, vcs=4, cycles=4)
    assert [sa_pairs(c) for c in harness("sa", alloc, req, **kw)] == [[(0, 0, 0)], [(0, 0, 1)], [(0, 0, 2)], [(0, 1, 3)]]
    assert [sa_pairs(c) for c in harness("sa", alloc, req, input="output", **kw)] == [[(0, 0, 0)], [(0, 1, 3)]] * 2
    # With age arbitration both input stages pick the oldest packet's VC.
    ages = dict(age=1, ages="4,2,3,1,0,0,0,0")
    assert harness("sa", alloc, req, input="output", **ages, **kw) == harness("sa", alloc, req, **ages, **kw)


@pytest.mark.parametrize("alloc", ALLOCATORS)
def test_matchings_do_not_depend_on_the_order_ports_run_a_step(alloc, harness):
    rng = random.Random(11)
    for _ in range(6):
        items = ",".join(random_requests(rng, 5, 3)) or "0.0>1"
        for mode in ("sa", "va"):
            kw = dict(radix=5, vcs=3, cycles=6, iters=2)
            assert harness(mode, alloc, items, **kw) == harness(mode, alloc, items, order="reversed", **kw)


def va_sizes(cycles):
    return [len(c) for c in cycles]


def test_vc_allocators_on_two_input_vcs_sharing_an_output_port(harness):
    # Input VCs (0, 0) and (1, 0) both route to port 0, which has two free VCs. Input-first:
    # both ask for the VC with the most credits, VC 0 (ties: the lowest): one allocation per
    # cycle. Output-first and islip: both output VCs grant (0, 0) at first, which keeps one;
    # the unaccepted grant's pointer stays, so from the next cycle they grant different VCs.
    # A second iteration, or a wavefront (maximal), allocates both from the start.
    req = "0.0>0,1.0>0"
    assert va_sizes(harness("va", "separable-input-first", req, cycles=4)) == [1, 1, 1, 1]
    for alloc in ("separable-output-first", "islip"):
        assert va_sizes(harness("va", alloc, req, cycles=4)) == [1, 2, 2, 2]
        assert va_sizes(harness("va", alloc, req, cycles=4, iters=2)) == [2, 2, 2, 2]
    assert va_sizes(harness("va", "wavefront", req, cycles=4)) == [2, 2, 2, 2]
    # by-hop: each input VC asks for one VC only, whatever the allocator: one per cycle.
    for alloc in ALLOCATORS:
        assert va_sizes(harness("va", alloc, req, cycles=3, policy="by-hop")) == [1, 1, 1]


def test_vc_wavefront_is_maximal_and_a_matching(harness):
    rng = random.Random(3)
    for _ in range(20):
        radix, vcs = rng.randint(2, 4), rng.randint(1, 4)
        items = random_requests(rng, radix, vcs) or ["0.0>0"]
        for c in harness("va", "wavefront", ",".join(items), radix=radix, vcs=vcs, cycles=radix * vcs):
            got = [tuple(map(int, x.replace(">", ".").split("."))) for x in c]  # i, v, port, w
            assert len({(i, v) for i, v, _, _ in got}) == len(got) == len({(p, w) for _, _, p, w in got})
            for s in items:  # an input VC without a VC means every VC of its port is taken
                i, v, p = int(s.split(".")[0]), int(s.split(".")[1].split(">")[0]), int(s.split(">")[1])
                assert (i, v) in {(a, b) for a, b, _, _ in got} or sum(q == p for _, _, q, _ in got) == vcs


@pytest.mark.parametrize("alloc", ALLOCATORS)
def test_non_speculative_requests_win_over_speculative_ones(alloc, harness):
    # Input 0 is ready for output 1; input 1 won its output VC this cycle (speculative) and
    # wants output 1 too: it never gets it, whatever the pointers; its bid for free output 2
    # (input 2, also speculative) would: input 2 gets output 2 every cycle.
    got = harness("sa", alloc, "0.0>1,1.0>1~,2.0>2~", radix=3, vcs=1, cycles=4, spec=1)
    assert [sorted(sa_pairs(c)) for c in got] == [[(0, 1, 0), (2, 2, 0)]] * 4
    # Without it (and with same-cycle allocation) all three are ordinary requests: inputs 0
    # and 1 share output 1 (round-robin: in turn; the wavefront: by its rotating diagonal).
    got = harness("sa", alloc, "0.0>1,1.0>1~,2.0>2~", radix=3, vcs=1, cycles=4)
    winners = [i for c in got for i, o, _ in sa_pairs(c) if o == 1]
    assert winners == ([1, 0, 1, 1] if alloc == "wavefront" else [0, 1, 0, 1])


@pytest.mark.parametrize("alloc", ["islip", "separable-input-first", "separable-output-first"])
def test_a_speculative_grant_to_a_head_that_lost_its_vc_is_wasted(alloc, harness):
    # Input 1 lost its VC allocation, input 2 won it; both bid for output 1. A grant to
    # input 1 sends nothing (the harness flags any send from a VC without an output VC) but
    # moves the pointers, so the output alternates: idle, input 2, idle, input 2.
    got = harness("sa", alloc, "1.0>1?,2.0>1~", radix=3, vcs=1, cycles=4, spec=1)
    assert [sa_pairs(c) for c in got] == [[], [(2, 1, 0)], [], [(2, 1, 0)]]


# Whole simulations ------------------------------------------------------------------------

def two_routers(router, packet_size, load=1.0):
    """Two routers, one node each, one VC: every packet takes the same path."""
    return {"topology": {"kind": "hyperx", "widths": [2], "terminals": 1},
            "router": {"vcs": 1, "buffer": 32, "latency": 1, **router}, "channels": {"latency": 1},
            "routing": {"algorithm": "dor"}, "traffic": {"pattern": "uniform", "load": load, "packet_size": packet_size},
            "sim": {"warmup": 500, "measure": 2000, "seed": 3}}


@pytest.mark.parametrize("alloc", ALLOCATORS)
def test_speculation_restores_the_vc_turnaround_and_the_cycle_separate_allocation_costs(alloc):
    # With va_sa = "separate" one VC moves S flits every S + 1 cycles (test_router_model); a
    # head that wins its VC bids for the switch in the same cycle when speculative, and with
    # nothing else bidding it always gets it: a flit every cycle, and the zero-load latency of
    # same-cycle allocation, (S−1) + 2·Lt + (H+1)·Lr + Σ Lc, exactly.
    S = 3
    keys = {"va_sa": "separate", "sw_allocator": alloc, "vc_allocator": alloc}
    r = flitsim.run(two_routers({**keys, "speculative": True}, S), backend="cpu", threads=1)
    assert r.ejected_flits / (2 * 2000) > 0.97
    r = flitsim.run(two_routers(keys, S), backend="cpu", threads=1)
    assert r.ejected_flits / (2 * 2000) == pytest.approx(S / (S + 1), abs=0.01)
    Lt, Lr, Lc = 2, 1, 3
    cfg = small_dragonfly(router={"latency": Lr, "speculative": True, **keys},
                          channels={"terminal": Lt, "local": Lc, "global": Lc},
                          traffic={"load": 0.0015, "packet_size": S}, sim={"warmup": 0, "measure": 4000})
    r = flitsim.run(cfg, backend="cpu", threads=1)
    assert r.packets_measured >= 100
    assert r.latency_sum == r.packets_measured * ((S - 1) + 2 * Lt + Lr) + r.hops_sum * (Lr + Lc)


def test_speculative_needs_separate_allocation():
    with pytest.raises(ValueError, match=r'router.speculative: needs router.va_sa = "separate"'):
        flitsim.run(two_routers({"speculative": True}, 1), backend="cpu")


@pytest.mark.parametrize("alloc", ALLOCATORS)
@pytest.mark.parametrize("name", sorted(corpus.CASES))
def test_every_allocator_runs_every_corpus_topology_and_routing(name, alloc):
    cfg, loads = copy.deepcopy(corpus.CASES[name])
    cfg["router"] = {**cfg.get("router", {}), "sw_allocator": alloc, "vc_allocator": alloc}
    priorities = {c.get("priority", 0) for c in cfg.get("traffic", {}).get("class", [])}
    if alloc == "wavefront" and len(priorities) > 1:  # it arbitrates by position: refused, named
        with pytest.raises(ValueError, match=r"router.sw_allocator: \"wavefront\""):
            flitsim.run(cfg, backend="cpu", threads=1)
        return
    results = flitsim.run_replicas(cfg, loads) if loads else [flitsim.run(cfg, backend="cpu", threads=1)]
    for r in results:  # the engine checks flit and credit conservation at the end of every run
        assert r.packets_measured > 0 and r.ejected_flits > 0
        if r.drained:
            assert r.packets_measured == r.packets_tagged


SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
import flitsim
from conftest import small_dragonfly
out = {{}}
for sw, va, extra in {combos!r}:
    r = flitsim.run(small_dragonfly(router={{"vcs": 3, "sw_allocator": sw, "vc_allocator": va, "alloc_iterations": 2,
                                             **extra}}, traffic={{"load": 0.7, "packet_size": 2}}, sim={sim!r}),
                    backend="cpu", threads={threads})
    out[sw + "/" + va + "/" + str(extra)] = [r.ejected_flits, r.latency_sum, r.hops_sum, r.packets_measured]
print(json.dumps(out))
"""


# Each allocator as both, with round-robin and age arbitration, and speculative, and two mixed pairs.
SPECULATIVE = {"va_sa": "separate", "speculative": True}
COMBOS = [(a, a, extra) for a in ALLOCATORS for extra in ({}, {"arbitration": "age"}, SPECULATIVE)] + [
    ("wavefront", "separable-output-first", {}), ("separable-input-first", "islip", {})]


def run_all(order=None, threads=1, sim=None):
    script = SCRIPT.format(here=os.path.dirname(__file__), combos=COMBOS, threads=threads, sim=sim or {})
    return run_engine_script(script, threads, order)


def test_allocators_are_bit_identical_across_threads_and_step_orders():
    base = run_all()
    assert len({json.dumps(v) for v in base.values()}) >= 10  # the allocators change the results
    assert run_all(threads=2) == base
    assert run_all(order="shuffled:1") == base
    # On the emulated warp (the block-type CUDA schedules' executor, ~30x slower): a shorter run.
    short = {"warmup": 100, "measure": 250}
    assert run_all(order="warp:1", sim=short) == run_all(sim=short)


def test_alloc_iterations_sets_both_allocators_and_sa_iterations_only_the_switch():
    def run(**router):
        r = flitsim.run(corpus.CASES["df-min"][0] | {"router": {"vcs": 4, "buffer": 4, "latency": 1, **router}},
                        backend="cpu", threads=1)
        return (r.ejected_flits, r.latency_sum)
    base = run()
    assert run(alloc_iterations=1) == base
    assert run(sa_iterations=2) != base
    assert run(alloc_iterations=2) == run(alloc_iterations=2, sa_iterations=2)  # sa_ defaults to alloc_
    assert run(alloc_iterations=2) != run(sa_iterations=2)  # the VC allocator iterates too
    assert run(alloc_iterations=2, sa_iterations=1) != base  # ... and only it, here


def test_booksim_preset_uses_separable_input_first_allocators_and_keys_override_it():
    def run(**router):
        cfg = corpus.CASES["df-min"][0] | {"router": {"vcs": 3, "buffer": 4, "latency": 1, "preset": "booksim", **router}}
        r = flitsim.run(cfg, backend="cpu", threads=1)
        return (r.ejected_flits, r.latency_sum)
    sif = "separable-input-first"
    assert run() == run(sw_allocator=sif, vc_allocator=sif, alloc_iterations=1)
    assert run() != run(sw_allocator="islip")  # the preset's switch allocator is not iSLIP
    # ... and its input stage arbitrates among outputs, as BookSim2's (test_separable_input_stage_...)
    assert run() == run(sw_input_arbiter="output") != run(sw_input_arbiter="vc")


@pytest.mark.parametrize("key", ["sw_allocator", "vc_allocator"])
def test_bad_allocator_names_are_refused_with_the_choices_by_python_and_the_engine(key):
    cfg = {"topology": {"kind": "hyperx", "widths": [2], "terminals": 1}, "router": {key: "maximum"}}
    with pytest.raises(flitsim.config.ConfigError, match=f"router.{key}.*islip, separable-input-first, "
                                                         "separable-output-first, wavefront"):
        flitsim.run(cfg, backend="cpu")
    raw = flitsim.config.normalize({"topology": cfg["topology"]})
    raw["router"][key] = "pim"  # past Python's check: the engine's own
    with pytest.raises(ValueError, match=f'router.{key}: must be "islip", "separable-input-first", '
                                         '"separable-output-first" or "wavefront", got "pim"'):
        simulate_raw(raw, backend="cpu")
    assert flitsim.config.ALLOCATORS == tuple(ALLOCATORS)
