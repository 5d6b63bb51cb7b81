"""Slim Fly, MLFM and OFT (TARGETS §2.4 D2-S1..S19, §3.4 items 1–2)."""
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flitsim._core")
from flitsim import topology as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def paper(name):
    """Path of a shipped paper config, independent of the working directory."""
    return str(ROOT / "configs" / "papers" / f"{name}.toml")


def sf(q, **keys):
    return {"kind": "slimfly", "q": q, **keys}


def test_d2_s1_to_s4_slimfly_q13():
    for p, nodes, radix, ports, links in [(9, 3042, 28, 3.11, 2.05), (10, 3380, 29, 2.90, 1.95)]:
        d = T.describe(sf(13, p=p))
        assert (d["routers"], d["links"], d["nodes"], d["radix"]) == (338, 3211, nodes, radix)
        assert d["radix_min"] == radix and d["diameter"] == 2
        # D2-S4: the paper truncates 3.111 / 2.0556 to 3.11 / 2.05
        assert d["ports_per_node"] == pytest.approx(ports, abs=0.01)
        assert d["links_per_node"] == pytest.approx(links, abs=0.01)
    t = T.build(sf(13))
    assert t.attrs["p"] == 10 and t.attrs["network_radix"] == 19  # default p = ceil(r'/2)


def test_d2_s5_generator_sets_q13():
    t = T.build(sf(13, p=1))
    assert t.attrs["xi"] == 2 and t.attrs["delta"] == 1
    u, v, _ = t.links()
    nb = {}
    for a, b in zip(u.tolist(), v.tolist()):
        nb.setdefault(a, set()).add(b)
        nb.setdefault(b, set()).add(a)
    # router id = s*q^2 + column*q + row: (0,0,0) is 0, (1,0,0) is 169
    assert {r for r in nb[0] if r < 13} == {1, 3, 4, 9, 10, 12}  # X: quadratic residues
    assert {r - 169 for r in nb[169] if 169 <= r < 182} == {2, 5, 6, 7, 8, 11}  # X'


def test_d2_s6_s7_path_diversity():
    d13 = T.describe(sf(13))["path_diversity"]
    assert d13["histogram"] == {1: 52728, 3: 1014} and d13["pairs"] == 53742
    assert d13["mean"] == pytest.approx(1.0377, abs=1e-4)
    d23 = T.describe(sf(23))
    assert (d23["routers"], d23["attrs"]["network_radix"], d23["diameter"]) == (1058, 35, 2)
    pd = d23["path_diversity"]
    assert pd["histogram"] == {1: 511014, 2: 24334, 6: 3174, 7: 1058, 8: 1058}
    assert pd["max"] == 8 and pd["mean"] == pytest.approx(1.1, abs=0.01)  # P3:L207


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 16, 25, 27])
def test_slimfly_prime_powers_are_mms(q):
    delta = {1: 1, 3: -1, 0: 0}[q % 4]
    d = T.describe(sf(q, p=1), paths=False)
    assert d["routers"] == 2 * q * q
    assert d["radix"] == d["radix_min"] == (3 * q - delta) // 2 + 1
    assert d["diameter"] == 2


def test_d2_s8_moore_bound():
    for q, ratio in [(13, 0.934), (23, 0.863), (29, 0.909)]:
        t = T.build(sf(q, p=1))
        r = t.attrs["network_radix"]
        assert t.num_routers / (r * r + 1) == pytest.approx(ratio, abs=5e-4)


def test_d2_s9_s10_mlfm():
    d = T.describe(paper("d2-mlfm-h15"))
    t = T.build(paper("d2-mlfm-h15"))
    assert (d["nodes"], d["routers"], d["radix"], d["radix_min"]) == (3600, 360, 30, 30)
    assert np.bincount(t.coord("level")).tolist() == [240, 120]
    assert d["links"] + d["nodes"] == 7200 and d["links_per_node"] == 2.0
    assert d["path_diversity"]["histogram"] == {1: 27000, 15: 1680}
    assert d["diameter"] == 2 and d["min_vc_classes"] == 1


def ml3b_rows(t):
    k = t.attrs["k"]
    return t.tables["ml3b"].reshape(-1, k)


def test_d2_s11_s13_oft():
    d = T.describe(paper("d2-oft-k12"))
    t = T.build(paper("d2-oft-k12"))
    assert t.attrs["routers_per_level"] == 133
    assert (d["routers"], d["nodes"], d["radix"], d["radix_min"]) == (399, 3192, 24, 24)
    assert d["path_diversity"]["histogram"] == {1: 35112, 12: 133}  # (0,i)-(2,i): k paths
    assert d["diameter"] == 2 and d["min_vc_classes"] == 1
    rows = [set(r) for r in ml3b_rows(t).tolist()]
    shared = [len(rows[i] & rows[j]) for i in range(133) for j in range(i + 1, 133)]
    assert len(shared) == 8778 and set(shared) == {1}


def test_d2_s12_4_ml3b_table():
    t = T.build({"kind": "oft", "k": 4})
    assert ml3b_rows(t).tolist() == [
        [9, 10, 11, 12], [9, 0, 1, 2], [9, 3, 4, 5], [9, 6, 7, 8], [10, 0, 3, 6], [10, 1, 4, 7],
        [10, 2, 5, 8], [11, 0, 4, 8], [11, 1, 5, 6], [11, 2, 3, 7], [12, 0, 5, 7], [12, 1, 3, 8],
        [12, 2, 4, 6]]


@pytest.mark.parametrize("k", [3, 4, 6, 8, 14])
def test_ml3b_is_a_valid_spt(k):
    t = T.build({"kind": "oft", "k": k})
    rows = [set(r) for r in ml3b_rows(t).tolist()]
    RL = 1 + k * (k - 1)
    assert len(rows) == RL and all(len(r) == k for r in rows)
    assert all(len(rows[i] & rows[j]) == 1 for i in range(RL) for j in range(i + 1, RL))
    assert (np.bincount(ml3b_rows(t).ravel(), minlength=RL) == k).all()


def test_d2_s15_radix_64():
    assert T.build({"kind": "oft", "k": 32}).num_nodes == 63552
    assert T.build({"kind": "mlfm", "h": 32}).num_nodes == 33792
    t = T.build(sf(29, p=21, radix=64))
    assert (t.num_nodes, int(t.radix().max())) == (35322, 64)
    with pytest.raises(ValueError, match=r"topology\.p.*radix 64"):
        T.build(sf(29, p=22, radix=64))


def test_d2_s19_three_ports_two_links_per_endpoint():
    for cfg in ["d2-mlfm-h15", "d2-oft-k12"]:
        d = T.describe(paper(cfg), distances=False, paths=False)
        assert (d["ports_per_node"], d["links_per_node"]) == (3.0, 2.0)


def test_d2_s18_bisection_estimates():
    # P3:L201 (METIS): MLFM ~0.5b, SF ~0.71b / 0.67b; the MLFM column split is 0.533b
    assert T.bisection(paper("d2-mlfm-h15"))["per_node"] <= 0.54
    for cfg, metis in [("d2-slimfly-q13-p9", 0.71), ("d2-slimfly-q13-p10", 0.67)]:
        b = T.bisection(paper(cfg))
        assert b["nodes"][0] == b["nodes"][1]
        assert abs(b["per_node"] - metis) < 0.08  # a heuristic partitioner


@pytest.mark.parametrize("keys,key", [
    ({"kind": "slimfly", "q": 12}, "topology.q"),
    ({"kind": "slimfly", "q": 2}, "topology.q"),
    ({"kind": "slimfly", "q": 1}, "topology.q"),
    ({"kind": "slimfly", "q": 13, "delta": 1}, "topology.delta"),
    ({"kind": "slimfly", "q": 13, "p": 0}, "topology.p"),
    ({"kind": "oft", "k": 5}, "topology.k"),
    ({"kind": "oft", "k": 12, "p": 13, "radix": 24}, "topology.p"),
    ({"kind": "mlfm", "h": 0}, "topology.h"),
    ({"kind": "mlfm", "h": 15, "p": 16, "radix": 30}, "topology.p"),
    ({"kind": "mlfm", "h": 15, "l": 16, "radix": 30}, "topology.l"),
])
def test_invalid_parameters(keys, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        T.build(keys)
