"""Motifs: generators of the regular communication patterns jobs run (all-to-all, halo
exchanges, collectives). The papers' proxy applications and random communicators are in
proxy_apps.py; motif_table.py selects among all of them (MOTIF_BUILDERS)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .program import _I64, Program, WorkloadError


def most_cubic(n: int, d: int = 3) -> tuple[int, ...]:
    """The factorisation of n into d factors with the smallest largest/smallest ratio (the
    most cubic grid of exactly n points), largest factor last; e.g. 3192 -> (12, 14, 19)."""
    best: tuple[int, ...] | None = None

    def rec(rem: int, k: int, lo: int, acc: tuple[int, ...]):
        nonlocal best
        if k == 1:
            if rem >= lo:
                cand = acc + (rem,)
                key = (cand[-1] / cand[0], cand[-1])
                if best is None or key < (best[-1] / best[0], best[-1]):
                    best = cand
            return
        f = lo
        while f ** k <= rem:
            if rem % f == 0:
                rec(rem // f, k - 1, f, acc + (f,))
            f += 1
    rec(n, d, 1, ())
    assert best is not None
    return best


def _grid(ranks: int, dims: Sequence[int] | None, d: int, where: str) -> tuple[int, ...]:
    if dims is None:
        return most_cubic(ranks, d)
    dims = tuple(int(x) for x in dims)
    if len(dims) != d or any(x < 1 for x in dims) or math.prod(dims) != ranks:
        raise WorkloadError(f"{where}.dims: must be {d} integers >= 1 whose product is the "
                            f"{ranks} ranks, got {list(dims)}")
    return dims


def _neighbour_program(ranks: int, dims: Sequence[int], offsets: Sequence[Sequence[int]],
                       nbytes: int, label: str) -> Program:
    """One exchange step per rank with the periodic grid neighbours rank + offset (sends)
    and rank - offset (receives), rank = x0 + dims0·(x1 + dims1·(...)) (x0 fastest)."""
    p = Program(ranks, label)
    dims_a = np.asarray(dims, _I64)
    r = np.arange(ranks, dtype=_I64)
    coords = np.stack(np.unravel_index(r, tuple(dims)[::-1])[::-1], axis=1)  # x0 fastest
    off = np.asarray(offsets, _I64)

    def rank_of(c):
        c = np.mod(c, dims_a)
        idx = np.zeros(c.shape[:-1], _I64)
        for k in range(len(dims) - 1, -1, -1):
            idx = idx * dims_a[k] + c[..., k]
        return idx
    dst = rank_of(coords[:, None, :] + off[None, :, :])
    src = rank_of(coords[:, None, :] - off[None, :, :])
    for i in range(ranks):
        d = dst[i][dst[i] != i]
        s = src[i][src[i] != i]
        p.step(i, d, nbytes, s)
    return p


def alltoall(ranks: int, nbytes: int, label: str = "alltoall", order: str = "shift",
             rng: np.random.Generator | None = None) -> Program:
    """Every rank sends one message to every other rank, all queued at once, then waits for
    all N - 1. order "shift": phase i sends to rank r + i (r+1, r+2, ...); "random": every
    rank its own random order of the other ranks (drawn from rng)."""
    p = Program(ranks, label)
    k = np.arange(1, ranks, dtype=_I64)
    for r in range(ranks):
        ks = k if order == "shift" else rng.permutation(k)
        p.step(r, (r + ks) % ranks, nbytes, (r - k) % ranks)
    return p


def nn3d(ranks: int, nbytes: int, dims: Sequence[int] | None = None,
         label: str = "nn3d") -> Program:
    """Nearest-neighbour exchange on a 3-D torus (the most cubic one of exactly `ranks`
    points unless dims are given): one message to each of the 6 neighbours ±x, ±y, ±z."""
    dims = _grid(ranks, dims, 3, label)
    offs = [o for k in range(3) for o in ([1 if j == k else 0 for j in range(3)],
                                          [-1 if j == k else 0 for j in range(3)])]
    return _neighbour_program(ranks, dims, offs, nbytes, label)


def stencil27(ranks: int, nbytes: int, dims: Sequence[int] | None = None,
              label: str = "stencil27") -> Program:
    """27-point stencil halo exchange: one message to each of the 26 neighbours (6 faces,
    12 edges, 8 corners) on a periodic 3-D grid."""
    dims = _grid(ranks, dims, 3, label)
    offs = [(a, b, c) for c in (-1, 0, 1) for b in (-1, 0, 1) for a in (-1, 0, 1)
            if (a, b, c) != (0, 0, 0)]
    return _neighbour_program(ranks, dims, offs, nbytes, label)


def _binomial_children(v: int, n: int) -> list[int]:
    """Children of relative rank v in the binomial tree of n ranks, in round order."""
    out, k = [], v.bit_length()
    while v + (1 << k) < n:
        out.append(v + (1 << k))
        k += 1
    return out


def bcast(ranks: int, nbytes: int, root: int = 0, label: str = "bcast") -> Program:
    """Binomial-tree broadcast: in round i (1-based) relative rank v < 2^(i-1) sends to
    v + 2^(i-1); ceil(log2 N) rounds. A rank forwards after its parent's message arrived."""
    p = Program(ranks, label)
    for r in range(ranks):
        v = (r - root) % ranks
        kids = [(c + root) % ranks for c in _binomial_children(v, ranks)]
        if v:
            parent = (v - (1 << (v.bit_length() - 1)) + root) % ranks
            p.step(r, src=[parent])
        if kids:
            p.step(r, kids, nbytes)
    return p


def reduce(ranks: int, nbytes: int, root: int = 0, label: str = "reduce") -> Program:
    """Binomial-tree reduction (the broadcast tree reversed): a rank waits for all its
    children, then sends to its parent; ceil(log2 N) rounds."""
    p = Program(ranks, label)
    for r in range(ranks):
        v = (r - root) % ranks
        kids = [(c + root) % ranks for c in _binomial_children(v, ranks)]
        if kids:
            p.step(r, src=kids)
        if v:
            parent = (v - (1 << (v.bit_length() - 1)) + root) % ranks
            p.step(r, [parent], nbytes)
    return p


def allreduce_dissemination(ranks: int, nbytes: int, label: str = "allreduce") -> Program:
    """Dissemination allreduce: in round i rank r sends to r + 2^i and waits for r - 2^i
    (mod N); ceil(log2 N) rounds, one message per rank per round."""
    p = Program(ranks, label)
    rounds = max(0, (ranks - 1).bit_length())
    for r in range(ranks):
        for i in range(rounds):
            p.step(r, [(r + (1 << i)) % ranks], nbytes, [(r - (1 << i)) % ranks])
    return p


def allreduce_recursive_doubling(ranks: int, nbytes: int, label: str = "allreduce") -> Program:
    """Recursive-doubling allreduce (MPICH): with pof2 the largest power of two <= N and
    rem = N - pof2, the first 2·rem ranks pair up (even sends to odd), pof2 ranks exchange
    with partner rank XOR 2^i for log2(pof2) rounds, and the odd ranks return the result."""
    p = Program(ranks, label)
    pof2 = 1 << (ranks.bit_length() - 1)
    rem = ranks - pof2

    def real(nr: int) -> int:
        return nr * 2 + 1 if nr < rem else nr + rem
    for r in range(ranks):
        if r < 2 * rem and r % 2 == 0:
            p.step(r, [r + 1], nbytes, [r + 1])  # hand over, then wait for the result
            continue
        if r < 2 * rem:
            p.step(r, src=[r - 1])
            nr = r // 2
        else:
            nr = r - rem
        mask = 1
        while mask < pof2:
            peer = real(nr ^ mask)
            p.step(r, [peer], nbytes, [peer])
            mask <<= 1
        if r < 2 * rem:
            p.step(r, [r - 1], nbytes)
    return p


def allreduce_ring(ranks: int, nbytes: int, label: str = "allreduce") -> Program:
    """Ring allreduce: N - 1 reduce-scatter and N - 1 allgather steps, each sending a
    ceil(bytes / N) chunk to rank + 1 and waiting for the chunk from rank - 1."""
    p = Program(ranks, label)
    if ranks == 1:
        return p
    chunk = max(1, -(-nbytes // ranks))
    for r in range(ranks):
        for _ in range(2 * (ranks - 1)):
            p.step(r, [(r + 1) % ranks], chunk, [(r - 1) % ranks])
    return p


ALLREDUCE = {"dissemination": allreduce_dissemination,
             "recursive-doubling": allreduce_recursive_doubling,
             "ring": allreduce_ring}
