"""Fat trees and XGFTs (TARGETS §2.2 NZ-S1..S8, §2.3 IS-4/8/16/20, IS-T2, D2-S14)."""
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flitsim._core")
from flitsim import topology as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def paper(name):
    """Path of a shipped paper config, independent of the working directory."""
    return str(ROOT / "configs" / "papers" / f"{name}.toml")


# P1 Table 1 with the shorthand expansion m_1 = 12, w_1 = 1 (TARGETS §3.2 item 1).
XGFT_TABLE1 = [
    ("NZ-S1", [12, 12], [1, 6], 144, 18),
    ("NZ-S2", [12, 24], [1, 12], 288, 36),
    ("NZ-S3", [12, 12, 8], [1, 12, 4], 1152, 240),
    ("NZ-S4", [12, 12, 16], [1, 12, 8], 2304, 480),
    ("NZ-S5", [12, 12, 24], [1, 12, 12], 3456, 720),
    ("NZ-S6", [12, 12, 12, 6], [1, 12, 12, 3], 10368, 3024),
    ("NZ-S7", [12, 12, 12, 12], [1, 12, 12, 6], 20736, 6048),
]


@pytest.mark.parametrize("tid,m,w,nodes,switches", XGFT_TABLE1, ids=[r[0] for r in XGFT_TABLE1])
def test_xgft_table1(tid, m, w, nodes, switches):
    t = T.build({"kind": "xgft", "m": m, "w": w})
    assert (t.num_nodes, t.num_routers) == (nodes, switches)
    assert t.radix().max() <= 24  # "built from 24-port switches" (P1:L133)
    # NZ-S8: level i has prod_{j>i} m_j * prod_{j<=i} w_j switches
    levels = np.bincount(t.coord("level"))
    for i in range(1, len(m) + 1):
        assert levels[i] == math.prod(m[i:]) * math.prod(w[:i])
    # each level-i switch has m_i children and w_{i+1} parents
    for i in range(1, len(m) + 1):
        r = np.flatnonzero(t.coord("level") == i)
        up = w[i] if i < len(m) else 0
        assert (t.radix()[r] == m[i - 1] + up).all()


def test_xgft_small_wiring_and_leaves():
    t = T.build(paper("noise-xgft-2-12-6"))
    assert (t.num_nodes, t.num_routers) == (144, 18)
    # "12 leaf switches and 144 ports" (P1:L147); endpoint e hangs off leaf e // 12
    assert np.array_equal(t.port_router[t.node_port], np.arange(144) // 12)
    d = T.describe(paper("noise-xgft-2-12-6"))
    assert d["links_by_class"] == {"l1-l2": 72} and d["diameter"] == 2
    assert d["min_vc_classes"] == 1
    # every top switch reaches every leaf exactly once
    u, v, _ = t.links()
    assert len(set(zip(u.tolist(), v.tolist()))) == 72


def test_kary_ntree():
    t = T.build({"kind": "fattree", "k": 4, "n": 3})
    assert (t.num_nodes, t.num_routers) == (64, 48)
    assert t.radix().max() == 8 and sorted(set(t.radix())) == [4, 8]
    d = T.describe({"kind": "fattree", "k": 4, "n": 3})
    assert d["diameter"] == 4 and d["min_vc_classes"] == 1


def level_counts(t):
    return np.bincount(t.coord("level"), minlength=4)[1:]


@pytest.mark.parametrize("cfg", ["iso-n-ft", "iso-nrl-ft", "iso-rl-ft"])
def test_fat_tree_30_pods(cfg):
    d = T.describe(paper(cfg), paths=False)
    t = T.build(paper(cfg))
    assert (d["nodes"], d["routers"], d["links"]) == (12000, 1500, 24000)
    assert list(level_counts(t)) == [600, 600, 300]
    assert d["radix"] == d["radix_min"] == 40
    assert d["diameter"] == 4 and d["balance"] == 1.0
    # IS-20 prints N/R = 24; the tree has 20 nodes per leaf (TARGETS §2.3 erratum)
    assert set(t.terminals()[t.coord("level") == 1]) == {20}
    # 300 cores x 40 ports over 30 pods: each core reaches all pods, 10 of them twice
    # (TARGETS §3.3 item 8)
    u, v, cls = t.links()
    core = cls == t.class_names.index("agg-core")
    pod_of = t.coord("pod")
    for c in np.unique(v[core])[:5]:
        pods = np.bincount(pod_of[u[core][v[core] == c]], minlength=30)
        assert (pods >= 1).all() and (pods == 2).sum() == 10


@pytest.mark.parametrize("cfg", ["iso-nr-ft", "iso-nl-ft"])
def test_tapered_fat_tree_25_pods(cfg):
    t = T.build(paper(cfg))
    d = T.describe(paper(cfg), paths=False)
    # Table 2 prints 12,012 nodes; 500 leaves x 24 nodes = 12,000 (TARGETS §2.3 IS-8 erratum)
    assert (d["nodes"], d["routers"], d["links"]) == (12000, 1100, 16000)
    assert list(level_counts(t)) == [500, 400, 200]
    assert d["links_by_class"] == {"leaf-agg": 8000, "agg-core": 8000}
    leaf = t.coord("level") == 1
    assert set(t.terminals()[leaf]) == {24} and set(t.radix()[leaf]) == {40}  # 3:2 taper
    assert d["diameter"] == 4


def test_largest_three_level_tree():
    # IS-T2: radix 40 -> 40 pods, 800 leaves, 16,000 nodes (P2:L151)
    t = T.build({"kind": "fattree", "radix": 40})
    assert t.num_nodes == 16000 and level_counts(t)[0] == 800 and t.attrs["pods"] == 40


@pytest.mark.parametrize("r", [8, 24])
def test_two_level_fat_tree_formulas(r):
    # D2-S14: p = r/2, R = 3r/2, N = r^2/2
    t = T.build({"kind": "fattree", "levels": 2, "radix": r})
    assert (t.num_routers, t.num_nodes) == (3 * r // 2, r * r // 2)
    assert set(t.terminals()[t.coord("level") == 1]) == {r // 2}
    assert T.describe({"kind": "fattree", "levels": 2, "radix": r})["diameter"] == 2


@pytest.mark.parametrize("keys,key", [
    ({"kind": "xgft", "m": [4, 4], "w": [2, 4]}, "topology.w"),
    ({"kind": "xgft", "m": [4, 4], "w": [1]}, "topology.w"),
    ({"kind": "xgft", "m": [4, 0], "w": [1, 2]}, "topology.m"),
    ({"kind": "fattree", "radix": 40, "taper": [2, 1]}, "topology.taper"),
    ({"kind": "fattree", "radix": 40, "pods": 41}, "topology.pods"),
    ({"kind": "fattree", "radix": 40, "pods": 30, "cores": 7}, "topology.cores"),
    ({"kind": "fattree", "radix": 40, "down": 30, "leaf_up": 20}, "topology.down"),
    ({"kind": "fattree", "levels": 4, "radix": 8}, "topology.levels"),
    ({"kind": "fattree", "pods": 4}, "topology.down"),
    ({"kind": "fattree", "k": 4, "n": 2, "pods": 3}, "topology.pods"),
])
def test_invalid_parameters(keys, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        T.build(keys)
