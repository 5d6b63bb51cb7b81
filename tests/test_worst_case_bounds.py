"""Every per-topology `worst-case` pattern is worst for minimal routing over a range of
sizes: its fluid load (flows split evenly over all minimal next hops, as MIN routes) puts
exactly the bound's number of flows on the busiest link — 2p on a Slim Fly (P3 Fig. 5:
throughput 1/(2p)), h on an MLFM, k on an OFT (docs/traffic.md). A pairing that misses the
overlap would carry twice the Slim Fly bound."""
import numpy as np
import pytest

from flitsim import _core
from flitsim.config import normalize
from flitsim.topology import _distances, build


def busiest_link_flows(topology: dict) -> tuple[float, int]:
    """(max over router-to-router links of the flows crossing it, nodes per router) for the
    topology's worst-case map under minimal routing, each node sending one unit flow."""
    cfg = normalize({"topology": topology, "traffic": {"pattern": "worst-case"}})
    t = build(cfg)
    D = _distances(t)
    dmap = np.asarray(_core.destination_map(cfg))
    node_router = t.port_router[t.node_port]
    out = {r: [(gp, int(t.port_router[t.peer_port[gp]]))
               for gp in range(t.port_offset[r], t.port_offset[r + 1]) if t.peer_port[gp] >= 0]
           for r in range(t.num_routers)}
    flows: dict[tuple[int, int], int] = {}
    for n, d in enumerate(dmap):
        s, e = int(node_router[n]), int(node_router[d])
        if s != e:
            flows[(s, e)] = flows.get((s, e), 0) + 1
    load = np.zeros(len(t.peer_port))
    for (s, e), f in flows.items():
        frontier = {s: float(f)}
        while frontier:
            nxt: dict[int, float] = {}
            for x, amount in frontier.items():
                if x == e:
                    continue
                hops = [(gp, y) for gp, y in out[x] if D[y, e] == D[x, e] - 1]
                for gp, y in hops:
                    load[gp] += amount / len(hops)
                    nxt[y] = nxt.get(y, 0.0) + amount / len(hops)
            frontier = nxt
    per_router = t.num_nodes // t.num_routers
    return float(load.max()), per_router


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 11, 13])   # every prime power up to 13
def test_slimfly_worst_case_meets_the_2p_bound(q):
    flows, p = busiest_link_flows({"kind": "slimfly", "q": q})
    assert flows == pytest.approx(2 * p), f"q={q}: busiest link carries {flows} flows, not 2p={2 * p}"


@pytest.mark.parametrize("h", [2, 3, 4, 5, 6, 8])
def test_mlfm_worst_case_meets_the_h_bound(h):
    flows, _ = busiest_link_flows({"kind": "mlfm", "h": h})
    assert flows == pytest.approx(h)


@pytest.mark.parametrize("k", [3, 4, 6, 8])                  # k - 1 prime
def test_oft_worst_case_meets_the_k_bound(k):
    flows, _ = busiest_link_flows({"kind": "oft", "k": k})
    assert flows == pytest.approx(k)
