"""DAL on HyperX (issue 33 item 3; routing.algorithm = "dal", cuda/routing/hyperx_dal.cuh):
Duato's condition in check_deadlock (escape VC 0 with DOR, every other VC adaptive) on 2-D,
3-D and non-uniform HyperX, the VCs it needs, delivery of every packet, the hop bound of at
most one deroute per unaligned dimension, minimal routes at low load, gains over DOR under
bit complement, and independence of thread count."""
from pathlib import Path

import numpy as np
import pytest

import flitsim
from flitsim import topology as T
from flitsim.deadlock import check_deadlock, dependency_graph, escape_graph, find_cycle, route_candidates
from conftest import run_engine_script, small_dragonfly
from test_engine import assert_identical


def hx(widths, terminals=1, **keys):
    return {"kind": "hyperx", "widths": widths, "terminals": terminals, **keys}


def config(topo, algorithm="dal", vcs=2, buffer=16, **sections):
    routing = {"algorithm": algorithm, **sections.pop("routing", {})}
    cfg = small_dragonfly(router={"vcs": vcs, "buffer": buffer}, routing=routing, **sections)
    cfg["topology"] = dict(topo)
    return cfg


def run(topo, algorithm="dal", vcs=4, threads=None, **sections):
    return flitsim.run(config(topo, algorithm, vcs, **sections), backend="cpu", threads=threads)


HX4 = hx([4, 4, 4], 4)


@pytest.mark.parametrize("topo", [hx([3, 3]), hx([4, 4, 4]), hx([3, 4, 2]), hx([3, 3], trunking=[1, 2])],
                         ids=lambda t: f'{t["widths"]}{t.get("trunking", "")}')
def test_check_deadlock_applies_duatos_condition_and_refuses_one_vc(topo):
    for vcs in (2, 3):  # one escape VC, every other VC adaptive
        rep = check_deadlock(config(topo, vcs=vcs))
        assert rep.acyclic and rep.classes == 2 and rep.escape_vcs == 1, rep.summary()
        assert "escape sub-network" in rep.summary() and "acyclic" in rep.summary()
    with pytest.raises(ValueError, match=r'router\.vcs: routing "dal" on hyperx needs at least 2 VCs '
                                         r'\(one per deadlock-avoidance class\), got 1'):
        check_deadlock(config(topo, vcs=1))


def test_the_adaptive_vcs_close_cycles_that_the_escape_vc_breaks():
    # Minimal adaptive in any dimension order (and deroutes) close cycles among the adaptive
    # VCs; the escape sub-network, with its indirect dependencies through them, has none.
    cfg = config(hx([3, 3]), vcs=2)
    t = T.build(cfg["topology"])
    cand = route_candidates(cfg, t.num_routers)
    peer = np.asarray(t.peer_port)
    g = dependency_graph(cand, peer, 2)
    adaptive = {u: {w for w in succ if w % 2 == 1} for u, succ in g.items() if u % 2 == 1}
    assert find_cycle(adaptive)
    assert not find_cycle(escape_graph(cand, peer, 2, 1))
    # Deroutes are candidates: some adaptive hop leaves a router for a neighbour that is not
    # the destination's coordinate while the packet still differs there (the same hop count).
    assert int(np.sum(cand["out_vc_lo"] == 1)) > 0
    # Without deadlock avoidance (one class) every VC is adaptive: the plain check, a cycle.
    cfg["routing"]["deadlock_avoidance"] = False
    rep = check_deadlock(cfg)
    assert not rep.acyclic and rep.escape_vcs == 0


def test_routes_are_minimal_at_low_load_as_dor():
    # Load 0.01, default bias (4 flits): a deroute needs a minimal output H·q heavier than
    # (H + 1)·(q' + 4), which an almost empty network never offers; the mean hop count is DOR's.
    kw = dict(traffic={"load": 0.01, "packet_size": 4}, sim={"warmup": 500, "measure": 4000})
    dal, dor = run(HX4, **kw), run(HX4, "dor", vcs=4, **kw)
    assert dal.packets_measured == dal.packets_tagged > 500
    assert dal.nonminimal_fraction < 0.005
    assert abs(dal.hops_mean - dor.hops_mean) < 0.01 * dor.hops_mean


def _bc(algorithm, load, drain_limit):
    return run(HX4, algorithm, vcs=8, traffic={"pattern": "bitcomp", "load": load, "packet_size": 4},
               sim={"warmup": 1000, "measure": 1500, "drain_limit": drain_limit})


def test_bit_complement_derouted_within_two_hops_per_dimension_and_beats_dor():
    # Bit complement on 4x4x4 with 4 terminals: every packet differs in all 3 coordinates, so
    # each takes 3 to 6 hops (at most one deroute per dimension). Minimal routes alone carry at
    # most 1/T = 0.25 (each router's 3 minimal channels carry its 4 terminals' 3 hops each), so
    # at load 0.28 packets must deroute, and all of them arrive.
    r = _bc("dal", 0.28, 5000)
    h = r.hop_hist
    assert h[:3].sum() == 0 and h[7:].sum() == 0 and h[6] > 0, h[:8]
    assert r.packets_measured == r.packets_tagged and r.drained  # every packet delivered
    assert r.nonminimal_fraction > 0.3 and r.extra_hops_mean > 0.3
    # Full load: DOR's bound is 1/T; DAL deroutes around it.
    dal, dor = _bc("dal", 1.0, 1), _bc("dor", 1.0, 1)
    assert abs(dor.accepted - 0.25) < 0.02
    assert dal.accepted > dor.accepted + 0.04, (dal.accepted, dor.accepted)


@pytest.mark.parametrize("topo,load", [(hx([8], 2), 0.6), (hx([4, 4], 4), 0.28), (hx([4, 2, 4], 2), 0.4)],
                         ids=lambda v: str(v["widths"]) if isinstance(v, dict) else str(v))
def test_every_packet_differing_in_every_dimension_takes_n_to_2n_hops(topo, load):
    # Bit complement with even widths: every packet differs in all N coordinates, so each
    # takes N to 2N hops (one deroute at most per dimension). The load is above what minimal
    # routes alone carry (1-D: 1/T; 2-D and 3-D: 1/T per dimension's one minimal channel), so
    # packets deroute, and below DAL's saturation, so all of them arrive.
    r = run(topo, vcs=8, traffic={"pattern": "bitcomp", "load": load, "packet_size": 4},
            sim={"warmup": 500, "measure": 1500, "drain_limit": 5000})
    N, h = len(topo["widths"]), r.hop_hist
    assert h[:N].sum() == 0 and h[2 * N + 1:].sum() == 0 and h[N + 1:].sum() > 0, h[:8]
    if min(topo["widths"]) > 2:  # (a dimension of width 2 has no other coordinate to deroute to)
        assert h[2 * N] > 0
    assert r.packets_measured == r.packets_tagged and r.drained


def test_no_deadlock_and_the_hop_bound_with_long_packets_and_short_buffers():
    # Long packets in short buffers at full load: heads wait for room (the escape VC takes
    # over); the watchdog raises on a deadlock (no flit moving for 300 cycles); every route
    # stays within 2N hops.
    for topo, vcs in ((hx([3, 4, 2], 2), 2), (hx([3, 3], 2, trunking=[1, 2]), 3)):
        for pattern in ("uniform", "bitcomp"):
            r = run(topo, vcs=vcs, buffer=8, traffic={"pattern": pattern, "load": 1.0, "packet_size": 6},
                    sim={"warmup": 200, "measure": 800, "watchdog": 300, "drain_limit": 1})
            D = len(topo["widths"])
            assert r.hop_hist[2 * D + 1:].sum() == 0 and r.accepted > 0.2, (topo, pattern, r.accepted)


def test_thread_count_independent():
    kw = dict(traffic={"pattern": "bitcomp", "load": 0.5, "packet_size": 2}, sim={"warmup": 100, "measure": 300})
    assert_identical(run(hx([3, 3], 2), threads=1, **kw), run(hx([3, 3], 2), threads=2, **kw))


SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
from test_hyperx_dal import step_order_case
print(json.dumps(step_order_case()))
"""


def step_order_case():
    r = run(hx([4, 4], 2), vcs=3, threads=1, traffic={"pattern": "bitcomp", "load": 0.8, "packet_size": 3},
            sim={"warmup": 200, "measure": 600})
    return {"accepted": r.accepted, "latency_sum": int(r.latency_sum), "hops_sum": int(r.hops_sum),
            "nonminimal": int(r.nonminimal_packets), "channel_flits": np.asarray(r.channel_flits).tolist()}


@pytest.mark.parametrize("order", ["reversed", "warp:5"])
def test_rerouting_and_deroute_state_are_independent_of_step_order(order):
    # Waiting heads are routed again from the output VCs' owners and credits, and a deroute
    # enters the packet state at the next router: any router order, and the warp executor of
    # the CUDA schedules, must give the same run.
    script = SCRIPT.format(here=str(Path(__file__).parent))
    runs = [run_engine_script(script, order=o) for o in (None, order)]
    assert runs[0] == runs[1] and runs[0]["accepted"] > 0 and runs[0]["nonminimal"] > 0


def test_express_meshes_and_keys_it_does_not_read_are_refused():
    with pytest.raises(ValueError, match=r'routing\.algorithm: "dal" needs every HyperX dimension fully connected'):
        run(hx([6], 2, gap=2))
    with pytest.raises(ValueError, match=r"routing\.deroutes"):
        run(hx([3, 3]), routing={"deroutes": 1})


def test_sensing_and_offset_reach_its_choice():
    # routing.sensing = "class" weighs the adaptive VCs only, routing.offset the deroutes' bias:
    # each changes decisions under bit complement (different histories), none breaks the bound.
    kw = dict(traffic={"pattern": "bitcomp", "load": 0.3, "packet_size": 4}, sim={"warmup": 300, "measure": 800})
    base = run(HX4, **kw)
    for routing in ({"sensing": "class"}, {"offset": 0}):
        other = run(HX4, routing=routing, **kw)
        assert other.hop_hist[7:].sum() == 0
        assert not np.array_equal(base.latency_hist, other.latency_hist), routing
    assert run(HX4, routing={"sensing": "port", "offset": 4}, **kw).latency_hist.tolist() == base.latency_hist.tolist()


def test_dcr_any_dimension_order_against_dimwar_on_the_study_router():
    # docs/routing.md's table (analysis/hyperx_dal_table.py): under DCR on the quick HyperX
    # study network DimWAR's dimension order is stuck near 1/(W·T) territory, while DAL, free
    # in its dimension order, reaches close to the bisection bound of 0.5.
    def accepted(algorithm):
        cfg = {"topology": {"kind": "hyperx", "widths": [4, 4, 4], "terminals": 4},
               "router": {"preset": "hyperx-paper"}, "channels": {"latency": 50, "terminal": 5},
               "routing": {"algorithm": algorithm},
               "traffic": {"pattern": "dcr", "load": 1.0, "packet_sizes": [1, 16]},
               "sim": {"warmup": 2000, "measure": 2000, "seed": 1, "drain_limit": 1}}
        return flitsim.run(cfg, backend="cpu").accepted
    dal, dimwar = accepted("dal"), accepted("dimwar")
    assert 0.45 < dal <= 0.5 + 0.01 and dimwar < 0.2 and dal > 2.5 * dimwar, (dal, dimwar)
