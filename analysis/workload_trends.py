"""Small reproductions of the papers' workload trends (docs/workloads.md, "Measured trends").

    PYTHONPATH=src python analysis/workload_trends.py exchange   # P3 Figs. 13/14 (D2-R8..R11)
    PYTHONPATH=src python analysis/workload_trends.py noise      # P1 Figs. 8-10 (NZ-R3)
    PYTHONPATH=src python analysis/workload_trends.py proxy      # P2 proxy apps, comm rate

Sizes are scaled down (80-200 nodes, shorter messages) so that each part runs in a few
minutes on one CPU core; the trends, not the absolute numbers, are what is compared.
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import flitsim  # noqa: E402
import flitsim.workload as wl  # noqa: E402

ROUTER = {"vcs": 4, "buffer": 32, "latency": 1}
TOPOLOGIES = {
    "MLFM h=4": {"kind": "mlfm", "h": 4},
    "OFT k=4": {"kind": "oft", "k": 4},
    "SF q=5": {"kind": "slimfly", "q": 5},
}


def base(topo: dict, algorithm: str) -> dict:
    return {"topology": dict(topo), "router": dict(ROUTER), "channels": {"latency": 1},
            "routing": {"algorithm": algorithm}, "sim": {"seed": 1}}


def exchange() -> None:
    """P3: effective throughput of one all-to-all (7.5 KB per pair, random destination
    order, 64 messages interleaved per interface) and of a 3-D nearest-neighbour exchange
    (32 KB per neighbour instead of 512 KB), MIN vs INR (Valiant), next to the uniform
    saturation throughput of each routing."""
    print(f"{'topology':10} {'routing':8} {'UR sat':>7} {'A2A eff':>8} {'A2A/sat':>8} {'NN eff':>7}")
    for name, topo in TOPOLOGIES.items():
        nodes = flitsim.topology.describe({"topology": topo})["nodes"]
        for alg in ("min", "valiant"):
            cfg = base(topo, alg)
            t = time.time()
            sat = flitsim.saturate(dict(cfg, traffic={"packet_size": 16}), backend="cpu").saturation
            a2a = flitsim.run(dict(cfg, workload={"packet_size": 16, "ni_queues": 64, "jobs": [
                {"motif": "alltoall", "ranks": nodes, "bytes": 7680, "order": "random"}]}),
                backend="cpu").workload.effective_throughput[0]
            nn = flitsim.run(dict(cfg, workload={"packet_size": 16, "ni_queues": 6, "jobs": [
                {"motif": "nn3d", "ranks": nodes, "bytes": 32768}]}),
                backend="cpu").workload.effective_throughput[0]
            print(f"{name:10} {alg:8} {sat:7.3f} {a2a:8.3f} {a2a / sat:8.2f} {nn:7.3f}"
                  f"   ({time.time() - t:.0f} s)", flush=True)


def noise(seeds: int = 16) -> None:
    """P1: slowdown T_perturbed / T_quiet of a binomial reduce (8 bytes) on a random share of
    an XGFT while the other nodes exchange 4 KB messages in random permutations (background),
    averaged over random communicator draws (one replica per seed)."""
    trees = {"16 (XGFT 4,4;1,4)": ([4, 4], [1, 4]), "64 (XGFT 8,8;1,8)": ([8, 8], [1, 8]),
             "144 (xgft(2,12,6))": ([12, 12], [1, 6])}
    print(f"{'nodes':20} {'ratio':>5} {'mean':>6} {'min':>6} {'max':>6} {'T_quiet':>8}")
    for name, (m, w) in trees.items():
        n = int(np.prod(m))
        for ratio in (0.25, 0.5, 0.75):
            cfg = {"topology": {"kind": "xgft", "m": m, "w": w},
                   "router": {"vcs": 2, "buffer": 16, "latency": 1}, "channels": {"latency": 2},
                   "workload": {"packet_size": 8, "jobs": [
                       {"motif": "reduce", "ranks": n - int(n * ratio), "bytes": 8,
                        "placement": "random", "start": 500},
                       {"motif": "perturbation", "ranks": int(n * ratio), "bytes": 4096,
                        "placement": "random", "rounds": 20}]}}
            r = wl.run_noise(cfg, seeds=range(1, seeds + 1), backend="cpu")
            s = r.slowdown
            print(f"{name:20} {ratio:5.2f} {s.mean():6.2f} {s.min():6.2f} {s.max():6.2f} "
                  f"{r.times('quiet').mean():8.1f}", flush=True)


def proxy() -> None:
    """P2: the six proxy applications side by side on a 200-node Slim Fly, linear vs random
    placement, as one multi-job workload (message sizes / 64)."""
    jobs = [{"motif": "pairs", "ranks": 32, "bytes": 65536},
            {"motif": "spread", "ranks": 32, "bytes": 32768, "partners": [4, 8]},
            {"motif": "umesh", "ranks": 32, "bytes": 32768, "partners": [3, 6]},
            {"motif": "milc", "ranks": 32, "bytes": 32768},
            {"motif": "pf3d", "ranks": 40, "bytes": 32768, "dims": [4, 5, 2]},
            {"motif": "qbox", "ranks": 30, "bytes": 16384, "dims": [10, 3]}]
    for placement in ("linear", "random"):
        cfg = base(TOPOLOGIES["SF q=5"], "min")
        cfg["workload"] = {"packet_size": 16, "flit_bytes": 16, "link_gbps": 200,
                           "placement": placement, "ni_queues": 8, "jobs": jobs}
        t = time.time()
        r = flitsim.run(cfg, backend="cpu")
        print(f"{placement}: comm rate {r.workload.comm_rate / 1e9:.1f} GB/s, link bytes mean "
              f"{r.link_bytes_mean / 1e3:.0f} kB max {r.link_bytes_max / 1e3:.0f} kB "
              f"({time.time() - t:.0f} s)")
        for j in r.workload.jobs_table():
            print(f"   {j['name']:6} ranks {j['ranks']:3}  T {j['execution_seconds'] * 1e6:8.2f} us  "
                  f"rate {j['comm_rate'] / 1e9:7.2f} GB/s")


PARTS = ("exchange", "noise", "proxy")

if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="Small reproductions of the papers' workload trends.")
    parser.add_argument("parts", nargs="*", metavar="PART", help=f"one or more of {', '.join(PARTS)}; none: all")
    parts = parser.parse_args().parts
    if set(parts) - set(PARTS):
        parser.error(f"unknown part {sorted(set(parts) - set(PARTS))[0]!r} (known: {', '.join(PARTS)})")
    for p in parts or PARTS:
        print(f"== {p}")
        globals()[p]()
