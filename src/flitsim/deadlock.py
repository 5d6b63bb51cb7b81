"""Static deadlock check of a routing's VC scheme: the channel dependency graph (Dally & Seitz;
Dally & Towles §14.1).

A node of the graph is one VC of one router-to-router channel (the output port that feeds it);
an edge (c1, v1) -> (c2, v2) means some packet may hold VC v1 of channel c1 while it requests
VC v2 of channel c2, i.e. the two are consecutive hops of a route the routing can produce with
the VC ranges its deadlock-avoidance classes allow (docs/routing.md). Wormhole routing with
these VC ranges is deadlock-free if the graph is acyclic; a cycle is a potential deadlock.

    >>> from flitsim.deadlock import check_deadlock
    >>> check_deadlock({"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    ...                 "router": {"vcs": 3}, "routing": {"algorithm": "valiant"}}).acyclic
    True

The routing, its VC classes and its route model come from the engine (_core.routing_setup:
the routing's line in cuda/routing/registry.h). Routes are enumerated per model from the
topology tables the engine uses, mirroring the routing functions in cuda/routing/ (every choice a routing may make — all links of a dragonfly group
pair, all parallel links, all minimal next hops, every intermediate, every deroute the
routing's rules allow — so the graph is the union over all random and adaptive outcomes).
Runtime grows with routers² (table routings: routers³ for Valiant/UGAL): meant for networks of
up to a few hundred routers.
"""
from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from . import topology as _topology

__all__ = ["DeadlockReport", "check_deadlock", "main"]

Hop = tuple[tuple[int, ...], int, int]  # (alternative output ports, vc_lo, vc_hi)


@dataclass
class DeadlockReport:
    """Result of check_deadlock: acyclic, or one cycle of (router, port, next router, vc)."""
    acyclic: bool
    algorithm: str
    classes: int
    vcs: int
    nodes: int                       # (channel, VC) pairs that appear in some dependency
    edges: int
    cycle: list[tuple[int, int, int, int]] = field(default_factory=list)

    def summary(self) -> str:
        head = (f"routing \"{self.algorithm}\": {self.classes} VC class(es) on {self.vcs} VCs; "
                f"channel dependency graph with {self.nodes} nodes, {self.edges} edges: ")
        if self.acyclic:
            return head + "acyclic (deadlock-free)"
        steps = " -> ".join(f"r{r}:p{p}>r{q} vc{v}" for r, p, q, v in self.cycle)
        return head + f"CYCLE of {len(self.cycle)} channels: {steps}"


def _section(cfg: dict, name: str) -> dict:
    return dict(cfg.get(name, {}) or {})


class _Graph:
    """Dependencies between hops, kept at hop granularity and expanded to VCs at the end."""

    def __init__(self):
        self.pairs: set[tuple[Hop, Hop]] = set()

    def path(self, hops: Sequence[Hop]):
        for a, b in zip(hops, hops[1:]):
            self.pairs.add((a, b))

    def edge(self, a: Hop, b: Hop):
        self.pairs.add((a, b))

    def vc_graph(self, V: int) -> dict[int, set[int]]:
        g: dict[int, set[int]] = defaultdict(set)
        for (pa, la, ha), (pb, lb, hb) in self.pairs:
            dst = [p * V + v for p in pb for v in range(lb, hb)]
            for p in pa:
                for v in range(la, ha):
                    g[p * V + v].update(dst)
        return g


def _find_cycle(g: dict[int, set[int]]) -> list[int]:
    """One cycle of g (node list), or [] if g is acyclic (iterative three-colour DFS)."""
    color: dict[int, int] = {}
    parent: dict[int, int] = {}
    for root in list(g):
        if color.get(root):
            continue
        stack = [(root, iter(g.get(root, ())))]
        color[root] = 1
        while stack:
            u, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[u] = 2
                stack.pop()
                continue
            c = color.get(nxt, 0)
            if c == 0:
                color[nxt] = 1
                parent[nxt] = u
                stack.append((nxt, iter(g.get(nxt, ()))))
            elif c == 1:  # back edge u -> nxt closes a cycle
                cyc = [u]
                while cyc[-1] != nxt:
                    cyc.append(parent[cyc[-1]])
                return cyc[::-1]
    return []


class _Checker:
    def __init__(self, cfg: dict, progress: Any = None):
        from . import _core
        from .progress import Reporter, enabled
        self.line = Reporter("check-deadlock") if enabled(progress) is True else None
        # The engine's own choice and checks (supported pair, router.vcs, ...): the routing's
        # registry line (cuda/routing/registry.h) and its VC classes.
        self.setup = _core.routing_setup(cfg)
        self.cfg = cfg
        self.t = _topology.build(cfg)
        self.routing = _section(cfg, "routing")
        self.alg = self.routing.get("algorithm", "min")
        self.V = int(_section(cfg, "router").get("vcs", 4))
        t = self.t
        self.dist = None if self.setup["family"] == "Dragonfly" else _topology._distances(t).astype(np.int64)
        self.C = int(self.setup["vc_classes"])
        self.routes = self.setup["routes"]  # the route set to enumerate (registry.h "routes")
        self.term = np.flatnonzero(np.bincount(t.port_router[t.node_port], minlength=t.num_routers) > 0)
        self.peer_router = np.where(t.peer_port >= 0, t.port_router[np.maximum(t.peer_port, 0)], -1)
        self.g = _Graph()
        self.par_shift = 1  # PAR: Valiant's local classes shifted up by one (dragonfly_par.cuh)

    def pairs(self, what: str = "routes"):
        """Every ordered pair of terminal routers, reporting progress (the graph's build time
        is proportional to the pairs enumerated)."""
        n = len(self.term)
        total = n * (n - 1)
        for i, pair in enumerate(itertools.permutations(self.term, 2)):
            if self.line is not None and i % 64 == 0:
                self.line.update(f"{what}: router pair {i:,}/{total:,}", i / max(total, 1))
            yield pair

    # VC range of class c, and of a span of classes [c0, c1] (engine: SimView::class_vc_lo/hi).
    def cls(self, c: int) -> tuple[int, int]:
        c = max(0, min(c, self.C - 1))
        return c * self.V // self.C, (c + 1) * self.V // self.C

    def span(self, c0: int, c1: int) -> tuple[int, int]:
        return self.cls(c0)[0], self.cls(c1)[1]

    def hop(self, ports, rng: tuple[int, int]) -> Hop:
        return (tuple(int(p) for p in ports), rng[0], rng[1])

    # ---------------------------------------------------------------- dragonfly
    def df_setup(self):
        t = self.t
        self.a, self.G = t.attrs["a"], t.attrs["groups"]
        self.off, self.gps = t.tables["gateway_offset"], t.tables["gateway_ports"]
        self.lp, self.ll = t.tables["local_port"], t.tables["local_links"]

    def links(self, g: int, h: int):
        k = g * self.G + h
        return self.gps[self.off[k]:self.off[k + 1]]

    def chain(self, r: int, j: int, c: int) -> list[Hop]:
        hops = []
        while r != j:
            k = r * self.a + j % self.a
            hops.append(self.hop(range(self.lp[k], self.lp[k] + self.ll[k]), self.cls(c)))
            r = int(self.peer_router[self.lp[k]])
        return hops

    def glob(self, gp: int, level: int) -> Hop:
        C = self.C
        if C < 2 or level < 0:
            return self.hop([gp], (0, self.V))
        return self.hop([gp], self.span(0, C // 2 - 1) if level == 0 else self.span(C // 2, C - 1))

    def df_minimal(self, s: int, d: int, last: int):
        a, r = self.a, self.t.port_router
        if s // a == d // a:
            self.g.path(self.chain(s, d, 0))
            return
        for gp in self.links(s // a, d // a):
            self.g.path(self.chain(s, r[gp], 0) + [self.glob(gp, -1)] +
                        self.chain(self.peer_router[gp], d, last))

    def df_valiant(self, s: int, d: int, any_router: bool, shift: int = 0) -> set[Hop]:
        """Adds every Valiant route s -> d (local classes + shift); returns their first hops."""
        a, r = self.a, self.t.port_router
        g, dg = s // a, d // a
        first: set[Hop] = set()
        for ig in range(self.G):
            if ig in (g, dg):
                continue
            for l1 in self.links(g, ig):
                far1 = int(self.peer_router[l1])
                head = self.chain(s, r[l1], shift) + [self.glob(l1, 0)]
                first.add(head[0])
                mids = ([(x, self.chain(far1, x, 1 + shift)) for x in range(ig * a, ig * a + a)] if any_router
                        else [(far1, [])])
                for x, to_x in mids:
                    for l2 in self.links(ig, dg):
                        self.g.path(head + to_x + self.chain(x, r[l2], (2 if any_router else 1) + shift) +
                                    [self.glob(l2, 1)] +
                                    self.chain(self.peer_router[l2], d, (3 if any_router else 2) + shift))
        return first

    def df_par(self, s: int, d: int, any_router: bool, memo: dict):
        """PAR: minimal routes (L0, any global VC, last class), and at every router x of the source
        group a minimal route visits before its global hop (or before d), a switch to Valiant from
        x: the minimal hop into x (L0) followed by the first hop of any Valiant route x -> d."""
        a, r, sh = self.a, self.t.port_router, self.par_shift
        last = self.C - 1  # the last class (engine: last_class)
        self.df_minimal(s, d, last)
        ends = [d] if s // a == d // a else [int(r[gp]) for gp in self.links(s // a, d // a)]
        for e in ends:
            x, into = s, None
            while True:
                if x == d:
                    break
                if (x, d) not in memo:
                    memo[(x, d)] = self.df_valiant(x, d, any_router, sh)
                if into is not None:
                    for h in memo[(x, d)]:
                        self.g.edge(into, h)
                if x == e:
                    break
                into = self.chain(x, e, 0)[0]
                x = int(self.peer_router[into[0][0]])

    def dragonfly(self):
        self.df_setup()
        # "node" (BookSim2) routes as "any" in VA's classes; its extra routes (intermediate in
        # the destination group, minimal from the source in phase 1) keep VA's class order.
        any_router = self.routing.get("valiant") in ("any", "node")
        memo: dict = {}
        for s, d in self.pairs():
            if self.routes == "minimal":
                self.df_minimal(s, d, 1)
                continue
            if self.routes == "par":
                self.df_par(s, d, any_router, memo)
                continue
            self.df_valiant(s, d, any_router)
            if self.routes == "minimal_valiant":  # UGAL-L, UGAL-G: both route sets
                self.df_minimal(s, d, self.C - 1)

    # ---------------------------------------------------------------- table routings
    def min_dag(self, s: int, t_: int, cls_of_hop):
        """Dependencies of all minimal s -> t routes; hop k (from s) uses cls_of_hop(k).
        Returns (first hops out of s, last hops into t)."""
        D, t = self.dist, self.t
        first, last = [], []
        for x in np.flatnonzero(D[s] + D[:, t_] == D[s, t_]):
            if x == t_:
                continue
            k = int(D[s, x])
            ports = [gp for gp in range(t.port_offset[x], t.port_offset[x + 1])
                     if self.peer_router[gp] >= 0 and D[self.peer_router[gp], t_] == D[x, t_] - 1]
            outs = [self.hop([gp], cls_of_hop(k)) for gp in ports]
            if k == 0:
                first += outs
            if D[x, t_] == 1:
                last += outs
            if k > 0:  # hops into x from its DAG predecessors
                for gp in range(t.port_offset[x], t.port_offset[x + 1]):
                    y = self.peer_router[gp]
                    if y >= 0 and D[s, y] == k - 1 and D[y, t_] == D[x, t_] + 1:
                        into = self.hop([t.peer_port[gp]], cls_of_hop(k - 1))
                        for o in outs:
                            self.g.edge(into, o)
        return first, last

    def table(self):
        # Classes of one minimal phase (engine: phase_classes of the Valiant family; a minimal
        # routing's distance classes are its C), clamped to C − 1 by cls().
        two_phase = self.routes in ("valiant", "minimal_valiant")
        c = int(self.setup["phase_classes"]) if two_phase else self.C
        block0 = lambda k: self.cls(min(k, c - 1))                       # noqa: E731
        block1 = lambda k: self.cls(c + min(k, c - 1))                   # noqa: E731
        if self.routes in ("minimal", "minimal_valiant"):
            for s, d in self.pairs("minimal routes"):
                self.min_dag(s, d, block0)
        if not two_phase:
            return
        into: dict[int, dict[Hop, set[int]]] = defaultdict(lambda: defaultdict(set))
        out: dict[int, dict[Hop, set[int]]] = defaultdict(lambda: defaultdict(set))
        for s, x in self.pairs("Valiant phases"):  # phase 0 toward intermediate x, phase 1 from x
            _, last = self.min_dag(s, x, block0)
            for h in last:
                into[x][h].add(int(s))
            first, _ = self.min_dag(s, x, block1)  # (here s plays the intermediate, x the destination)
            for h in first:
                out[int(s)][h].add(int(x))
        for x in self.term:
            for hi, srcs in into[x].items():
                for ho, dsts in out[x].items():
                    if len(srcs) > 1 or len(dsts) > 1 or srcs != dsts:  # some source != destination
                        self.g.edge(hi, ho)

    # ---------------------------------------------------------------- hyperx
    def hx_setup(self):
        tb = self.t.tables
        self.W = [int(w) for w in tb["widths"]]
        self.trunk = [int(x) for x in tb["trunking"]]
        self.doff = tb["dim_offset"]
        self.dport = tb["dim_port"]
        self.SW = int(self.doff[-1])
        self.stride = [int(np.prod(self.W[:d])) for d in range(len(self.W))]
        if any(int(x) != 1 for x in tb["gap"]):
            raise ValueError(f'routing.algorithm: "{self.alg}" needs every HyperX dimension fully connected (gap 1)')

    def co(self, r: int, d: int) -> int:
        return r // self.stride[d] % self.W[d]

    def hx_ports(self, r: int, d: int, c: int):
        base = int(self.dport[r * self.SW + self.doff[d] + c])
        return range(base, base + self.trunk[d])

    def dor(self, s: int, t_: int, c: int) -> list[Hop]:
        hops, x = [], s
        for d in range(len(self.W)):
            if self.co(x, d) != self.co(t_, d):
                hops.append(self.hop(self.hx_ports(x, d, self.co(t_, d)), self.cls(c)))
                x += (self.co(t_, d) - self.co(x, d)) * self.stride[d]
        return hops

    def hyperx(self):
        self.hx_setup()
        N = len(self.W)
        for s, t_ in self.pairs():
            if self.routes == "dor":
                self.g.path(self.dor(s, t_, 0))
            elif self.routes == "closad":
                self.closad(s, t_)
            else:
                self.war(s, t_, N)

    def closad(self, s: int, t_: int):
        self.g.path(self.dor(s, t_, 0))
        un = [d for d in range(len(self.W)) if self.co(s, d) != self.co(t_, d)]
        d0 = un[0]
        for coords in itertools.product(*[range(self.W[d]) for d in un]):
            x = s + sum((c - self.co(s, d)) * self.stride[d] for d, c in zip(un, coords))
            if x in (s, t_):
                continue
            first = next(d for d in un if self.co(x, d) != self.co(s, d))
            if first == d0 and self.co(x, d0) == self.co(t_, d0):
                continue  # that first hop is the minimal one: never a Valiant candidate
            self.g.path(self.dor(s, x, 0) + self.dor(x, t_, 1))

    def war(self, s: int, t_: int, N: int):
        omni = self.routes == "omniwar"
        multi = self.routing.get("multi_deroute", True)
        # state: (router, hops taken, last deroute dim or -1, arrived by deroute, hop taken into it)
        stack = [(s, 0, -1, False, None)]
        seen = set()
        while stack:
            st = stack.pop()
            if st in seen:
                continue
            seen.add(st)
            x, k, last, derouted, into = st
            if x == t_:
                continue
            un = [d for d in range(N) if self.co(x, d) != self.co(t_, d)]
            H = len(un)
            if omni:
                dims = un
                allow = H < (self.routing_classes_omni() - k)
                rng_min = rng_der = self.cls(k)
            else:
                dims = un[:1]
                allow = not derouted
                rng_min, rng_der = self.cls(0), self.cls(1)
            for d in dims:
                cur, want = self.co(x, d), self.co(t_, d)
                for c in range(self.W[d]):
                    if c == cur:
                        continue
                    minimal = c == want
                    if not minimal and (not allow or (omni and not multi and d == last)):
                        continue
                    h = self.hop(self.hx_ports(x, d, c), rng_min if minimal else rng_der)
                    if into is not None:
                        self.g.edge(into, h)
                    y = x + (c - cur) * self.stride[d]
                    stack.append((y, k + 1, -1 if minimal else d, not minimal, h))

    def routing_classes_omni(self) -> int:
        return int(self.setup["phase_classes"])  # N + M, also without deadlock avoidance

    def run(self) -> DeadlockReport:
        t = self.t
        family = self.setup["family"]  # the engine already rejected unsupported pairs
        if family == "Dragonfly":
            self.dragonfly()
        elif family == "Hyperx":
            self.hyperx()
        else:  # Table and Tree: the all-pairs distance table
            self.table()
        if self.line is not None:
            self.line.update("searching the dependency graph for a cycle", None, force=True)
        g = self.g.vc_graph(self.V)
        nodes = set(g)
        for v in g.values():
            nodes |= v
        cyc = _find_cycle(g)
        if self.line is not None:
            self.line.close()
        cycle = [(int(t.port_router[n // self.V]), int(n // self.V), int(self.peer_router[n // self.V]), n % self.V)
                 for n in cyc]
        return DeadlockReport(acyclic=not cyc, algorithm=self.alg, classes=self.C, vcs=self.V, nodes=len(nodes),
                              edges=sum(len(v) for v in g.values()), cycle=cycle)


def check_deadlock(config: dict | str, progress: bool | None = None) -> DeadlockReport:
    """Channel dependency graph of the configured routing's VC scheme: acyclic, or a cycle.
    `config` is a configuration dict or a TOML path (only [topology], [router] vcs and
    [routing] matter). progress: a line on stderr (None: in an interactive session only)."""
    if isinstance(config, str):
        from .config import load_config
        config = load_config(config)
    else:
        from .config import normalize
        config = normalize(config)
    return _Checker(config, progress).run()


def main(argv: Sequence[str] | None = None) -> int:
    """flitsim check-deadlock CONFIG [KEY=VALUE ...]: prints the verdict; exit status 0 if
    acyclic, 1 if the graph has a cycle."""
    import argparse
    p = argparse.ArgumentParser(prog="flitsim check-deadlock", description=main.__doc__)
    p.add_argument("config")
    p.add_argument("overrides", nargs="*", help="section.key=value (as flitsim run)")
    args = p.parse_args(argv)
    from .config import load_config
    cfg = load_config(args.config, args.overrides)
    rep = _Checker(cfg).run()
    print(rep.summary())
    return 0 if rep.acyclic else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
