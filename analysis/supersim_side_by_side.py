"""flitsim's column of docs/validation.md "Side by side with SuperSim (HyperX)".

Each case is configs/validation/supersim-hyperx444.toml (a 4x4x4 HyperX, 4 terminals per
router, 1-cycle channels, 6 VCs x 16 flits, 1-flit packets) with the overrides below, run at
the offered loads SuperSim was measured at: 0.01 (zero-load latency), about 50 % and 80 % of
SuperSim's saturation (mean packet latency; not measured yet: SuperSim needed 15 minutes
per loaded run on the shared machine) and 1.0 (accepted flits/node/cycle past saturation,
the saturation throughput). SuperSim's numbers are the committed measurements
validation/supersim/results-2026-11-28.json (its commit, build and command are in that file).

    python analysis/supersim_side_by_side.py            # the table, about 2 minutes on one core
    python analysis/supersim_side_by_side.py dor-ur     # one case

Prints the Markdown rows of the table (SuperSim / flitsim (difference))."""
import json
import pathlib
import sys

import flitsim
from flitsim.config import load_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "validation" / "supersim-hyperx444.toml")
RESULTS = ROOT / "validation" / "supersim" / "results-2026-11-28.json"

# SuperSim's HyperX routings and their flitsim counterparts (docs/validation.md):
# valiants / ugal with "minimal": "dimension_order" are the DOR-phase routings, their
# "regular" intermediate a node drawn from all nodes; ugal's monolithic weights with zero
# biases are H_M q_M against H_I q_I (cost "booksim-flatfly", offset 0), its congestion the
# credits in use downstream; dal "dimension_order" is DimWAR, dal "variable" with
# max_deroutes 3 and multi_deroute false is OmniWAR with M = 3; every weighted routing runs
# with SuperSim's biases 0 (offset 0).
ROUTINGS = {
    "dor": [],
    "valiant": ["routing.algorithm=valiant-dor", "routing.valiant=node"],
    "ugal": ["routing.algorithm=ugal-dor", "routing.valiant=node", "routing.cost=booksim-flatfly",
             "routing.offset=0", "routing.n_indirect=1", "routing.congestion=downstream"],
    "dimwar": ["routing.algorithm=dimwar", "routing.offset=0"],
    "omniwar": ["routing.algorithm=omniwar", "routing.offset=0", "routing.deroutes=3",
                "routing.multi_deroute=false"],
}
PATTERNS = {"ur": [], "bc": ["traffic.pattern=bitcomp"]}
LABEL = {"dor": "DOR", "valiant": "Valiant", "ugal": "UGAL", "dimwar": "DimWAR", "omniwar": "OmniWAR",
         "ur": "UR", "bc": "BC"}


def overrides(case):
    routing, pattern = case.rsplit("-", 1)
    extra = []
    if "+" in routing:  # a variant, e.g. dimwar+class: routing.sensing = "class"
        routing, variant = routing.split("+")
        extra = [f"routing.sensing={variant}"]
    return ROUTINGS[routing] + extra + PATTERNS[pattern]


def run(case, load, measure=10000):
    cfg = load_config(CONFIG, overrides(case) + [f"traffic.load={load}", f"sim.measure={measure}"])
    return flitsim.run(cfg, backend="cpu")


def fmt_lat(ss, fs):
    return f"{ss:.1f} / {fs:.1f} ({100 * (fs - ss) / ss:+.0f} %)"


def row(case, ref):
    """One Markdown row: SuperSim / flitsim (difference) for what SuperSim measured (— else)."""
    routing, pattern = case.rsplit("-", 1)
    name = LABEL.get(routing, routing)
    if "+" in routing:
        base, variant = routing.split("+")
        name = f"{LABEL[base]}, `sensing = \"{variant}\"`"
    cells = []
    if ref.get("zero_load") is not None:
        cells.append(fmt_lat(ref["zero_load"], run(case, 0.01, 20000).latency_mean))
    else:
        cells.append("—")
    if ref.get("saturation") is not None:
        f = run(case, 1.0).accepted
        cells.append(f"{ref['saturation']:.3f} / {f:.3f} ({f - ref['saturation']:+.3f})")
    else:
        cells.append("—")
    return f"| {name} | {LABEL[pattern]} | {cells[0]} | {cells[1]} |"


def main(argv):
    import argparse
    ref = json.loads(RESULTS.read_text())["cases"]
    parser = argparse.ArgumentParser(description="flitsim's column of docs/validation.md's SuperSim "
                                     "table, from the recorded SuperSim numbers.")
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"cases of {RESULTS.name}; none: all")
    cases = parser.parse_args(argv).cases
    unknown = [c for c in cases if c not in ref]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (known: {', '.join(ref)})")
    for case in cases or list(ref):
        print(row(case, ref[case]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
