"""Adversarial patterns (docs/traffic.md): worst-case per topology, HyperX urb / swap2 / dcr.
Each is a valid destination map, and under minimal routing each saturates at its fluid bound
scaled to the instance (TARGETS FL-HX1, HX-A1..A3, D2-A1..A3)."""
import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim.config import normalize

from test_traffic import received_matches_map


def config(topo, traffic, algorithm="min", load=1.0, **sim):
    return {"topology": topo, "router": {"vcs": 2, "buffer": 16, "latency": 1}, "channels": {"latency": 1},
            "routing": {"algorithm": algorithm}, "traffic": {"load": load, **traffic},
            "sim": {"warmup": 1000, "measure": 2000, "drain_limit": 100, **sim}}


def dest_map(cfg):
    cfg = {**cfg, "router": {**cfg["router"], "vcs": 8}}  # enough for MIN on any of these
    return _core.destination_map(normalize(cfg))


def hx_split(k, T, W):
    t, r, x = k % T, k // T, []
    for w in W:
        x.append(r % w)
        r //= w
    return t, x


def hx_join(t, x, T, W):
    r = 0
    for w, c in zip(reversed(W), reversed(x)):
        r = r * w + c
    return t + T * r


def ref_swap2(k, T, W):  # TARGETS §3.5: even ranks in X, odd in Y; half swap
    t, x = hx_split(k, T, W)
    d = k % 2
    w = W[d]
    if x[d] < w // 2:
        x[d] += (w + 1) // 2
    elif x[d] >= (w + 1) // 2:  # an odd width's middle coordinate stays
        x[d] -= (w + 1) // 2
    return hx_join(t, x, T, W)


def ref_dcr(k, T, W):  # (t, x, y, z) -> (t, W-1-z, W-1-y, W-1-x)
    t, x = hx_split(k, T, W)
    return hx_join(t, [W[d] - 1 - x[len(W) - 1 - d] for d in range(len(W))], T, W)


HX2 = {"kind": "hyperx", "widths": [4, 4], "terminals": 4}
HX3 = {"kind": "hyperx", "widths": [4, 4, 4], "terminals": 2}


@pytest.mark.parametrize("pattern,topo,ref", [
    ("swap2", HX2, ref_swap2),
    ("swap2", {"kind": "hyperx", "widths": [3, 4, 2], "terminals": 3}, ref_swap2),
    ("dcr", HX3, ref_dcr),
    ("dcr", {"kind": "hyperx", "widths": [3, 2, 3], "terminals": 2}, ref_dcr),
    ("worst-case", HX3, ref_dcr),  # 3+ dimensions: DCR
    ("worst-case", HX2, lambda k, T, W: 4 * 4 * 4 - 1 - k),  # fewer: bit complement
])
def test_hyperx_maps_follow_their_definition(pattern, topo, ref):
    cfg = config(topo, {"pattern": pattern}, algorithm="dor", load=0.04, warmup=0, measure=4000)
    T, W = topo["terminals"], topo["widths"]
    n = T * int(np.prod(W))
    want = np.array([ref(k, T, W) for k in range(n)])
    got = dest_map(cfg)
    np.testing.assert_array_equal(got, want)
    assert sorted(got) == list(range(n))
    r = flitsim.run(cfg, backend="cpu")  # the engine sends where the map says
    assert received_matches_map(r, want)[0]


@pytest.mark.parametrize("dims", [[0], [1], [0, 2]])
def test_urb_complements_the_targeted_dimensions_and_spreads_the_others(dims):
    topo = {"kind": "hyperx", "widths": [4, 3, 2], "terminals": 2}
    T, W = 2, [4, 3, 2]
    cfg = config(topo, {"pattern": "urb", "dims": dims}, algorithm="dor", load=0.1, warmup=0, measure=6000)
    assert dest_map(cfg) is None  # random, not a fixed map
    r = flitsim.run(cfg, backend="cpu")
    n = r.nodes

    def cls(k, flip):  # (t, targeted coords) of a source, or of the destination it implies
        t, x = hx_split(k, T, W)
        return (T - 1 - t if flip else t,) + tuple(W[d] - 1 - x[d] if flip else x[d] for d in dims)

    sent, got = {}, {}
    for k in range(n):
        sent[cls(k, True)] = sent.get(cls(k, True), 0) + r.node_created_flits[k]
        got[cls(k, False)] = got.get(cls(k, False), 0) + r.node_ejected_flits[k]
    for c in sent:  # every class receives exactly what its sources sent (less what is in flight)
        assert 0 <= sent[c] - got.get(c, 0) <= 40, (c, sent[c], got.get(c))
    # Untargeted coordinates are uniform: every node of a class gets a similar share.
    per = r.node_ejected_flits
    assert per.min() > 0.75 * per.mean() and per.max() < 1.25 * per.mean()


@pytest.mark.parametrize("topo", [
    {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    {"kind": "slimfly", "q": 5},
    {"kind": "mlfm", "h": 3},
    {"kind": "oft", "k": 4},
    HX2, HX3,
])
def test_worst_case_is_a_permutation_without_fixed_points(topo):
    m = dest_map(config(topo, {"pattern": "worst-case"}))
    assert sorted(m) == list(range(len(m)))
    assert (m != np.arange(len(m))).all()


def test_named_worst_cases():
    ids = np.arange(72)
    # Dragonfly (p=2, a=4, h=2): group shift by h + 1 = 3 groups of a*p = 8 nodes.
    np.testing.assert_array_equal(dest_map(config({"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
                                                  {"pattern": "worst-case"})), (ids + 24) % 72)
    # MLFM h=3 (36 nodes) shifts by h nodes, OFT k=4 (104 nodes) by k nodes.
    np.testing.assert_array_equal(dest_map(config({"kind": "mlfm", "h": 3}, {"pattern": "worst-case"})),
                                  (np.arange(36) + 3) % 36)
    np.testing.assert_array_equal(dest_map(config({"kind": "oft", "k": 4}, {"pattern": "worst-case"})),
                                  (np.arange(104) + 4) % 104)


def test_slimfly_worst_case_overlaps_pairs_of_two_hop_routes():
    # Every router sends to a router at distance 2 with node i -> node i, and the routes pair
    # up so that the busiest directed link carries 2p node flows (P3 Fig. 5; TARGETS §3.4.4).
    topo = {"kind": "slimfly", "q": 5}
    t = _core.build_topology(topo)
    dist = _core.router_distances(topo)
    m = dest_map(config(topo, {"pattern": "worst-case"}))
    node_router = np.asarray(t["port_router"])[np.asarray(t["node_port"])]
    R, p = dist.shape[0], len(m) // dist.shape[0]
    rdst = {}
    for k, d in enumerate(m):
        rdst.setdefault(node_router[k], set()).add(node_router[d])
    assert all(len(v) == 1 for v in rdst.values())
    rdst = {a: v.pop() for a, v in rdst.items()}
    far = sum(dist[a, c] == 2 for a, c in rdst.items())
    assert far >= 0.9 * R  # nearly every pair at distance 2 (the greedy's fall-backs aside)
    load = {}
    for a, c in rdst.items():  # fluid load, 2-hop routes split evenly over the middle routers
        mids = [b for b in range(R) if dist[a, b] == 1 and dist[b, c] == 1]
        for b in mids:
            for link in ((a, b), (b, c)):
                load[link] = load.get(link, 0) + p / len(mids)
    assert max(load.values()) == pytest.approx(2 * p)


def saturation(topo, traffic, algorithm):
    """Mean accepted rate per node of a permutation-like pattern at full offered load."""
    r = flitsim.run(config(topo, traffic, algorithm=algorithm), backend="cpu")
    return r.node_ejected_flits.mean() / r.measure


# (topology, traffic, routing, fluid bound). HyperX under DOR (FL-HX1 scaled to the
# instance: T terminals, width W): BC, URBx, URBy all put one router's T flows on one link,
# 1/T; S2 splits them over two dimensions, 2/T; 3-D DCR concentrates a whole X line (W
# routers) on one Y link, 1/(W*T). Diameter-two under MIN: MLFM shift-by-h 1/h (D2-A2), OFT
# shift-by-k 1/k (D2-A3), Slim Fly greedy pairs 1/(2p) (D2-A1, p = 4 for q = 5).
SATURATION = [
    ("hx-bitcomp", HX2, {"pattern": "bitcomp"}, "dor", 1 / 4),
    ("hx-urbx", HX2, {"pattern": "urb", "dims": [0]}, "dor", 1 / 4),
    ("hx-urby", HX2, {"pattern": "urb", "dims": [1]}, "dor", 1 / 4),
    ("hx-swap2", HX2, {"pattern": "swap2"}, "dor", 2 / 4),
    ("hx-dcr", HX3, {"pattern": "dcr"}, "dor", 1 / (4 * 2)),
    ("mlfm-wc", {"kind": "mlfm", "h": 3}, {"pattern": "worst-case"}, "min", 1 / 3),
    ("oft-wc", {"kind": "oft", "k": 4}, {"pattern": "worst-case"}, "min", 1 / 4),
    ("sf-wc", {"kind": "slimfly", "q": 5}, {"pattern": "worst-case"}, "min", 1 / 8),
]


@pytest.mark.parametrize("name,topo,traffic,algorithm,bound", SATURATION, ids=[s[0] for s in SATURATION])
def test_minimal_routing_saturates_at_the_fluid_bound(name, topo, traffic, algorithm, bound):
    rate = saturation(topo, traffic, algorithm)
    # Within 10 % relative below (D2-A1..A3's tolerance), and not above the bound by more than
    # the flits already past the bottleneck when the window opens (Slim Fly: the greedy's
    # fall-back pairs that do not overlap run faster, up to 10 % above).
    assert abs(rate - bound) <= 0.1 * bound, rate
    if not name.startswith("sf"):
        assert rate <= bound * 1.01 + 0.002, rate


@pytest.mark.parametrize("topo,traffic,message", [
    ({"kind": "fattree", "k": 4, "n": 2}, {"pattern": "worst-case"}, r'"worst-case" is not defined for fattree'),
    ({"kind": "mlfm", "h": 3}, {"pattern": "urb", "dims": [0]}, r'traffic\.pattern: "urb" needs a hyperx, not mlfm'),
    (HX2, {"pattern": "urb"}, r'traffic\.dims: is required for pattern "urb"'),
    (HX2, {"pattern": "urb", "dims": [2]}, r"traffic\.dims: dimension 2 is outside \[0, 2\)"),
    (HX2, {"pattern": "urb", "dims": [1, 1]}, r"traffic\.dims: dimension 1 is listed twice"),
    (HX2, {"pattern": "swap2", "dims": [0]}, r'traffic\.dims: "swap2" takes exactly 2 dimensions'),
    ({"kind": "hyperx", "widths": [4], "terminals": 2}, {"pattern": "swap2"}, r'"swap2" needs a hyperx with at least 2'),
    ({"kind": "hyperx", "widths": [4, 3], "terminals": 2}, {"pattern": "dcr"}, r'"dcr" needs widths that read the same'),
    (HX2, {"pattern": "bitcomp", "dims": [0]}, r'traffic\.dims: is only used by the "urb" and "swap2"'),
])
def test_adversarial_pattern_errors(topo, traffic, message):
    with pytest.raises(ValueError, match=message):
        _core.simulate(normalize(config(topo, traffic, algorithm="min")), "cpu")
