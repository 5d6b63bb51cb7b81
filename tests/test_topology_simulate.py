"""Every topology kind simulates end to end: minimal routing under uniform traffic, identical
on 1 and 2 threads, accepted = offered below saturation, no packet longer than the diameter
(flit and credit conservation are checked by the engine at the end of every run)."""
import numpy as np
import pytest

import flitsim
from flitsim import _core

SMALL = {
    "dragonfly": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    "dragonfly-5-groups": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "groups": 5},
    "dragonfly-row-column": {"kind": "dragonfly", "p": 3, "intra": "row-column", "rows": 2, "cols": 3,
                             "h": 1, "groups": 4},
    "hyperx": {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
    "fattree": {"kind": "fattree", "k": 4, "n": 2},
    "xgft": {"kind": "xgft", "m": [4, 4], "w": [1, 2]},
    "slimfly": {"kind": "slimfly", "q": 5},
    "mlfm": {"kind": "mlfm", "h": 3},
    "oft": {"kind": "oft", "k": 4},
    "graph": {"kind": "graph", "routers": 5, "links": [0, 1, 1, 2, 2, 3, 3, 4, 4, 0],
              "terminals": [2, 2, 2, 2, 2]},
}


def config(topology, load=0.2):
    return {"topology": topology, "router": {"vcs": 4, "buffer": 8, "latency": 1},
            "traffic": {"load": load, "packet_size": 2}, "sim": {"warmup": 300, "measure": 1200}}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_topology_simulates_with_minimal_routing(name):
    topo = SMALL[name]
    one = flitsim.run(config(topo), backend="cpu", threads=1)
    two = flitsim.run(config(topo), backend="cpu", threads=2)
    for k in ("latency_hist", "hop_hist", "channel_flits", "node_ejected_flits"):
        np.testing.assert_array_equal(getattr(one, k), getattr(two, k), err_msg=k)
    assert not one.saturated and abs(one.accepted - one.offered) < 0.05 * one.offered
    # Minimal routes never exceed the distance between routers that have terminals; dragonfly
    # MIN is local-global-local, so in-group distance (1, or 2 with row-column groups) twice + 1.
    if topo["kind"] == "dragonfly":
        bound = 5 if topo.get("intra") == "row-column" else 3
    else:
        d = _core.router_distances(topo)
        t = _core.build_topology(topo)
        with_nodes = np.unique(t["port_router"][t["node_port"]])
        bound = d[np.ix_(with_nodes, with_nodes)].max()
    assert np.nonzero(one.hop_hist)[0].max() <= bound
