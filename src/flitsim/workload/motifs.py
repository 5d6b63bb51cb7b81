"""Motifs: generators of the communication patterns jobs run (alltoall, halo exchanges,
collectives, the papers' proxy applications), selected through the MOTIF_BUILDERS table."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..workload_config import MOTIF_KEYS
from .program import _I64, Program, WorkloadError, load_program


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


# Motifs (their keys: flitsim.workload_config.MOTIF_KEYS) whose programs depend on the seed.
MOTIFS = tuple(MOTIF_KEYS)
RANDOM_MOTIFS = ("perturbation", "pairs", "spread", "umesh")
# Default message sizes (bytes) where the papers give one; other motifs require `bytes`.
DEFAULT_BYTES = {"pairs": 4 << 20, "spread": 2 << 20, "umesh": 2 << 20, "milc": 2 << 20,
                 "pf3d": 2 << 20, "qbox": 1 << 20, "bcast": 8, "reduce": 8, "allreduce": 8}


def _halo(build: Callable[..., Program]) -> Callable[..., Program]:
    """nn3d / stencil27 exchange, followed by the job's optional allreduce."""
    def motif(job: Mapping[str, Any], n: int, b: int, rng: np.random.Generator, label: str) -> Program:
        one = build(n, b, job.get("dims"), label)
        coll = job.get("allreduce", "none")
        if coll != "none":
            one.append(ALLREDUCE[coll](n, int(job.get("allreduce_bytes", 8)), label))
        return one
    return motif


# The motif table: one builder per motif (job table, ranks, bytes, rng, label) -> one iteration.
# Its keys are workload_config.MOTIF_KEYS' ("program" reads a file, see build_motif).
MOTIF_BUILDERS: dict[str, Callable[..., Program]] = {
    "alltoall": lambda job, n, b, rng, label: alltoall(n, b, label, job.get("order", "shift"), rng),
    "nn3d": _halo(nn3d),
    "stencil27": _halo(stencil27),
    "bcast": lambda job, n, b, rng, label: bcast(n, b, int(job.get("root", 0)), label),
    "reduce": lambda job, n, b, rng, label: reduce(n, b, int(job.get("root", 0)), label),
    "allreduce": lambda job, n, b, rng, label: ALLREDUCE[job.get("algorithm", "dissemination")](n, b, label),
    "perturbation": lambda job, n, b, rng, label: perturbation(n, b, int(job.get("rounds", 100)), rng, label),
    "pairs": lambda job, n, b, rng, label: pairs(n, b, rng, label),
    "spread": lambda job, n, b, rng, label: spread(n, b, rng, tuple(job.get("partners", (16, 32))), label),
    "umesh": lambda job, n, b, rng, label: umesh(n, b, rng, tuple(job.get("partners", (6, 20))), label),
    "milc": lambda job, n, b, rng, label: milc(n, b, job.get("dims"), label),
    "pf3d": lambda job, n, b, rng, label: pf3d(n, b, job.get("dims"), label),
    "qbox": lambda job, n, b, rng, label: qbox(n, b, job.get("dims"), label),
}
# Motifs that are a whole run by themselves: `compute` and `iterations` do not apply
# (perturbation has its own rounds).
WHOLE_RUN_MOTIFS = ("perturbation",)
# Program steps and messages of one job: the engine's tables are int32-indexed and every
# step costs memory before the run starts.
MAX_PROGRAM_STEPS = 1 << 26


def build_motif(job: Mapping[str, Any], rng: np.random.Generator | None = None,
                label: str | None = None) -> Program:
    """The program of one normalised job table (one iteration is the motif; `iterations`
    repeats it, each preceded by `compute` cycles when > 0)."""
    motif = job["motif"]
    label = label or job.get("name") or motif
    rng = rng if rng is not None else np.random.default_rng(0)
    if motif == "program":
        one = load_program(job["file"], label)
        if "ranks" in job and job["ranks"] != one.ranks:
            raise WorkloadError(f"{label}.ranks: {job['ranks']} but {job['file']} has "
                                f"programs for {one.ranks} ranks")
    elif motif in MOTIF_BUILDERS:
        n, b = int(job["ranks"]), int(job.get("bytes", DEFAULT_BYTES.get(motif, 0)))
        one = MOTIF_BUILDERS[motif](job, n, b, rng, label)
        if motif in WHOLE_RUN_MOTIFS:
            return one
    else:  # normalize() rejects unknown motifs first
        raise WorkloadError(f"{label}.motif: unknown motif {motif!r}")
    compute = int(job.get("compute", 0))
    if compute:
        pre = Program(one.ranks, label)
        for r in range(one.ranks):
            pre.step(r, compute=compute)
        one = pre.append(one)
    times = int(job.get("iterations", 1))
    steps = sum(len(s) for s in one.steps) * times
    messages = sum(st[0].size for s in one.steps for st in s) * times
    if max(steps, messages) > MAX_PROGRAM_STEPS:  # before building: the repeat would exhaust memory
        raise WorkloadError(f"{label}.iterations: {times} iterations make {steps} program steps and "
                            f"{messages} messages; at most {MAX_PROGRAM_STEPS} (2^26) of each")
    return one.repeat(times)
