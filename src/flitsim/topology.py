"""Topologies from Python: build the C++ topology tables, describe their structure and cost,
and export them to networkx.

    >>> from flitsim import topology
    >>> topology.describe({"topology": {"kind": "slimfly", "q": 5}})["diameter"]
    2

`config` arguments accept a full configuration (``{"topology": {...}, "cost": {...}}``), a
``[topology]`` section alone (``{"kind": "oft", "k": 12}``) or a path to a TOML file.
docs/topologies.md documents every kind, its keys and the conventions used here.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import cost as _cost
from . import topology_analysis as _ana

__all__ = ["TopologyTables", "kinds", "build", "describe", "bisection", "to_networkx",
           "DESCRIBE_PATHS_MAX_ROUTERS", "DESCRIBE_DISTANCES_MAX_ROUTERS"]

# describe() skips what would take too long or too much memory on a laptop; pass
# paths=True / distances=True to force.
DESCRIBE_DISTANCES_MAX_ROUTERS = 12_000   # R² bytes of distances
DESCRIBE_PATHS_MAX_ROUTERS = 2_500        # R³ flops of path counting


def _core():
    from . import _core as core  # the compiled extension
    return core


def _load(config: Any) -> dict[str, Any]:
    if isinstance(config, (str, os.PathLike)):
        import tomllib
        from .shipped import find
        with open(find(config) or config, "rb") as f:   # configs/... also from the package data
            return tomllib.load(f)
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a dict or a TOML path, got {type(config).__name__}")
    return dict(config)


def _split(config: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(topology section, cost section) of any accepted config form."""
    cfg = _load(config)
    if "topology" in cfg and isinstance(cfg["topology"], Mapping):
        return dict(cfg["topology"]), dict(cfg.get("cost", {}) or {})
    return cfg, {}


@dataclass
class TopologyTables:
    """The C++ topology tables (host/topologies/topology.hpp) as numpy arrays.

    Ports of router r are port_offset[r]..port_offset[r+1]-1; a port leads to another port
    (peer_port >= 0) or to a node (port_node >= 0). port_class indexes class_names, where
    class 0 is always "terminal"."""
    kind: str
    num_routers: int
    num_nodes: int
    port_offset: np.ndarray
    port_router: np.ndarray
    peer_port: np.ndarray
    port_node: np.ndarray
    port_class: np.ndarray
    node_port: np.ndarray
    class_names: list[str]
    coord_names: list[str]
    router_coords: np.ndarray  # R × len(coord_names)
    attrs: dict[str, int]
    tables: dict[str, np.ndarray]
    section: dict[str, Any] = field(default_factory=dict)

    @property
    def num_ports(self) -> int:
        return len(self.peer_port)

    def radix(self) -> np.ndarray:
        """Ports per router (terminal ports included)."""
        return np.diff(self.port_offset)

    def terminals(self) -> np.ndarray:
        """Nodes per router."""
        return np.bincount(self.port_router[self.node_port], minlength=self.num_routers)

    def links(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Router-to-router links, each once: (router u, router v, class index)."""
        gp = np.flatnonzero(self.peer_port > np.arange(self.num_ports))
        return (self.port_router[gp], self.port_router[self.peer_port[gp]],
                self.port_class[gp].astype(np.int64))

    def links_by_class(self) -> dict[str, int]:
        _, _, cls = self.links()
        counts = np.bincount(cls, minlength=len(self.class_names))
        return {name: int(counts[i]) for i, name in enumerate(self.class_names) if i > 0}

    def coord(self, name: str) -> np.ndarray:
        return self.router_coords[:, self.coord_names.index(name)]


def kinds() -> list[str]:
    """Topology kinds the compiled library knows."""
    return list(_core().topology_kinds())


def build(config: Any) -> TopologyTables:
    """Build the topology of a config (see the module docstring). Invalid parameters raise
    ValueError naming ``topology.<key>`` and the rule."""
    section, _ = _split(config)
    d = _core().build_topology(section)
    coords = np.asarray(d["router_coords"]).reshape(d["num_routers"], len(d["coord_names"]))
    return TopologyTables(
        kind=d["kind"], num_routers=int(d["num_routers"]), num_nodes=int(d["num_nodes"]),
        port_offset=d["port_offset"], port_router=d["port_router"], peer_port=d["peer_port"],
        port_node=d["port_node"], port_class=d["port_class"], node_port=d["node_port"],
        class_names=list(d["class_names"]), coord_names=list(d["coord_names"]),
        router_coords=coords, attrs=dict(d["attrs"]),
        tables={k: np.asarray(v) for k, v in d["tables"].items()}, section=section)


def _distances(t: TopologyTables) -> np.ndarray:
    """All-pairs router distances: the C++ BFS (what the engine routes with) when the
    extension has it, else numpy frontier expansion."""
    core = _core()
    if hasattr(core, "router_distances"):
        return np.asarray(core.router_distances(t.section))
    u, v, _ = t.links()
    return _ana.distances(_ana.adjacency(t.num_routers, u, v))


def _path_diversity(t: TopologyTables, adj: np.ndarray, dist: np.ndarray) -> dict[str, Any]:
    """Histogram of minimal router paths over unordered pairs of distinct, non-adjacent
    terminal routers (P3:L207 and docs/targets.md D2-S6/S7/S10/S13)."""
    term = np.flatnonzero(t.terminals() > 0)
    counts = _ana.minimal_path_counts(adj, dist, term)[:, term]
    iu = np.triu_indices(len(term), k=1)
    c = counts[iu]
    far = dist[np.ix_(term, term)][iu] > 1
    c = c[far].astype(np.int64)
    if len(c) == 0:
        return {"histogram": {}, "pairs": 0, "mean": None, "max": None}
    vals, num = np.unique(c, return_counts=True)
    return {"histogram": {int(v): int(n) for v, n in zip(vals, num)}, "pairs": int(len(c)),
            "mean": float(c.mean()), "max": int(c.max())}


# Topology attributes the builders store as codes (Topology.attrs holds integers), with the
# names the configuration uses for them, in code order (host/topologies/dragonfly.cpp).
ATTR_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("dragonfly", "arrangement"): ("palmtree", "consecutive", "random"),
    ("dragonfly", "intra"): ("all-to-all", "row-column"),
}


def named_attrs(kind: str, attrs: Mapping[str, Any]) -> dict[str, Any]:
    """``attrs`` with coded values replaced by their configuration names (ATTR_NAMES)."""
    out = dict(attrs)
    for k, v in attrs.items():
        names = ATTR_NAMES.get((kind, k))
        if names is not None and 0 <= int(v) < len(names):
            out[k] = names[int(v)]
    return out


def describe(config: Any, cost: Mapping[str, Any] | None = None, *, distances: bool | None = None,
             paths: bool | None = None, bisect: bool = False,
             tables: TopologyTables | None = None) -> dict[str, Any]:
    """Structure, balance and cost of a topology.

    Keys: kind, attrs, nodes, routers, terminal_routers, links (router-to-router),
    links_by_class, radix (max ports of a router), radix_min, ports_total (router ports,
    terminal ports included), ports_per_node, links_per_node ((links + nodes)/nodes: terminal
    links counted, as in P3:L112), diameter (max router hops between terminal routers),
    router_diameter (over all routers), avg_distance (mean router hops over node pairs on
    different routers), path_diversity ({histogram, pairs, mean, max}, see _path_diversity),
    balance (P2:L157: 2·links/(nodes·diameter)), cost, links_copper, links_optical,
    cost_params (cost.py), min_vc_classes (when the builder declares it), bisection_links
    (links crossing a minimum equal bisection, where the builder knows it exactly), and with
    bisect=True a "bisection" entry (see bisection()).

    Distances are skipped (None) above DESCRIBE_DISTANCES_MAX_ROUTERS routers and path
    counts above DESCRIBE_PATHS_MAX_ROUTERS unless forced with distances/paths=True.
    ``cost`` overrides the config's [cost] section, which overrides cost.py's defaults."""
    _, cost_section = _split(config)
    t = tables if tables is not None else build(config)
    u, v, cls = t.links()
    radix = t.radix()
    by_class = t.links_by_class()
    n_links = int(len(u))
    terms = t.terminals()
    out: dict[str, Any] = {
        "kind": t.kind, "attrs": dict(t.attrs), "nodes": t.num_nodes, "routers": t.num_routers,
        "terminal_routers": int((terms > 0).sum()), "links": n_links,
        "links_by_class": by_class, "radix": int(radix.max()), "radix_min": int(radix.min()),
        "ports_total": int(t.num_ports), "ports_per_node": t.num_ports / t.num_nodes,
        "links_per_node": (n_links + t.num_nodes) / t.num_nodes,
        "diameter": None, "router_diameter": None, "avg_distance": None,
        "path_diversity": None, "balance": None,
    }
    if "min_vc_classes" in t.attrs:
        out["min_vc_classes"] = int(t.attrs["min_vc_classes"])
    if "bisection_links" in t.attrs:  # exact, where the builder knows it (torus, mesh)
        out["bisection_links"] = int(t.attrs["bisection_links"])
    do_dist = distances if distances is not None else t.num_routers <= DESCRIBE_DISTANCES_MAX_ROUTERS
    do_paths = paths if paths is not None else t.num_routers <= DESCRIBE_PATHS_MAX_ROUTERS
    if do_dist or do_paths:
        adj = _ana.adjacency(t.num_routers, u, v)
        dist = _distances(t)
        tr = np.flatnonzero(terms > 0)
        dt = dist[np.ix_(tr, tr)]
        out["diameter"] = int(dt.max())
        out["router_diameter"] = int(dist.max())
        w = terms[tr].astype(np.float64)
        pair_w = np.outer(w, w)
        np.fill_diagonal(pair_w, 0.0)
        out["avg_distance"] = float((pair_w * dt).sum() / pair_w.sum()) if pair_w.sum() else 0.0
        if out["diameter"] > 0:
            out["balance"] = 2.0 * n_links / (t.num_nodes * out["diameter"])
        if do_paths:
            out["path_diversity"] = _path_diversity(t, adj, dist)
    merged = {**cost_section, **(cost or {})}
    out.update(_cost.network_cost(t.kind, t.attrs, t.num_routers, by_class, merged))
    if bisect:
        out["bisection"] = bisection(config, tables=t)
    return out


def bisection(config: Any, *, tables: TopologyTables | None = None) -> dict[str, Any]:
    """Estimate of the minimum bisection: routers split into two halves of equal node count.

    Partitioner: spectral (Fiedler vector) split followed by greedy swaps of equal-weight
    routers (topology_analysis.spectral_bisection). Dense eigen-decomposition: fine up to a
    few thousand routers. Returns cut_links, per_node = cut_links/(nodes/2) (P3:L201's
    "bisection per endpoint", in units of the link bandwidth b) and the node counts."""
    t = tables if tables is not None else build(config)
    u, v, _ = t.links()
    adj = _ana.adjacency(t.num_routers, u, v, binary=False)
    w = t.terminals().astype(np.float64)
    side, cut = _ana.spectral_bisection(adj, w)
    return {"cut_links": cut, "per_node": cut / (t.num_nodes / 2.0),
            "nodes": (int(w[~side].sum()), int(w[side].sum())),
            "method": "spectral (Fiedler vector) + greedy equal-weight swaps"}


def to_networkx(config: Any, *, terminals: bool = False, tables: TopologyTables | None = None):
    """The router graph as a networkx.MultiGraph (parallel links kept).

    Router nodes are integers with attributes ``terminals`` and one per coordinate name;
    edges carry ``cls`` (class name) and ``ports`` (the two global port numbers). With
    terminals=True, node n is added as ("node", n) linked to its router with cls "terminal".
    networkx is optional and imported here."""
    import networkx as nx
    t = tables if tables is not None else build(config)
    g = nx.MultiGraph(kind=t.kind, **{f"attr_{k}": v for k, v in t.attrs.items()})
    terms = t.terminals()
    for r in range(t.num_routers):
        g.add_node(r, terminals=int(terms[r]),
                   **{name: int(t.router_coords[r, i]) for i, name in enumerate(t.coord_names)})
    gp = np.flatnonzero(t.peer_port > np.arange(t.num_ports))
    for p in gp:
        q = t.peer_port[p]
        g.add_edge(int(t.port_router[p]), int(t.port_router[q]),
                   cls=t.class_names[t.port_class[p]], ports=(int(p), int(q)))
    if terminals:
        for n in range(t.num_nodes):
            g.add_edge(("node", n), int(t.port_router[t.node_port[n]]), cls="terminal",
                       ports=(int(t.node_port[n]),))
    return g
