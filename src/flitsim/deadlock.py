"""Static deadlock check of a routing's VC scheme: the channel dependency graph (Dally & Seitz;
Dally & Towles §14.1).

A node of the graph is one VC of one router-to-router channel (the output port that feeds it);
an edge (c1, v1) -> (c2, v2) means some packet may hold VC v1 of channel c1 while it requests
VC v2 of channel c2, i.e. the two are consecutive hops of a route the routing can produce with
the VC ranges its deadlock-avoidance classes allow (docs/routing.md). Wormhole routing with
these VC ranges is deadlock-free if the graph is acyclic; a cycle is a potential deadlock.
router.architecture = "cioq" adds no node: a flit spends its downstream VC credit when it
enters the output queue, so a queued flit never waits for a VC and the queue always drains
(cuda/phases/output_queue.cuh); the graph and the verdict are those of "iq". Neither does
"ioq": its queued flits wait for their credit, but each in its own VC's queue, which lengthens
that VC's channel and joins no other VC to it.
traffic.reply_size (request-reply) enumerates each message class from its own VC half: the
graph holds both classes, which share no VC; the request -> reply dependency at a destination
closes no cycle, as a node always consumes its replies (docs/traffic.md). A deadlock at run
time (the watchdog's report, host/run/invariants.cpp describe_blocked) lists the blocked input VCs
and, with "cioq" and "ioq", the output queues' occupancy and the credits still owed upstream.

    >>> from flitsim.deadlock import check_deadlock
    >>> check_deadlock({"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    ...                 "router": {"vcs": 3}, "routing": {"algorithm": "valiant"}}).acyclic
    True

The routes are not modelled here: _core.route_candidates runs the routing's own device code,
compiled on the host, over every packet state a packet can reach, with every choice point
(random draw, adaptive selection, UGAL decision) listing all its candidates instead of picking
one (host/analysis/route_candidates.cpp, cuda/routing/route_choice.cuh). This module only turns those
(input channel, VC range) -> (output channel, VC range) candidates into the graph and searches
it for a cycle. Runtime grows with routers² × the routing's packet states (Valiant and UGAL:
routers³): meant for networks of up to a few hundred routers.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from . import topology as _topology

__all__ = ["DeadlockReport", "check_deadlock", "dependency_graph", "escape_graph", "find_cycle", "route_candidates", "main"]

_CHUNKS = 32  # source-router chunks enumerated per engine call (the progress line's steps)


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
    escape_vcs: int = 0              # Duato: VCs 0 .. escape_vcs-1 (of each message class) form the escape sub-network (0: none)
    # traffic.reply_size: requests and replies, each class on its own VCs (2), or 1
    message_classes: int = 1

    def summary(self) -> str:
        classes = (f"{self.classes} VC class(es) in each of {self.message_classes} message classes "
                   f"(requests, replies: VCs 0-{self.vcs // 2 - 1}, {self.vcs // 2}-{2 * (self.vcs // 2) - 1})"
                   if self.message_classes > 1 else f"{self.classes} VC class(es)")
        graph = (f"escape sub-network (VCs 0-{self.escape_vcs - 1}"
                 f"{' of each message class' if self.message_classes > 1 else ''}, Duato: with indirect "
                 f"dependencies through adaptive VCs)" if self.escape_vcs else "channel dependency graph")
        head = (f"routing \"{self.algorithm}\": {classes} on {self.vcs} VCs; "
                f"{graph} with {self.nodes} nodes, {self.edges} edges: ")
        if self.acyclic:
            return head + "acyclic (deadlock-free)"
        steps = " -> ".join(f"r{r}:p{p}>r{q} vc{v}" for r, p, q, v in self.cycle)
        return head + f"CYCLE of {len(self.cycle)} channels: {steps}"


def route_candidates(cfg: dict, routers: int, line: Any = None) -> dict[str, np.ndarray]:
    """The engine's enumeration of every output the routing can choose (_core.route_candidates),
    in chunks of source routers so that `line` (a progress Reporter) can show an ETA."""
    from . import _core
    chunks = [c for c in np.array_split(np.arange(routers), min(_CHUNKS, max(routers, 1))) if len(c)]
    parts = []
    for i, chunk in enumerate(chunks):
        if line is not None:
            line.update(f"routes: source router {int(chunk[0]):,}/{routers:,}", i / len(chunks))
        parts.append(_core.route_candidates(cfg, [int(r) for r in chunk]))
    cols = ("router", "in_port", "in_vc_lo", "in_vc_hi", "dst_router", "out_port", "out_vc_lo", "out_vc_hi")
    return {k: np.concatenate([p[k] for p in parts]) for k in cols}


def dependency_graph(cand: dict[str, np.ndarray], peer_port: np.ndarray, V: int) -> dict[int, set[int]]:
    """Channel dependency graph (node = output port · V + VC) of the candidates whose input and
    output are both router-to-router channels: holding any VC of the input range, the packet
    may request any VC of the output range."""
    inp, out = cand["in_port"], cand["out_port"]
    keep = (peer_port[inp] >= 0) & (peer_port[out] >= 0)
    held = peer_port[inp[keep]]  # the channel the head arrived on: its upstream output port
    hops = np.unique(np.stack([held, cand["in_vc_lo"][keep], cand["in_vc_hi"][keep], out[keep],
                               cand["out_vc_lo"][keep], cand["out_vc_hi"][keep]], axis=1), axis=0)
    a, alo, ahi, b, blo, bhi = hops.T
    na, nb = ahi - alo, bhi - blo
    pair = np.repeat(np.arange(len(hops)), na * nb)           # one entry per (in VC, out VC)
    k = np.arange(len(pair)) - np.repeat(np.cumsum(na * nb) - na * nb, na * nb)
    u = a[pair] * V + alo[pair] + k // nb[pair]
    w = b[pair] * V + blo[pair] + k % nb[pair]
    edges = np.unique(np.stack([u, w], axis=1), axis=0)
    g: dict[int, set[int]] = defaultdict(set)
    if len(edges):
        starts = np.flatnonzero(np.r_[True, edges[1:, 0] != edges[:-1, 0]])
        for node, succ in zip(edges[starts, 0].tolist(), np.split(edges[:, 1], starts[1:])):
            g[node] = set(succ.tolist())
    return g


def escape_graph(cand: dict[str, np.ndarray], peer_port: np.ndarray, V: int, escape_vcs: int,
                 class_vcs: int | None = None) -> dict[int, set[int]]:
    """Duato's extended channel dependency graph of the escape sub-network (Duato 1995; Dally &
    Towles §14.3.4): nodes are escape VCs (VC < escape_vcs) of router-to-router channels; an
    edge e1 -> e2 means a packet holding e1 may request e2 next (direct) or after a run of hops
    on adaptive VCs (indirect: it holds e1 while those hops wait behind it). Both are followed
    per destination router, since only one packet's route links them. A routing whose waiting
    heads can always fall back to an escape VC (cuda/routing/torus_min_adapt.cuh) is
    deadlock-free if this graph is acyclic, whatever cycles its adaptive VCs form. class_vcs:
    the VCs of one message class (traffic.reply_size: each class has its own escape VCs at the
    bottom of its half), V when there is one class."""
    class_vcs = class_vcs or V

    def is_escape(node: int) -> bool:
        return (node % V) % class_vcs < escape_vcs

    g: dict[int, set[int]] = defaultdict(set)
    dst = cand["dst_router"]
    for d in np.unique(dst):
        sub = dependency_graph({k: v[dst == d] for k, v in cand.items()}, peer_port, V)
        for start in [u for u in sub if is_escape(u)]:
            seen, todo = set(), list(sub[start])
            while todo:  # escape VCs reached directly or through adaptive VCs only
                w = todo.pop()
                if w in seen:
                    continue
                seen.add(w)
                if is_escape(w):
                    g[start].add(w)
                else:
                    todo.extend(sub.get(w, ()))
    return g


def find_cycle(g: dict[int, set[int]]) -> list[int]:
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


def _check(cfg: dict, progress: Any = None) -> DeadlockReport:
    from . import _core
    from .progress import Reporter, enabled
    line = Reporter("check-deadlock") if enabled(progress) is True else None
    setup = _core.routing_setup(cfg)  # the engine's choice and checks (supported pair, router.vcs)
    t = _topology.build(cfg)
    V = int(dict(cfg.get("router", {}) or {}).get("vcs", 4))
    peer_port = np.asarray(t.peer_port)
    classes = int(setup["vc_classes"])
    # Duato's protocol: only the escape VCs must be acyclic, with the indirect dependencies
    # through adaptive VCs; without deadlock avoidance (1 class, escape_vcs 0) the whole graph
    # is checked as for any routing.
    escape_vcs = int(setup.get("escape_vcs", 0))
    cand = route_candidates(cfg, t.num_routers, line)
    class_vcs = int(setup.get("class_vcs", V)) or V
    g = (escape_graph(cand, peer_port, V, escape_vcs, class_vcs) if escape_vcs
         else dependency_graph(cand, peer_port, V))
    if line is not None:
        line.update("searching the dependency graph for a cycle", None, force=True)
    nodes = set(g)
    for v in g.values():
        nodes |= v
    cyc = find_cycle(g)
    if line is not None:
        line.close()
    peer_router = np.where(peer_port >= 0, t.port_router[np.maximum(peer_port, 0)], -1)
    cycle = [(int(t.port_router[n // V]), int(n // V), int(peer_router[n // V]), n % V) for n in cyc]
    return DeadlockReport(acyclic=not cyc, algorithm=setup["algorithm"], classes=classes, vcs=V,
                          nodes=len(nodes), edges=sum(len(v) for v in g.values()), cycle=cycle,
                          escape_vcs=escape_vcs, message_classes=int(setup.get("message_classes", 1)))


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
    return _check(config, progress)


def main(argv: Sequence[str] | None = None) -> int:
    """flitsim check-deadlock CONFIG [KEY=VALUE ...]: prints the verdict; exit status 0 if
    acyclic, 1 if the graph has a cycle."""
    import argparse
    p = argparse.ArgumentParser(prog="flitsim check-deadlock", description=main.__doc__)
    p.add_argument("config")
    p.add_argument("overrides", nargs="*", help="section.key=value (as flitsim run)")
    args = p.parse_args(argv)
    from .config import load_config
    rep = _check(load_config(args.config, args.overrides))
    print(rep.summary())
    return 0 if rep.acyclic else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
