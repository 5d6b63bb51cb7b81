"""Up*/down* routing in fat trees and XGFTs (issue 4, part 2): hop counts = 2 x the level of the
nearest common ancestor, one VC class, near-full uniform throughput on a full-bisection k-ary
n-tree, and D-mod-k against random up-port choice on permutations."""
import numpy as np
import pytest

import flitsim
from flitsim import _core, topology
from conftest import small_dragonfly

TREE2 = {"kind": "fattree", "k": 4, "n": 2}       # 16 nodes, 8 switches
TREE3 = {"kind": "fattree", "k": 4, "n": 3}       # 64 nodes, 48 switches
XGFT = {"kind": "xgft", "m": [4, 3, 2], "w": [1, 2, 3]}  # 24 nodes, slimmed


def run(topo, routing=None, vcs=1, buffer=16, **sections):
    cfg = small_dragonfly(router={"vcs": vcs, "buffer": buffer}, routing=routing or {"algorithm": "updown"},
                          **sections)
    cfg["topology"] = dict(topo)
    return flitsim.run(cfg, backend="cpu")


def nca_hops(topo):
    """Histogram of router hops 2 x (NCA switch level − 1) over ordered pairs of distinct nodes
    (leaf = level 1; destinations uniform over the other nodes)."""
    m = topo["m"] if topo["kind"] == "xgft" else [topo["k"]] * topo["n"]
    N = int(np.prod(m))
    hist = np.zeros(2 * len(m) + 1)
    for s in range(N):
        for d in range(N):
            if s == d:
                continue
            level, a, b = 1, s // m[0], d // m[0]  # leaf switches
            for mi in m[1:]:
                if a == b:
                    break
                a, b, level = a // mi, b // mi, level + 1
            hist[2 * (level - 1)] += 1
    return hist / hist.sum()


@pytest.mark.parametrize("topo", [TREE3, XGFT])
@pytest.mark.parametrize("selection", ["dmodk", "oblivious", "adaptive", "two-choice"])
def test_updown_hop_counts_are_twice_the_common_ancestor_level(topo, selection):
    r = run(topo, {"algorithm": "updown", "selection": selection}, traffic={"load": 0.2},
            sim={"warmup": 200, "measure": 2000})
    h = r.hop_hist[:2 * 3 + 1] / r.hop_hist.sum()
    np.testing.assert_allclose(h, nca_hops(topo), atol=0.02)
    assert r.hop_hist[7:].sum() == 0 and r.nonminimal_fraction == 0


def test_full_bisection_tree_accepts_nearly_full_uniform_load():
    # 4-ary 2-tree, 8 VCs of 8 flits, offered 1.0: D-mod-k 0.815, random 0.758 (the input-queued
    # router's own limit is ~0.8 here; the tree itself is non-blocking for uniform traffic).
    sim = {"warmup": 1000, "measure": 2000, "drain_limit": 100}
    dmodk = run(TREE2, vcs=8, buffer=8, traffic={"load": 1.0}, sim=sim).accepted
    rand = run(TREE2, {"algorithm": "updown", "selection": "oblivious"}, vcs=8, buffer=8,
               traffic={"load": 1.0}, sim=sim).accepted
    assert dmodk >= 0.8 and rand >= 0.72


def test_dmodk_is_contention_free_on_shifts_and_random_is_not():
    # D-mod-k routes every shift permutation of a k-ary n-tree without sharing a link
    # (measured 1.000 at offered 1.0), random up-port choice collides (0.68); on bit reversal
    # D-mod-k sends a whole leaf's traffic up one port (0.375) where random does better (0.76).
    sim = {"warmup": 1000, "measure": 2000, "drain_limit": 100}

    def acc(selection, pattern, **extra):
        return run(TREE3, {"algorithm": "updown", "selection": selection}, vcs=2,
                   traffic={"pattern": pattern, "load": 1.0, **extra}, sim=sim).accepted

    for shift in (4, 16, 5):
        assert acc("dmodk", "shift", shift=shift) > 0.98
        assert acc("oblivious", "shift", shift=shift) < 0.8
    assert acc("dmodk", "bitrev") < 0.45 < 0.7 < acc("oblivious", "bitrev")


def test_dmodk_is_static_per_destination():
    # Every packet to one destination leaves a leaf on the same up port: with all nodes of
    # the first leaf sending to node 63 (hotspot) only one of the leaf's 4 up ports carries
    # flits, while random choice uses all of them.
    t = topology.build({"topology": TREE3})
    leaf0_up = [gp for gp in range(t.port_offset[0], t.port_offset[1]) if t.peer_port[gp] >= 0]
    kw = dict(traffic={"pattern": "hotspot", "hotspots": [63], "load": 0.05}, sim={"warmup": 100, "measure": 2000})
    r = run(TREE3, vcs=2, **kw)
    assert (r.channel_flits[leaf0_up] > 0).sum() == 1
    r = run(TREE3, {"algorithm": "updown", "selection": "oblivious"}, vcs=2, **kw)
    assert (r.channel_flits[leaf0_up] > 0).sum() == 4


def test_updown_needs_one_vc_and_only_runs_on_trees():
    run(TREE3, vcs=1, buffer=2, traffic={"load": 1.0, "packet_size": 6, "pattern": "bitcomp"},
        sim={"warmup": 200, "measure": 800, "watchdog": 300, "drain_limit": 300})
    run({"kind": "fattree", "radix": 8, "pods": 4, "levels": 3}, vcs=1, buffer=2,
        traffic={"load": 1.0, "packet_size": 6}, sim={"warmup": 200, "measure": 800, "watchdog": 300,
                                                      "drain_limit": 300})
    cfg = small_dragonfly(routing={"algorithm": "updown"})
    cfg["topology"] = {"kind": "oft", "k": 4}
    with pytest.raises(ValueError, match=r'routing\.algorithm: "updown" is not supported on oft '
                                         r'\(oft supports: min, min-first, valiant, ugal, ugal-g\)'):
        _core.simulate(cfg, "cpu")
