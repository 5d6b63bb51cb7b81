"""flitsim.topology API: build/describe/cost/networkx/bisection and the shipped configs."""
import glob
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flitsim._core")
from flitsim import topology as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def paper(name):
    """Path of a shipped paper config, independent of the working directory."""
    return str(ROOT / "configs" / "papers" / f"{name}.toml")


PAPER_CONFIGS = sorted(glob.glob(str(ROOT / "configs" / "papers" / "*.toml")))
DESCRIBE_KEYS = {"kind", "attrs", "nodes", "routers", "terminal_routers", "links",
                 "links_by_class", "radix", "radix_min", "ports_total", "ports_per_node",
                 "links_per_node", "diameter", "router_diameter", "avg_distance",
                 "path_diversity", "balance", "cost", "links_copper", "links_optical",
                 "cost_params"}


def test_kinds():
    assert {"dragonfly", "hyperx", "fattree", "xgft", "slimfly", "mlfm", "oft", "graph"} <= set(T.kinds())


def test_build_accepts_config_section_and_path():
    a = T.build({"topology": {"kind": "oft", "k": 4}, "router": {"vcs": 2}})
    b = T.build({"kind": "oft", "k": 4})
    assert np.array_equal(a.peer_port, b.peer_port)
    c = T.build(paper("hyperx-8x8x8"))
    assert c.kind == "hyperx" and c.router_coords.shape == (512, 3)


def test_tables_are_consistent():
    t = T.build({"kind": "mlfm", "h": 3})
    gp = np.arange(t.num_ports)
    link = t.peer_port >= 0
    assert np.array_equal(t.peer_port[t.peer_port[link]], gp[link])
    assert np.array_equal(t.port_node[t.node_port], np.arange(t.num_nodes))
    assert t.radix().sum() == t.num_ports
    assert t.class_names[0] == "terminal"


def test_describe_keys_and_values():
    d = T.describe({"kind": "dragonfly", "p": 2, "a": 4, "h": 2})
    assert DESCRIBE_KEYS <= set(d)
    assert d["ports_total"] == 36 * 7 and d["ports_per_node"] == 3.5
    assert d["balance"] == pytest.approx(2 * 90 / (72 * 3))
    assert 1 < d["avg_distance"] < 3
    assert sum(d["path_diversity"]["histogram"].values()) == d["path_diversity"]["pairs"]


def test_describe_skips_expensive_parts_when_asked():
    d = T.describe({"kind": "slimfly", "q": 5}, distances=False, paths=False)
    assert d["diameter"] is None and d["path_diversity"] is None and d["balance"] is None


def test_cost_defaults_and_overrides():
    cfg = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
    d = T.describe(cfg, paths=False)
    assert (d["links_copper"], d["links_optical"]) == (54, 36)
    assert d["cost"] == pytest.approx(36 + 0.16 * 54 + 20 * 36)
    d = T.describe(cfg, cost={"copper": 0.5, "router": 0, "optical": 2}, paths=False)
    assert d["cost"] == pytest.approx(2 * 36 + 0.5 * 54)
    d = T.describe(cfg, cost={"copper_classes": []}, paths=False)
    assert (d["links_copper"], d["links_optical"]) == (0, 90)
    d = T.describe(cfg, cost={"copper_per_router": 1}, paths=False)
    assert d["links_copper"] == 36
    # a [cost] section of a full config is read, and describe(cost=...) overrides it
    full = {"topology": cfg, "cost": {"router": 10}}
    assert T.describe(full, paths=False)["cost"] == pytest.approx(36 + 0.16 * 54 + 10 * 36)
    assert T.describe(full, cost={"router": 0}, paths=False)["cost_params"]["router"] == 0


@pytest.mark.parametrize("cost,pattern", [
    ({"routers": 1}, r'cost: unknown key "routers"'),
    ({"copper": -1}, r"cost\.copper: must be a finite number >= 0"),
    ({"optical": float("nan")}, r"cost\.optical: must be a finite number >= 0, got nan"),
    ({"router": float("inf")}, r"cost\.router: must be a finite number >= 0, got inf"),
    ({"copper_per_router": 2**40}, r"cost\.copper_per_router: must be an integer in \[0, 4096\]"),
    ({"copper_classes": "local"}, r"cost\.copper_classes"),
    ({"copper_classes": ["nope"]}, r"cost\.copper_classes: \['nope'\] are not channel classes"),
])
def test_cost_errors(cost, pattern):
    with pytest.raises(ValueError, match=pattern):
        T.describe({"kind": "dragonfly", "p": 1, "a": 2, "h": 1}, cost=cost, paths=False)


def test_to_networkx():
    nx = pytest.importorskip("networkx")
    cfg = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
    g = T.to_networkx(cfg)
    assert g.number_of_nodes() == 36 and g.number_of_edges() == 90
    assert nx.diameter(g) == 3
    assert g.nodes[5] == {"terminals": 2, "group": 1, "index": 1}
    assert {c for _, _, c in g.edges(data="cls")} == {"local", "global"}
    gt = T.to_networkx(cfg, terminals=True)
    assert gt.number_of_nodes() == 36 + 72 and gt.number_of_edges() == 90 + 72
    # multi-links stay parallel edges
    h = T.to_networkx({"kind": "hyperx", "widths": [3], "terminals": 1, "trunking": 2})
    assert h.number_of_edges() == 6 and h.number_of_edges(0, 1) == 2


def test_bisection_of_known_graphs():
    ring = {"kind": "graph", "links": [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 0]}
    b = T.bisection(ring)
    assert b["cut_links"] == 2 and b["nodes"] == (4, 4) and b["per_node"] == 0.5
    two_cliques = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    two_cliques += [(i + 4, j + 4) for i, j in two_cliques] + [(0, 4)]
    b = T.bisection({"kind": "graph", "links": [x for e in two_cliques for x in e]})
    assert b["cut_links"] == 1
    d = T.describe({"kind": "mlfm", "h": 4}, bisect=True)
    assert d["bisection"]["nodes"] == (40, 40)


@pytest.mark.parametrize("path", PAPER_CONFIGS, ids=[p.split("/")[-1] for p in PAPER_CONFIGS])
def test_paper_configs_build(path):
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    t = T.build(cfg)
    assert t.num_nodes > 0 and t.kind == cfg["topology"]["kind"]


def test_paper_configs_pass_the_config_schema():
    config = pytest.importorskip("flitsim.config")
    bad = []
    for path in PAPER_CONFIGS:
        try:
            config.load_config(path)
        except config.ConfigError as e:
            bad.append(f"{path}: {e}")
    # config.TOPOLOGY_KEYS is what the builders registered (_core.topology_keys()): no lag.
    assert not bad, "; ".join(bad[:3])
