"""``flitsim trace-info``: summarise an MPI trace (OTF2) before replaying it; ``flitsim replay``:
replay a config's trace job with its per-rank communication time and slowdown."""
from __future__ import annotations

import argparse

from .common import EXIT_OK, _add_config_args, _add_engine_args, _fmt, _Formatter, _print_json, _table

TRACE_INFO_EXAMPLES = """\
examples:
  flitsim trace-info configs/traces/stencil-8/traces.otf2
  flitsim trace-info configs/traces/stencil-8/traces.otf2 --json
  flitsim replay configs/traces/stencil-trace.toml       replay it (docs/workloads.md)
"""
REPLAY_EXAMPLES = """\
examples:
  flitsim replay configs/traces/stencil-trace.toml
  flitsim replay configs/traces/stencil-trace.toml --set workload.compute=skip --json
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
    rows = [("trace", args.trace),  # as given (--json has the file read, maybe flitsim's own copy)
            ("ranks", str(info["ranks"])),
            ("events", f"{info['events']:,} ({_fmt(info['events_by_kind'])})"),
            ("p2p messages", f"{info['p2p_messages']:,} ({info['p2p_bytes']:,} bytes)"
             + (f", {info['self_messages']} to self (not replayed)" if info["self_messages"] else "")),
            ("collectives", ", ".join(f"{op} x{n} ({algorithms.get(op, 'not supported')})"
                                      for op, n in info["collectives"].items()) or "none"),
            ("time span", f"{info['time_span_seconds'] * 1e6:.6g} us "
                          f"({info['time_span_ticks']:,} ticks at {info['timer_resolution']:,}/s)")]
    print(_table(rows))
    return EXIT_OK


def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay", formatter_class=_Formatter, epilog=REPLAY_EXAMPLES,
        help="replay a config's MPI trace job: times, communication per rank, slowdown",
        description="Run a [workload] with a trace job ({motif = \"trace\", ...}) twice, as two\n"
                    "replicas of one engine run: with every job, and with the trace alone on the\n"
                    "same nodes (an idle network). Prints the trace's execution and completion\n"
                    "times, its slowdown (shared / idle) and each rank's communication time\n"
                    "(cycles from a step's sends to the end of its wait, summed).")
    _add_config_args(p)
    _add_engine_args(p)
    p.add_argument("--job", type=int, default=None, metavar="J",
                   help="index of the trace job in workload.jobs (default: the first)")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    import contextlib
    import sys
    from ..config import load_config
    from ..workload.trace_replay import replay
    cfg = load_config(args.config, args.overrides)
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        r = replay(cfg, job=args.job, backend=None if args.backend == "auto" else args.backend,
                   threads=args.threads, progress=not args.quiet and not args.json)
    table = r.table()
    comm, idle = r.comm_cycles(), r.comm_cycles("idle")
    if args.json:
        _print_json(dict(table, comm_cycles=comm, idle_comm_cycles=idle))
        return EXIT_OK
    secs = r.shared.workload.cycle_seconds
    rows = [("job", f"{r.job} ({r.shared.workload.job_names[r.job]}, "
                    f"{int(r.shared.workload.job_ranks[r.job])} ranks)"),
            ("execution", f"{table['execution_cycles']:.0f} cycles = {table['execution_cycles'] * secs * 1e6:.4g} us"),
            ("completion", f"{table['completion_cycles']:.0f} cycles (first injection to last delivery)"),
            ("idle network", f"{table['idle_execution_cycles']:.0f} cycles (the trace alone)"),
            ("slowdown", f"{table['slowdown']:.4f}"),
            ("comm per rank", f"mean {comm.mean():.1f}, max {comm.max():.0f} cycles "
                              f"(idle network: mean {idle.mean():.1f}, max {idle.max():.0f})")]
    print(_table(rows))
    return EXIT_OK
