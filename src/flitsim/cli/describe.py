"""The commands that inspect without simulating: ``info``, ``config``, ``show`` and ``check-deadlock``."""
from __future__ import annotations

import argparse
import importlib
import sys

from ..config import load_config
from .common import (REPLY_COLUMNS, EXIT_FAILURE, class_columns, EXIT_OK, _add_config_args, _fmt, _Formatter, _print_json,
                     _table)

# --- info -----------------------------------------------------------------------------------

INFO_EXAMPLES = """\
examples:
  flitsim info configs/dragonfly-1k.toml
  flitsim info configs/dragonfly-1k.toml --set topology.p=8 --set topology.a=16 --set topology.h=8
  flitsim info configs/hyperx-4x4x4.toml --json
"""
INFO_ORDER = ("kind", "nodes", "routers", "links", "links_copper", "links_optical", "radix",
              "diameter", "avg_distance", "bisection_links", "balance", "bisection", "cost")


# The bisection estimate is a dense spectral partition: instant for hundreds of routers,
# seconds for a few thousand; above this many routers info leaves it out (and says so).
INFO_BISECTION_MAX_ROUTERS = 2000


def _add_info(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", formatter_class=_Formatter, epilog=INFO_EXAMPLES,
        help="describe the topology of a configuration without simulating",
        description="Build the topology of a configuration and print its size and structure:\n"
                    "nodes, routers, links by cable type, radix, diameter, average distance,\n"
                    "balance, cost and a bisection estimate (up to "
                    f"{INFO_BISECTION_MAX_ROUTERS:,} routers). The topology\n"
                    "is described whatever the rest of the configuration asks: a routing that\n"
                    "needs more VCs than router.vcs gives a warning here (run refuses it).")
    _add_config_args(p)
    p.set_defaults(func=cmd_info)


def _bisection(topology, cfg: dict, routers: int) -> dict | str:
    if routers > INFO_BISECTION_MAX_ROUTERS:
        return (f"not estimated ({routers:,} routers; info estimates it up to "
                f"{INFO_BISECTION_MAX_ROUTERS:,}: flitsim.topology.bisection(cfg) does any size)")
    return topology.bisection(cfg)


def cmd_info(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.overrides)
    topology = importlib.import_module("flitsim.topology")
    desc = dict(topology.describe(cfg))
    desc.setdefault("kind", cfg["topology"]["kind"])
    if "attrs" in desc:       # coded values (arrangement=0) by their configuration names
        desc["attrs"] = topology.named_attrs(desc["kind"], desc["attrs"])
    bis = _bisection(topology, cfg, int(desc["routers"]))
    mem = importlib.import_module("flitsim.memory")
    # The engine's state for this config: its layout also checks the router and routing keys
    # (router.vcs against what the routing needs). info describes the topology either way
    # and reports what a run would refuse as a warning.
    try:
        est, refused = mem.estimate(cfg), None
    except ValueError as e:
        est, refused = None, str(e)
    gpu = _gpu()
    if args.json:
        desc.update(bisection=bis, gpu=gpu, warnings=[refused] if refused else [])
        if est is not None:
            desc.update(state_bytes=est["bytes"], host_memory_available=est["host_available"])
        _print_json(desc)
        return EXIT_OK
    if isinstance(bis, dict):
        desc["bisection"] = (f"{bis['cut_links']:,} links cut, {_fmt(bis['per_node'])} per node "
                             f"(halves of {bis['nodes'][0]:,} and {bis['nodes'][1]:,} nodes; "
                             f"estimate: {bis['method']})")
    else:
        desc["bisection"] = bis
    if est is not None:
        avail = mem.human_bytes(est["host_available"]) if est["host_available"] else "unknown"
        desc["state memory"] = (f"{mem.human_bytes(est['bytes'])} per replica "
                                f"(host memory available: {avail})")
        desc["gpu"] = (f"{gpu['name']}: {mem.human_bytes(gpu['free_bytes'])} free of "
                       f"{mem.human_bytes(gpu['total_bytes'])}, room for "
                       f"{gpu['free_bytes'] // max(1, est['bytes'])} replicas" if gpu.get("name")
                       else f"none ({gpu['why_not']}); runs use the CPU backend")
    else:
        desc["state memory"] = "not estimated: a run would refuse this configuration (below)"
    keys = [k for k in INFO_ORDER if k in desc] + [k for k in desc if k not in INFO_ORDER]
    print(_table([(k, _fmt(desc[k])) for k in keys]))
    if refused:
        print(f"warning: `flitsim run` refuses this configuration as it stands: {refused}",
              file=sys.stderr)
    return EXIT_OK


def _gpu() -> dict:
    """The GPU a CUDA run would use: name and free/total memory, or why there is none."""
    core = importlib.import_module("flitsim._core")
    dev = core.cuda_device()
    if dev is not None:
        return {"name": dev[0], "free_bytes": dev[1], "total_bytes": dev[2]}
    why = core.cuda_usable()[1] if core.cuda_compiled() else "this build of flitsim has no CUDA backend"
    return {"why_not": why}


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
                    "engine sees it: every section, every key the run reads with its value\n"
                    "(router.preset and defaults resolved; keys the engine picks per routing\n"
                    "listed as comments). The output is itself a valid configuration file.")
    _add_config_args(p)
    p.set_defaults(func=cmd_config)


def cmd_config(args: argparse.Namespace) -> int:
    from ..config_keys import resolve, unset_keys
    cfg = load_config(args.config, args.overrides)
    full = resolve(cfg)
    if args.json:
        _print_json(full)
    else:
        from ..toml_writer import dumps
        sys.stdout.write(dumps(full))
        unset = unset_keys(cfg)
        if unset:
            sys.stdout.write("\n# Unset: the engine picks these per routing and topology\n")
            for k in unset:
                sys.stdout.write(f"# {k['section']}.{k['name']}: {k['doc']}\n")
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
    cols += [c for c in REPLY_COLUMNS if any(c in row for row in rows)]  # request-reply runs
    cols += class_columns(rows)  # traffic classes: accepted and mean latency per class
    cells = [[_fmt(row.get(c, "-")) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[j]) for r in cells)) if cells else len(c)
              for j, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    from .. import hdf5
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
        from ..plot.links import hottest
        _print_json(dict(kind="sweep" if sweep else "results", attrs=attrs, config=cfg,
                         keys=keys, done=done, total=len(rows), points=rows,
                         hottest=hottest(results[0], 5) if not sweep and results else []))
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
        traffic = dict(cfg.get("traffic", {}))
        classes = traffic.pop("class", None)
        if classes:  # [[traffic.class]]: one line per class (the [traffic] table's own keys first)
            head.append(("traffic", _fmt(traffic) + f"; {len(classes)} traffic classes:"))
            head.extend((f"  class {i}", _fmt(c)) for i, c in enumerate(classes))
        else:
            head.append(("traffic", _fmt(traffic)))
    sim = cfg.get("sim", {})
    head.append(("sim", f"warmup {sim.get('warmup', '-')}, measure {sim.get('measure', '-')}"))
    if sweep:
        head.append(("swept", ", ".join(keys) or "-"))
        for found in cfg.get("sweep", {}).get("saturation_loads", []):
            where = ", ".join(f"{k}={_fmt(v)}" for k, v in found["config"].items()) or "all points"
            head.append(("saturation", f"{found['saturation']:.4f} (bracket [{found['saturation']:.4f}, "
                                       f"{found['upper']:.4f}]) for {where}: loads are fractions of it"))
    head.append(("points" if sweep else "replicas", f"{done}/{len(rows)} finished"))
    print(_table(head))
    print(_points_table(keys, rows))
    if not sweep and results:
        print(_hottest_table(results[0]))
    return EXIT_OK


def _hottest_table(r) -> str:
    """The busiest router-to-router channels of a run's first replica."""
    from ..plot.links import hottest
    lines = ["hottest channels (replica 0; flits/cycle over the window; "
             "`flitsim plot FILE --links` draws them all):"]
    for h in hottest(r, 5):
        lines.append(f"  router {h['router']} port {h['port']} ({h['class']}) -> router "
                     f"{h['to_router']}: {h['utilisation']:.3f}")
    return "\n".join(lines)


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
                     "vcs": report.vcs, "message_classes": report.message_classes,
                     "nodes": report.nodes, "edges": report.edges,
                     "cycle": [list(c) for c in report.cycle]})
    else:
        print(report.summary())
    return EXIT_OK if report.acyclic else EXIT_FAILURE
