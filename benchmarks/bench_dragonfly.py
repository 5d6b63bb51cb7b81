"""Speed of the engine on balanced dragonflies (p = a/2 = h), per backend.

Reports simulated cycles per second and router-cycles per second (routers x cycles / wall
time of the engine run, warm-up and drain included) under uniform traffic with minimal
routing, 4-flit packets, at loads 0.1 and 0.5. Appends a JSON record per measurement to
benchmarks/results/<machine>-<date>.jsonl and prints a table.

    python benchmarks/bench_dragonfly.py                       # p = 2,3,4,6,8 on every backend
    python benchmarks/bench_dragonfly.py --sizes 2 4 --backends cpu --threads 1 2
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

import flitsim
from flitsim.engine import available_backends


def dragonfly(p: int, load: float, warmup: int, measure: int) -> dict:
    return {
        "topology": {"kind": "dragonfly", "p": p, "a": 2 * p, "h": p},
        "router": {"vcs": 4, "buffer": 32, "latency": 2},
        "traffic": {"pattern": "uniform", "load": load, "packet_size": 4},
        "sim": {"warmup": warmup, "measure": measure, "seed": 1},
    }


def machine() -> str:
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        gpu = []
    cpu = platform.processor() or platform.machine()
    return f"{socket.gethostname()} | {os.cpu_count()} cores {cpu} | GPU: {gpu[0] if gpu else 'none'}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2, 3, 4, 6, 8], help="dragonfly p values")
    ap.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5])
    ap.add_argument("--backends", nargs="+", default=None, help="default: every usable backend")
    ap.add_argument("--threads", type=int, nargs="+", default=[0], help="CPU threads (0 = all)")
    ap.add_argument("--cycles", type=int, default=0,
                    help="warm-up+window cycles (default: scaled so each run takes seconds)")
    ap.add_argument("--out", default=None, help="JSONL file (default benchmarks/results/<host>-<date>.jsonl)")
    args = ap.parse_args(argv)
    backends = args.backends or available_backends()
    today = dt.date.today().isoformat()
    out = Path(args.out or Path(__file__).parent / "results" / f"{socket.gethostname()}-{today}.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    command = " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:]))
    print(f"# {machine()}  {today}\n# {command}")
    print(f"{'backend':>7} {'thr':>3} {'p':>2} {'nodes':>6} {'routers':>7} {'load':>4} {'cycles':>7} "
          f"{'wall s':>7} {'cycles/s':>10} {'Mrouter-cyc/s':>13} {'accepted':>8}")
    for backend in backends:
        for threads in (args.threads if backend == "cpu" else [0]):
            for p in args.sizes:
                for load in args.loads:
                    routers = 2 * p * (2 * p * p + 1)
                    total = args.cycles or max(300, min(3000, int(3e6 / routers)))
                    cfg = dragonfly(p, load, warmup=total // 3, measure=total - total // 3)
                    r = flitsim.run(cfg, backend=backend, threads=threads or None)
                    rec = {
                        "date": today, "machine": machine(), "command": command, "backend": r.backend,
                        "threads": threads or os.cpu_count(), "p": p, "nodes": r.nodes, "routers": r.routers,
                        "load": load, "cycles": r.cycles, "wall_seconds": r.wall_seconds,
                        "cycles_per_s": r.cycles / r.wall_seconds,
                        "router_cycles_per_s": r.cycles * r.routers / r.wall_seconds,
                        "accepted": r.accepted, "latency_mean": r.latency_mean,
                    }
                    with out.open("a") as f:
                        f.write(json.dumps(rec) + "\n")
                    print(f"{r.backend:>7} {rec['threads']:>3} {p:>2} {r.nodes:>6} {r.routers:>7} {load:>4} "
                          f"{r.cycles:>7} {r.wall_seconds:>7.2f} {rec['cycles_per_s']:>10,.0f} "
                          f"{rec['router_cycles_per_s'] / 1e6:>13.2f} {r.accepted:>8.3f}", flush=True)
    print(f"# appended to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
