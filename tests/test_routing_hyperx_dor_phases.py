"""Valiant and UGAL-L with dimension-ordered phases on HyperX (routing.algorithm = "valiant-dor",
"ugal-dor"; BookSim2's valiant_flatfly and ugal_flatfly) and the options that came with them:
routing.valiant = "differing-dims", routing.cost = "booksim-flatfly", routing.congestion =
"downstream" (cuda/routing/hyperx_valiant_dor.cuh, docs/routing.md). Routes are checked on the
engine's own candidate enumeration (flitsim.deadlock.route_candidates), decisions against the
definitions of the cost rules."""
import math

import numpy as np
import pytest

import flitsim
from flitsim import topology
from flitsim.deadlock import check_deadlock, route_candidates

HX3 = {"kind": "hyperx", "widths": [3, 3, 3], "terminals": 2}


def cfg_for(topo, routing, vcs=2, **sections):
    cfg = {"topology": topo, "router": {"vcs": vcs, "buffer": 8, "latency": 1}, "channels": {"latency": 1},
           "routing": routing, "traffic": {"pattern": "uniform", "load": 0.05},
           "sim": {"warmup": 0, "measure": 4000, "seed": 3}}
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return cfg


def coords(r, widths):
    out = []
    for w in widths:
        out.append(r % w)
        r //= w
    return out


def enumerate_routes(routing, topo=HX3, vcs=2):
    """Every candidate row of the routing, with each port's dimension (-1: a terminal port)."""
    cfg = cfg_for(topo, routing, vcs)
    t = topology.build(cfg)
    cand = route_candidates(cfg, t.num_routers)
    peer, owner = np.asarray(t.peer_port), np.asarray(t.port_router)
    widths = topo["widths"]

    def dim(port):
        if peer[port] < 0:
            return -1
        a, b = coords(int(owner[port]), widths), coords(int(owner[peer[port]]), widths)
        (d,) = [i for i in range(len(widths)) if a[i] != b[i]]
        return d

    rows = [dict(router=int(r), dst=int(dst), in_dim=dim(int(ip)), out_dim=dim(int(op)), in_vc=(int(il), int(ih)),
                 out_vc=(int(ol), int(oh)), out_network=peer[int(op)] >= 0)
            for r, ip, il, ih, dst, op, ol, oh in zip(*(cand[k] for k in ("router", "in_port", "in_vc_lo", "in_vc_hi",
                                                                         "dst_router", "out_port", "out_vc_lo",
                                                                         "out_vc_hi")))]
    return rows, widths


@pytest.mark.parametrize("routing", [
    {"algorithm": "valiant-dor"}, {"algorithm": "valiant-dor", "valiant": "node"},
    {"algorithm": "valiant-dor", "valiant": "differing-dims"},
    {"algorithm": "ugal-dor", "valiant": "differing-dims", "cost": "booksim-flatfly", "congestion": "downstream"},
    {"algorithm": "ugal-dor"}], ids=lambda r: "-".join(r.values()))
def test_each_phase_is_dimension_ordered_on_its_own_half_of_the_vcs(routing):
    rows, _ = enumerate_routes(routing)
    classes = {(0, 1), (1, 2)}  # 2 VCs: phase 0 on VC 0, phase 1 (and minimal routes) on VC 1
    net = [w for w in rows if w["out_network"]]
    assert net and {w["out_vc"] for w in net} == classes
    for w in net:
        if w["in_dim"] >= 0 and w["in_vc"] == w["out_vc"]:  # a hop inside one phase
            assert w["out_dim"] > w["in_dim"], w
        if w["in_dim"] >= 0:
            assert w["out_vc"] >= w["in_vc"], w  # phase 1 never returns to phase 0


@pytest.mark.parametrize("algorithm", ["valiant-dor", "ugal-dor"])
def test_differing_dims_leaves_the_source_only_in_dimensions_where_it_differs(algorithm):
    # The intermediate keeps the source's coordinate wherever source and destination agree, so
    # the first hop (DOR toward it, or toward the destination) is in a dimension where they
    # differ; an intermediate drawn among all routers also leaves in the other dimensions.
    def first_hop_dims(valiant):
        rows, widths = enumerate_routes({"algorithm": algorithm, **valiant})
        out = []
        for w in rows:
            if w["in_dim"] < 0 and w["out_network"]:
                a, b = coords(w["router"], widths), coords(w["dst"], widths)
                out.append(a[w["out_dim"]] != b[w["out_dim"]])
        return np.array(out)
    dims = first_hop_dims({"valiant": "differing-dims"})
    assert dims.size > 100 and dims.all()
    assert not first_hop_dims({}).all()


def test_differing_dims_valiant_draws_each_differing_coordinate_uniformly():
    # Bit complement on a 4x4 HyperX: every packet's routers differ in both dimensions, so the
    # intermediate is uniform over all 16 routers; it is the source's or the destination's
    # router (a minimal route) with probability 2/16. Mean hops: E[d(s,x) + d(x,t)], with the
    # two end routers giving the minimal 2 hops.
    cfg = cfg_for({"kind": "hyperx", "widths": [4, 4], "terminals": 4},
                  {"algorithm": "valiant-dor", "valiant": "differing-dims"}, vcs=4,
                  traffic={"pattern": "bitcomp", "load": 0.05})
    r = flitsim.run(cfg, backend="cpu")
    n = r.packets_measured
    assert n > 10000
    assert abs(r.nonminimal_packets - n * 14 / 16) <= 4.5 * math.sqrt(n * (14 / 16) * (2 / 16))
    def d(u, v):
        return sum(a != b for a, b in zip(coords(u, [4, 4]), coords(v, [4, 4])))
    expected = np.mean([d(s, x) + d(x, 15 - s) for s in range(16) for x in range(16)])
    assert abs(r.hops_mean - expected) < 0.03, (r.hops_mean, expected)


def test_valiant_dor_every_packet_detours_through_a_third_router_by_default():
    r = flitsim.run(cfg_for({"kind": "hyperx", "widths": [4, 4], "terminals": 4}, {"algorithm": "valiant-dor"},
                            vcs=4), backend="cpu")
    assert r.nonminimal_packets == r.packets_measured - int(r.hop_hist[0]) > 5000


@pytest.mark.parametrize("routing", [{"algorithm": "valiant-dor"}, {"algorithm": "ugal-dor",
                                                                     "valiant": "differing-dims"}])
def test_two_classes_are_needed_and_enough(routing):
    topo = {"kind": "hyperx", "widths": [4, 4], "terminals": 2}
    ok = check_deadlock({"topology": topo, "router": {"vcs": 2}, "routing": routing})
    assert ok.acyclic and ok.classes == 2, ok.summary()
    one = check_deadlock({"topology": topo, "router": {"vcs": 2}, "routing": {**routing, "deadlock_avoidance": False}})
    assert not one.acyclic, one.summary()


def test_booksim_flatfly_cost_adds_its_offset_unweighted():
    # booksim-flatfly: minimal iff L_M·q_M <= c·L_I·q_I + offset; hops: L_M·q_M <= c·L_I·q_I +
    # offset·L_M. Under bit complement on a 4x4 HyperX every L_M is 2, so offset 2k of the first
    # rule makes exactly the decisions of offset k of the second: identical runs. Under uniform
    # traffic (L_M 1 or 2) they differ.
    topo = {"kind": "hyperx", "widths": [4, 4], "terminals": 4}
    def run(cost, offset, pattern):
        routing = {"algorithm": "ugal-dor", "valiant": "differing-dims", "cost": cost, "offset": offset,
                   "n_indirect": 1}
        cfg = cfg_for(topo, routing, vcs=4, traffic={"pattern": pattern, "load": 0.45},
                      sim={"warmup": 300, "measure": 1500})
        return flitsim.run(cfg, backend="cpu")
    a, b = run("booksim-flatfly", 6, "bitcomp"), run("hops", 3, "bitcomp")
    assert a.nonminimal_packets > 100 and a.nonminimal_packets == b.nonminimal_packets
    assert a.latency_sum == b.latency_sum
    c, d = run("booksim-flatfly", 6, "uniform"), run("hops", 3, "uniform")
    assert c.nonminimal_packets != d.nonminimal_packets


@pytest.mark.parametrize("algorithm", ["ugal-dor", "ugal"])
def test_downstream_congestion_is_bounded_by_the_credits(algorithm):
    # "downstream" senses only an output's credits in use, at most V·B flits; with cost
    # booksim-flatfly and offset L_M·V·B (L_M = 2 under bit complement) no packet can be
    # misrouted. The default ("port") also counts the flits queued here for the output, which
    # exceed the credits when the minimal port is the bottleneck: packets are misrouted.
    topo = {"kind": "hyperx", "widths": [4, 4], "terminals": 4}
    vcs = 4 if algorithm == "ugal-dor" else 8  # table UGAL: 2 classes per phase (diameter 2)
    def nonminimal(congestion):
        routing = {"algorithm": algorithm, "cost": "booksim-flatfly", "offset": 2 * vcs * 8, "n_indirect": 1}
        if congestion:
            routing["congestion"] = congestion
        cfg = cfg_for(topo, routing, vcs=vcs, traffic={"pattern": "bitcomp", "load": 1.0},
                      sim={"warmup": 300, "measure": 1000, "drain_limit": 1})
        return flitsim.run(cfg, backend="cpu").nonminimal_packets
    assert nonminimal("downstream") == 0
    assert nonminimal(None) > 100


@pytest.mark.parametrize("routing,key", [
    ({"algorithm": "ugal", "valiant": "differing-dims"}, "routing.valiant"),
    ({"algorithm": "valiant-dor", "valiant": "any"}, "routing.valiant"),
    ({"algorithm": "dor", "congestion": "downstream"}, "routing.congestion"),
    ({"algorithm": "clos-ad", "congestion": "downstream"}, "routing.congestion"),
])
def test_options_refuse_what_they_do_not_apply_to(routing, key):
    cfg = cfg_for({"kind": "hyperx", "widths": [4, 4], "terminals": 4}, routing, vcs=4)
    with pytest.raises(ValueError, match=key):
        flitsim.run(cfg, backend="cpu")


@pytest.mark.parametrize("topo", [{"kind": "hyperx", "widths": [4, 4], "terminals": 4, "gap": [2, 1]},
                                  {"kind": "fattree", "k": 4, "n": 2}])
def test_dor_phase_routings_need_a_fully_connected_hyperx(topo):
    with pytest.raises(ValueError, match="routing.algorithm"):
        flitsim.run(cfg_for(topo, {"algorithm": "ugal-dor"}, vcs=4), backend="cpu")


def test_deciding_at_injection_misroutes_more_past_saturation():
    # routing.decide_at_injection (BookSim2's lookahead routing): the source router's decision
    # is taken as the packet enters the injection channel, from the state then, not after it
    # has waited in the router's injection buffer. Past saturation those decisions are stale
    # (taken before the queue ahead of the packet drained), and UGAL misroutes more: on the
    # 4x4 flattened butterfly, 0.18 extra hops per packet instead of 0.10 (docs/validation.md).
    def extra_hops(decide):
        routing = {"algorithm": "ugal-dor", "valiant": "differing-dims", "cost": "booksim-flatfly",
                   "congestion": "downstream", "n_indirect": 1, "decide_at_injection": decide}
        cfg = cfg_for({"kind": "hyperx", "widths": [4, 4], "terminals": 4}, routing, vcs=4,
                      traffic={"load": 0.8, "self": True}, sim={"warmup": 1500, "measure": 1500, "drain_limit": 1})
        cfg["router"].update({"buffer": 16, "latency": 2, "preset": "booksim", "vc_policy": "spread"})
        return flitsim.run(cfg, backend="cpu").extra_hops_mean
    late, early = extra_hops(False), extra_hops(True)
    assert early > 1.4 * late, (early, late)


@pytest.mark.parametrize("algorithm", ["valiant-dor", "ugal-g", "min"])
def test_decide_at_injection_refuses_routings_without_a_source_decision_it_models(algorithm):
    cfg = cfg_for({"kind": "hyperx", "widths": [4, 4], "terminals": 4},
                  {"algorithm": algorithm, "decide_at_injection": True}, vcs=8)
    with pytest.raises(ValueError, match="routing.decide_at_injection"):
        flitsim.run(cfg, backend="cpu")


@pytest.mark.parametrize("topo,routing", [
    ({"kind": "hyperx", "widths": [4, 4], "terminals": 4},
     {"algorithm": "ugal-dor", "valiant": "differing-dims", "cost": "booksim-flatfly", "congestion": "downstream",
      "decide_at_injection": True}),
    ({"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
     {"algorithm": "ugal", "valiant": "node", "vc_scheme": "booksim", "decide_at_injection": True}),
], ids=["ugal-dor", "dragonfly-ugal"])
def test_the_booksim_conventions_give_identical_results_on_one_and_two_threads(topo, routing):
    # The decision at injection reads the source router's state from the inject step (after
    # receive): nothing else writes it then, so the thread count cannot matter.
    cfg = cfg_for(topo, routing, vcs=4 if topo["kind"] == "hyperx" else 3,
                  traffic={"pattern": "bitcomp" if topo["kind"] == "hyperx" else "bad-dragon", "load": 0.4},
                  sim={"warmup": 200, "measure": 800, "drain_limit": 1})
    a, b = (flitsim.run(cfg, backend="cpu", threads=n) for n in (1, 2))
    assert a.nonminimal_packets > 0
    for k in ("latency_sum", "accepted", "nonminimal_packets", "hops_sum", "packets_measured"):
        assert getattr(a, k) == getattr(b, k), k
    np.testing.assert_array_equal(a.node_ejected_flits, b.node_ejected_flits)
