"""README's add-a-routing recipe, proved on its worked example: `min-first` is one header
(cuda/routing/table_min_first.cuh) plus one line of the routing registry
(cuda/routing/registry.h), and with nothing else it is a valid routing.algorithm, runs on the
engine and passes the deadlock checker."""
import pathlib
import re

import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim.config import ALGORITHMS
from flitsim.deadlock import check_deadlock

ROOT = pathlib.Path(__file__).resolve().parents[1]
SF = {"kind": "slimfly", "q": 5}


def test_every_registry_line_names_a_header_the_dispatch_includes():
    dispatch = (ROOT / "cuda/routing/dispatch.cuh").read_text()
    included = set(re.findall(r'#include "([^"]+)"', dispatch))
    for r in _core.routings():
        header = pathlib.Path(r["header"])
        assert (ROOT / header).is_file(), r
        assert header.name in included, f"{r['kind']}: dispatch.cuh does not include {header.name}"


def test_the_example_routing_is_one_registry_line():
    ex = [r for r in _core.routings() if r["algorithm"] == "min-first"]
    assert len(ex) == 1 and ex[0]["header"] == "cuda/routing/table_min_first.cuh"
    assert ex[0]["family"] == "Table" and ex[0]["candidates"] == "exact"
    assert "min-first" in ALGORITHMS


def _used_links(res) -> set[int]:
    links = np.flatnonzero((res.peer_port >= 0) & (res.channel_flits > 0))
    return set(links.tolist())


def test_the_example_routing_runs_minimally_on_one_path_per_pair():
    # Every node sends to rank 0 (on router 0): a deterministic minimal routing gives each router
    # one next hop toward it, so the links used form a tree (routers - 1 of them); random minimal
    # routing also takes the second path of routers that differ from router 0 in both dimensions.
    cfg = {"topology": {"kind": "hyperx", "widths": [4, 4], "terminals": 2},
           "router": {"vcs": 2, "buffer": 8},
           "traffic": {"pattern": "hotspot", "hotspots": [0], "load": 0.02},
           "sim": {"warmup": 200, "measure": 1000, "seed": 3}}
    first = flitsim.run_replicas({**cfg, "routing": {"algorithm": "min-first"}}, loads=[0.02, 0.02],
                                 seeds=[3, 4], backend="cpu")
    rand = flitsim.run({**cfg, "routing": {"algorithm": "min"}}, backend="cpu")
    for r in first:
        assert r.drained and r.packets_measured > 0
        assert r.extra_hops == 0 and r.nonminimal_packets == 0
        assert len(_used_links(r)) == r.routers - 1
    assert _used_links(first[0]) == _used_links(first[1])
    assert len(_used_links(rand)) > rand.routers - 1


@pytest.mark.parametrize("topo", [SF, {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
                                  {"kind": "fattree", "k": 4, "n": 2}])
def test_the_example_routing_passes_the_deadlock_checker(topo):
    rep = check_deadlock({"topology": topo, "router": {"vcs": 4}, "routing": {"algorithm": "min-first"}})
    ref = check_deadlock({"topology": topo, "router": {"vcs": 4}, "routing": {"algorithm": "min"}})
    assert rep.acyclic and rep.classes == ref.classes and rep.edges > 0, rep.summary()
    # The checker enumerates the routing's own code: one path per pair, so fewer dependencies
    # than random minimal routing over the same classes (on Slim Fly every dependency of `min`
    # also lies on some pair's single min-first path).
    assert rep.edges < ref.edges if topo is not SF else rep.edges == ref.edges
