"""Accepted throughput at offered load 1.0 on the 8x8 torus and mesh against the channel-load
bounds (Dally & Towles §3.3.1): uniform 8/k (torus) and 4/k (mesh) flits/node/cycle for k
even, tornado under DOR 1/(ceil(k/2) - 1), Valiant (8/k)/2. The numbers of docs/validation.md
"Tori and meshes", and the arbitration effect behind the tests' choice of oldest-first
arbitration (tests/test_torus_mesh.py).

Router: flitsim's default input-queued router, 1-flit packets, warm-up 1,000 and window 3,000
cycles, every channel 1 cycle.

    python analysis/torus_mesh_bounds.py [--markdown]
"""
from __future__ import annotations

import argparse
import sys

import flitsim

K = 8
CASES = [  # kind, pattern, algorithm, vcs, buffer, bound
    ("torus", "uniform", "dor", 2, 8, 8 / K),
    ("mesh", "uniform", "dor", 2, 8, 4 / K),
    ("torus", "tornado", "dor", 2, 8, 1 / ((K + 1) // 2 - 1)),
    ("torus", "tornado", "valiant-dor", 4, 8, 8 / K / 2),
    ("torus", "tornado", "valiant-dor", 8, 16, 8 / K / 2),
    ("torus", "tornado", "ugal-dor", 4, 8, None),
    ("torus", "tornado", "ugal-dor", 8, 16, None),
]


def accepted(kind: str, pattern: str, alg: str, vcs: int, buffer: int, arbitration: str) -> tuple[float, float]:
    cfg = {
        "topology": {"kind": kind, "widths": [K, K], "terminals": 1},
        "router": {"vcs": vcs, "buffer": buffer, "latency": 1, "arbitration": arbitration},
        "channels": {"latency": 1},
        "routing": {"algorithm": alg},
        "traffic": {"pattern": pattern, "load": 1.0, "packet_size": 1},
        "sim": {"warmup": 1000, "measure": 3000, "drain_limit": 100, "seed": 1},
    }
    r = flitsim.run(cfg, backend="cpu")
    return r.accepted, r.nonminimal_fraction


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.parse_args(argv)
    print("| network | pattern | routing | VCs x flits | bound | round-robin | oldest first (non-minimal) |")
    print("|---|---|---|---|---|---|---|")
    for kind, pattern, alg, vcs, buffer, bound in CASES:
        rr, _ = accepted(kind, pattern, alg, vcs, buffer, "round-robin")
        age, nonmin = accepted(kind, pattern, alg, vcs, buffer, "age")
        b = f"{bound:.3f}" if bound else "-"
        print(f"| 8x8 {kind} | {pattern} | {alg} | {vcs} x {buffer} | {b} | {rr:.3f} | {age:.3f} ({nonmin:.2f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
