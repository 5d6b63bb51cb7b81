"""CPU speed on one thread, on all cores and with the default (measured) thread count, side by
side in one run: the check of issue 11's "two threads never slower than one" on a busy and on
an idle machine. Each measurement is its own process (benchmarks/run_build.py); the counts
alternate, --repeats times; the median cycles/s of each is reported with the load average.

    python benchmarks/thread_counts.py --sizes 4 --loads 0.1 0.5 --cycles 6000 --repeats 5
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

from compare_builds import dragonfly_nodes, measure

COUNTS = {"1": 1, "all": os.cpu_count() or 1, "auto": 0}  # 0: the executor's tuner chooses


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[4], help="dragonfly p (a = 2p, h = p)")
    ap.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5])
    ap.add_argument("--cycles", type=int, nargs="+", default=None, help="cycles per size (default 48000 / p^2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--build", default="current",
                    help="folder with the flitsim package to measure (as compare_builds.py; default: the installed one)")
    args = ap.parse_args(argv)
    print(f"| nodes | load | 1 thread | {COUNTS['all']} threads | auto | auto / best fixed | load average |")
    print("|---|---|---|---|---|---|---|")
    for i, p in enumerate(args.sizes):
        cycles = args.cycles[i] if args.cycles else max(300, 48000 // (p * p))
        for load in args.loads:
            runs = {k: [] for k in COUNTS}
            loadavg = []
            for r in range(args.repeats):
                for name, threads in COUNTS.items():
                    print(f"  p={p} load={load} threads={name} repeat {r + 1}/{args.repeats}", file=sys.stderr)
                    loadavg.append(os.getloadavg()[0])
                    runs[name].append(measure(args.build, p, load, threads, cycles)["cycles_per_s"])
            med = {k: statistics.median(v) for k, v in runs.items()}
            best = max(med["1"], med["all"])
            nodes = dragonfly_nodes(p)
            print(f"| {nodes:,} | {load} | {med['1']:,.0f} | {med['all']:,.0f} | {med['auto']:,.0f} | "
                  f"{med['auto'] / best:.2f} | {min(loadavg):.1f}–{max(loadavg):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
