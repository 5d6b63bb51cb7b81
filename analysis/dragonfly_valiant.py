"""Reproduce the dragonfly paper's (P0) throughput study: relative throughput at full offered
load under bit complement (BC) and group shift (m = h+1) for MIN, ValiantRestricted (VR),
ValiantAny (VA) and VR with randomised group numbering, on balanced dragonflies p = a/2 = h.

Paper targets (docs/targets.md §2.1): VA 33-43 % at every size (DF-R2); VR below 15 % for BC and
shift beyond 512 routers, i.e. p >= 6 (DF-R3); VR close to the model 3/(4p) (DF-R5) and
decreasing with size (DF-R6); randomisation gains roughly 10 points at large sizes (DF-R7);
MIN = 1/(a*p) (DF-R9). Fluid bounds (docs/targets.md §2.8): VR (G-2)/((h+1)ap), VA (G-2)/(2ap).

Router model (P0 leaves it open, docs/targets.md §3.1 item 5): single-flit packets, 8 VCs of 64 flits,
2 iSLIP iterations, router latency 3, channels terminal 1 / local 2 / global 10 cycles.

    python analysis/dragonfly_valiant.py --sizes 2 3 4 6 [--warmup 2000 --measure 3000] [--markdown]
"""
from __future__ import annotations

import argparse
import sys
import time

import flitsim

ROUTINGS = {  # label -> (routing section, topology extras)
    "MIN": ({"algorithm": "min"}, {}),
    "VR": ({"algorithm": "valiant", "valiant": "restricted"}, {}),
    "VA": ({"algorithm": "valiant", "valiant": "any"}, {}),
    "VR+rand": ({"algorithm": "valiant", "valiant": "restricted"}, {"relabel": True, "seed": 7}),
}
PATTERNS = {"BC": {"pattern": "bitcomp"}, "shift": {"pattern": "group-shift"}}


def config(p: int, routing: dict, topo_extra: dict, traffic: dict, warmup: int, measure: int) -> dict:
    shift = {"shift": p + 1} if traffic["pattern"] == "group-shift" else {}
    return {
        "topology": {"kind": "dragonfly", "p": p, "a": 2 * p, "h": p, **topo_extra},
        "router": {"vcs": 8, "buffer": 64, "latency": 3, "sa_iterations": 2},
        "channels": {"terminal": 1, "local": 2, "global": 10},
        "routing": routing,
        "traffic": {"load": 1.0, "packet_size": 1, **traffic, **shift},
        "sim": {"warmup": warmup, "measure": measure, "drain_limit": 1, "seed": 1},
    }


def bounds(p: int) -> dict[str, float]:
    a, h = 2 * p, p
    G = a * h + 1
    return {"MIN": 1 / (a * p), "VR": (G - 2) / ((h + 1) * a * p), "VA": (G - 2) / (2 * a * p),
            "model": 3 / (4 * p)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--measure", type=int, default=3000)
    ap.add_argument("--backend", default=None)
    args = ap.parse_args(argv)
    print("| p | nodes | routers | pattern | MIN | VR | VA | VR+rand | 3/(4p) | VR bound | VA bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in args.sizes:
        b = bounds(p)
        for pname, traffic in PATTERNS.items():
            acc, t0 = {}, time.time()
            for label, (routing, extra) in ROUTINGS.items():
                r = flitsim.run(config(p, routing, extra, traffic, args.warmup, args.measure),
                                backend=args.backend)
                acc[label] = r.accepted
            print(f"| {p} | {r.nodes} | {r.routers} | {pname} | " +
                  " | ".join(f"{100 * acc[k]:.1f}%" for k in ROUTINGS) +
                  f" | {100 * b['model']:.1f}% | {100 * b['VR']:.1f}% | {100 * b['VA']:.1f}% |", flush=True)
            print(f"  ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
