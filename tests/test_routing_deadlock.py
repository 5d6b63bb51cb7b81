"""Static deadlock check (flitsim.deadlock): the channel dependency graph of every routing's VC
scheme is acyclic with the VCs the engine demands, and has a cycle once the classes are
collapsed (routing.deadlock_avoidance = false) where a cycle is known to exist."""
import pytest

from flitsim.deadlock import check_deadlock, main

DF = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
DF5 = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "groups": 5}
RC5 = {"kind": "dragonfly", "p": 2, "a": 6, "h": 2, "groups": 5, "intra": "row-column", "rows": 2, "cols": 3,
       "trunking": 2}
HX = {"kind": "hyperx", "widths": [4, 4], "terminals": 4}
HX3 = {"kind": "hyperx", "widths": [3, 3, 3], "terminals": 2, "trunking": [1, 2, 1]}
TREE = {"kind": "fattree", "k": 4, "n": 3}

ACYCLIC = [
    (DF, "min", 2, {}), (DF, "valiant", 3, {}), (DF, "valiant", 4, {"valiant": "any"}), (DF, "ugal", 3, {}),
    (DF5, "ugal", 4, {"valiant": "any"}), (RC5, "min", 2, {}), (RC5, "valiant", 3, {}), (RC5, "ugal", 3, {}),
    (HX, "dor", 1, {}), (HX, "clos-ad", 2, {}), (HX, "dimwar", 2, {}), (HX, "omniwar", 4, {}),
    (HX3, "dimwar", 2, {}), (HX3, "dimwar", 2, {"deroute_class": "first"}),
    (HX3, "omniwar", 5, {"deroutes": 2, "multi_deroute": False}), (HX, "min", 2, {}),
    (HX, "valiant", 4, {}), (TREE, "updown", 1, {}), (TREE, "ugal", 2, {}), ({"kind": "mlfm", "h": 3}, "valiant", 2, {}),
    ({"kind": "slimfly", "q": 5}, "ugal", 4, {}), ({"kind": "oft", "k": 4}, "min", 1, {}),
    # BookSim2's intermediates (routing.valiant = "node"): every node's router is enumerated
    (DF, "valiant", 4, {"valiant": "node"}), (DF, "ugal", 4, {"valiant": "node"}),
    (HX, "valiant", 4, {"valiant": "node"}), (HX, "ugal", 4, {"valiant": "node"}),
]


def check(topo, alg, vcs, extra):
    return check_deadlock({"topology": topo, "router": {"vcs": vcs}, "routing": {"algorithm": alg, **extra}})


@pytest.mark.parametrize("topo,alg,vcs,extra", ACYCLIC, ids=[f"{c[0]['kind']}-{c[1]}-{c[2]}" for c in ACYCLIC])
def test_every_routing_vc_scheme_is_acyclic(topo, alg, vcs, extra):
    rep = check(topo, alg, vcs, extra)
    assert rep.acyclic and rep.classes == vcs and rep.edges > 0, rep.summary()


@pytest.mark.parametrize("topo,alg,vcs,extra", [
    (DF, "valiant", 3, {}), (RC5, "min", 2, {}), (HX, "min", 2, {}), (HX, "dimwar", 2, {}),
    (HX, "omniwar", 4, {}), ({"kind": "mlfm", "h": 3}, "valiant", 2, {}), ({"kind": "slimfly", "q": 5}, "min", 2, {})])
def test_collapsed_classes_have_a_real_cycle(topo, alg, vcs, extra):
    rep = check(topo, alg, vcs, {**extra, "deadlock_avoidance": False})
    assert not rep.acyclic and rep.classes == 1
    # Consecutive channels of the reported cycle meet at a router, and it closes.
    for (r, p, q, v), (r2, p2, q2, v2) in zip(rep.cycle, rep.cycle[1:] + rep.cycle[:1]):
        assert q == r2 and q >= 0 and v < vcs


def test_checker_reports_too_few_vcs_and_unsupported_pairs():
    with pytest.raises(ValueError, match=r'router\.vcs: routing "omniwar" on hyperx needs at least 4 VCs'):
        check(HX, "omniwar", 3, {})
    with pytest.raises(ValueError, match=r'routing\.algorithm: "dor" is not supported on dragonfly \(dragonfly '
                                         r'supports: min, valiant, ugal, ugal-g, par\)'):
        check(DF, "dor", 2, {})


def test_command_line_exit_status(tmp_path, capsys):
    cfg = tmp_path / "hx.toml"
    cfg.write_text('[topology]\nkind = "hyperx"\nwidths = [3, 3]\nterminals = 2\n'
                   '[router]\nvcs = 2\n[routing]\nalgorithm = "dimwar"\n')
    assert main([str(cfg)]) == 0
    assert "acyclic" in capsys.readouterr().out
    assert main([str(cfg), "routing.deadlock_avoidance=false"]) == 1
    assert "CYCLE" in capsys.readouterr().out


def test_cli_check_deadlock_exit_status(tmp_path, capsys):
    from flitsim.cli import main
    cfg = tmp_path / "df.toml"
    cfg.write_text('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n')
    assert main(["check-deadlock", str(cfg), "--set", "routing.algorithm=valiant"]) == 0
    assert "acyclic" in capsys.readouterr().out
    assert main(["check-deadlock", str(cfg), "--set", "routing.deadlock_avoidance=false",
                 "--set", "router.vcs=1"]) == 1
    assert "CYCLE" in capsys.readouterr().out


def test_candidates_are_the_routings_own_choices():
    # Table MIN (adaptive or not): at every router, toward every other router, the candidates
    # are exactly the ports whose peer is one hop closer (the distance table), on the class of
    # the hop count; DOR's are one port per hop.
    import numpy as np
    from flitsim import topology
    from flitsim.config import normalize
    from flitsim.deadlock import route_candidates
    for routing in ({"algorithm": "min"}, {"algorithm": "min", "selection": "adaptive"}):
        cfg = normalize({"topology": {"kind": "slimfly", "q": 5}, "router": {"vcs": 2}, "routing": routing})
        t = topology.build(cfg)
        dist = topology._distances(t)
        c = route_candidates(cfg, t.num_routers)
        onward = t.peer_port[c["out_port"]] >= 0
        got = set(zip(c["router"][onward].tolist(), c["dst_router"][onward].tolist(), c["out_port"][onward].tolist()))
        want = {(r, d, p) for r in range(t.num_routers) for d in range(t.num_routers) if r != d
                for p in range(t.port_offset[r], t.port_offset[r + 1])
                if t.peer_port[p] >= 0 and dist[t.port_router[t.peer_port[p]], d] == dist[r, d] - 1}
        assert got == want
    cfg = normalize({"topology": HX, "router": {"vcs": 1}, "routing": {"algorithm": "dor"}})
    c = route_candidates(cfg, 16)
    onward = c["dst_router"] != c["router"]  # (ejection: one port per destination node)
    keys = list(zip(c["router"][onward].tolist(), c["in_port"][onward].tolist(), c["dst_router"][onward].tolist()))
    assert len(keys) == len(set(keys)) > 0  # deterministic: one output per input and destination


def test_a_routing_that_reads_the_destination_node_is_walked_for_every_node():
    # D-mod-k (updown) picks the up port from the destination node, so nodes of one router
    # leave the source on different ports: the enumeration walks each node (dst_node), and one
    # input sees several outputs toward one destination router.
    import collections
    from flitsim import topology
    from flitsim.config import normalize
    from flitsim.deadlock import route_candidates
    cfg = normalize({"topology": TREE, "router": {"vcs": 1}, "routing": {"algorithm": "updown"}})
    t = topology.build(cfg)
    c = route_candidates(cfg, t.num_routers)
    onward = t.peer_port[c["out_port"]] >= 0
    outs = collections.Counter(zip(c["router"][onward].tolist(), c["in_port"][onward].tolist(),
                                   c["dst_router"][onward].tolist()))
    assert max(outs.values()) > 1
