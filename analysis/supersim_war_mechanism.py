"""Why SuperSim's DimWAR saturates at 0.60-0.625 under uniform traffic (docs/validation.md,
"Side by side with SuperSim (HyperX)", "DimWAR under UR: where the contention waits").

SuperSim's crossbar scheduler grants each output one flit per cycle and its output queue sends
one per cycle, so the queue never holds more than one flit: contention for an output waits in
the input VCs, where a sensor of downstream credits does not see it. flitsim's `cioq` switch
with speedup 2 writes up to two flits per cycle into an output queue; with 16 flits there (the
preset's value until 2026-11-29) the queue of a busy output filled, its flits held downstream credits,
and the WARs saw the contention and stopped derouting. This script runs flitsim's DimWAR (as
analysis/supersim_side_by_side.py runs it) with the preset's 1-flit output queue and with 16,
next to SuperSim's committed measurements (validation/supersim/results-2026-11-29.json,
"dimwar_ur_mechanism"):

* per offered load: accepted, packets derouted, mean extra hops, and the mean utilisation of
  the router-to-router channels of each dimension (DimWAR deroutes in dimension order, so the
  first dimension carries the most), also with router.latency = 0 (below);
* saturation load against router.output_buffer;
* DimWAR with class sensing in both VC orders (routing.deroute_class: P4's text "second",
  SuperSim's code "first"), the saturation load per pattern;
* the residual under UR: the same saturation searches with router.latency = 0. SuperSim
  spends a flit's downstream credit after its routing, VC and switch stages and gets it back
  as soon as the next router takes the flit out of its input buffer (about 4 cycles per hop
  at zero load); flitsim's preset puts the router's 4 pipeline cycles after the credit is
  spent, so its sensor holds each flit about twice as long and sees a smoother signal. With
  latency 0 the credit loop is SuperSim's length (and the zero-load latency is not).

    python analysis/supersim_war_mechanism.py      # about 17 minutes on one core
"""
import json
import pathlib
import sys


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import supersim_side_by_side as side  # noqa: E402

LOADS = (0.31, 0.55, 0.60, 0.70)
OUTPUT_BUFFERS = (1, 2, 16)
CLASS_ORDER_PATTERNS = ("bc", "urby", "s2", "dcr")
# flitsim's DimWAR in the per-load table: the preset (output_buffer 1), its former 16-flit
# output queue, and the preset with SuperSim's credit-loop length (router.latency = 0).
VARIANTS = (("`output_buffer = 1`", ["router.output_buffer=1"]),
            ("`output_buffer = 16`", ["router.output_buffer=16"]),
            ("`output_buffer = 1`, `latency = 0`", ["router.output_buffer=1", "router.latency=0"]))
LOOP_CASES = ("ugal-ur", "dimwar-ur", "omniwar-ur", "dimwar+class-ur", "omniwar+class-ur")


def supersim_row(ref, load):
    r = ref.get(f"dimwar-ur {load:.2f}")
    if not r or "extra_hops" not in r:
        return "—"
    hops = r["extra_hops"]
    derouted = 1 - hops["0"]
    extra = sum(int(k) * v for k, v in hops.items())
    chan = r.get("channels", {}).get("by_dimension_mean")
    dims = " / ".join(f"{u:.2f}" for u in chan) if chan else "—"
    return f"{r['delivered']:.3f} | {100 * derouted:.0f} % | {extra:.2f} | {dims}"


def flitsim_row(load, extra):
    r = side.run("dimwar-ur", load, extra=extra)
    util = r.channel_utilisation()  # mean flits/cycle per channel, by class: dim0, dim1, dim2
    dims = " / ".join(f"{util[f'dim{d}']:.2f}" for d in range(3))
    return f"{r.accepted:.3f} | {100 * r.nonminimal_fraction:.0f} % | {r.extra_hops_mean:.2f} | {dims}"


def main():
    ref = json.loads(side.RESULTS.read_text())["dimwar_ur_mechanism"]["results"]
    print("| offered | simulator | accepted | packets derouted | extra hops | channel utilisation, dimension 0 / 1 / 2 |")
    print("|---|---|---|---|---|---|")
    for load in LOADS:
        print(f"| {load:.2f} | SuperSim | {supersim_row(ref, load)} |", flush=True)
        for name, extra in VARIANTS:
            print(f"| {load:.2f} | flitsim, {name} | {flitsim_row(load, extra)} |", flush=True)
    print("\n| `router.output_buffer` | DimWAR UR saturation (SuperSim 0.600–0.625) | DOR UR (SuperSim 0.875–0.900) |")
    print("|---|---|---|")
    for ob in OUTPUT_BUFFERS:
        extra = [f"router.output_buffer={ob}"]
        print(f"| {ob} | {side.saturation('dimwar-ur', extra):.3f} | {side.saturation('dor-ur', extra):.3f} |", flush=True)
    cases = json.loads(side.RESULTS.read_text())["cases"]
    print("\n| DimWAR, `sensing = \"class\"` | SuperSim | `deroute_class = \"second\"` | `\"first\"` |")
    print("|---|---|---|---|")
    for pattern in CLASS_ORDER_PATTERNS:
        case = f"dimwar+class-{pattern}"
        lo, hi = cases[case]["saturation"]
        second = side.saturation(case, ["routing.deroute_class=second"])
        first = side.saturation(case, ["routing.deroute_class=first"])
        print(f"| {side.LABEL[pattern]} | {lo:.3f}–{hi:.3f} | {second:.3f} | {first:.3f} |", flush=True)
    print("\n| case | SuperSim | flitsim (`router.preset = \"supersim\"`) | with `router.latency = 0` |")
    print("|---|---|---|---|")
    for case in LOOP_CASES:
        lo, hi = cases[case]["saturation"]
        routing, pattern = side.label(case)
        print(f"| {routing}, {pattern} | {lo:.3f}–{hi:.3f} | {side.saturation(case):.3f} | "
              f"{side.saturation(case, ['router.latency=0']):.3f} |", flush=True)


if __name__ == "__main__":
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    main()
