"""Tori and meshes (k-ary n-cubes, issue 31): structure against closed formulas, node and port
numbering, the k-ary n-cube traffic maps, exact zero-load latency per hop, channel-load
throughput bounds at offered load 1.0, the dateline VC schemes of dor / valiant-dor / ugal-dor
in check_deadlock, and thread-count independence."""
import itertools

import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim import topology as T
from flitsim.deadlock import check_deadlock
from conftest import small_dragonfly
from test_engine import assert_identical


def cube(kind, widths, terminals=1, **keys):
    return {"kind": kind, "widths": widths, "terminals": terminals, **keys}


def config(topo, algorithm="dor", vcs=2, buffer=8, **sections):
    router = {"vcs": vcs, "buffer": buffer, **sections.pop("router", {})}
    cfg = small_dragonfly(router=router, routing={"algorithm": algorithm}, **sections)
    cfg["topology"] = dict(topo)
    return cfg


def run(topo, algorithm="dor", vcs=2, threads=None, **sections):
    return flitsim.run(config(topo, algorithm, vcs, **sections), backend="cpu", threads=threads)


def wraps(topo):
    D = len(topo["widths"])
    if topo["kind"] == "mesh":
        return [False] * D
    w = topo.get("wrap", True)
    return list(w) if isinstance(w, list) else [w] * D


def coords(widths, r):
    out = []
    for w in widths:
        out.append(r % w)
        r //= w
    return out


def line_distance(W, a, b, ring):
    d = abs(a - b)
    return min(d, W - d) if ring else d


def mean_line_distance(W, ring):
    """Mean distance over all ordered coordinate pairs (equal ones included)."""
    if ring:
        return W / 4 if W % 2 == 0 else (W * W - 1) / (4 * W)
    return (W * W - 1) / (3 * W)


STRUCTURES = [
    cube("torus", [8, 8]), cube("torus", [5, 4, 3], 2), cube("torus", [6, 5], wrap=[True, False]),
    cube("torus", [2, 3]), cube("mesh", [8, 8]), cube("mesh", [4, 3, 5], 3), cube("mesh", [7]),
]


@pytest.mark.parametrize("topo", STRUCTURES, ids=lambda t: f'{t["kind"]}{t["widths"]}{t.get("wrap", "")}')
def test_structure_matches_the_k_ary_n_cube_formulas(topo):
    W, Tn, ring = topo["widths"], topo["terminals"], wraps(topo)
    D, R = len(W), int(np.prod(W))
    d = T.describe({"topology": topo})
    assert (d["routers"], d["nodes"]) == (R, R * Tn)
    # Links: a ring of W routers has W links (both of a width-2 ring's), a line W - 1.
    assert d["links"] == sum(R // w * (w if rg else w - 1) for w, rg in zip(W, ring))
    assert d["links_by_class"] == {f"dim{i}": R // w * (w if rg else w - 1) for i, (w, rg) in enumerate(zip(W, ring))}
    assert d["radix"] == Tn + 2 * D
    assert d["radix_min"] == Tn + sum(2 if rg else 1 for rg in ring)  # a corner router
    assert d["diameter"] == sum(w // 2 if rg else w - 1 for w, rg in zip(W, ring))
    mean_all_pairs = sum(mean_line_distance(w, rg) for w, rg in zip(W, ring))
    assert d["avg_distance"] == pytest.approx(R / (R - 1) * mean_all_pairs, rel=1e-12)
    even = [R // w * (2 if rg else 1) for w, rg in zip(W, ring) if w % 2 == 0]
    assert d.get("bisection_links") == d["attrs"].get("bisection_links") == (min(even) if even else None)
    assert d["attrs"]["wraps"] == sum(ring)


def test_numbering_and_port_order_follow_booksim2():
    topo = cube("torus", [4, 3, 5], 1, wrap=[True, False, True])
    t = T.build(topo)
    W, ring = topo["widths"], wraps(topo)
    x = np.stack([t.coord(f"dim{i}") for i in range(3)], axis=1)
    for r in range(t.num_routers):
        assert list(x[r]) == coords(W, r)  # router id = x0 + W0·(x1 + W1·x2)
    assert np.array_equal(t.port_router[t.node_port], np.arange(t.num_nodes))  # node = router
    tab = t.tables["cube_port"]
    for r in range(t.num_routers):
        ports = list(range(t.port_offset[r] + 1, t.port_offset[r + 1]))  # after the terminal port
        expected = []
        for dim, dr in itertools.product(range(3), (0, 1)):
            c = x[r][dim]
            if not ring[dim] and ((dr == 0 and c == W[dim] - 1) or (dr == 1 and c == 0)):
                assert tab[r * 6 + 2 * dim + dr] == -1
                continue
            gp = tab[r * 6 + 2 * dim + dr]
            expected.append(gp)
            c2 = (c + (1 if dr == 0 else -1)) % W[dim]
            peer = t.port_router[t.peer_port[gp]]
            assert list(x[peer]) == [c2 if i == dim else x[r][i] for i in range(3)]
            assert t.class_names[t.port_class[gp]] == f"dim{dim}"
        assert ports == expected  # terminals, then dim 0 +, dim 0 −, dim 1 +, ...


def test_builder_errors_name_the_key_and_rule():
    with pytest.raises(ValueError, match=r"topology\.widths: every width must be >= 2, got 1"):
        T.build(cube("torus", [4, 1]))
    with pytest.raises(ValueError, match=r"topology\.wrap: must be true/false or one per dimension \(2\), got 3"):
        T.build(cube("torus", [4, 4], wrap=[True, False, True]))
    with pytest.raises(ValueError, match=r'topology\.wrap: unknown key for topology kind "mesh"'):
        T.build(cube("mesh", [4, 4], wrap=True))
    with pytest.raises(ValueError, match=r"topology\.widths"):
        T.build({"kind": "mesh", "terminals": 1})


@pytest.mark.parametrize("topo", [cube("torus", [8, 8]), cube("torus", [5, 4, 3], 2), cube("mesh", [4, 3, 5], 3)],
                         ids=lambda t: f'{t["kind"]}{t["widths"]}')
@pytest.mark.parametrize("pattern", ["tornado", "neighbor"])
def test_tornado_and_neighbor_move_every_coordinate(topo, pattern):
    m = np.asarray(_core.destination_map(config(topo, traffic={"pattern": pattern})))
    W, Tn = topo["widths"], topo["terminals"]
    for k in range(len(m)):
        x = coords(W, k // Tn)
        y = [(c + ((w + 1) // 2 - 1 if pattern == "tornado" else 1)) % w for c, w in zip(x, W)]
        assert m[k] == k % Tn + Tn * sum(c * int(np.prod(W[:i])) for i, c in enumerate(y))


@pytest.mark.parametrize("pattern,dest", [
    ("transpose", lambda x, y: (y, x)),                # rank x + 8y -> y + 8x
    ("bitcomp", lambda x, y: (7 - x, 7 - y)),          # 63 − k
    ("bitrev", lambda x, y: (int(f"{y:03b}"[::-1], 2), int(f"{x:03b}"[::-1], 2))),  # 6 bits reversed
])
def test_bit_permutations_act_on_booksim2s_node_numbers(pattern, dest):
    # On an 8x8 torus with one terminal, rank = node = router = x + 8y: the hop histogram under
    # DOR is that of the ring distances between (x, y) and the pattern's (x', y').
    r = run(cube("torus", [8, 8]), traffic={"pattern": pattern, "load": 0.1}, sim={"warmup": 200, "measure": 3000})
    want = np.zeros(len(r.hop_hist))
    for x, y in itertools.product(range(8), range(8)):
        x2, y2 = dest(x, y)
        want[line_distance(8, x, x2, True) + line_distance(8, y, y2, True)] += 1
    np.testing.assert_allclose(r.hop_hist / r.hop_hist.sum(), want / want.sum(), atol=0.02)
    assert np.all(r.hop_hist[want == 0] == 0)


@pytest.mark.parametrize("topo", [cube("torus", [8, 8]), cube("mesh", [6, 4], 2), cube("torus", [5, 4, 3], wrap=[True, False, True])],
                         ids=lambda t: f'{t["kind"]}{t["widths"]}')
def test_zero_load_latency_is_exact_per_hop_and_dor_is_minimal(topo):
    # No contention: a packet of S flits over H hops takes (S−1) + 2·Lt + (H+1)·Lr + H·Lc cycles
    # (tests/test_engine.py), and DOR's H is the sum of the ring / line distances.
    S, Lt, Lr, Lc = 3, 2, 2, 3
    r = run(topo, channels={"latency": Lc, "terminal": Lt}, router={"latency": Lr},
            traffic={"load": 0.001, "packet_size": S}, sim={"warmup": 0, "measure": 12000})
    assert r.packets_measured >= 100
    # Contention only adds cycles; at this load two packets rarely meet (< 0.05 cycles a packet).
    extra = r.latency_sum - (r.packets_measured * ((S - 1) + 2 * Lt + Lr) + r.hops_sum * (Lr + Lc))
    assert 0 <= extra <= 0.05 * r.packets_measured
    assert r.nonminimal_fraction == 0
    diameter = sum(w // 2 if rg else w - 1 for w, rg in zip(topo["widths"], wraps(topo)))
    assert r.hop_hist[diameter + 1:].sum() == 0 and r.hop_hist[diameter] > 0


def test_per_dimension_channel_latency():
    # neighbor: every packet takes exactly one hop in each dimension of the 3-D torus, so its
    # latency is (S−1) + 2·Lt + 4·Lr + L0 + L1 + L2 with [channels] dim0, dim1, dim2.
    S, Lt, Lr, L = 2, 1, 1, (2, 5, 9)
    topo = cube("torus", [4, 4, 4])
    r = run(topo, channels={"terminal": Lt, "dim0": L[0], "dim1": L[1], "dim2": L[2]},
            traffic={"pattern": "neighbor", "load": 0.002, "packet_size": S}, sim={"warmup": 0, "measure": 6000})
    assert r.packets_measured >= 100 and r.hop_hist[3] == r.hop_hist.sum()
    exact = (S - 1) + 2 * Lt + 4 * Lr + sum(L)
    lat = np.nonzero(r.latency_hist)[0]  # 1-cycle bins
    assert lat[0] == exact and r.latency_hist[exact] >= 0.98 * r.packets_measured  # the rest met a packet


# Throughput at offered load 1.0 against the channel-load bound (Dally & Towles §3.3.1):
# uniform on a k-ary n-cube with k even, 8/k per node on a torus, 4/k on a mesh (bisection
# channels); tornado under DOR: each + channel of a ring carries ⌈k/2⌉ − 1 flows, 1/(⌈k/2⌉ − 1).
# An input-queued router with 2 VCs of 8 flits reaches only part of the uniform bound (head-of-
# line blocking); tornado's bound is reached exactly. Oldest-first arbitration: with round-robin
# VC allocation a router's terminal port (2 input VCs) beats the dateline's single transit VC
# 2:1 at every hop, transit flows starve along the ring and the accepted rate at load 1.0
# collapses (0.03 under tornado, saturation near 0.2; docs/validation.md).
BOUNDS = [  # topology, pattern, algorithm, vcs, bound, lowest fraction of it accepted
    (cube("torus", [8, 8]), "uniform", "dor", 2, 8 / 8, 0.55),
    (cube("mesh", [8, 8]), "uniform", "dor", 2, 4 / 8, 0.70),
    (cube("torus", [8, 8]), "tornado", "dor", 2, 1 / 3, 0.95),
]


@pytest.mark.parametrize("topo,pattern,alg,vcs,bound,fraction", BOUNDS,
                         ids=[f'{b[0]["kind"]}-{b[1]}-{b[2]}' for b in BOUNDS])
def test_saturation_throughput_respects_the_channel_load_bound(topo, pattern, alg, vcs, bound, fraction):
    r = run(topo, alg, vcs=vcs, traffic={"pattern": pattern, "load": 1.0, "packet_size": 1},
            sim={"warmup": 1000, "measure": 3000, "drain_limit": 100}, router={"arbitration": "age"})
    assert fraction * bound <= r.accepted <= bound * 1.005  # 0.5 %: flits of the warmup finishing


def test_valiant_uses_both_ring_directions_and_ugal_detours_only_under_load():
    # Tornado under DOR loads only the + channels of every ring; Valiant's two random phases
    # load + and − alike (within 10 % here), and its throughput stays under its bound (8/k)/2 =
    # 0.5 (measured 0.27 with 4 VCs of 8 flits, 0.34 with 8 of 16: docs/validation.md). UGAL-L
    # stays minimal below DOR's saturation (1/3) and detours above it.
    topo = cube("torus", [8, 8])
    t = T.build(topo)
    ring = t.peer_port >= 0
    plus = np.zeros(t.num_ports, bool)
    plus[t.tables["cube_port"].reshape(-1, 4)[:, [0, 2]].ravel()] = True
    kw = dict(traffic={"pattern": "tornado", "load": 1.0, "packet_size": 1}, router={"arbitration": "age"},
              sim={"warmup": 1000, "measure": 3000, "drain_limit": 100})
    dor = run(topo, "dor", vcs=4, **kw)
    assert dor.channel_flits[ring & ~plus].sum() == 0
    val = run(topo, "valiant-dor", vcs=4, **kw)
    a, b = val.channel_flits[plus].sum(), val.channel_flits[ring & ~plus].sum()
    assert abs(a - b) < 0.1 * (a + b) and val.nonminimal_fraction == 1.0 and val.accepted <= 0.5
    low = run(topo, "ugal-dor", vcs=4, traffic={"pattern": "tornado", "load": 0.2}, sim={"warmup": 300, "measure": 2000})
    assert low.nonminimal_fraction == 0  # below DOR's saturation: minimal
    high = run(topo, "ugal-dor", vcs=4, traffic={"pattern": "tornado", "load": 0.4}, router={"arbitration": "age"},
               sim={"warmup": 1000, "measure": 2000, "drain_limit": 100})
    assert high.nonminimal_fraction > 0.2


VC_NEEDS = [  # topology, algorithm, VC classes
    (cube("torus", [4, 4]), "dor", 2), (cube("mesh", [4, 4]), "dor", 1),
    (cube("torus", [4, 3], wrap=[False, True]), "dor", 2), (cube("torus", [4, 4], wrap=False), "dor", 1),
    (cube("torus", [4, 4]), "valiant-dor", 4), (cube("mesh", [4, 4]), "valiant-dor", 2),
    (cube("torus", [4, 4]), "ugal-dor", 4), (cube("mesh", [3, 4]), "ugal-dor", 2),
    (cube("torus", [3, 4, 2], 2), "dor", 2),
]


@pytest.mark.parametrize("topo,alg,classes", VC_NEEDS,
                         ids=[f'{v[0]["kind"]}{v[0]["widths"]}{v[0].get("wrap", "")}-{v[1]}' for v in VC_NEEDS])
def test_check_deadlock_accepts_the_dateline_schemes_and_refuses_too_few_vcs(topo, alg, classes):
    rep = check_deadlock(config(topo, alg, vcs=classes))
    assert rep.acyclic and rep.classes == classes
    if classes > 1:
        with pytest.raises(ValueError, match=rf'router\.vcs: routing "{alg}" on {topo["kind"]} needs at least {classes} VCs'):
            check_deadlock(config(topo, alg, vcs=classes - 1))


@pytest.mark.parametrize("alg", ["dor", "valiant-dor"])
def test_a_torus_without_dateline_classes_has_a_cycle(alg):
    cfg = config(cube("torus", [4, 4]), alg, vcs=4)
    cfg["routing"]["deadlock_avoidance"] = False
    assert not check_deadlock(cfg).acyclic
    # a mesh has none even on one class
    cfg = config(cube("mesh", [4, 4]), "dor", vcs=1)
    assert check_deadlock(cfg).acyclic


def test_even_radix_tie_takes_both_directions():
    # 4-ary 1-cube, a destination 2 away: BookSim2's random direction, so both of router 0's
    # ring ports carry flits (and each about half of them).
    topo = cube("torus", [4])
    r = run(topo, traffic={"pattern": "shift", "shift": 2, "load": 0.2}, sim={"warmup": 200, "measure": 4000})
    t = T.build(topo)
    plus, minus = t.tables["cube_port"][0], t.tables["cube_port"][1]
    a, b = r.channel_flits[plus], r.channel_flits[minus]
    assert a > 0 and b > 0 and abs(a - b) / (a + b) < 0.1


def test_runs_are_thread_count_independent():
    kw = dict(traffic={"pattern": "tornado", "load": 0.4, "packet_size": 2}, sim={"warmup": 100, "measure": 300})
    for topo, alg in ((cube("torus", [4, 4], 2), "ugal-dor"), (cube("mesh", [4, 3], 2), "dor")):
        assert_identical(run(topo, alg, vcs=4, threads=1, **kw), run(topo, alg, vcs=4, threads=2, **kw))


def test_routing_errors():
    with pytest.raises(ValueError, match=r'routing\.algorithm: "valiant-dor" needs at least 3 routers, got 2'):
        run(cube("torus", [2]), "valiant-dor", vcs=4)
    with pytest.raises(ValueError, match=r'"dimwar" is not supported on torus'):
        run(cube("torus", [4, 4]), "dimwar", vcs=4)


@pytest.mark.parametrize("config_file", ["configs/mesh-8x8.toml", "configs/torus-8x8.toml"])
def test_cli_commands_work_on_the_example_configs(config_file, tmp_path, monkeypatch, capsys):
    from flitsim.cli import main
    from pathlib import Path
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    short = ["--set", "sim.warmup=100", "--set", "sim.measure=300", "--quiet"]
    assert main(["info", config_file]) == 0
    out = capsys.readouterr().out
    assert "64" in out and "diameter" in out
    assert main(["check-deadlock", config_file, "--quiet"]) == 0
    assert "acyclic" in capsys.readouterr().out
    assert main(["run", config_file, *short]) == 0
    assert main(["sweep", config_file, "--over", "traffic.load=0.1,0.2", "-o", str(tmp_path / "s.h5"), *short]) == 0
    assert main(["saturate", config_file, "--tolerance", "0.05", "--probes", "2", *short]) == 0
