"""Closed-loop message workloads: per-rank programs, motifs, jobs, placement and runs.

A **program** gives every rank of a job a list of **steps**. A step sends messages
(destination rank, size in bytes; non-blocking, queued at the node's network interface in
order), then waits until the messages it expects have arrived (listed by source rank), then
computes for some cycles; then the next step starts. The engine (cuda/workload/program.cuh)
runs the programs of all jobs on both backends; host/workload.cpp matches every send to one
receive before the run (the k-th message rank s sends to rank d is the k-th one d receives
from s) and proves that every rank can finish, so a program that would hang is an error
naming the rank and step.

Motifs build programs: ``alltoall`` (shift schedule), ``nn3d`` (6 neighbours on a 3-D
torus), ``stencil27`` (26-neighbour halo), ``bcast``/``reduce`` (binomial trees),
``allreduce`` (dissemination, recursive doubling, ring), ``perturbation`` (random
permutations, the network-noise paper's perturbation communicator), the iso-cost paper's
proxy applications (``pairs``, ``spread``, ``umesh``, ``milc``, ``pf3d``, ``qbox``) and
``program`` (a user's JSON file). docs/workloads.md describes them and the file format.

    >>> import flitsim.workload as wl
    >>> cfg = {"topology": {...}, "workload": {"jobs": [{"motif": "alltoall", "ranks": 64,
    ...        "bytes": 7680}]}}
    >>> res = wl.run(cfg)                       # or flitsim.run(cfg)
    >>> res.workload.jobs_table()[0]["effective_throughput"]
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .workload_config import MOTIF_KEYS

__all__ = [
    "Program", "WorkloadError", "MOTIFS", "RANDOM_MOTIFS", "build_motif", "most_cubic",
    "place_jobs", "build_replica", "compile_inputs", "run", "run_replicas", "run_noise",
    "NoiseResult", "load_program", "program_from_json", "program_rounds", "match",
    "alltoall", "nn3d", "stencil27", "bcast", "reduce", "allreduce_dissemination",
    "allreduce_recursive_doubling", "allreduce_ring", "perturbation", "pairs", "spread",
    "umesh", "milc", "pf3d", "qbox",
]

_I64 = np.int64


class WorkloadError(ValueError):
    """An invalid workload; the message names the key (workload.jobs[i].key) or rank/step."""


# --- programs -------------------------------------------------------------------------------

class Program:
    """Per-rank message programs of one job (ranks 0..ranks-1).

    ``steps[r]`` is rank r's list of steps ``(dst, nbytes, src, compute)``: int64 arrays of
    destination ranks and message sizes (bytes), an int64 array of the source ranks of the
    messages the step waits for, and the compute delay (cycles) after they arrived.
    """

    def __init__(self, ranks: int, label: str = "program"):
        if ranks < 1:
            raise WorkloadError(f"{label}: needs at least 1 rank, got {ranks}")
        self.ranks = int(ranks)
        self.label = label
        self.steps: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [
            [] for _ in range(self.ranks)]

    def step(self, rank: int, dst: Iterable[int] = (), nbytes: int | Iterable[int] = 0,
             src: Iterable[int] = (), compute: int = 0) -> None:
        """Append a step to ``rank``: send to each of ``dst`` (``nbytes`` each, or one size
        per destination), wait for one message from each of ``src``, compute ``compute``."""
        d = np.array(dst if isinstance(dst, np.ndarray) else list(dst), dtype=_I64)
        if isinstance(nbytes, (int, np.integer)):
            b = np.full(d.size, nbytes, dtype=_I64)
        else:
            b = np.array(nbytes if isinstance(nbytes, np.ndarray) else list(nbytes), dtype=_I64)
            if b.shape != d.shape:
                raise WorkloadError(f"{self.label}: rank {rank}: {b.size} sizes for {d.size} "
                                    f"destinations")
        s = np.array(src if isinstance(src, np.ndarray) else list(src), dtype=_I64)
        self.steps[rank].append((d, b, s, int(compute)))

    def append(self, other: "Program", members: Sequence[int] | None = None) -> "Program":
        """Append ``other``'s steps after each rank's current steps. With ``members``, other
        runs on a sub-communicator: its rank i is this program's rank members[i]."""
        if members is None:
            if other.ranks != self.ranks:
                raise WorkloadError(f"{self.label}: cannot append a {other.ranks}-rank program "
                                    f"to {self.ranks} ranks")
            for r in range(self.ranks):
                self.steps[r].extend(other.steps[r])
            return self
        m = np.asarray(members, dtype=_I64)
        for i, r in enumerate(m):
            self.steps[int(r)].extend((m[d], b, m[s], c) for d, b, s, c in other.steps[i])
        return self

    def repeat(self, times: int) -> "Program":
        """This program run ``times`` times in a row (a new Program)."""
        out = Program(self.ranks, self.label)
        for r in range(self.ranks):
            out.steps[r] = list(self.steps[r]) * times
        return out

    # Sizes -------------------------------------------------------------------------------
    @property
    def num_steps(self) -> int:
        return sum(len(s) for s in self.steps)

    @property
    def messages(self) -> int:
        return sum(len(st[0]) for s in self.steps for st in s)

    @property
    def bytes(self) -> int:
        return int(sum(int(st[1].sum()) for s in self.steps for st in s))

    # Exchange formats ----------------------------------------------------------------------
    def to_arrays(self) -> dict[str, Any]:
        """The CSR arrays host/workload.hpp reads (JobProgram)."""
        flat = [st for s in self.steps for st in s]
        step_ptr = np.zeros(self.ranks + 1, _I64)
        step_ptr[1:] = np.cumsum([len(s) for s in self.steps])
        send_ptr = np.zeros(len(flat) + 1, _I64)
        recv_ptr = np.zeros(len(flat) + 1, _I64)
        if flat:
            send_ptr[1:] = np.cumsum([len(st[0]) for st in flat])
            recv_ptr[1:] = np.cumsum([len(st[2]) for st in flat])
        cat = (lambda xs: np.concatenate(xs).astype(_I64) if xs else np.zeros(0, _I64))
        return dict(
            label=self.label, ranks=self.ranks, step_ptr=step_ptr, send_ptr=send_ptr,
            send_dst=cat([st[0] for st in flat]), send_bytes=cat([st[1] for st in flat]),
            recv_ptr=recv_ptr, recv_src=cat([st[2] for st in flat]),
            compute=np.asarray([st[3] for st in flat], dtype=_I64))

    def to_json(self) -> dict[str, Any]:
        """The program as the JSON object of docs/workloads.md."""
        def step_obj(st):
            o: dict[str, Any] = {}
            if len(st[0]):
                o["send"] = [[int(d), int(b)] for d, b in zip(st[0], st[1])]
            if len(st[2]):
                o["recv"] = [int(x) for x in st[2]]
            if st[3]:
                o["compute"] = int(st[3])
            return o
        return {"ranks": self.ranks, "programs": [[step_obj(st) for st in s] for s in self.steps]}


def program_from_json(obj: Mapping[str, Any], label: str = "program") -> Program:
    """A Program from the JSON object of docs/workloads.md; errors name the rank and step."""
    if not isinstance(obj, Mapping) or "programs" not in obj:
        raise WorkloadError(f'{label}: a program file is an object with "programs" (a list '
                            f'with one list of steps per rank)')
    progs = obj["programs"]
    if not isinstance(progs, list) or not progs:
        raise WorkloadError(f'{label}: "programs" must be a non-empty list (one per rank)')
    ranks = obj.get("ranks", len(progs))
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks != len(progs):
        raise WorkloadError(f'{label}: "ranks" is {ranks!r} but "programs" lists {len(progs)} ranks')
    p = Program(ranks, label)
    for r, steps in enumerate(progs):
        if not isinstance(steps, list):
            raise WorkloadError(f"{label}: rank {r}: must be a list of steps")
        for i, st in enumerate(steps):
            where = f"{label}: rank {r} step {i}"
            if not isinstance(st, Mapping):
                raise WorkloadError(f"{where}: a step is an object with send, recv, compute")
            unknown = set(st) - {"send", "recv", "compute"}
            if unknown:
                raise WorkloadError(f'{where}: unknown key "{sorted(unknown)[0]}" '
                                    f'(known: send, recv, compute)')
            dst, nb = [], []
            for s in st.get("send", []):
                if (not isinstance(s, (list, tuple)) or len(s) != 2
                        or not all(isinstance(x, int) and not isinstance(x, bool) for x in s)):
                    raise WorkloadError(f"{where}: a send is [destination rank, bytes], got {s!r}")
                if s[1] <= 0:
                    raise WorkloadError(f"{where}: message size must be > 0 bytes, got {s[1]}")
                dst.append(s[0])
                nb.append(s[1])
            src = st.get("recv", [])
            if not isinstance(src, list) or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in src):
                raise WorkloadError(f"{where}: recv is a list of source ranks, got {src!r}")
            c = st.get("compute", 0)
            if not isinstance(c, int) or isinstance(c, bool) or c < 0:
                raise WorkloadError(f"{where}: compute must be an integer >= 0 (cycles), got {c!r}")
            p.step(r, dst, nb, src, c)
    return p


def load_program(path: str | os.PathLike, label: str | None = None) -> Program:
    """Read a JSON program file (docs/workloads.md)."""
    label = label or str(path)
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except OSError as e:
        raise WorkloadError(f"{label}: cannot read program file: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise WorkloadError(f"{label}: malformed JSON: {e}") from None
    return program_from_json(obj, label)


def match(program: Program) -> np.ndarray:
    """The engine's static check of ``program`` (ValueError naming rank and step on
    unmatched messages or a deadlock); returns each send's receiving step (CSR index)."""
    from . import _core
    return np.asarray(_core.match_program(program.to_arrays()))


def program_rounds(program: Program) -> int:
    """Communication rounds of the program in the one-port round model of the collective
    literature: a rank sends at most one message per round (in program order) and receives
    at most one per round, and a message sent at a rank's step k goes out in a later round
    than every message the rank received in its steps before k. E.g. binomial trees and
    dissemination: ceil(log2 N); an all-to-all: N - 1."""
    a = program.to_arrays()
    matched = match(program)
    S = len(a["compute"])
    by_recv: list[list[int]] = [[] for _ in range(S)]
    for i, k in enumerate(matched):
        by_recv[int(k)].append(i)
    depth = np.zeros(len(matched), _I64)
    sent = np.zeros(len(matched), bool)
    released = np.zeros(S, bool)
    cur, end = a["step_ptr"][:-1].copy(), a["step_ptr"][1:]
    level = np.zeros(program.ranks, _I64)     # latest round received
    last = np.zeros(program.ranks, _I64)      # latest round sent
    got = np.zeros(program.ranks, _I64)       # latest round a message was received in
    progress = True
    while progress:
        progress = False
        for r in range(program.ranks):
            while cur[r] < end[r]:
                k = cur[r]
                if not released[k]:
                    lo, hi = a["send_ptr"][k], a["send_ptr"][k + 1]
                    first = max(level[r], last[r]) + 1
                    depth[lo:hi] = first + np.arange(hi - lo)
                    sent[lo:hi] = True
                    last[r] = max(last[r], first + hi - lo - 1)
                    released[k] = progress = True
                if not all(sent[i] for i in by_recv[k]):
                    break
                for d in sorted(depth[i] for i in by_recv[k]):
                    got[r] = max(d, got[r] + 1)
                    level[r] = max(level[r], got[r])
                cur[r] += 1
                progress = True
    return int(max(depth.max(), got.max())) if depth.size else 0


# --- motifs ---------------------------------------------------------------------------------

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
    else:
        n, b = int(job["ranks"]), int(job.get("bytes", DEFAULT_BYTES.get(motif, 0)))
        if motif == "alltoall":
            one = alltoall(n, b, label, job.get("order", "shift"), rng)
        elif motif in ("nn3d", "stencil27"):
            one = (nn3d if motif == "nn3d" else stencil27)(n, b, job.get("dims"), label)
            coll = job.get("allreduce", "none")
            if coll != "none":
                one.append(ALLREDUCE[coll](n, int(job.get("allreduce_bytes", 8)), label))
        elif motif == "bcast":
            one = bcast(n, b, int(job.get("root", 0)), label)
        elif motif == "reduce":
            one = reduce(n, b, int(job.get("root", 0)), label)
        elif motif == "allreduce":
            one = ALLREDUCE[job.get("algorithm", "dissemination")](n, b, label)
        elif motif == "perturbation":
            return perturbation(n, b, int(job.get("rounds", 100)), rng, label)
        elif motif == "pairs":
            one = pairs(n, b, rng, label)
        elif motif == "spread":
            one = spread(n, b, rng, tuple(job.get("partners", (16, 32))), label)
        elif motif == "umesh":
            one = umesh(n, b, rng, tuple(job.get("partners", (6, 20))), label)
        elif motif == "milc":
            one = milc(n, b, job.get("dims"), label)
        elif motif == "pf3d":
            one = pf3d(n, b, job.get("dims"), label)
        elif motif == "qbox":
            one = qbox(n, b, job.get("dims"), label)
        else:  # normalize() rejects unknown motifs first
            raise WorkloadError(f"{label}.motif: unknown motif {motif!r}")
    compute = int(job.get("compute", 0))
    if compute:
        pre = Program(one.ranks, label)
        for r in range(one.ranks):
            pre.step(r, compute=compute)
        one = pre.append(one)
    return one.repeat(int(job.get("iterations", 1)))


# --- jobs and placement ---------------------------------------------------------------------

def job_ranks(job: Mapping[str, Any], nodes: int) -> int:
    """Ranks of a normalised job on a machine of `nodes` nodes (`fraction` of the nodes,
    rounded down, when given instead of `ranks`)."""
    if "ranks" in job:
        return int(job["ranks"])
    if "fraction" in job:
        return int(math.floor(job["fraction"] * nodes + 1e-9))
    if "nodes" in job:
        return len(job["nodes"])
    if job["motif"] == "program":
        return load_program(job["file"]).ranks
    raise WorkloadError("workload.jobs: a job needs ranks, fraction or nodes")


def place_jobs(jobs: Sequence[Mapping[str, Any]], nodes: int, seed: int) -> list[np.ndarray]:
    """Nodes of every job's ranks (rank i of job j on out[j][i]), all distinct.

    Jobs with explicit `nodes` keep them; "linear" jobs then take consecutive blocks of the
    remaining nodes from the lowest, in job order; "random" jobs take the nodes left after
    that in a random order drawn from `seed` (each job its own consecutive slice of one
    random permutation), so a job's ranks are scattered over the machine.
    """
    sizes = [job_ranks(j, nodes) for j in jobs]
    total = sum(sizes)
    if total > nodes:
        raise WorkloadError(f"workload.jobs: {total} ranks in all, but the topology has only "
                            f"{nodes} nodes (one rank per node)")
    free = np.ones(nodes, bool)
    out: list[np.ndarray | None] = [None] * len(jobs)
    for j, job in enumerate(jobs):
        if "nodes" in job:
            nd = np.asarray(job["nodes"], _I64)
            if nd.size and (nd.min() < 0 or nd.max() >= nodes):
                raise WorkloadError(f"workload.jobs[{j}].nodes: must lie in [0, {nodes}), got "
                                    f"{int(nd.min())}..{int(nd.max())}")
            if not free[nd].all() or len(set(nd.tolist())) != nd.size:
                raise WorkloadError(f"workload.jobs[{j}].nodes: nodes must be distinct and not "
                                    f"used by another job")
            free[nd] = False
            out[j] = nd
    for j, job in enumerate(jobs):
        if out[j] is None and job.get("placement", "linear") == "linear":
            idx = np.flatnonzero(free)[:sizes[j]]  # the lowest free nodes, in order
            free[idx] = False
            out[j] = idx.astype(_I64)
    rest = np.flatnonzero(free)
    order = rest[np.random.default_rng([int(seed), 0x91ACE]).permutation(rest.size)]
    pos = 0
    for j, job in enumerate(jobs):
        if out[j] is None:
            out[j] = order[pos:pos + sizes[j]].astype(_I64)
            pos += sizes[j]
    return [np.asarray(o, _I64) for o in out]  # type: ignore[arg-type]


def _job_rng(seed: int, j: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), 0x10B, j])


def build_replica(wcfg: Mapping[str, Any], nodes: int, seed: int,
                  cache: dict | None = None) -> tuple[list[Program], list[dict[str, Any]]]:
    """Programs and placements of every job for one replica (seed). Programs of motifs that
    use no randomness are shared through `cache` ({job index: Program})."""
    jobs = wcfg["jobs"]
    placed = place_jobs(jobs, nodes, seed)
    progs, placements = [], []
    for j, job in enumerate(jobs):
        label = f"workload.jobs[{j}] ({job.get('name', job['motif'])})"
        jj = dict(job)
        jj.setdefault("ranks", len(placed[j]))
        random_motif = job["motif"] in RANDOM_MOTIFS or job.get("order") == "random"
        if cache is not None and not random_motif and j in cache:
            prog = cache[j]
        else:
            prog = build_motif(jj, _job_rng(seed, j), label)
            if job.get("start", 0):  # the job begins with a delay (a compute-only first step)
                delayed = Program(prog.ranks, prog.label)
                for r in range(prog.ranks):
                    delayed.step(r, compute=int(job["start"]))
                prog = delayed.append(prog)
            if cache is not None and not random_motif:
                cache[j] = prog
        progs.append(prog)
        placements.append(dict(nodes=placed[j], background=bool(job.get("background", False))))
    return progs, placements


def compile_inputs(wcfg: Mapping[str, Any], nodes: int, seeds: Sequence[int]) -> dict[str, Any]:
    """The `workload` argument of the engine: unique programs and, per replica, the jobs'
    program indices, nodes and background flags."""
    cache: dict = {}
    programs: list[Program] = []
    index: dict[int, int] = {}
    replicas = []
    for seed in seeds:
        progs, placements = build_replica(wcfg, nodes, seed, cache)
        jobs = []
        for prog, pl in zip(progs, placements):
            if id(prog) not in index:
                index[id(prog)] = len(programs)
                programs.append(prog)
            jobs.append(dict(program=index[id(prog)], nodes=pl["nodes"].astype(np.int32),
                             background=pl["background"]))
        replicas.append(jobs)
    return dict(programs=[p.to_arrays() for p in programs], replicas=replicas,
                packet_size=int(wcfg["packet_size"]), flit_bytes=int(wcfg["flit_bytes"]),
                max_cycles=int(wcfg["max_cycles"]), ni_queues=int(wcfg.get("ni_queues", 1)))


# --- running --------------------------------------------------------------------------------

def _num_nodes(cfg: Mapping[str, Any]) -> int:
    from . import _core
    return int(_core.build_topology(dict(cfg["topology"]))["num_nodes"])


def run_replicas(config: Mapping[str, Any], seeds: Sequence[int] | None = None,
                 backend: str | None = None, progress: bool | Callable | None = None,
                 threads: int | None = None) -> list:
    """Run the config's [workload] once per seed (placements and random motifs drawn from
    the seed), all as replicas of one engine run; one Result per seed."""
    from .config import normalize
    from .engine import results_from_raw, simulate_raw
    cfg = normalize(config)
    if "workload" not in cfg:
        raise WorkloadError("workload: the config has no [workload] section")
    seeds = [int(cfg["sim"]["seed"])] if seeds is None else [int(s) for s in seeds]
    if not seeds:
        raise WorkloadError("seeds: at least one seed")
    inputs = compile_inputs(cfg["workload"], _num_nodes(cfg), seeds)
    raw = simulate_raw(cfg, backend, threads, progress, [0.0] * len(seeds), seeds,
                       workload=inputs)
    return results_from_raw(raw, cfg)


def run(config: Mapping[str, Any], backend: str | None = None, progress: bool | Callable | None = None,
        threads: int | None = None):
    """Run the config's [workload] with sim.seed; the Result has a `workload` table."""
    return run_replicas(config, None, backend, progress, threads)[0]


@dataclass
class NoiseResult:
    """Slowdown of the foreground jobs by a perturbation job, per seed (replica)."""
    seeds: list[int]
    quiet: list[Any]           # Results without the perturbation
    perturbed: list[Any]       # Results with it
    job: int                   # index of the measured job

    def times(self, which: str = "perturbed") -> np.ndarray:
        """Completion (first injection to last delivery) of the measured job, cycles."""
        res = self.perturbed if which == "perturbed" else self.quiet
        return np.array([r.workload.completion_cycles[self.job] for r in res], dtype=float)

    @property
    def slowdown(self) -> np.ndarray:
        """T_perturbed / T_quiet per seed (the ratio reading of the paper's slowdown)."""
        return self.times("perturbed") / self.times("quiet")

    @property
    def extra(self) -> np.ndarray:
        """(T_perturbed - T_quiet) / T_quiet per seed (the difference reading)."""
        return self.slowdown - 1.0


def _idle_program() -> dict[str, Any]:
    z = np.zeros(0, _I64)
    return dict(label="idle", ranks=0, step_ptr=np.zeros(1, _I64), send_ptr=np.zeros(1, _I64),
                send_dst=z, send_bytes=z, recv_ptr=np.zeros(1, _I64), recv_src=z, compute=z)


def run_noise(config: Mapping[str, Any], seeds: Sequence[int], job: int = 0,
              backend: str | None = None, threads: int | None = None) -> NoiseResult:
    """The noise paper's experiment: the config's workload with and without its
    perturbation jobs (motif "perturbation"), on the same placements (drawn per seed with
    the perturbation present), each seed one replica. Returns the measured job's
    completion times and slowdowns."""
    from .config import normalize
    from .engine import results_from_raw, simulate_raw
    cfg = normalize(config)
    wcfg = cfg["workload"]
    nodes = _num_nodes(cfg)
    pert = [j for j, jb in enumerate(wcfg["jobs"]) if jb["motif"] == "perturbation"]
    if not pert:
        raise WorkloadError("workload.jobs: run_noise needs a job with motif \"perturbation\"")
    if job in pert:
        raise WorkloadError(f"job: {job} is the perturbation; measure another job")
    seeds = [int(s) for s in seeds]
    full = compile_inputs(wcfg, nodes, seeds)
    # The quiet run keeps every job and placement; the perturbation jobs get an empty
    # program of 0 ranks (so job indices and the other jobs' nodes stay the same).
    quiet = dict(full, programs=list(full["programs"]) + [_idle_program()])
    idle = len(quiet["programs"]) - 1
    quiet["replicas"] = [[dict(jb, program=idle, nodes=jb["nodes"][:0]) if j in pert else jb
                          for j, jb in enumerate(reps)] for reps in full["replicas"]]
    out = []
    for inputs in (quiet, full):
        raw = simulate_raw(cfg, backend, threads, False, [0.0] * len(seeds), seeds,
                           workload=inputs)
        out.append(results_from_raw(raw, cfg))
    return NoiseResult(seeds=seeds, quiet=out[0], perturbed=out[1], job=job)
