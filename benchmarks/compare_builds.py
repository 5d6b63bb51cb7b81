"""CPU speed of two builds of flitsim side by side, in one run (the machine is shared and
noisy: only ratios taken in one run mean anything).

A build is a folder holding a `flitsim` package with its compiled `_core` (e.g. a copy of
src/flitsim plus the .so of an older commit), or "current" for the installed one. Each
measurement runs in its own process; the builds alternate, --repeats times, and the median
cycles/s of each is reported with the ratio, and so is the best.

    python benchmarks/compare_builds.py --baseline /path/to/old-build --sizes 4 8 --loads 0.1 0.5
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

CHILD = str(pathlib.Path(__file__).with_name("run_build.py"))  # one run of either build


def dragonfly_nodes(p):
    """Nodes of the balanced dragonfly run_build.py simulates: p per router, a = 2p, h = p."""
    return p * 2 * p * (2 * p * p + 1)


def measure(build, p, load, threads, cycles):
    out = subprocess.run([sys.executable, CHILD, build, str(p), str(load), str(threads), str(cycles)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, help="folder with the other build's flitsim package")
    ap.add_argument("--build", default="current",
                    help="folder with the build to measure (default: the installed one; a copied folder "
                         "keeps a benchmark from rebuilding an editable install mid-run)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[4, 8], help="dragonfly p (a = 2p, h = p)")
    ap.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--cycles", type=int, nargs="+", default=None, help="cycles per size (default 3000 / p^2 * 16)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    # Median and best of the repeats: on a shared machine a run is only ever slowed down by
    # other work, so the best run is the closer estimate of each build's own speed.
    print("| nodes | load | threads | baseline cycles/s (median / best) | current cycles/s (median / best) "
          "| current / baseline (median / best) |")
    print("|---|---|---|---|---|---|")
    for i, p in enumerate(args.sizes):
        cycles = args.cycles[i] if args.cycles else max(300, 48000 // (p * p))
        for load in args.loads:
            for threads in args.threads:
                runs = {"baseline": [], "current": []}
                for k in range(args.repeats):
                    print(f"  p={p} load={load} threads={threads} repeat {k + 1}/{args.repeats}", file=sys.stderr)
                    runs["baseline"].append(measure(args.baseline, p, load, threads, cycles)["cycles_per_s"])
                    runs["current"].append(measure(args.build, p, load, threads, cycles)["cycles_per_s"])
                b, c = statistics.median(runs["baseline"]), statistics.median(runs["current"])
                bb, cb = max(runs["baseline"]), max(runs["current"])
                nodes = dragonfly_nodes(p)
                print(f"| {nodes:,} | {load} | {threads} | {b:,.0f} / {bb:,.0f} | {c:,.0f} / {cb:,.0f} "
                      f"| {c / b:.2f} / {cb / bb:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
