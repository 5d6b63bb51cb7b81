"""Regenerates the sensing table of docs/reproductions.md (HyperX study, "What the WARs sense
locally"): the quick study's cells (4x4x4 HyperX, 4 terminals, router.preset = "hyperx-paper",
offered 1.0, seeds 1, 2, 3) for UGAL, DimWAR and OmniWAR with routing.congestion = "port" (the
study's: downstream credits in use plus the flits already routed to the output and waiting in
this router) and "downstream" (the credits in use only, as SuperSim's routers with
congestion_mode "downstream" sense); DimWAR also in SuperSim's VC order (routing.deroute_class =
"first": a deroute on the first class, the hop after it on the second).

    python analysis/hyperx_congestion_table.py      # about 7 minutes on one core

Prints the Markdown table (mean ± 95 % Student-t half-width over the seeds)."""
import sys

import flitsim
from flitsim.studies.common import _md, _mean_ci, _pct_ci, _with
from flitsim.studies.hyperx_dimwar import HX_PATTERNS, STUDY_SEEDS

from hyperx_saturation_table import quick_base

ROUTINGS = {"UGAL": {"algorithm": "ugal-dor"},
            "DimWAR": {"algorithm": "dimwar", "sensing": "class"},
            "DimWAR, SuperSim's VC order": {"algorithm": "dimwar", "sensing": "class", "deroute_class": "first"},
            "OmniWAR": {"algorithm": "omniwar", "sensing": "class"}}
CONGESTION = ("port", "downstream")


def main():
    base = quick_base()
    rows = []
    for i, (pattern, traffic) in enumerate(HX_PATTERNS.items()):
        print(f"pattern {i + 1} of {len(HX_PATTERNS)}", file=sys.stderr, flush=True)
        row = [pattern]
        for routing in ROUTINGS.values():
            for congestion in CONGESTION:
                cfg = _with(base, traffic=dict(traffic), routing=dict(routing, congestion=congestion))
                sw = flitsim.sweep(cfg, {"sim.seed": list(STUDY_SEEDS)}, backend="cpu", threads=1)
                row.append(_pct_ci(_mean_ci([r.accepted for r in sw.results])))
        rows.append(row)
    header = ["traffic"] + [f"{name} ({c})" for name in ROUTINGS for c in CONGESTION]
    print(_md(header, rows), end="")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        import argparse
        argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    main()
