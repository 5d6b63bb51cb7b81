"""Speed of every CUDA schedule (and the CPU backend) over the issue's benchmark matrix.

Networks: dragonfly 1,056 and 16,512 nodes, HyperX 8x8x8 with 8 terminals, a 3-level fat
tree (16-ary 3-tree, 4,096 nodes), Slim Fly q=13 (p=9), and with --networks hx1m the
917,504-node HyperX 8^5 with 28 terminals (issue 10's million-node goal; DOR, 9 GB of state).
Loads 0.1, 0.5 and 1.0 (offered above saturation: the network runs saturated). 1 and 32
replicas. Uniform traffic, minimal routing, 4-flit packets.

Points run most-informative first (--order coverage): load 0.5 with one replica on every
network and schedule (the 16,512-node dragonfly first: issue 10's headline goal), then 32
replicas, then the other loads; --order matrix runs them backend, schedule, network, load,
replicas. Each point first runs 64 cycles to calibrate, then enough cycles for about
--seconds of simulation (capped), or runs --cycles cycles once; no point starts once --budget
seconds are spent, and the table says which were skipped. Points whose state would exceed
--max-state-gb are skipped before any allocation.

Each JSON line (--out) and table row (--table): backend, schedule, network, load, replicas,
cycles, wall seconds, cycles/s, router-cycles/s, replicas x cycles/s, accepted, and the byte
model's floor (benchmarks/byte_model.py) at --bandwidth-gbs for the measured accepted load and
hop count, with the fraction of it reached.

    python benchmarks/bench_schedules.py --out bench.jsonl --table bench.md
    python benchmarks/bench_schedules.py --backends cpu --networks df1k --loads 0.5 --reps 1
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import flitsim
from flitsim import _core

sys.path.insert(0, str(Path(__file__).resolve().parent))
from byte_model import floor_cycles_per_s  # noqa: E402 (the folder of this script)

NETWORKS = {
    "df16k": {"kind": "dragonfly", "p": 8, "a": 16, "h": 8},
    "df1k": {"kind": "dragonfly", "p": 4, "a": 8, "h": 4},
    "hx8x8x8": {"kind": "hyperx", "widths": [8, 8, 8], "terminals": 8},
    "fattree3": {"kind": "fattree", "k": 16, "n": 3},
    "slimfly13": {"kind": "slimfly", "q": 13, "p": 9},
    "hx1m": {"kind": "hyperx", "widths": [8, 8, 8, 8, 8], "terminals": 28},
}
DEFAULT_NETWORKS = ["df16k", "df1k", "hx8x8x8", "fattree3", "slimfly13"]
ROUTING = {"hx1m": {"algorithm": "dor"}}  # MIN on a 5-D HyperX needs 5 VCs; DOR needs one class
SCHEDULES = ("router", "block", "graph", "persistent")
PACKET_SIZE = 4


def config(net: str, load: float, cycles: int, schedule: str = "") -> dict:
    cfg = {"topology": dict(NETWORKS[net]), "router": {"vcs": 4, "buffer": 32, "latency": 2},
           "traffic": {"pattern": "uniform", "load": load, "packet_size": PACKET_SIZE},
           "sim": {"warmup": cycles // 4, "measure": cycles - cycles // 4, "seed": 1, "drain_limit": 1,
                   "batches": 1, "latency_bins": 1024}}
    if net in ROUTING:
        cfg["routing"] = dict(ROUTING[net])
    if schedule:
        cfg["sim"]["schedule"] = schedule
    return cfg


def measure(net, load, reps, backend, schedule, cycles, threads):
    res = flitsim.run_replicas(config(net, load, cycles, schedule), [load] * reps, seeds=list(range(1, reps + 1)),
                               backend=backend, threads=threads)
    hops = sum(x.summary()["hops_mean"] for x in res) / reps
    return res[0].cycles, res[0].wall_seconds, res[0].routers, sum(x.accepted for x in res) / reps, hops


def ordered_points(backends, schedules, networks, loads, reps, order):
    points = [(b, s if b == "cuda" else "", n, l, k) for b in backends
              for s in (schedules if b == "cuda" else [""]) for n in networks for l in loads for k in reps]
    if order == "coverage":  # load 0.5 first, then fewest replicas, then the networks as listed
        rank = {l: i for i, l in enumerate(sorted(loads, key=lambda l: (l != 0.5, l)))}
        points.sort(key=lambda p: (rank[p[3]], p[4], networks.index(p[2]), backends.index(p[0])))
    return points


def state_gb(net: str, reps: int) -> float:
    return _core.state_estimate(config(net, 0.5, 64), reps)["bytes"] / 1e9


def ports_nodes(net: str) -> tuple[int, int]:
    topo = _core.build_topology(NETWORKS[net])
    return len(topo["port_router"]), topo["num_nodes"]


def bench_point(args, backend, schedule, net, load, reps) -> dict:
    row = {"backend": backend, "schedule": schedule, "network": net, "load": load, "replicas": reps}
    gb = state_gb(net, reps)
    if gb > args.max_state_gb:
        return {**row, "skipped": f"state {gb:.1f} GB > --max-state-gb {args.max_state_gb:g}"}
    try:
        cycles = args.cycles
        if not cycles:  # calibrate: a set-up costs as much as the run for the largest networks
            c0, w0, *_ = measure(net, load, reps, backend, schedule, 64, args.threads)
            cycles = int(min(args.max_cycles, max(128, args.seconds * c0 / max(w0, 1e-6))))
        c, w, routers, acc, hops = measure(net, load, reps, backend, schedule, cycles, args.threads)
    except Exception as e:  # a schedule that fails is a result too: record it, go on
        return {**row, "error": f"{type(e).__name__}: {e}"[:500]}
    ports, nodes = ports_nodes(net)
    floor = floor_cycles_per_s(ports, nodes, acc, hops, PACKET_SIZE, args.bandwidth_gbs)
    return {**row, "routers": routers, "state_gb": round(gb, 3), "cycles": c, "wall_seconds": round(w, 4),
            "cycles_per_s": round(c / w, 1), "router_cycles_per_s": round(c * routers * reps / w),
            "replica_cycles_per_s": round(c * reps / w, 1), "accepted": round(acc, 4), "hops_mean": round(hops, 3),
            "floor_cycles_per_s": round(floor), "floor_fraction": float(f"{c * reps / w / floor:.4g}"),
            "bandwidth_gbs": args.bandwidth_gbs}


def table(rows) -> str:
    lines = ["| backend | schedule | network | load | replicas | cycles/s | router-cycles/s | replicas x cycles/s "
             "| accepted | floor cycles/s | of floor |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        head = f"| {r['backend']} | {r['schedule'] or '-'} | {r['network']} | {r['load']} | {r['replicas']} "
        if "cycles_per_s" in r:
            lines.append(head + f"| {r['cycles_per_s']:,.0f} | {r['router_cycles_per_s']:,.0f} "
                         f"| {r['replica_cycles_per_s']:,.0f} | {r['accepted']} | {r['floor_cycles_per_s']:,.0f} "
                         f"| {100 * r['floor_fraction']:.3g} % |")
        else:
            why = r.get("error") or r.get("skipped")
            lines.append(head + f"| {'error' if 'error' in r else 'skipped'}: {why[:90]} | | | | | |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", nargs="+", default=None, help="default: cuda if usable, else cpu")
    ap.add_argument("--schedules", nargs="+", default=list(SCHEDULES))
    ap.add_argument("--networks", nargs="+", default=DEFAULT_NETWORKS, choices=list(NETWORKS))
    ap.add_argument("--loads", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    ap.add_argument("--reps", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--order", choices=("coverage", "matrix"), default="coverage")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0 = all)")
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time to aim at per point")
    ap.add_argument("--max-cycles", type=int, default=200000)
    ap.add_argument("--cycles", type=int, default=0, help="cycles per point, no calibration run (0: calibrate)")
    ap.add_argument("--max-state-gb", type=float, default=24.0, help="skip points whose state is larger")
    ap.add_argument("--bandwidth-gbs", type=float, default=3350.0,
                    help="memory bandwidth for the byte floor (H100 SXM datasheet; gpu_session.sh measures it)")
    ap.add_argument("--budget", type=float, default=900.0, help="stop starting points after this many seconds")
    ap.add_argument("--out", default="bench_schedules.jsonl")
    ap.add_argument("--table", default="bench_schedules.md")
    ap.add_argument("--table-from", metavar="JSONL", help="only write --table from the rows of a JSONL file")
    args = ap.parse_args(argv)
    if args.table_from:  # e.g. after a run was cut off by a time limit before writing its table
        rows = [json.loads(line) for line in Path(args.table_from).read_text().splitlines() if line.strip()]
        Path(args.table).write_text(table(rows))
        return 0
    backends = args.backends or flitsim.available_backends()[:1]
    points = ordered_points(backends, args.schedules, args.networks, args.loads, args.reps, args.order)
    start, rows = time.monotonic(), []
    with open(args.out, "a") as out:
        for i, (backend, schedule, net, load, reps) in enumerate(points):
            spent = time.monotonic() - start
            if spent > args.budget:
                row = {"backend": backend, "schedule": schedule, "network": net, "load": load, "replicas": reps,
                       "skipped": "budget"}
            else:
                eta = spent / i * (len(points) - i) if i else float("nan")
                print(f"[{i + 1}/{len(points)}] {backend} {schedule or '-'} {net} load {load} x{reps} "
                      f"(elapsed {spent:.0f} s, ETA {eta:.0f} s)", file=sys.stderr, flush=True)
                row = bench_point(args, backend, schedule, net, load, reps)
                out.write(json.dumps(row) + "\n")
                out.flush()
            rows.append(row)
    Path(args.table).write_text(table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
