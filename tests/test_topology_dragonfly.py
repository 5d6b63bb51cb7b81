"""Dragonfly structure (TARGETS §2.1 DF-S1..S6, §3.1 items 1, 2, 9; P2 row-column groups)."""
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flitsim._core")
from flitsim import topology as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def paper(name):
    """Path of a shipped paper config, independent of the working directory."""
    return str(ROOT / "configs" / "papers" / f"{name}.toml")


def df(**keys):
    return T.build({"kind": "dragonfly", **keys})


def global_peers(t):
    """Per router r and slot m: (peer router, peer slot) of global_port[r*h + m], or -1."""
    h = t.attrs["h"]
    gp = t.tables["global_port"].reshape(t.num_routers, h)
    slot_of = {int(gp[r, m]): (r, m) for r in range(t.num_routers) for m in range(h) if gp[r, m] >= 0}
    peers = {}
    for (r, m) in slot_of.values():
        peers[(r, m)] = slot_of[int(t.peer_port[gp[r, m]])]
    return peers


def group_pair_counts(t):
    a, G = t.attrs["a"], t.attrs["groups"]
    u, v, cls = t.links()
    glob = cls == t.class_names.index("global")
    m = np.zeros((G, G), dtype=int)
    np.add.at(m, (u[glob] // a, v[glob] // a), 1)
    return m + m.T


def test_df_s1_figure1():
    t = df(p=2, a=4, h=2)
    d = T.describe({"kind": "dragonfly", "p": 2, "a": 4, "h": 2})
    assert (t.attrs["groups"], t.num_routers, t.num_nodes) == (9, 36, 72)
    assert d["radix"] == d["radix_min"] == 7
    assert d["links_by_class"] == {"local": 9 * 6, "global": 36}  # N_r = 72 directed channels
    assert d["diameter"] == 3


def test_df_s2_smallest_system():
    t = df(p=2, a=3, h=2)
    assert (t.num_nodes, t.num_routers, t.attrs["groups"]) == (42, 21, 7)


def test_df_s3_largest_system():
    d = T.describe({"kind": "dragonfly", "p": 8, "a": 16, "h": 8}, distances=False, paths=False)
    assert (d["nodes"], d["routers"], d["attrs"]["groups"], d["radix"]) == (16512, 2064, 129, 31)
    assert 2 * d["links_by_class"]["global"] == 16512  # N_r


@pytest.mark.parametrize("p,a,h", [(1, 2, 1), (2, 3, 2), (3, 4, 2), (2, 4, 3), (4, 8, 4)])
def test_df_s4_counts(p, a, h):
    d = T.describe({"kind": "dragonfly", "p": p, "a": a, "h": h}, distances=False, paths=False)
    assert 2 * d["links_by_class"]["global"] == (a * h + 1) * a * h
    assert d["nodes"] == (a * h + 1) * a * p
    assert d["links_by_class"]["local"] == (a * h + 1) * a * (a - 1) // 2


def test_df_s5_balanced_family():
    nodes = [6, 72, 342, 1056, 2550, 5256, 9702, 16512]
    switches = [6, 36, 114, 264, 510, 876, 1386, 2064]
    for p in range(1, 9):
        t = df(p=p, a=2 * p, h=p)
        assert (t.num_nodes, t.num_routers) == (nodes[p - 1], switches[p - 1])
    assert min(p for p in range(1, 9) if switches[p - 1] > 512) == 6


@pytest.mark.parametrize("p,a,h", [(2, 4, 2), (2, 3, 2), (3, 6, 3), (1, 5, 3)])
def test_df_s6_palmtree(p, a, h):
    t = df(p=p, a=a, h=h)
    G = a * h + 1
    counts = group_pair_counts(t)
    assert (counts[~np.eye(G, dtype=bool)] == 1).all() and (np.diag(counts) == 0).all()
    for (r, m), (r2, m2) in global_peers(t).items():
        i, x = divmod(r, a)
        j, x2 = divmod(r2, a)
        assert j == (i + x * h + m + 1) % G  # the resolved formula of P0:L69
        assert (x2, m2) == (a - 1 - x, h - 1 - m)


def test_palmtree_consecutive_groups_on_two_switches():
    # P0:L71: h consecutive destination groups attach to at most two consecutive switches.
    p, a, h = 3, 6, 3
    t = df(p=p, a=a, h=h)
    G = a * h + 1
    gw = t.tables["gateway_router"].reshape(G, G)
    for i in range(G):
        for start in range(1, G - h + 1):
            routers = {int(gw[i, (i + o) % G]) % a for o in range(start, start + h)}
            assert len(routers) <= 2
            assert max(routers) - min(routers) <= 1


def test_consecutive_arrangement_is_booksim():
    p, a, h = 2, 4, 2
    t = df(p=p, a=a, h=h, arrangement="consecutive")
    for (r, m), (r2, _) in global_peers(t).items():
        g, x = divmod(r, a)
        s = x * h + m
        assert r2 // a == (s if s < g else s + 1)


@pytest.mark.parametrize("arrangement", ["palmtree", "consecutive", "random"])
@pytest.mark.parametrize("a,h,G", [(20, 10, 60), (3, 3, 5), (3, 2, 6), (1, 5, 5), (3, 3, 9), (4, 2, 4)])
def test_non_full_scale_spreads_links_evenly(arrangement, a, h, G):
    t = df(p=1, a=a, h=h, groups=G, arrangement=arrangement)
    counts = group_pair_counts(t)
    off = counts[~np.eye(G, dtype=bool)]
    lo = a * h // (G - 1)
    assert set(np.unique(off)) <= {lo, lo + 1}
    used = counts.sum(axis=1)
    # every global port is used, except one port in one group when G and the remainder are odd
    assert (used == a * h).sum() >= G - 1 and used.min() >= a * h - 1
    assert t.attrs["global_links_per_pair_min"] == off.min()
    assert t.attrs["global_links_per_pair_max"] == off.max()
    # CSR gateway tables list exactly the global ports from group i to group j
    off_t, ports = t.tables["gateway_offset"], t.tables["gateway_ports"]
    gw_r, gw_p = t.tables["gateway_router"], t.tables["gateway_port"]
    for i in range(G):
        for j in range(G):
            k = i * G + j
            lst = ports[off_t[k]:off_t[k + 1]]
            assert len(lst) == counts[i, j]
            assert all(t.port_router[q] // a == i for q in lst)
            assert all(t.port_router[t.peer_port[q]] // a == j for q in lst)
            if i != j:
                assert gw_p[k] == lst[0] and gw_r[k] == t.port_router[lst[0]]
            else:
                assert gw_r[k] == -1 and gw_p[k] == -1


def test_random_arrangement_is_seeded():
    base = dict(p=1, a=4, h=2, arrangement="random")
    t1, t2, t3 = df(seed=1, **base), df(seed=1, **base), df(seed=2, **base)
    assert np.array_equal(t1.peer_port, t2.peer_port)
    assert not np.array_equal(t1.peer_port, t3.peer_port)
    assert (group_pair_counts(t3)[~np.eye(9, dtype=bool)] == 1).all()


def test_relabel_applies_a_group_permutation_before_wiring():
    p, a, h = 2, 4, 2
    G = a * h + 1
    assert np.array_equal(df(p=p, a=a, h=h).tables["group_perm"], np.arange(G))
    t = df(p=p, a=a, h=h, relabel=True, seed=3)
    perm = t.tables["group_perm"]
    assert sorted(perm) == list(range(G)) and not np.array_equal(perm, np.arange(G))
    logical = np.argsort(perm)  # physical group -> logical label
    for (r, m), (r2, m2) in global_peers(t).items():
        x = r % a
        i = logical[r // a]
        assert r2 // a == perm[(i + x * h + m + 1) % G]
        assert (r2 % a, m2) == (a - 1 - x, h - 1 - m)
    assert not np.array_equal(perm, df(p=p, a=a, h=h, relabel=True, seed=4).tables["group_perm"])
    # nodes stay contiguous: node = router*p + t
    assert np.array_equal(t.port_router[t.node_port], np.repeat(np.arange(G * a), p))


def follow_local(t, r, j):
    a = t.attrs["a"]
    hops = 0
    while r % a != j:
        gp = t.tables["local_port"][r * a + j]
        n = t.tables["local_links"][r * a + j]
        peers = {int(t.port_router[t.peer_port[gp + k]]) for k in range(n)}
        assert len(peers) == 1  # the trunk ports are consecutive and lead to one router
        r = peers.pop()
        hops += 1
    return hops


def test_row_column_groups_iso_n():
    d = T.describe(paper("iso-n-rc"), paths=False)
    assert (d["nodes"], d["routers"], d["links"]) == (12250, 1750, 28875)
    assert d["links_by_class"] == {"local": 22750, "global": 6125}
    assert d["radix"] == d["radix_min"] == 40
    assert d["diameter"] == 5


def test_row_column_local_routes_are_minimal():
    t = df(p=1, h=2, groups=5, intra="row-column", rows=3, cols=4, trunking=2)
    assert t.coord_names == ["group", "index", "row", "col"]
    a = t.attrs["a"]
    for r in range(a):
        for j in range(a):
            same = r // 4 == j // 4 or r % 4 == j % 4
            assert follow_local(t, r, j) == (0 if r == j else 1 if same else 2)
    assert set(t.tables["local_links"][t.tables["local_port"] >= 0]) == {2}


def test_all_to_all_local_ports_iso_nl():
    t = df(p=10, a=20, h=10, groups=60, local_ports=20)
    local = t.class_names.index("local")
    per_router = np.bincount(t.port_router[t.port_class == local], minlength=t.num_routers)
    assert (per_router == 20).all()
    for r in range(20):
        for j in range(20):
            if r != j:
                assert follow_local(t, r, j) == 1


@pytest.mark.parametrize("keys,key", [
    (dict(p=2, a=4, h=2, groups=10), "topology.groups"),
    (dict(p=2, a=4, h=2, groups=1), "topology.groups"),
    (dict(p=2, a=4, h=2, arrangement="spiral"), "topology.arrangement"),
    (dict(p=2, a=4, h=2, intra="ring"), "topology.intra"),
    (dict(p=2, a=5, h=2, intra="row-column", rows=2, cols=3), "topology.a"),
    (dict(p=2, a=4, h=2, rows=2), "topology.rows"),
    (dict(p=2, a=5, h=2, local_ports=5), "topology.local_ports"),
    (dict(p=2, a=4, h=2, local_ports=4, trunking=2), "topology.local_ports"),
    (dict(p=0, a=4, h=2), "topology.p"),
    (dict(p=2, a=4, h=2, grups=3), "topology.grups"),
    (dict(p=2, h=2), "topology.a"),
    (dict(p=11, a=20, h=10, groups=60, radix=39), "topology.p"),
])
def test_invalid_parameters(keys, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        df(**keys)
