"""What the saturation search costs: plain bisection in batches of 8 (the search before
session 18) against today's default (guided by the plateau; on the CPU one probe per run),
on the same configs in one run.

Cost is counted in replica-cycles (cycles simulated summed over every replica of every engine
run: free of this shared machine's speed), in CPU seconds of this process (user + system; the
wall time of a one-thread run on an idle core) and in wall seconds. Both searches must give
the same answer: saturation loads at most the tolerance apart (the knee itself is that noisy:
a load a few thousandths below it may come out saturated and one above it sustained).

    python benchmarks/saturate_cost.py configs/dragonfly-1k.toml --threads 1
    python benchmarks/saturate_cost.py CONFIG ... --set sim.seed=2 --json out.json
"""
from __future__ import annotations

import argparse
import json
import resource
import sys

import flitsim
from flitsim.config import load_config


SEARCHES = {"bisection x 8": dict(probes=8, guided=False), "default": dict()}


def cpu_seconds() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def measure(path: str, overrides: list[str], threads: int | None, search: str) -> dict:
    cfg = load_config(path, overrides)
    before = cpu_seconds()
    res = flitsim.saturate(cfg, backend="cpu", threads=threads, progress=False, **SEARCHES[search])
    return dict(config=path, overrides=overrides, search=search, saturation=res.saturation,
                upper=res.upper, throughput=res.throughput, engine_runs=res.engine_runs,
                replicas_per_run=res.replicas_per_run, replica_cycles=res.replica_cycles,
                cpu_seconds=round(cpu_seconds() - before, 2), wall_seconds=round(res.wall_seconds, 2))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args(argv)
    rows = []
    print("| config | search | bracket | throughput | runs x probes | replica-cycles | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.configs:
        pair = [measure(path, args.overrides, args.threads, s) for s in SEARCHES]
        for r in pair:
            print(f"| {path} | {r['search']} | [{r['saturation']:.4f}, {r['upper']:.4f}] | "
                  f"{r['throughput']:.4f} | {r['engine_runs']} x {r['replicas_per_run']} | "
                  f"{r['replica_cycles']:,} | {r['cpu_seconds']} | {r['wall_seconds']} |", flush=True)
        old, new = pair
        apart = abs(new["saturation"] - old["saturation"])
        verdict = "same answer" if apart <= 0.005 + 1e-12 else "DIFFERENT answer"
        print(f"|  | new / old | {verdict}: saturation {apart:.4f} apart |  |  | "
              f"{new['replica_cycles'] / old['replica_cycles']:.2f} | "
              f"{new['cpu_seconds'] / old['cpu_seconds']:.2f} | "
              f"{new['wall_seconds'] / old['wall_seconds']:.2f} |", flush=True)
        rows.extend(pair)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
