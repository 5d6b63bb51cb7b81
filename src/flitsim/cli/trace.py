"""``flitsim trace-info``: summarise an MPI trace (OTF2) before replaying it."""
from __future__ import annotations

import argparse

from .common import EXIT_OK, _fmt, _Formatter, _print_json, _table

TRACE_INFO_EXAMPLES = """\
examples:
  flitsim trace-info configs/traces/stencil-8/traces.otf2
  flitsim trace-info configs/traces/stencil-8/traces.otf2 --json
  flitsim run configs/traces/stencil-trace.toml          replay it (docs/workloads.md)
"""


def _add_trace_info(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace-info", formatter_class=_Formatter, epilog=TRACE_INFO_EXAMPLES,
        help="summarise an MPI trace (OTF2) before replaying it",
        description="Read an OTF2 trace (the anchor file PATH/traces.otf2, as Score-P writes\n"
                    "it) in one streaming pass and print its MPI ranks, events by kind,\n"
                    "point-to-point messages and bytes, collectives and time span. A trace\n"
                    "replays as a job: {motif = \"trace\", trace = \"PATH/traces.otf2\"}.")
    p.add_argument("trace", help="the trace's anchor file (PATH/traces.otf2) or its folder")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on stdout and nothing else")
    p.set_defaults(func=cmd_trace_info)


def cmd_trace_info(args: argparse.Namespace) -> int:
    from ..shipped import find
    from ..workload.trace_info import trace_info
    found = find(args.trace)
    info = trace_info(found if found is not None else args.trace, args.trace)
    if args.json:
        _print_json(info)
        return EXIT_OK
    from ..workload.trace import collective_algorithms
    algorithms = collective_algorithms()
    rows = [("trace", str(info["trace"])), ("ranks", str(info["ranks"])),
            ("events", f"{info['events']:,} ({_fmt(info['events_by_kind'])})"),
            ("p2p messages", f"{info['p2p_messages']:,} ({info['p2p_bytes']:,} bytes)"
             + (f", {info['self_messages']} to self (not replayed)" if info["self_messages"] else "")),
            ("collectives", ", ".join(f"{op} x{n} ({algorithms.get(op, 'not supported')})"
                                      for op, n in info["collectives"].items()) or "none"),
            ("time span", f"{info['time_span_seconds'] * 1e6:.6g} us "
                          f"({info['time_span_ticks']:,} ticks at {info['timer_resolution']:,}/s)")]
    print(_table(rows))
    return EXIT_OK
