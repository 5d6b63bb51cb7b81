"""flitsim's side of docs/validation.md "Side by side with SuperSim (HyperX)".

Each case is configs/validation/supersim-hyperx444.toml (a 4x4x4 HyperX, 4 terminals per
router, 1-cycle channels, 6 VCs x 16 flits, 1-flit packets) with the overrides below. SuperSim's
numbers are the committed measurements validation/supersim/results-2026-11-29.json (its commit,
build, commands and the way each number was taken are in that file); flitsim measures the same
quantities the same way:

* zero-load latency: mean packet latency at offered 0.01 (window 20,000 cycles);
* saturation: the highest offered load the network sustains. SuperSim's is bracketed by its own
  warm-up detector (a load is saturated when the terminals' in-flight flits keep growing);
  flitsim's is flitsim.saturate with the same idea in its terms: a load is sustained when the
  network accepts at least 99 % of it over a 10,000-cycle window (sim.saturation_tolerance =
  0.01, search tolerance 0.01);
* latency at 50 % and 80 % of SuperSim's saturation (the middle of its bracket), both
  simulators at the same offered load;
* accepted at offered 1.0, where SuperSim was measured there.

    python analysis/supersim_side_by_side.py                    # the table, about 25 minutes on one core
    python analysis/supersim_side_by_side.py dimwar+class-bc    # one case

Prints the Markdown rows of the table (SuperSim / flitsim (difference))."""
import json
import pathlib
import sys

import flitsim
from flitsim.config import load_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "validation" / "supersim-hyperx444.toml")
RESULTS = ROOT / "validation" / "supersim" / "results-2026-11-29.json"
SATURATION_GOAL = 0.02   # the comparison's goal (issue 33): saturation within ±0.02
LATENCY_GOAL = 0.10      # and latency within 10 %

# SuperSim's HyperX routings and their flitsim counterparts (docs/validation.md):
# valiants / ugal with "minimal": "dimension_order" are the DOR-phase routings, their
# "regular" intermediate a node drawn from all nodes; ugal's monolithic weights with zero
# biases are H_M q_M against H_I q_I (cost "booksim-flatfly", offset 0), its congestion the
# credits in use downstream; dal "dimension_order" is DimWAR (its VC order: a deroute on the
# first class, the hop after it on the second, routing.deroute_class = "first"), dal "variable" with
# max_deroutes 3 and multi_deroute false is OmniWAR with M = 3; every weighted routing runs
# with SuperSim's biases 0 (offset 0) and senses what its router's congestion_mode
# "downstream" counts: the credits in use only (routing.congestion = "downstream"; LOCAL below
# runs the WARs with flitsim's default instead).
ROUTINGS = {
    "dor": [],
    "valiant": ["routing.algorithm=valiant-dor", "routing.valiant=node"],
    "ugal": ["routing.algorithm=ugal-dor", "routing.valiant=node", "routing.cost=booksim-flatfly",
             "routing.offset=0", "routing.n_indirect=1", "routing.congestion=downstream"],
    "dimwar": ["routing.algorithm=dimwar", "routing.offset=0", "routing.congestion=downstream",
               "routing.deroute_class=first"],
    "omniwar": ["routing.algorithm=omniwar", "routing.offset=0", "routing.deroutes=3",
                "routing.multi_deroute=false", "routing.congestion=downstream"],
}
# The WARs' cases again with flitsim's default sensing: the credits in use plus the flits
# already routed to the output and waiting in this router (routing.congestion = "port").
LOCAL = ["routing.congestion=port"]
# SuperSim's uniform_random (send_to_self false), bit_complement, uniform_random_bisection
# (enabled_dimensions [true, false, false] / [false, true, false]), swap2 and
# dim_complement_reverse are flitsim's uniform, bitcomp, urb (dims [0] / [1]), swap2 and dcr
# (the same maps: docs/traffic.md).
PATTERNS = {"ur": [], "bc": ["traffic.pattern=bitcomp"],
            "urbx": ["traffic.pattern=urb", "traffic.dims=[0]"], "urby": ["traffic.pattern=urb", "traffic.dims=[1]"],
            "s2": ["traffic.pattern=swap2"], "dcr": ["traffic.pattern=dcr"]}
LABEL = {"dor": "DOR", "valiant": "Valiant", "ugal": "UGAL", "dimwar": "DimWAR", "omniwar": "OmniWAR",
         "ur": "UR", "bc": "BC", "urbx": "URBx", "urby": "URBy", "s2": "S2", "dcr": "DCR"}


def overrides(case, extra=()):
    """The --set overrides of one case, "routing[+sensing]-pattern" (dimwar+class-bc)."""
    routing, pattern = case.rsplit("-", 1)
    variant = []
    if "+" in routing:  # a variant, e.g. dimwar+class: routing.sensing = "class"
        routing, v = routing.split("+")
        variant = [f"routing.sensing={v}"]
    return ROUTINGS[routing] + variant + PATTERNS[pattern] + list(extra)


def config(case, load=0.5, measure=10000, extra=()):
    return load_config(CONFIG, overrides(case, extra) + [f"traffic.load={load}", f"sim.measure={measure}"])


def run(case, load, measure=10000, extra=()):
    return flitsim.run(config(case, load, measure, extra), backend="cpu")


def saturation(case, extra=()):
    """flitsim's saturation load: sustained = accepted >= 0.99 x offered (module docstring)."""
    cfg = config(case, extra=extra)
    cfg["sim"]["saturation_tolerance"] = 0.01
    s = flitsim.saturate(cfg, tolerance=0.01, backend="cpu", threads=1, progress=False)
    return s.saturation if any(p.saturated for p in s.probes) else 1.0


def fmt_lat(ss, fs):
    mark = "" if abs(fs - ss) <= LATENCY_GOAL * ss else " ✗"
    return f"{ss:.1f} / {fs:.1f} ({100 * (fs - ss) / ss:+.0f} %){mark}"


def fmt_sat(bracket, fs):
    lo, hi = bracket
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    mark = "" if abs(fs - mid) <= SATURATION_GOAL + half else " ✗"
    return f"{lo:.3f}–{hi:.3f} / {fs:.3f} ({fs - mid:+.3f}){mark}"


def label(case):
    routing, pattern = case.rsplit("-", 1)
    if "+" in routing:
        base, variant = routing.split("+")
        return f"{LABEL[base]}, `sensing = \"{variant}\"`", LABEL[pattern]
    return LABEL[routing], LABEL[pattern]


def row(case, ref):
    """One Markdown row: SuperSim / flitsim (difference) for what SuperSim measured (— else)."""
    cells = list(label(case))
    cells.append(fmt_lat(ref["zero_load"], run(case, 0.01, 20000).latency_mean) if ref.get("zero_load") else "—")
    cells.append(fmt_sat(ref["saturation"], saturation(case)) if ref.get("saturation") else "—")
    for part in ("latency_50", "latency_80"):
        m = ref.get(part)
        cells.append(f"{m['load']:.2f}: " + fmt_lat(m["latency"], run(case, m["load"]).latency_mean) if m else "—")
    if ref.get("accepted_at_1") is not None:
        f = run(case, 1.0).accepted
        cells.append(f"{ref['accepted_at_1']:.3f} / {f:.3f} ({f - ref['accepted_at_1']:+.3f})")
    else:
        cells.append("—")
    return "| " + " | ".join(cells) + " |"


HEADER = ("| routing | traffic | zero-load latency | saturation load | latency at 50 % | latency at 80 % "
          "| accepted at offered 1.0 |\n|---|---|---|---|---|---|---|")


def main(argv):
    import argparse
    ref = json.loads(RESULTS.read_text())["cases"]
    parser = argparse.ArgumentParser(description="flitsim's side of docs/validation.md's SuperSim "
                                     "table, from the recorded SuperSim numbers.")
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"cases of {RESULTS.name}; none: all")
    cases = parser.parse_args(argv).cases
    unknown = [c for c in cases if c not in ref]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (known: {', '.join(ref)})")
    print(HEADER)
    todo = cases or list(ref)
    for i, case in enumerate(todo):
        print(f"case {i + 1} of {len(todo)}: {case}", file=sys.stderr, flush=True)
        print(row(case, ref[case]), flush=True)
    wars = [c for c in todo if c.split("-")[0].split("+")[0] in ("dimwar", "omniwar") and ref[c].get("saturation")]
    if wars:
        print(f"\nThe WARs with flitsim's default sensing (`{LOCAL[0]}`): saturation load, SuperSim / flitsim\n")
        print("| routing | traffic | saturation load |\n|---|---|---|")
        for case in wars:
            print("| " + " | ".join(label(case)) + " | " + fmt_sat(ref[case]["saturation"], saturation(case, LOCAL)) + " |",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
