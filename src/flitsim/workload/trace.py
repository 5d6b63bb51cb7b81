"""MPI trace replay: an OTF2 trace's per-rank MPI events become a Program (docs/workloads.md,
"MPI traces (OTF2)").

Per rank, in event order (trace_otf2.read_events streams them):

- a send (MpiSend, MpiIsend) is a message queued at the point it is posted: it joins the
  current step's sends, or opens a new step when that step already waits or computes
  (sends never block, as in every flitsim program: no rendezvous);
- a receive (MpiRecv, or MpiIrecv, which the trace records when the request completes, in
  MPI_Wait*/Test*) is a message the current step waits for; after compute it opens a new step;
- a collective (MpiCollectiveBegin .. MpiCollectiveEnd) is expanded with flitsim's own
  collective programs (COLLECTIVES below) on the communicator's ranks;
- the time a rank spends outside MPI (outside MPI_* regions, or between MPI events when the
  trace has no regions) is compute, converted to cycles by `workload.compute`: "keep" (one
  cycle per flit time, flit_bytes·8/link_gbps ns), "scale" (`workload.compute_cycle_ns`
  nanoseconds per cycle) or "skip" (none).

Matching: MPI matches a receive to a send by communicator, source and tag, in posting order.
The host checks that matching here (a receive that no send matches is an error naming the
trace event); the engine then counts a rank's messages from one source in send order (the
k-th message s sends to d is d's k-th receive from s). Where tags let a later message
overtake an earlier one from the same source, a receive thus waits for the earlier message:
never later than MPI would, so a trace that ran never deadlocks in replay. Messages a rank
sends to itself do not cross the network and are left out.
"""
from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .program import _I64, Program, WorkloadError

COMPUTE_MODES = ("keep", "scale", "skip")
_ROOTED = ("BCAST", "REDUCE", "GATHER", "GATHERV", "SCATTER", "SCATTERV")


# --- collectives -----------------------------------------------------------------------------

def _per_pair(size: int, n: int) -> int:
    return max(1, math.ceil(size / n))


def _gather(n: int, b: int, root: int, label: str) -> Program:
    """Direct gather: every rank sends its block to the root, which waits for all."""
    p = Program(n, label)
    for r in range(n):
        if r == root:
            p.step(r, src=[s for s in range(n) if s != root])
        else:
            p.step(r, [root], b)
    return p


def _scatter(n: int, b: int, root: int, label: str) -> Program:
    """Direct scatter: the root sends every rank its block."""
    p = Program(n, label)
    for r in range(n):
        if r == root:
            p.step(r, [d for d in range(n) if d != root], b)
        else:
            p.step(r, src=[root])
    return p


def _scan(n: int, b: int, root: int, label: str) -> Program:
    """Linear scan: rank r waits for r - 1's partial result, then passes its own to r + 1."""
    p = Program(n, label)
    for r in range(n):
        p.step(r, src=[r - 1] if r else [])
        if r + 1 < n:
            p.step(r, [r + 1], b)
    return p


@functools.lru_cache(maxsize=None)
def _collectives() -> dict[str, tuple[str, Any, bool]]:
    """Collective op -> (algorithm, builder(n, bytes, root, label), per_pair): `per_pair`
    collectives divide the recorded size by the communicator size (a block per rank)."""
    from .motifs import alltoall, allreduce_dissemination, allreduce_recursive_doubling, bcast, reduce
    a2a = ("direct exchange, the all-to-all shift schedule", lambda n, b, root, lb: alltoall(n, b, lb), True)
    return {
        "BARRIER": ("dissemination of 8-byte messages",
                    lambda n, b, root, lb: allreduce_dissemination(n, 8, lb), False),
        "BCAST": ("binomial tree", lambda n, b, root, lb: bcast(n, b, root, lb), False),
        "REDUCE": ("binomial tree, reversed", lambda n, b, root, lb: reduce(n, b, root, lb), False),
        "ALLREDUCE": ("recursive doubling (MPICH)",
                      lambda n, b, root, lb: allreduce_recursive_doubling(n, b, lb), False),
        "ALLTOALL": a2a, "ALLTOALLV": a2a, "ALLTOALLW": a2a,
        "ALLGATHER": a2a, "ALLGATHERV": a2a,
        "REDUCE_SCATTER": a2a, "REDUCE_SCATTER_BLOCK": a2a,
        "GATHER": ("direct: every rank sends its block to the root", _gather, True),
        "GATHERV": ("direct: every rank sends its block to the root", _gather, True),
        "SCATTER": ("direct: the root sends every rank its block", _scatter, True),
        "SCATTERV": ("direct: the root sends every rank its block", _scatter, True),
        "SCAN": ("linear chain", _scan, False),
        "EXSCAN": ("linear chain", _scan, False),
    }


def collective_algorithms() -> dict[str, str]:
    """Each supported MPI collective and the algorithm replay expands it with."""
    return {op: alg for op, (alg, _, _) in _collectives().items()}


# --- the converter -----------------------------------------------------------------------------

def _op_name(op: Any) -> str:
    name = getattr(op, "name", None) or str(op)
    return name.rsplit(".", 1)[-1].upper()


def _is_mpi_region(region: Any) -> bool:
    from otf2.enums import Paradigm
    return getattr(region, "paradigm", None) == Paradigm.MPI or str(region.name).startswith("MPI_")


@dataclass
class _Collective:
    op: str
    comm: Any
    members: list[int]
    root: int
    size: int                   # the largest size a member recorded
    first: str                  # the first member's event, for error messages
    seen: int = 0


@dataclass
class _Rank:
    """A rank's program under construction: finished steps (tuples, or ("coll", id,
    rank in the communicator) placeholders expanded once every member has been read)."""
    items: list = field(default_factory=list)
    dst: list = field(default_factory=list)
    nbytes: list = field(default_factory=list)
    src: list = field(default_factory=list)
    compute: int = 0          # ticks of the open step's compute
    pending: int = 0          # ticks of compute not yet placed
    last: int | None = None   # tick the rank last left MPI
    depth: int = 0            # MPI regions entered
    colls: dict = field(default_factory=dict)   # comm -> collectives entered on it
    events: int = 0

    def flush(self, to_cycles) -> None:
        if self.dst or self.src or self.compute:
            self.items.append((np.array(self.dst, _I64), np.array(self.nbytes, _I64),
                               np.array(self.src, _I64), to_cycles(self.compute)))
        self.dst, self.nbytes, self.src, self.compute = [], [], [], 0


@dataclass
class TraceProgram:
    """A trace converted to a Program, with what it held."""
    program: Program
    defs: Any
    events: int
    p2p_messages: int
    p2p_bytes: int
    self_messages: int
    collectives: dict[str, int]


def _where(where: tuple) -> str:
    """An event, (rank, index among the rank's events, event), as error messages name it
    (formatted only for an error: a trace has millions of events)."""
    rank, index, ev = where
    return f"rank {rank} event {index} ({type(ev).__name__} at tick {ev.time})"


def convert(path: str | os.PathLike, compute: str = "keep", cycle_ns: float = 1.28,
            label: str = "trace") -> TraceProgram:
    """The Program of the MPI trace at `path`. compute: "keep" or "scale" convert compute time
    at `cycle_ns` nanoseconds per cycle (the caller chooses which), "skip" drops it."""
    from .trace_otf2 import require_otf2
    E = require_otf2().events
    if compute not in COMPUTE_MODES:
        raise WorkloadError(f"{label}: compute must be one of {', '.join(COMPUTE_MODES)}, got {compute!r}")
    if not (isinstance(cycle_ns, (int, float)) and math.isfinite(cycle_ns) and cycle_ns > 0):
        raise WorkloadError(f"{label}: the cycle time must be > 0 ns, got {cycle_ns!r}")
    stream = read_events_checked(path, label)
    defs = next(stream)
    ns_per_tick = 1e9 / defs.timer_resolution
    skip = compute == "skip"

    def to_cycles(ticks: int) -> int:
        return 0 if skip else int(round(ticks * ns_per_tick / cycle_ns))

    ranks = [_Rank() for _ in range(defs.ranks)]
    colls: list[_Collective] = []
    by_key: dict[tuple, int] = {}            # (comm, sequence) -> collective id
    # MPI's matching, checked as counts: (src, dst, comm, tag) -> [sends - receives, the last
    # receive]; a key is dropped when it balances, so this holds the messages in flight (at
    # the trace's resolution), not every message.
    unmatched: dict[tuple, list] = {}
    position: dict[Any, dict[int, int]] = {}
    n_events = p2p = p2p_bytes = selfs = 0

    def members_of(comm, rank, where):
        if comm not in defs.comm_members:
            raise WorkloadError(f"{label}: {_where(where)}: communicator "
                                f"{defs.comm_names.get(comm, comm)!r} is not supported in replay "
                                f"(an inter-communicator, or one without a group of MPI ranks)")
        m = defs.comm_members[comm]
        if m is None:       # MPI_COMM_SELF
            return [rank]
        if comm not in position:    # world rank -> its rank in the communicator
            position[comm] = {w: i for i, w in enumerate(m)}
        if rank not in position[comm]:
            raise WorkloadError(f"{label}: {_where(where)}: rank {rank} is not in communicator "
                                f"{defs.comm_names.get(comm, comm)!r}")
        return m

    def peer(comm, r, rank, where):
        m = members_of(comm, rank, where)
        if not 0 <= r < len(m):
            raise WorkloadError(f"{label}: {_where(where)}: peer rank {r} is outside communicator "
                                f"{defs.comm_names.get(comm, comm)!r} of {len(m)} ranks")
        return m[r]

    comm_events = (E.MpiSend, E.MpiIsend, E.MpiRecv, E.MpiIrecv, E.MpiCollectiveBegin,
                   E.MpiCollectiveEnd)
    mpi_region: dict[Any, bool] = {}
    for rank, ev in stream:
        st = ranks[rank]
        n_events += 1
        st.events += 1
        idx = st.events - 1
        t = int(ev.time)
        if st.last is None:
            st.last = t
        kind = type(ev)
        if kind is E.Enter or kind is E.Leave:
            region = ev.region
            if region not in mpi_region:
                mpi_region[region] = _is_mpi_region(region)
            if not mpi_region[region]:
                continue
            if kind is E.Enter:
                if st.depth == 0 and not skip:
                    st.pending += t - st.last
                st.depth += 1
            else:
                st.depth = max(0, st.depth - 1)
                if st.depth == 0:
                    st.last = t
            continue
        if kind not in comm_events:
            continue
        if st.depth == 0:   # a trace without MPI regions: the time since the last MPI event
            if not skip:
                st.pending += t - st.last
            st.last = t
        st.compute += st.pending   # compute before this MPI call ends the open step
        st.pending = 0
        if kind is E.MpiSend or kind is E.MpiIsend:
            where = (rank, idx, ev)
            dst = peer(ev.communicator, int(ev.receiver), rank, where)
            if dst == rank:
                selfs += 1
                continue
            if st.src or st.compute:
                st.flush(to_cycles)
            size = max(1, int(ev.msg_length))   # an empty MPI message still crosses as a header
            st.dst.append(dst)
            st.nbytes.append(size)
            key = (rank, dst, ev.communicator, int(ev.msg_tag))
            bal = unmatched.setdefault(key, [0, None])
            bal[0] += 1
            if not bal[0]:
                del unmatched[key]
            p2p += 1
            p2p_bytes += size
        elif kind is E.MpiRecv or kind is E.MpiIrecv:
            where = (rank, idx, ev)
            src = peer(ev.communicator, int(ev.sender), rank, where)
            if src == rank:
                continue
            if st.compute:
                st.flush(to_cycles)
            st.src.append(src)
            key = (src, rank, ev.communicator, int(ev.msg_tag))
            bal = unmatched.setdefault(key, [0, None])
            bal[0] -= 1
            bal[1] = where
            if not bal[0]:
                del unmatched[key]
        elif kind is E.MpiCollectiveBegin:
            pass   # the collective is expanded at its end, which names it
        else:  # MpiCollectiveEnd
            where = (rank, idx, ev)
            op = _op_name(ev.collective_op)
            table = _collectives()
            if op not in table:
                raise WorkloadError(f"{label}: {_where(where)}: collective {op} is not supported in replay "
                                    f"(supported: {', '.join(sorted(table))})")
            comm = ev.communicator
            members = members_of(comm, rank, where)
            st.flush(to_cycles)
            if len(members) == 1:   # MPI_COMM_SELF or a one-rank communicator: no messages
                continue
            seq = st.colls.get(comm, 0)
            st.colls[comm] = seq + 1
            size = max(int(ev.size_sent), int(ev.size_received))
            root = int(ev.root)
            if op in _ROOTED and not 0 <= root < len(members):
                raise WorkloadError(f"{label}: {_where(where)}: root {root} is outside communicator "
                                    f"{defs.comm_names.get(comm, comm)!r} of {len(members)} ranks")
            if op not in _ROOTED:
                root = 0
            cid = by_key.get((comm, seq))
            if cid is None:
                cid = by_key[(comm, seq)] = len(colls)
                colls.append(_Collective(op, comm, members, root, size, _where(where)))
            c = colls[cid]
            if c.op != op:
                raise WorkloadError(f"{label}: {_where(where)}: {op} is collective #{seq + 1} on "
                                    f"communicator {defs.comm_names.get(comm, comm)!r}, but "
                                    f"{c.first} has {c.op} there")
            if c.root != root:
                raise WorkloadError(f"{label}: {_where(where)}: root {root} differs from root {c.root} of "
                                    f"{c.first}")
            c.size = max(c.size, size)
            c.seen += 1
            st.items.append(("coll", cid, position[comm][rank]))
    for rank, st in enumerate(ranks):
        if st.pending and not skip:
            st.compute += st.pending
        st.flush(to_cycles)
    # The matching MPI would do: every receive needs a send with its communicator and tag.
    for (src, dst, comm, tag), (balance, where) in unmatched.items():
        name = defs.comm_names.get(comm, comm)
        if balance < 0:
            raise WorkloadError(
                f"{label}: {_where(where)}: receive from rank {src} (communicator {name!r}, tag "
                f"{tag}) never matches a send: rank {dst} receives {-balance} more message(s) with "
                f"that communicator and tag from rank {src} than rank {src} sends it")
    for (src, dst, comm, tag), (balance, where) in unmatched.items():
        raise WorkloadError(
            f"{label}: rank {src} sends {balance} more message(s) to rank {dst} (communicator "
            f"{defs.comm_names.get(comm, comm)!r}, tag {tag}) than rank {dst} receives: the trace "
            f"is incomplete (a receive is missing)")
    for c in colls:
        if c.seen != len(c.members):
            raise WorkloadError(f"{label}: {c.first}: collective {c.op} is entered by {c.seen} of "
                                f"the {len(c.members)} ranks of communicator "
                                f"{defs.comm_names.get(c.comm, c.comm)!r}")
    # Expand the collectives (one program per distinct shape, shared by its instances).
    table = _collectives()
    built: dict[tuple, Program] = {}
    counts: dict[str, int] = {}
    for c in colls:
        counts[c.op] = counts.get(c.op, 0) + 1
    prog = Program(defs.ranks, label)
    for rank, st in enumerate(ranks):
        out = prog.steps[rank]
        for item in st.items:
            if not isinstance(item[0], str):   # a step, not a ("coll", ...) placeholder
                out.append(item)
                continue
            c = colls[item[1]]
            n = len(c.members)
            _, build, per_pair = table[c.op]
            b = _per_pair(c.size, n) if per_pair else max(1, c.size)
            shape = (c.op, n, b, c.root)
            if shape not in built:
                built[shape] = build(n, b, c.root, label)
            m = np.asarray(c.members, _I64)
            out.extend((m[d], nb, m[s], cc) for d, nb, s, cc in built[shape].steps[item[2]])
    return TraceProgram(program=prog, defs=defs, events=n_events, p2p_messages=p2p,
                        p2p_bytes=p2p_bytes, self_messages=selfs, collectives=counts)


def read_events_checked(path, label):
    from .trace_otf2 import read_events
    return read_events(path, label)


def cycle_ns_for(wcfg: Mapping[str, Any]) -> float:
    """Nanoseconds of traced compute per cycle: the flit time under compute = "keep", the
    `workload.compute_cycle_ns` key under "scale"."""
    if wcfg.get("compute", "keep") == "scale":
        return float(wcfg["compute_cycle_ns"])
    return int(wcfg.get("flit_bytes", 16)) * 8 / float(wcfg.get("link_gbps", 100.0))


def trace_program(job: Mapping[str, Any], label: str) -> Program:
    """The Program of a normalised "trace" job (its `_compute` and `_cycle_ns` are set by
    placement.build_replica from the [workload] table)."""
    return convert(job["trace"], job.get("_compute", "keep"), job.get("_cycle_ns", 1.28), label).program
