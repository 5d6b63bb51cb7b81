"""The commands that run the engine: ``run``, ``saturate`` and ``sweep``."""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from typing import Any

from ..config import load_config
from .common import (REPLY_COLUMNS, EXIT_FAILURE, class_columns, EXIT_OK, EXIT_USAGE, _add_config_args, _add_engine_args, _error, _fmt,
                     _Formatter, _positive_float, _positive_int, _print_json, _table, _threads)

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
                   help="let -o replace an existing file that is not a flitsim results file")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto (default) uses the GPU when one is usable")
    p.add_argument("--threads", type=_threads, metavar="N",
                   help="CPU threads (default: measured while running, up to all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)


def _simulated(cfg: dict, r: Any) -> list[tuple[str, str]]:
    """What was simulated, so that a saved summary speaks for itself: network, routing and
    router, and the traffic (pattern and load) or the workload's jobs."""
    topo = cfg.get("topology", {})
    shape = ", ".join(f"{k}=[{_fmt(v)}]" if isinstance(v, (list, tuple)) else f"{k}={_fmt(v)}"
                      for k, v in topo.items() if k != "kind")
    router, routing = cfg.get("router", {}), cfg.get("routing", {})
    rows = [("network", f"{topo.get('kind', '-')} ({shape}): {r.nodes:,} nodes, "
                        f"{r.routers:,} routers"),
            ("routing", f"{routing.get('algorithm', '-')}, {router.get('vcs', '-')} VCs x "
                        f"{router.get('buffer', '-')} flits")]
    if "workload" in cfg:
        jobs = cfg["workload"].get("jobs", [])
        motifs = ", ".join(sorted({str(j.get("motif", j.get("file", "program"))) for j in jobs}))
        rows.append(("workload", f"{len(jobs)} job(s) ({motifs}), closed loop"))
    elif cfg.get("traffic", {}).get("class"):  # [[traffic.class]]: one line per class below
        rows.append(("traffic", f"{len(cfg['traffic']['class'])} traffic classes ([[traffic.class]]), "
                                f"{cfg['traffic'].get('injection', 'bernoulli')} sources"))
    else:
        tr = cfg.get("traffic", {})
        rows.append(("traffic", f"{tr.get('pattern', '-')}, load {_fmt(tr.get('load'))} "
                                f"flits/node/cycle, {tr.get('packet_size', '-')}-flit packets"
                                + (f", {tr['reply_size']}-flit replies" if tr.get("reply_size") else "")))
    return rows


def _run_summary(r: Any, cfg: dict | None = None) -> str:
    s = r.summary()
    rate = f"{s['cycles'] / s['wall_seconds']:,.0f}" if s["wall_seconds"] > 0 else "-"
    closed = getattr(r, "workload", None) is not None
    rows = _simulated(cfg, r) if cfg is not None else []
    if closed:  # the programs set the pace: no offered load, no saturation
        rows.append(("delivered rate", f"{_fmt(s['accepted'])} flits/node/cycle over the run"))
    else:
        rows += [("offered load", f"{_fmt(s['offered'])} flits/node/cycle"),
                 ("accepted load", f"{_fmt(s['accepted'])} flits/node/cycle")]
    rows += [
        ("packet latency", f"mean {_fmt(s['latency_mean'])}, p99 {_fmt(s['latency_p99'])} cycles"),
        ("network latency", f"mean {_fmt(s['network_latency_mean'])} cycles"),
        ("hops", f"mean {_fmt(s['hops_mean'])}"),
    ]
    if "round_trip_latency_mean" in s:  # request-reply (traffic.reply_size): per message class
        rows += [
            ("request latency", f"mean {_fmt(s['request_latency_mean'])}, p99 {_fmt(s['request_latency_p99'])} cycles"),
            ("reply latency", f"mean {_fmt(s['reply_latency_mean'])}, p99 {_fmt(s['reply_latency_p99'])} cycles"),
            ("round-trip latency",
             f"mean {_fmt(s['round_trip_latency_mean'])}, p99 {_fmt(s['round_trip_latency_p99'])} cycles"),
            ("accepted by class", f"requests {_fmt(s['accepted_request'])}, replies {_fmt(s['accepted_reply'])} "
                                  "flits/node/cycle"),
        ]
    for c in s.get("classes") or []:  # traffic classes ([[traffic.class]]): the totals' lines per class
        rows.append((f"class {c['index']} (priority {c['priority']})",
                     f"offered {_fmt(c['offered'])}, accepted {_fmt(c['accepted'])} flits/node/cycle; latency mean "
                     f"{_fmt(c['latency_mean'])}, p99 {_fmt(c['latency_p99'])} cycles"))
    if not closed:
        rows.append(("saturated", _fmt(bool(s["saturated"]))))
    rows += [
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
        from .. import _core
        slots = int(_core.state_layout(cfg, 1)["packet_slots"])
    except Exception:  # noqa: BLE001 - the warning must not fail the run
        slots = int(cfg.get("sim", {}).get("packet_slots", 0))
    chosen = "chosen automatically" if not cfg.get("sim", {}).get("packet_slots") else "set"
    if "workload" in cfg:   # closed loop: no window, no saturation; the programs waited
        return (f"warning: sources waited {stalls} cycles for a free packet slot "
                f"(sim.packet_slots = {slots} per node, {chosen}); the jobs' times depend on "
                f"it: rerun with --set sim.packet_slots={2 * slots if slots else 1024}")
    return (f"warning: sources waited {stalls} cycles in the window for a free packet slot "
            f"(sim.packet_slots = {slots} per node, {chosen}); results near saturation depend "
            f"on it: rerun with --set sim.packet_slots={2 * slots if slots else 1024}")


def cmd_run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    from ..outputs import check_output
    if args.output:  # before simulating, not after: the whole path, and room for the file
        from ..hdf5 import estimate_bytes
        check_output(args.output, force=args.force, kind="results",
                     expected_bytes=2 * estimate_bytes(cfg, 1))
    engine = importlib.import_module("flitsim.engine")  # lazy: needs the compiled module
    # With --json, stdout carries the JSON object only: Python-level chatter goes to stderr.
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        result = engine.run(cfg, backend=None if args.backend == "auto" else args.backend,
                            progress=not args.quiet and not args.json, threads=args.threads)
    lost = _write_run_output(args, result, cfg) if args.output else None
    workload = getattr(result, "workload", None)
    if args.json:
        summary = result.summary()
        if workload is not None:
            summary["jobs"] = workload.jobs_table()
        _print_json(summary)
    else:
        print(_run_summary(result, cfg))
        if workload is not None:
            print(_workload_table(result))
        if args.backend == "auto" and result.backend == "cpu":
            print(f"                 (auto: {engine.backend_status()})")
        if result.slot_stalls:
            print(_slot_warning(cfg, result.slot_stalls), file=sys.stderr)
        if args.output and lost is None:
            print(f"results written to {args.output}")
    if lost is not None:  # the summary above is printed; the file went elsewhere, or nowhere
        _error(lost)
        return EXIT_FAILURE
    return EXIT_OK


def _write_run_output(args: argparse.Namespace, result: Any, cfg: dict) -> Exception | None:
    """Write -o after the run; a failure (the path changed meanwhile, disk full, I/O error)
    writes a fallback file instead and is returned, never raised: the result is not lost."""
    from ..hdf5 import write_results
    from ..outputs import OutputLost, check_output, remove_stale_temporaries, write_or_rescue

    def write(path: str) -> None:
        if path == args.output:
            # again: a sweep may have started on it, or the folder changed since the start
            check_output(path, force=args.force, kind="results")
            remove_stale_temporaries(path)  # left by a writer that was killed
        write_results(path, [result], cfg)
    try:
        write_or_rescue(write, args.output)
    except OutputLost as e:
        return e
    return None


# --- saturate -------------------------------------------------------------------------------

SATURATE_EXAMPLES = """\
examples:
  flitsim saturate configs/dragonfly-1k.toml
  flitsim saturate configs/dragonfly-1k.toml --set routing.algorithm=ugal --probes 16 --tolerance 0.01
  flitsim saturate configs/dragonfly-1k.toml --json | jq .throughput
"""


def _add_saturate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "saturate", formatter_class=_Formatter, epilog=SATURATE_EXAMPLES,
        help="find the highest offered load the network sustains",
        description="Search the saturation load over batched replicas: each engine run\n"
                    "simulates --probes loads inside the current bracket, aimed at the knee\n"
                    "the plateau predicts, until the bracket is narrower than --tolerance\n"
                    "(docs/experiments.md). Prints first the throughput\n"
                    "(the plateau: the highest accepted rate of any probe), then the offered-\n"
                    "load bracket. A load is sustained when its replica is not saturated:\n"
                    "every measured packet delivered within sim.drain_limit cycles and\n"
                    "accepted >= (1 - sim.saturation_tolerance) x offered (default 0.95 x).\n"
                    "traffic.load of the config is ignored.")
    _add_config_args(p)
    p.add_argument("--tolerance", type=_positive_float, default=0.005, metavar="X",
                   help="width of the final bracket, flits/node/cycle (default 0.005)")
    p.add_argument("--probes", type=_positive_int, default=None, metavar="K",
                   help="loads (replicas) per engine run (default: 8 on a GPU, 1 on the CPU, "
                        "where replicas of one run cost as much as runs of their own)")
    p.add_argument("--class", dest="traffic_class", type=int, default=None, metavar="K",
                   help="search the load of traffic class K ([[traffic.class]]) alone, the other classes "
                        "at their own loads; sustained: the class accepts >= (1 - sim.saturation_tolerance) "
                        "x what it offers (docs/traffic.md)")
    _add_engine_args(p)
    p.set_defaults(func=cmd_saturate)


def cmd_saturate(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    saturate = importlib.import_module("flitsim.saturate")
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        res = saturate.saturate(cfg, tolerance=args.tolerance, probes=args.probes,
                                backend=None if args.backend == "auto" else args.backend,
                                progress=not args.quiet and not args.json, threads=args.threads,
                                traffic_class=args.traffic_class)
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
run as replicas of one engine run. traffic.load=saturation*0.1:1.1:0.1 (or
saturation*0.5,0.9,1) sweeps fractions of each combination's own saturation load, found by
a saturation search first: latency curves up to and through every knee.

clusters (Dask, one engine run per task; needs pip install 'flitsim[cluster]'):
  flitsim sweep configs/dragonfly-1k.toml -o s.h5 --over traffic.load=0.1:0.9:0.1 \\
      --cluster local --cluster-workers 4
  flitsim sweep CONFIG -o s.h5 --cluster tcp://head-node:8786     a running scheduler
  flitsim sweep CONFIG -o s.h5 --cluster slurm --cluster-workers 8 \\
      --slurm-option cores=32 --slurm-option memory=64GB --slurm-option walltime=02:00:00 \\
      --slurm-option queue=normal --slurm-option account=proj123 \\
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
                   help="let -o replace an existing file that is not a flitsim sweep file")
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
    cols += [c for c in REPLY_COLUMNS if any(c in row for row in res.rows())]  # request-reply runs
    points = res.rows()
    cols += class_columns(points)  # traffic classes: accepted and mean latency per class
    rows = [[_fmt(row.get(c, "-")) for c in cols] for row in points]
    widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(v.rjust(w) for v, w in zip(r, widths)))
    print(f"{len(res.points)} points, {res.engine_runs} engine runs, {res.resumed} resumed, "
          f"{res.wall_seconds:.2f} s" + (f"; written to {res.output}" if res.output else ""))
    return EXIT_OK
