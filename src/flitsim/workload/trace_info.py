"""`flitsim trace-info TRACE`: what an OTF2 trace holds before it is replayed (ranks, events
by kind, point-to-point messages and bytes, collectives, time span), in one streaming pass."""
from __future__ import annotations

import os
from typing import Any

from .trace import _op_name, collective_algorithms


def trace_info(path: str | os.PathLike, label: str = "trace") -> dict[str, Any]:
    """Summary of the MPI trace at `path` (a dict; `flitsim trace-info` prints it)."""
    from .trace_otf2 import read_events, require_otf2
    E = require_otf2().events
    stream = read_events(path, label)
    defs = next(stream)
    kinds: dict[str, int] = {}
    colls: dict[str, int] = {}
    events = p2p = p2p_bytes = self_msgs = coll_bytes = 0
    first = last = None
    algorithms = collective_algorithms()
    for rank, ev in stream:
        events += 1
        name = type(ev).__name__
        kinds[name] = kinds.get(name, 0) + 1
        t = int(ev.time)
        first = t if first is None else min(first, t)
        last = t if last is None else max(last, t)
        if isinstance(ev, (E.MpiSend, E.MpiIsend)):
            members = defs.comm_members.get(ev.communicator)
            dst = rank if members is None else (members[ev.receiver]
                                                if ev.receiver < len(members) else -1)
            if dst == rank:
                self_msgs += 1
            else:
                p2p += 1
                p2p_bytes += int(ev.msg_length)
        elif isinstance(ev, E.MpiCollectiveEnd):
            op = _op_name(ev.collective_op)
            colls[op] = colls.get(op, 0) + 1
            coll_bytes += int(ev.size_sent)
    span = 0 if first is None else last - first
    return {
        "trace": defs.path, "ranks": defs.ranks, "events": events,
        "events_by_kind": dict(sorted(kinds.items())),
        "p2p_messages": p2p, "p2p_bytes": p2p_bytes, "self_messages": self_msgs,
        "collectives": dict(sorted(colls.items())), "collective_bytes_sent": coll_bytes,
        "unsupported_collectives": sorted(op for op in colls if op not in algorithms),
        "communicators": len(defs.comm_members),
        "timer_resolution": defs.timer_resolution, "time_span_ticks": span,
        "time_span_seconds": span / defs.timer_resolution,
    }
