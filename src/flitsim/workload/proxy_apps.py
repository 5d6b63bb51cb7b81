"""The papers' random communicators and proxy applications as motifs: the noise paper's
perturbation, the iso-cost paper's Pairs, Spread, UMesh, MILC-, pF3D- and Qbox-comm (selected
through motif_table.py)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .motifs import _grid, _neighbour_program, allreduce_recursive_doubling, alltoall, bcast
from .program import _I64, Program, WorkloadError


def random_derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of range(n) without fixed points (n >= 2)."""
    while True:
        p = rng.permutation(n)
        if not np.any(p == np.arange(n)):
            return p


def perturbation(ranks: int, nbytes: int, rounds: int, rng: np.random.Generator,
                 label: str = "perturbation") -> Program:
    """The noise paper's perturbation communicator: in every round each rank sends one
    message to a random peer so that each rank receives exactly one (a random derangement,
    drawn anew per round), then waits for its own message of the round."""
    p = Program(ranks, label)
    if ranks < 2:
        return p
    for _ in range(rounds):
        perm = random_derangement(ranks, rng)
        inv = np.empty_like(perm)
        inv[perm] = np.arange(ranks)
        for r in range(ranks):
            p.step(r, [perm[r]], nbytes, [inv[r]])
    return p


def _exchange_graph(ranks: int, edges: Iterable[tuple[int, int]], nbytes: int,
                    label: str) -> Program:
    """One step per rank: a message to each partner of a symmetric graph, waiting for one
    from each (partners listed in increasing order)."""
    adj: list[set[int]] = [set() for _ in range(ranks)]
    for a, b in edges:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    p = Program(ranks, label)
    for r in range(ranks):
        nb = sorted(adj[r])
        p.step(r, nb, nbytes, nb)
    return p


def _random_partners(ranks: int, lo: int, hi: int, rng: np.random.Generator,
                     window: int | None) -> list[tuple[int, int]]:
    """A symmetric partner graph: rank r wants a degree drawn uniformly in [lo, hi];
    ranks in random order pick partners (within ±window in rank space when given) that
    still want more, until their degree is met or no candidate is left."""
    want = rng.integers(lo, hi + 1, size=ranks)
    deg = np.zeros(ranks, _I64)
    adj: list[set[int]] = [set() for _ in range(ranks)]
    for r in rng.permutation(ranks):
        if deg[r] >= want[r]:
            continue
        if window is None:
            cand = np.arange(ranks)
        else:
            cand = np.arange(max(0, r - window), min(ranks, r + window + 1))
        cand = cand[(cand != r) & (deg[cand] < want[cand])]
        cand = np.array([c for c in cand if c not in adj[r]], dtype=_I64)
        rng.shuffle(cand)
        for c in cand[: max(0, int(want[r] - deg[r]))]:
            adj[r].add(int(c))
            adj[int(c)].add(int(r))
            deg[r] += 1
            deg[c] += 1
    return [(a, b) for a in range(ranks) for b in adj[a] if a < b]


def pairs(ranks: int, nbytes: int, rng: np.random.Generator, label: str = "pairs") -> Program:
    """Iso-cost paper's Pairs: every rank exchanges one message with one random partner (a
    random perfect matching; with an odd number of ranks one rank sits out)."""
    perm = rng.permutation(ranks)
    return _exchange_graph(ranks, [(int(perm[i]), int(perm[i + 1]))
                                   for i in range(0, ranks - 1, 2)], nbytes, label)


def spread(ranks: int, nbytes: int, rng: np.random.Generator, partners=(16, 32),
           label: str = "spread") -> Program:
    """Spread: each rank exchanges messages with random partners anywhere in the job (a
    symmetric graph; degrees drawn in `partners`, about 23 on average in the paper)."""
    lo, hi = partners
    return _exchange_graph(ranks, _random_partners(ranks, lo, hi, rng, None), nbytes, label)


def umesh(ranks: int, nbytes: int, rng: np.random.Generator, partners=(6, 20),
          label: str = "umesh") -> Program:
    """UMesh: like Spread, with partners "nearby" in rank space (within ±2·max degree)."""
    lo, hi = partners
    return _exchange_graph(ranks, _random_partners(ranks, lo, hi, rng, 2 * hi), nbytes, label)


def milc(ranks: int, nbytes: int, dims: Sequence[int] | None = None,
         label: str = "milc") -> Program:
    """MILC-comm: a 4-D periodic grid (most cubic unless dims are given), one message to
    each of the 8 neighbours ±1 per dimension."""
    dims = _grid(ranks, dims, 4, label)
    offs = [o for k in range(4) for o in ([1 if j == k else 0 for j in range(4)],
                                          [-1 if j == k else 0 for j in range(4)])]
    return _neighbour_program(ranks, dims, offs, nbytes, label)


def _lines(dims: Sequence[int], axis: int) -> list[np.ndarray]:
    """Ranks of every line of the grid along `axis` (x0 fastest)."""
    grid = np.arange(math.prod(dims)).reshape(tuple(dims)[::-1])  # index [..., x1, x0]
    ax = len(dims) - 1 - axis
    moved = np.moveaxis(grid, ax, -1)
    return [row for row in moved.reshape(-1, dims[axis])]


def _sub_collective(p: Program, dims: Sequence[int], axis: int, build: Callable[[int], Program]):
    """Append the program `build(line length)` on every line of the grid along `axis`."""
    sub = build(dims[axis])
    for members in _lines(dims, axis):
        p.append(sub, members)


def pf3d(ranks: int, nbytes: int, dims: Sequence[int] | None = None,
         label: str = "pf3d") -> Program:
    """pF3D-comm: a 20 x 10 x n grid; an all-to-all of `bytes` per pair along x (20 ranks)
    then one of bytes/2 per pair along y (10 ranks) (2 MB and 1 MB in the paper)."""
    if dims is None:
        if ranks % 200:
            raise WorkloadError(f"{label}.ranks: pF3D needs a multiple of 200 ranks for its "
                                f"20 x 10 x n grid (or give dims), got {ranks}")
        dims = (20, 10, ranks // 200)
    dims = _grid(ranks, dims, 3, label)
    p = Program(ranks, label)
    _sub_collective(p, dims, 0, lambda n: alltoall(n, nbytes))
    _sub_collective(p, dims, 1, lambda n: alltoall(n, max(1, nbytes // 2)))
    return p


def qbox(ranks: int, nbytes: int, dims: Sequence[int] | None = None,
         label: str = "qbox") -> Program:
    """Qbox-comm: a 100 x n grid; an all-to-all of `bytes` per pair along the first
    dimension, then a broadcast of 8·bytes and an allreduce (recursive doubling) of 2·bytes
    along the second (1, 8 and 2 MB in the paper)."""
    if dims is None:
        if ranks % 100:
            raise WorkloadError(f"{label}.ranks: Qbox needs a multiple of 100 ranks for its "
                                f"100 x n grid (or give dims), got {ranks}")
        dims = (100, ranks // 100)
    dims = _grid(ranks, dims, 2, label)
    p = Program(ranks, label)
    _sub_collective(p, dims, 0, lambda n: alltoall(n, nbytes))
    _sub_collective(p, dims, 1, lambda n: bcast(n, 8 * nbytes))
    _sub_collective(p, dims, 1, lambda n: allreduce_recursive_doubling(n, 2 * nbytes))
    return p


# Motifs (their keys: flitsim.workload.config.MOTIF_KEYS) whose programs depend on the seed.
