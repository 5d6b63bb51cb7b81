"""The ``flitsim`` command line.

One function per subcommand (``cmd_<name>``) plus one that adds its parser
(``_add_<name>``); adding a subcommand (sweep, saturate, plot, check-deadlock, ...) means
writing those two and listing them in ``SUBCOMMANDS``. Exit codes: 0 success, 2 bad input
(config, options, unusable request), 1 failure at run time (deadlock, broken invariant,
I/O error).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .config import load_config

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the hand-wrapped descriptions and examples as written."""


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return v


def _threads(text: str) -> int:
    from .limits import MAX_THREADS
    v = _positive_int(text)
    if v > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, {MAX_THREADS}], got {text!r}")
    return v


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG", help="TOML configuration file")
    p.add_argument("--set", dest="overrides", action="append", default=[],
                   metavar="SECTION.KEY=VALUE",
                   help="override one config key (value parsed as TOML, else a string); "
                        "repeatable, applied in order")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on stdout and nothing else")


def _jsonable(v: Any) -> Any:
    """NaN and infinities become null (JSON has neither); numpy scalars become Python."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "item") and callable(v.item) and getattr(v, "ndim", None) == 0:
        v = v.item()  # numpy scalar
    elif hasattr(v, "tolist"):
        return _jsonable(v.tolist())  # numpy array
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _print_json(obj: dict) -> None:
    print(json.dumps(_jsonable(obj), allow_nan=False))


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v)
    return str(v)


def _table(rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# --- run ------------------------------------------------------------------------------------

RUN_EXAMPLES = """\
examples:
  flitsim run configs/dragonfly-1k.toml
  flitsim run configs/dragonfly-1k.toml --set traffic.load=0.4 --set routing.algorithm=ugal -o df.h5
  flitsim run configs/hyperx-4x4x4.toml --json --backend cpu --threads 2 | jq .latency_mean
"""


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", formatter_class=_Formatter, epilog=RUN_EXAMPLES,
        help="simulate one configuration and report latency and throughput",
        description="Simulate one configuration (warm-up, measurement window, drain) and\n"
                    "print offered/accepted load, latency, hops and speed.")
    _add_config_args(p)
    p.add_argument("-o", "--output", metavar="OUT.h5", help="also write the results to HDF5")
    p.add_argument("--force", action="store_true",
                   help="let -o replace an existing file that is not HDF5")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto (default) uses the GPU when one is usable")
    p.add_argument("--threads", type=_threads, metavar="N",
                   help="CPU threads (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)


def _run_summary(r: Any) -> str:
    s = r.summary()
    rate = f"{s['cycles'] / s['wall_seconds']:,.0f}" if s["wall_seconds"] > 0 else "-"
    rows = [
        ("offered load", f"{_fmt(s['offered'])} flits/node/cycle"),
        ("accepted load", f"{_fmt(s['accepted'])} flits/node/cycle"),
        ("packet latency", f"mean {_fmt(s['latency_mean'])}, p99 {_fmt(s['latency_p99'])} cycles"),
        ("network latency", f"mean {_fmt(s['network_latency_mean'])} cycles"),
        ("hops", f"mean {_fmt(s['hops_mean'])}"),
        ("saturated", _fmt(bool(s["saturated"]))),
        ("cycles", str(s["cycles"])),
        ("wall time", f"{s['wall_seconds']:.3f} s ({rate} cycles/s)"),
        ("backend", str(s["backend"])),
    ]
    return _table(rows)


def _workload_table(r: Any) -> str:
    """The per-job table of a workload run ([workload])."""
    w = r.workload
    head = ("job", "name", "motif", "ranks", "messages", "completion", "exec time",
            "eff. throughput", "comm rate")
    rows = [head]
    for j in w.jobs_table():
        bg = " (bg)" if j["background"] else ""
        rows.append((str(j["job"]), j["name"] + bg, j["motif"], str(j["ranks"]),
                     f"{j['delivered']}/{j['messages']}",
                     f"{_fmt(j['completion_cycles'])} cyc = {_fmt(j['completion_seconds'] * 1e6)} us",
                     f"{_fmt(j['execution_seconds'] * 1e6)} us",
                     _fmt(j["effective_throughput"]), f"{_fmt(j['comm_rate'] / 1e9)} GB/s"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(wd) for c, wd in zip(row, widths)).rstrip() for row in rows]
    lines.append(f"communication rate {_fmt(w.comm_rate / 1e9)} GB/s; bytes per network link: "
                 f"mean {_fmt(r.link_bytes_mean)}, max {_fmt(r.link_bytes_max)}; "
                 f"1 cycle = {_fmt(w.cycle_seconds * 1e9)} ns")
    return "\n".join(lines)


def _slot_warning(cfg: dict, stalls: int) -> str:
    """Stalls mean a node had sim.packet_slots packets in flight and had to wait: results
    then depend on the table size. Say which size was used and what to try."""
    try:
        from . import _core
        slots = int(_core.state_layout(cfg, 1)["packet_slots"])
    except Exception:  # noqa: BLE001 - the warning must not fail the run
        slots = int(cfg.get("sim", {}).get("packet_slots", 0))
    chosen = "chosen automatically" if not cfg.get("sim", {}).get("packet_slots") else "set"
    return (f"warning: sources waited {stalls} cycles in the window for a free packet slot "
            f"(sim.packet_slots = {slots} per node, {chosen}); results near saturation depend "
            f"on it: rerun with --set sim.packet_slots={2 * slots if slots else 1024}")


def cmd_run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    from .outputs import check_output
    check_output(args.output, force=args.force)  # before simulating, not after
    engine = importlib.import_module("flitsim.engine")  # lazy: needs the compiled module
    # With --json, stdout carries the JSON object only: Python-level chatter goes to stderr.
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        result = engine.run(cfg, backend=None if args.backend == "auto" else args.backend,
                            progress=not args.quiet and not args.json, threads=args.threads)
    if args.output:
        from .hdf5 import write_results
        from .outputs import remove_stale_temporaries
        check_output(args.output, force=args.force)  # again: a sweep may have started on it
        remove_stale_temporaries(args.output)        # left by a writer that was killed
        write_results(args.output, [result], cfg)
    workload = getattr(result, "workload", None)
    if args.json:
        summary = result.summary()
        if workload is not None:
            summary["jobs"] = workload.jobs_table()
        _print_json(summary)
    else:
        print(_run_summary(result))
        if workload is not None:
            print(_workload_table(result))
        if args.backend == "auto" and result.backend == "cpu":
            print(f"                 (auto: {engine.backend_status()})")
        if result.slot_stalls:
            print(_slot_warning(cfg, result.slot_stalls), file=sys.stderr)
        if args.output:
            print(f"results written to {args.output}")
    return EXIT_OK


# --- info -----------------------------------------------------------------------------------

INFO_EXAMPLES = """\
examples:
  flitsim info configs/dragonfly-1k.toml
  flitsim info configs/dragonfly-1k.toml --set topology.p=8 --set topology.a=16 --set topology.h=8
  flitsim info configs/hyperx-4x4x4.toml --json
"""
INFO_ORDER = ("kind", "nodes", "routers", "links", "links_copper", "links_optical", "radix",
              "diameter", "avg_distance", "balance", "cost")


def _add_info(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", formatter_class=_Formatter, epilog=INFO_EXAMPLES,
        help="describe the topology of a configuration without simulating",
        description="Build the topology of a configuration and print its size and structure:\n"
                    "nodes, routers, links by cable type, radix, diameter, average distance,\n"
                    "balance and cost.")
    _add_config_args(p)
    p.set_defaults(func=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    topology = importlib.import_module("flitsim.topology")
    desc = dict(topology.describe(cfg))
    desc.setdefault("kind", cfg["topology"]["kind"])
    mem = importlib.import_module("flitsim.memory")
    est = mem.estimate(cfg)  # the engine's own layout, without allocating it
    if args.json:
        desc.update(state_bytes=est["bytes"], host_memory_available=est["host_available"])
    else:
        avail = mem.human_bytes(est["host_available"]) if est["host_available"] else "unknown"
        desc["state memory"] = (f"{mem.human_bytes(est['bytes'])} per replica "
                                f"(host memory available: {avail})")
    if args.json:
        _print_json(desc)
    else:
        keys = [k for k in INFO_ORDER if k in desc] + [k for k in desc if k not in INFO_ORDER]
        print(_table([(k, _fmt(desc[k])) for k in keys]))
    return EXIT_OK


# --- saturate -------------------------------------------------------------------------------

SATURATE_EXAMPLES = """\
examples:
  flitsim saturate configs/dragonfly-1k.toml
  flitsim saturate configs/dragonfly-1k.toml --set routing.algorithm=ugal --probes 16 --tolerance 0.01
  flitsim saturate configs/dragonfly-1k.toml --json | jq .throughput
"""


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return v


def _add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto (default) uses the GPU when one is usable")
    p.add_argument("--threads", type=_threads, metavar="N",
                   help="CPU threads (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _add_saturate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "saturate", formatter_class=_Formatter, epilog=SATURATE_EXAMPLES,
        help="find the highest offered load the network sustains",
        description="Search the saturation load by bisection over batched replicas: each\n"
                    "engine run simulates --probes loads inside the current bracket, until\n"
                    "the bracket is narrower than --tolerance. Prints first the throughput\n"
                    "(the plateau: the highest accepted rate of any probe), then the offered-\n"
                    "load bracket. A load is sustained when its replica is not saturated:\n"
                    "every measured packet delivered within sim.drain_limit cycles and\n"
                    "accepted >= (1 - sim.saturation_tolerance) x offered (default 0.95 x).\n"
                    "traffic.load of the config is ignored.")
    _add_config_args(p)
    p.add_argument("--tolerance", type=_positive_float, default=0.005, metavar="X",
                   help="width of the final bracket, flits/node/cycle (default 0.005)")
    p.add_argument("--probes", type=_positive_int, default=8, metavar="K",
                   help="loads (replicas) per engine run (default 8)")
    _add_engine_args(p)
    p.set_defaults(func=cmd_saturate)


def cmd_saturate(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    saturate = importlib.import_module("flitsim.saturate")
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        res = saturate.saturate(cfg, tolerance=args.tolerance, probes=args.probes,
                                backend=None if args.backend == "auto" else args.backend,
                                progress=not args.quiet and not args.json, threads=args.threads)
    if args.json:
        _print_json(res.as_dict())
        return EXIT_OK
    rows = [
        ("throughput", f"{_fmt(res.throughput)} flits/node/cycle (plateau: highest accepted "
                       "rate of any probe)"),
        ("saturation load", f"{res.saturation:.4f} offered, bracket [{res.saturation:.4f}, "
                            f"{res.upper:.4f}] (tolerance {res.tolerance:g}; criterion below)"),
        ("accepted there", f"{_fmt(res.accepted_at_saturation)} flits/node/cycle, latency "
                           f"{_fmt(res.latency_at_saturation)} cycles"),
        ("engine runs", f"{res.engine_runs} x {res.replicas_per_run} replicas"),
        ("wall time", f"{res.wall_seconds:.3f} s"),
        ("criterion", res.criterion),
    ]
    print(_table(rows))
    return EXIT_OK


# --- sweep ----------------------------------------------------------------------------------

SWEEP_EXAMPLES = """\
examples:
  flitsim sweep configs/dragonfly-1k.toml --over traffic.load=0.05:0.95:0.05 -o loads.h5
  flitsim sweep configs/dragonfly-1k.toml --over traffic.load=0.1:0.9:0.1 \\
      --over routing.algorithm=min,ugal --over sim.seed=1,2,3 -o sweep.h5
  flitsim sweep configs/papers/dragonfly-valiant.toml -o sweep.h5   its [sweep] table
  flitsim sweep configs/papers/dragonfly-valiant.toml -o sweep.h5   again after an interruption: resumes

values: a range start:stop:step (stop included), or a comma-separated list of TOML values
(2,3,4 or min,ugal or [4,4],[8,8]). Points that differ only in traffic.load and sim.seed
run as replicas of one engine run.

clusters (Dask, one engine run per task; needs pip install 'flitsim[cluster]'):
  flitsim sweep configs/dragonfly-1k.toml -o s.h5 --over traffic.load=0.1:0.9:0.1 \\
      --cluster local --cluster-workers 4
  flitsim sweep CONFIG -o s.h5 --cluster tcp://head-node:8786     a running scheduler
  flitsim sweep CONFIG -o s.h5 --cluster slurm --cluster-workers 8 \\
      --slurm-option cores=32 --slurm-option memory=64GB --slurm-option walltime=02:00:00 \
      --slurm-option queue=normal --slurm-option account=proj123 \
      --slurm-option job_extra_directives=--exclusive
Results come back as tasks finish; only this process writes -o, so resume works the same.
"""


def _add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep", formatter_class=_Formatter, epilog=SWEEP_EXAMPLES,
        help="simulate every combination of swept config keys",
        description="Run the cartesian product of the swept keys (--over, or the config's\n"
                    "[sweep] table) and write every point to one HDF5 file, batch by batch;\n"
                    "run again with the same -o to resume an interrupted sweep.")
    _add_config_args(p)
    p.add_argument("--over", action="append", default=[], metavar="SECTION.KEY=VALUES",
                   help="a swept key and its values (repeatable; replaces the [sweep] table)")
    p.add_argument("-o", "--output", metavar="OUT.h5",
                   help="HDF5 file for all points (also what a resumed sweep reads)")
    p.add_argument("--force", action="store_true",
                   help="let -o replace an existing file that is not HDF5")
    p.add_argument("--max-replicas", type=_positive_int, metavar="R",
                   help="most replicas per engine run (default: sweep.max_replicas or 32)")
    _add_engine_args(p)
    p.add_argument("--cluster", metavar="local|tcp://HOST:PORT|slurm",
                   help="run batches on Dask: a local cluster, a running scheduler, or Slurm "
                        "jobs through dask-jobqueue (default: in this process)")
    p.add_argument("--cluster-workers", type=_positive_int, metavar="N",
                   help="local: worker processes (default: one per core); slurm: jobs "
                        "(default 1)")
    p.add_argument("--slurm-option", dest="slurm_options", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="a dask_jobqueue.SLURMCluster option (cores, memory, queue, walltime, "
                        "account, job_extra_directives, ...); value parsed as TOML, else a "
                        "string; repeatable")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    sweep = importlib.import_module("flitsim.sweep")
    over = sweep.parse_over(args.over) if args.over else None
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    if args.cluster is None and (args.cluster_workers is not None or args.slurm_options):
        _error("--cluster-workers and --slurm-option need --cluster")
        return EXIT_USAGE
    with quiet_stdout:
        try:
            res = sweep.sweep(cfg, over=over, output=args.output,
                              backend=None if args.backend == "auto" else args.backend,
                              progress=not args.quiet and not args.json, threads=args.threads,
                              max_replicas=args.max_replicas, cluster=args.cluster,
                              cluster_workers=args.cluster_workers,
                              slurm_options=args.slurm_options or None, force=args.force)
        except ImportError as e:
            if type(e).__name__ != "ClusterUnavailable":   # Dask missing: usage, not install
                raise
            _error(e)
            return EXIT_USAGE
    if args.json:
        _print_json(dict(keys=res.keys, points=res.rows(), engine_runs=res.engine_runs,
                         resumed=res.resumed, wall_seconds=res.wall_seconds,
                         output=res.output))
        return EXIT_OK
    cols = list(res.keys) + ["offered", "accepted", "latency_mean", "latency_p99", "saturated"]
    rows = [[_fmt(row[c]) for c in cols] for row in res.rows()]
    widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(v.rjust(w) for v, w in zip(r, widths)))
    print(f"{len(res.points)} points, {res.engine_runs} engine runs, {res.resumed} resumed, "
          f"{res.wall_seconds:.2f} s" + (f"; written to {res.output}" if res.output else ""))
    return EXIT_OK


# --- plot -----------------------------------------------------------------------------------

PLOT_EXAMPLES = """\
examples:
  flitsim plot sweep.h5                         latency and throughput vs offered load: sweep.png
  flitsim plot sweep.h5 --style paper --metric p99 -o fig.pdf
  flitsim plot sweep.h5 --panels latency,throughput,saturation,utilisation
  flitsim plot sweep.h5 --label routing.algorithm=Routing --label ugal="UGAL-L" \\
      --title "1,056-node dragonfly, uniform" --xlim 0:0.8 --ylim 0:200 --size 7,2.6
  flitsim plot sweep.h5 --x router.vcs --y hops_mean     any Result field vs a swept key

series: one per combination of the swept keys other than the x key and sim.seed, named from
their values (MIN, UGAL, p = 4); seeds of a point are averaged with 95 % error bars.
"""


def _pair(text: str, sep: str) -> tuple[float, float]:
    parts = text.replace("x", sep).split(sep) if sep == "," else text.split(sep)
    try:
        a, b = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs two numbers A{sep}B, got {text!r}") from None
    return a, b


def _add_plot(sub: argparse._SubParsersAction) -> None:
    from .plot import FORMATS, METRICS, PANELS, SATURATED
    p = sub.add_parser(
        "plot", formatter_class=_Formatter, epilog=PLOT_EXAMPLES,
        help="plot a results or sweep file (needs matplotlib)",
        description="Draw a file written by `flitsim run -o` or `flitsim sweep -o`: by default\n"
                    "packet latency and accepted throughput vs offered load, one curve per\n"
                    "series; saturated points are left out of the latency panel (their latency\n"
                    "only measures the run's length). Needs matplotlib: pip install\n"
                    "'flitsim[plot]'.")
    p.add_argument("result", metavar="RESULT.h5", help="results or sweep file")
    p.add_argument("-o", "--output", metavar="OUT.png",
                   help="image file (default: RESULT with .png or --format; format from the suffix)")
    p.add_argument("--panels", default="latency,throughput", metavar="P[,P...]",
                   help=f"panels, left to right: {', '.join(PANELS)} (default latency,throughput)")
    p.add_argument("--metric", choices=list(METRICS), default="mean",
                   help="latency statistic (default mean)")
    p.add_argument("--x", default="offered", metavar="KEY",
                   help="x axis: offered (measured, default), load (configured) or a swept key")
    p.add_argument("--y", metavar="FIELD",
                   help="one panel of this Result field vs x instead of --panels "
                        "(hops_mean, nonminimal_fraction, latency_p99, fairness, ...)")
    p.add_argument("--series", action="append", metavar="KEY",
                   help="swept key that makes the series (repeatable; default: all but x, seed)")
    p.add_argument("--label", action="append", default=[], metavar="KEY=TEXT",
                   help="words for a key or a value in legends and axes (repeatable)")
    p.add_argument("--title", help="figure title (default none)")
    p.add_argument("--xlim", type=lambda t: _pair(t, ":"), metavar="LO:HI")
    p.add_argument("--ylim", type=lambda t: _pair(t, ":"), metavar="LO:HI")
    p.add_argument("--size", type=lambda t: _pair(t, ","), metavar="W,H",
                   help="figure size in inches")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument("--saturated", choices=SATURATED, default="cut",
                   help="saturated points in the latency panel: cut (default), mark (hollow), show")
    p.add_argument("--no-errorbars", dest="errorbars", action="store_false",
                   help="no 95%% intervals (over seeds, else the run's batch means)")
    p.add_argument("--style", choices=("default", "paper"), default="default",
                   help="paper: single-column sizes, 8 pt serif fonts, colour-blind-safe colours")
    p.add_argument("--format", dest="fmt", choices=FORMATS,
                   help="output format (default: from the output suffix, else png)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    from .outputs import check_output
    import os
    check_output(args.output or os.path.splitext(args.result)[0] + ".png", hdf5=False)
    plot = importlib.import_module("flitsim.plot")
    labels = {}
    for item in args.label:
        key, sep, text = item.partition("=")
        if not sep or not key:
            _error(f"--label: needs KEY=TEXT, got {item!r}")
            return EXIT_USAGE
        labels[key] = text
    opts = plot.PlotOptions(
        panels=[x.strip() for x in args.panels.split(",") if x.strip()], metric=args.metric,
        x=args.x, y=args.y, series_keys=args.series, labels=labels, title=args.title,
        xlim=args.xlim, ylim=args.ylim, size=args.size, logy=args.logy,
        saturated=args.saturated, errorbars=args.errorbars, style=args.style, fmt=args.fmt)
    try:
        out = plot.plot_file(args.result, args.output, opts)
    except plot.PlotUnavailable as e:
        _error(e)
        return EXIT_FAILURE
    print(f"plot written to {out}")
    return EXIT_OK


# --- config ---------------------------------------------------------------------------------

CONFIG_EXAMPLES = """\
examples:
  flitsim config configs/dragonfly-1k.toml              every key, defaults filled in
  flitsim config configs/dragonfly-1k.toml --set routing.algorithm=ugal --json
"""


def _add_config(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "config", formatter_class=_Formatter, epilog=CONFIG_EXAMPLES,
        help="print the normalised configuration, defaults filled in",
        description="Check a configuration (with --set overrides applied) and print it as the\n"
                    "engine sees it: every section, every defaulted key. The output is itself\n"
                    "a valid configuration file.")
    _add_config_args(p)
    p.set_defaults(func=cmd_config)


def cmd_config(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    if args.json:
        _print_json(cfg)
    else:
        from .toml_writer import dumps
        sys.stdout.write(dumps(cfg))
    return EXIT_OK


# --- show -----------------------------------------------------------------------------------

SHOW_EXAMPLES = """\
examples:
  flitsim run configs/dragonfly-1k.toml -o run.h5 && flitsim show run.h5
  flitsim show sweep.h5 --json
"""


def _add_show(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "show", formatter_class=_Formatter, epilog=SHOW_EXAMPLES,
        help="summarise a results or sweep file",
        description="Print what a file written by `flitsim run -o` or `flitsim sweep -o` holds:\n"
                    "when and by which version it was written, the experiment (topology,\n"
                    "routing, traffic), the swept keys and progress of a sweep, and one line\n"
                    "per replica or point.")
    p.add_argument("result", metavar="FILE.h5", help="results or sweep file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_show)


def _points_table(keys: list[str], rows: list[dict]) -> str:
    cols = list(keys) + ["offered", "accepted", "latency_mean", "latency_p99", "saturated"]
    cells = [[_fmt(row.get(c, "-")) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[j]) for r in cells)) if cells else len(c)
              for j, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    from . import hdf5
    path = args.result
    attrs = hdf5.read_attrs(path)
    sweep = hdf5.is_sweep(path)
    if sweep:
        sw = hdf5.read_sweep(path)
        cfg, keys = sw["config"], list(sw["keys"])
        rows = [{**p, **r.summary()} if r is not None else dict(p)
                for p, r in zip(sw["points"], sw["results"])]
        done = sum(r is not None for r in sw["results"])
    else:
        results = hdf5.read_results(path)
        cfg, keys = hdf5.read_config(path), ["load", "seed"]
        rows = [r.summary() | {"load": r.load, "seed": r.seed} for r in results]
        done = len(rows)
    if args.json:
        _print_json(dict(kind="sweep" if sweep else "results", attrs=attrs, config=cfg,
                         keys=keys, done=done, total=len(rows), points=rows))
        return EXIT_OK
    topo = cfg.get("topology", {})
    shape = ", ".join(f"{k}={_fmt(v)}" for k, v in topo.items() if k != "kind")
    head = [
        ("file", f"{path} ({'sweep' if sweep else 'results'}, schema "
                 f"{attrs.get('schema_version', '-')}, flitsim {attrs.get('flitsim_version', '-')}, "
                 f"written {attrs.get('created', '-')})"),
        ("topology", f"{topo.get('kind', '-')} ({shape})"),
        ("routing", _fmt(cfg.get("routing", {}))),
    ]
    if "workload" in cfg:
        head.append(("workload", f"{len(cfg['workload'].get('jobs', []))} job(s)"))
    else:
        head.append(("traffic", _fmt(cfg.get("traffic", {}))))
    sim = cfg.get("sim", {})
    head.append(("sim", f"warmup {sim.get('warmup', '-')}, measure {sim.get('measure', '-')}"))
    if sweep:
        head.append(("swept", ", ".join(keys) or "-"))
    head.append(("points" if sweep else "replicas", f"{done}/{len(rows)} finished"))
    print(_table(head))
    print(_points_table(keys, rows))
    return EXIT_OK


# --- reproduce ------------------------------------------------------------------------------

REPRODUCE_EXAMPLES = """\
examples:
  flitsim reproduce --list
  flitsim reproduce dragonfly-valiant                 quick sizes, minutes on 2 cores
  flitsim reproduce hyperx-dimwar --full -o results/  the paper's sizes (hours on a CPU)

Each study starts from configs/papers/NAME.toml (the experiment: router, traffic or
workload, routing, sweep) and writes NAME.md (a markdown table) and NAME.png (a figure) into
the output directory. The papers are cited in full in docs/reproductions.md.
"""


def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce", formatter_class=_Formatter, epilog=REPRODUCE_EXAMPLES,
        help="regenerate one of the five papers' figures and tables",
        description="Run one of the papers' studies (see --list) and write its table and figure.")
    p.add_argument("study", nargs="?", metavar="STUDY", help="study name (see --list)")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--full", action="store_true",
                   help="the papers' sizes instead of the quick ones (much longer)")
    p.add_argument("-o", "--output", default="reproductions", metavar="DIR",
                   help="directory for NAME.md and the figure (default ./reproductions)")
    _add_engine_args(p)
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    studies = importlib.import_module("flitsim.studies")
    if args.list or not args.study:
        for st in studies.STUDIES.values():
            print(f"{st.name:18} {st.paper}\n{'':18} {st.what}\n{'':18} quick: {st.quick}; "
                  f"full: {st.full}")
        return EXIT_OK if args.list else EXIT_USAGE
    res = studies.reproduce(args.study, args.output, quick=not args.full,
                            backend=None if args.backend == "auto" else args.backend,
                            threads=args.threads, progress=not args.quiet)
    print(res.table)
    print(f"table written to {args.output}/{args.study}.md; figure: {res.figure}")
    return EXIT_OK


# --- main -----------------------------------------------------------------------------------

# --- check-deadlock --------------------------------------------------------------------------

CHECK_DEADLOCK_EXAMPLES = """\
examples:
  flitsim check-deadlock configs/dragonfly-1k.toml --set routing.algorithm=valiant
  flitsim check-deadlock configs/hyperx-4x4x4.toml --set routing.algorithm=dimwar --json
  flitsim check-deadlock configs/dragonfly-1k.toml --set routing.deadlock_avoidance=false   # a cycle
"""


def _add_check_deadlock(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check-deadlock", formatter_class=_Formatter, epilog=CHECK_DEADLOCK_EXAMPLES,
        help="check the routing's VC scheme for cyclic channel dependencies",
        description="Build the channel dependency graph of the configured routing and its\n"
                    "deadlock-avoidance VC classes on the topology, from every route choice the\n"
                    "routing can make, and report it acyclic or print one cycle. Exit status 0\n"
                    "when acyclic, 1 when a cycle exists. Meant for up to a few hundred routers.")
    _add_config_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_check_deadlock)


def cmd_check_deadlock(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    report = importlib.import_module("flitsim.deadlock").check_deadlock(
        cfg, progress=not args.quiet and not args.json)
    if args.json:
        _print_json({"acyclic": report.acyclic, "algorithm": report.algorithm, "classes": report.classes,
                     "vcs": report.vcs, "nodes": report.nodes, "edges": report.edges,
                     "cycle": [list(c) for c in report.cycle]})
    else:
        print(report.summary())
    return EXIT_OK if report.acyclic else EXIT_FAILURE


SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    _add_run, _add_info, _add_config, _add_saturate, _add_sweep, _add_plot, _add_show,
    _add_check_deadlock, _add_reproduce)

MAIN_EXAMPLES = """\
examples:
  flitsim info configs/dragonfly-1k.toml            topology size, diameter, cost
  flitsim config configs/dragonfly-1k.toml          the configuration with every default
  flitsim run configs/dragonfly-1k.toml --set traffic.load=0.3
  flitsim run configs/dragonfly-1k.toml --json -o df.h5   JSON summary plus HDF5 results
  flitsim show df.h5                                what a results or sweep file holds
  flitsim reproduce --list                          the papers' experiments, one command each
  flitsim run --help                                options of one subcommand

exit status: 0 success, 2 bad configuration or usage, 1 failure during the run
(e.g. deadlock detected by the watchdog)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flitsim", formatter_class=_Formatter, epilog=MAIN_EXAMPLES,
        description="flitsim: cycle-level simulation of HPC and datacenter interconnection\n"
                    "networks on GPUs and CPUs (configuration keys: docs/configuration.md).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def _error(msg: Any) -> None:
    print(f"flitsim: error: {msg}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2): return it, do not exit
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        return args.func(args)
    except ValueError as e:  # ConfigError, and the C++ builders' checks of topology keys
        _error(e)
        return EXIT_USAGE
    except ImportError as e:  # the compiled engine or a module it needs is missing
        _error(f"flitsim is not fully installed ({e}); build it with `pip install .`")
        return EXIT_FAILURE
    except (RuntimeError, OSError) as e:  # deadlock, broken invariant, unwritable output
        _error(e)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
