"""Reading OTF2 traces with the official OTF2 library (the `otf2` package on PyPI, a
dependency of flitsim): the import with its install hint, opening a trace with errors that
name it, the MPI ranks (locations of MPI_COMM_WORLD) and communicators, and the event stream.

Events are read with the library's buffered global reader, in time order, a batch at a
time: a trace is never loaded whole, so traces larger than memory replay (trace.py keeps only
the per-rank programs it builds).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .program import WorkloadError

INSTALL_HINT = ("the OTF2 library for Python is not installed: pip install otf2 "
                "(or pip install 'flitsim[test]', which includes it)")


def require_otf2():
    """The `otf2` module, or a WorkloadError saying how to install it."""
    try:
        import otf2
    except ImportError:
        raise WorkloadError(f"MPI traces need {INSTALL_HINT}") from None
    return otf2


@dataclass
class TraceDefs:
    """What replay needs from a trace's definitions."""
    path: str
    ranks: int
    rank_of: dict[Any, int]              # Location -> MPI_COMM_WORLD rank
    comm_members: dict[Any, list[int]]   # Comm -> world ranks of its ranks 0..n-1
    timer_resolution: int                # ticks per second
    global_offset: int                   # first tick of the trace
    trace_length: int                    # ticks from the first to the last event
    location_events: int                 # events the definitions announce (all locations)
    comm_names: dict[Any, str] = field(default_factory=dict)


def anchor_path(path: str | os.PathLike, label: str) -> str:
    """The anchor file (…/traces.otf2) of `path` (the file, or the folder holding it)."""
    p = os.fspath(path)
    if os.path.isdir(p):
        cands = sorted(f for f in os.listdir(p) if f.endswith(".otf2"))
        if len(cands) != 1:
            raise WorkloadError(f"{label}: {p} is a folder without one .otf2 anchor file "
                                f"(found {len(cands)}); give the path of PATH/traces.otf2")
        p = os.path.join(p, cands[0])
    if not os.path.isfile(p):
        raise WorkloadError(f"{label}: no such trace file: {p}")
    try:
        with open(p, "rb") as f:
            head = f.read(8)
    except OSError as e:
        raise WorkloadError(f"{label}: cannot read the trace {p}: {e.strerror or e}") from None
    # An anchor file starts with a version byte, the writer's byte order and "OTF2": checked
    # here, so that other files are refused with one line instead of the library's messages.
    if head[2:6] != b"OTF2":
        raise WorkloadError(f"{label}: {p} is not an OTF2 trace (no OTF2 anchor-file header; "
                            f"give the anchor file PATH/traces.otf2)")
    return p


def _open(path: str, label: str, batch_events: int = 4096):
    otf2 = require_otf2()
    import _otf2
    try:
        return otf2.reader.open(path, batch_events=batch_events)
    except (_otf2.Error, otf2.error.TraceReaderError, OSError, ValueError) as e:
        raise WorkloadError(f"{label}: {path} is not a readable OTF2 trace ({e})") from None


def _definitions(reader, path: str, label: str) -> TraceDefs:
    from otf2.enums import GroupType, Paradigm
    defs = reader.definitions
    world = None
    for g in defs.groups:
        if g.group_type == GroupType.COMM_LOCATIONS and g.paradigm == Paradigm.MPI:
            world = g
    if world is None or not len(world.members):
        raise WorkloadError(f"{label}: {path} has no MPI ranks (no group of type COMM_LOCATIONS "
                            f"with paradigm MPI, as Score-P writes for MPI_COMM_WORLD)")
    rank_of = {loc: i for i, loc in enumerate(world.members)}
    comm_members: dict[Any, list[int]] = {}
    names: dict[Any, str] = {}
    for c in defs.comms:
        names[c] = str(c.name)
        grp = getattr(c, "group", None)
        if grp is None:
            continue
        if grp.group_type == GroupType.COMM_SELF:
            comm_members[c] = None  # type: ignore[assignment]  # the rank itself
            continue
        try:
            comm_members[c] = [rank_of[m] for m in grp.members]
        except KeyError:
            raise WorkloadError(f"{label}: communicator {c.name!r} has a member that is not an "
                                f"MPI rank of {path}") from None
    cp = defs.clock_properties
    return TraceDefs(path=path, ranks=len(rank_of), rank_of=rank_of, comm_members=comm_members,
                     timer_resolution=int(cp.timer_resolution), global_offset=int(cp.global_offset),
                     trace_length=int(cp.trace_length),
                     location_events=sum(int(loc.number_of_events) for loc in defs.locations),
                     comm_names=names)


def trace_ranks(path: str | os.PathLike, label: str = "trace") -> int:
    """MPI ranks of a trace, from its definitions only (no events read)."""
    p = anchor_path(path, label)
    with _open(p, label) as reader:
        return _definitions(reader, p, label).ranks


def read_events(path: str | os.PathLike, label: str = "trace"
                ) -> Iterator[TraceDefs | tuple[int, Any]]:
    """Yield the trace's TraceDefs first, then (rank, event) for every event of an MPI rank
    in time order (events of other locations, e.g. OpenMP threads, are skipped)."""
    p = anchor_path(path, label)
    import _otf2
    with _open(p, label) as reader:
        defs = _definitions(reader, p, label)
        yield defs
        rank_of = defs.rank_of
        try:
            for loc, ev in reader.events:
                r = rank_of.get(loc)
                if r is not None:
                    yield r, ev
        except _otf2.Error as e:
            raise WorkloadError(f"{label}: {p}: cannot read the events ({e})") from None
