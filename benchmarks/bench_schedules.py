"""Speed of every CUDA schedule (and the CPU backend) over the issue's benchmark matrix.

Networks: dragonfly 1,056 and 16,512 nodes, HyperX 8x8x8 with 8 terminals, a 3-level fat
tree (16-ary 3-tree, 4,096 nodes), Slim Fly q=13 (p=9). Loads 0.1, 0.5 and 1.0 (offered above
saturation: the network runs saturated). 1 and 32 replicas. Uniform traffic, minimal routing,
4-flit packets. Each point first runs a short calibration and then enough cycles to take about
--seconds of wall time (capped), so the whole matrix fits a time budget; it stops starting new
points when --budget seconds are spent and says which were skipped.

Writes one JSON line per point (backend, schedule, network, load, replicas, cycles, wall
seconds, cycles/s, router-cycles/s, accepted) to --out and a markdown table to --table.

    python benchmarks/bench_schedules.py --out bench.jsonl --table bench.md
    python benchmarks/bench_schedules.py --backends cpu --networks df1k --loads 0.5 --reps 1
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import flitsim

NETWORKS = {
    "df1k": {"kind": "dragonfly", "p": 4, "a": 8, "h": 4},
    "df16k": {"kind": "dragonfly", "p": 8, "a": 16, "h": 8},
    "hx8x8x8": {"kind": "hyperx", "widths": [8, 8, 8], "terminals": 8},
    "fattree3": {"kind": "fattree", "k": 16, "n": 3},
    "slimfly13": {"kind": "slimfly", "q": 13, "p": 9},
}
SCHEDULES = ("router", "block", "graph", "persistent")


def config(topology: dict, load: float, cycles: int) -> dict:
    return {"topology": dict(topology), "router": {"vcs": 4, "buffer": 32, "latency": 2},
            "traffic": {"pattern": "uniform", "load": load, "packet_size": 4},
            "sim": {"warmup": cycles // 4, "measure": cycles - cycles // 4, "seed": 1, "drain_limit": 1,
                    "batches": 1, "latency_bins": 1024}}


def measure(topology, load, reps, backend, schedule, cycles, threads):
    cfg = config(topology, load, cycles)
    if schedule:
        cfg["sim"]["schedule"] = schedule
    res = flitsim.run_replicas(cfg, [load] * reps, seeds=list(range(1, reps + 1)), backend=backend,
                               threads=threads)
    r = res[0]
    return r.cycles, r.wall_seconds, r.routers, sum(x.accepted for x in res) / reps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", nargs="+", default=None, help="default: cuda if usable, else cpu")
    ap.add_argument("--schedules", nargs="+", default=list(SCHEDULES))
    ap.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=list(NETWORKS))
    ap.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    ap.add_argument("--reps", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0 = all)")
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time to aim at per point")
    ap.add_argument("--max-cycles", type=int, default=200000)
    ap.add_argument("--budget", type=float, default=900.0, help="stop starting points after this many seconds")
    ap.add_argument("--out", default="bench_schedules.jsonl")
    ap.add_argument("--table", default="bench_schedules.md")
    args = ap.parse_args(argv)
    backends = args.backends or flitsim.available_backends()[:1]
    points = [(b, s if b == "cuda" else "", n, l, k) for b in backends
              for s in (args.schedules if b == "cuda" else [""]) for n in args.networks
              for l in args.loads for k in args.reps]
    start, rows, skipped = time.monotonic(), [], []
    with open(args.out, "a") as out:
        for i, (backend, schedule, net, load, reps) in enumerate(points):
            spent = time.monotonic() - start
            if spent > args.budget:
                skipped.append((backend, schedule, net, load, reps))
                continue
            eta = spent / i * (len(points) - i) if i else float("nan")
            print(f"[{i + 1}/{len(points)}] {backend} {schedule or '-'} {net} load {load} x{reps} "
                  f"(elapsed {spent:.0f} s, ETA {eta:.0f} s)", file=sys.stderr, flush=True)
            try:
                c0, w0, _, _ = measure(NETWORKS[net], load, reps, backend, schedule, 64, args.threads)
                cycles = int(min(args.max_cycles, max(128, args.seconds * c0 / max(w0, 1e-6))))
                c, w, routers, acc = measure(NETWORKS[net], load, reps, backend, schedule, cycles, args.threads)
            except Exception as e:  # a schedule that fails is a result too: record it, go on
                row = {"backend": backend, "schedule": schedule, "network": net, "load": load,
                       "replicas": reps, "error": f"{type(e).__name__}: {e}"[:500]}
            else:
                row = {"backend": backend, "schedule": schedule, "network": net, "load": load,
                       "replicas": reps, "routers": routers, "cycles": c, "wall_seconds": round(w, 4),
                       "cycles_per_s": round(c / w, 1), "router_cycles_per_s": round(c * routers * reps / w),
                       "accepted": round(acc, 4)}
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
    with open(args.table, "w") as t:
        t.write("| backend | schedule | network | load | replicas | cycles/s | router-cycles/s | accepted |\n")
        t.write("|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "error" in r:
                t.write(f"| {r['backend']} | {r['schedule']} | {r['network']} | {r['load']} | {r['replicas']} "
                        f"| error: {r['error'][:80]} | | |\n")
            else:
                t.write(f"| {r['backend']} | {r['schedule'] or '-'} | {r['network']} | {r['load']} | {r['replicas']} "
                        f"| {r['cycles_per_s']:,.0f} | {r['router_cycles_per_s']:,.0f} | {r['accepted']} |\n")
        for s in skipped:
            t.write(f"| {s[0]} | {s[1]} | {s[2]} | {s[3]} | {s[4]} | skipped (budget) | | |\n")
    print(open(args.table).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
