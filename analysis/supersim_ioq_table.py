"""SuperSim's own DimWAR and OmniWAR with its input-output-queued router (docs/validation.md
"SuperSim's WARs with its input-output-queued router"): saturation brackets per pattern and
congestion mode, read from the committed measurements (validation/supersim/
results-2026-11-29.json, `ioq_war_saturation`; nothing is simulated), beside the same routings
with its input-queued router where the side-by-side measured them, and which of the two the
brackets put on top (HX-R7: "OmniWAR always top, DimWAR second except on DCR").

    python analysis/supersim_ioq_table.py            # prints the Markdown table
    python analysis/supersim_ioq_table.py --write    # and writes it into docs/validation.md
    python analysis/supersim_ioq_table.py --flitsim  # the flitsim table, about 7 minutes on one core
    python analysis/supersim_ioq_table.py --ioq      # flitsim's ioq router, about 25 minutes on one core

--flitsim prints the `output_and_downstream` brackets beside flitsim's nearest router: the
side-by-side's cases (analysis/supersim_side_by_side.py: router.preset = "supersim", the
WARs sensing the credits in use with biases 0, DimWAR in SuperSim's VC order) with a 96-flit
output FIFO, SuperSim's 6 VCs x 16 flits of output queue. flitsim's cioq spends the downstream
credit as a flit enters that FIFO, so "downstream" there counts the FIFO and the next router's
buffers, as `output_and_downstream` does; but its one FIFO per port takes only flits that
already hold a credit, where SuperSim's per-VC queues take them before.

--ioq prints both sensing modes' brackets beside flitsim's own input-output-queued router,
router.architecture = "ioq" (SuperSim's: an output queue per port and VC, 16 flits each, whose
flits wait there for their credit), sensing routing.congestion = "output" and
"output_and_downstream", with the side by side's other settings. Its VC allocator is
separable-output-first with round-robin arbitration (--arbitration age for the preset's oldest
first): each head requests every free VC of its class, so several heads of one output may take
VCs in a cycle (docs/configuration.md, router.speedup)."""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "validation" / "supersim" / "results-2026-11-29.json"
PATTERNS = {"ur": "UR", "bc": "BC", "urbx": "URBx", "urby": "URBy", "s2": "S2", "dcr": "DCR"}


def bracket(b) -> str:
    return f"{b[0]:.3f}–{b[1]:.3f}" if b else "—"


def on_top(dimwar, omniwar) -> str:
    """Which routing the two saturation brackets put higher: a name when one sustained a load
    the other did not (the brackets are disjoint or touch), "level" when they overlap."""
    if not (dimwar and omniwar):
        return "—"
    if omniwar[0] >= dimwar[1] - 1e-9:  # OmniWAR sustained a load DimWAR did not
        return "OmniWAR"
    if dimwar[0] >= omniwar[1] - 1e-9:
        return "DimWAR"
    return "level"


def cell(d, o) -> str:
    return f"{bracket(d)} / {bracket(o)} ({on_top(d, o)})" if (d or o) else "—"


def table(data: dict) -> str:
    """One row per pattern; per setting, DimWAR's bracket / OmniWAR's (which is on top)."""
    ioq = data["ioq_war_saturation"]["results"]
    iq = data["cases"]
    head = ["traffic"] + [f"`{setting}`" for setting in ioq] + ["`input_queued`, `downstream`"]
    lines = ["DimWAR / OmniWAR saturation load (on top):", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p, name in PATTERNS.items():
        row = [name] + [cell(ioq[s].get(f"dimwar-{p}"), ioq[s].get(f"omniwar-{p}")) for s in ioq]
        row.append(cell(iq.get(f"dimwar-{p}", {}).get("saturation"), iq.get(f"omniwar-{p}", {}).get("saturation")))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def flitsim_table(data: dict) -> str:
    import supersim_side_by_side as side
    ioq = data["ioq_war_saturation"]["results"]["output_and_downstream"]
    head = ["traffic", "DimWAR, SuperSim", "OmniWAR, SuperSim", "on top", "DimWAR, flitsim",
            "OmniWAR, flitsim", "on top"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, (p, name) in enumerate(PATTERNS.items()):
        print(f"pattern {i + 1} of {len(PATTERNS)}", file=sys.stderr, flush=True)
        d, o = ioq.get(f"dimwar-{p}"), ioq.get(f"omniwar-{p}")
        fd, fo = (side.saturation(f"{r}-{p}", ["router.output_buffer=96"]) for r in ("dimwar", "omniwar"))
        # flitsim's search tolerance is 0.01: closer than that is level
        top = "OmniWAR" if fo > fd + 0.01 else "DimWAR" if fd > fo + 0.01 else "level"
        lines.append(f"| {name} | {bracket(d)} | {bracket(o)} | {on_top(d, o)} | {fd:.3f} | {fo:.3f} | {top} |")
    return "\n".join(lines) + "\n"


IOQ_ROUTER = ["router.architecture=ioq", "router.output_buffer=16", "router.vc_allocator=separable-output-first"]


def ioq_table(data: dict, arbitration: str) -> str:
    """Per pattern and sensing mode, SuperSim's DimWAR / OmniWAR brackets and flitsim's ioq
    saturation loads, each pair with the routing on top."""
    import supersim_side_by_side as side
    ioq = data["ioq_war_saturation"]["results"]
    modes = ["output", "output_and_downstream"]
    head = ["traffic"] + [f"{who}, `{m}`" for m in modes for who in ("SuperSim", "flitsim")]
    lines = ["DimWAR / OmniWAR saturation load (on top):", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = len(PATTERNS) * len(modes)
    for i, (p, name) in enumerate(PATTERNS.items()):
        row = [name]
        for j, m in enumerate(modes):
            print(f"cell {i * len(modes) + j + 1} of {total}", file=sys.stderr, flush=True)
            extra = IOQ_ROUTER + [f"router.arbitration={arbitration}", f"routing.congestion={m}"]
            fd, fo = (side.saturation(f"{r}-{p}", extra) for r in ("dimwar", "omniwar"))
            # flitsim's search tolerance is 0.01: closer than that is level
            top = "OmniWAR" if fo > fd + 0.01 else "DimWAR" if fd > fo + 0.01 else "level"
            row += [cell(ioq[m].get(f"dimwar-{p}"), ioq[m].get(f"omniwar-{p}")), f"{fd:.3f} / {fo:.3f} ({top})"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="also write the table into docs/validation.md")
    ap.add_argument("--flitsim", action="store_true",
                    help="print the output_and_downstream brackets beside flitsim's nearest router (simulates)")
    ap.add_argument("--ioq", action="store_true",
                    help="print both modes' brackets beside flitsim's ioq router (simulates)")
    ap.add_argument("--arbitration", choices=["round-robin", "age"], default="round-robin",
                    help="with --ioq: the allocators' arbitration (default round-robin)")
    args = ap.parse_args(argv)
    data = json.loads(RESULTS.read_text())
    if args.ioq:
        sys.stdout.write(ioq_table(data, args.arbitration))
        return 0
    if args.flitsim:
        sys.stdout.write(flitsim_table(data))
        return 0
    text = table(data)
    sys.stdout.write(text)
    if args.write:
        from regenerate_docs import replace_region
        doc = ROOT / "docs" / "validation.md"
        doc.write_text(replace_region(doc.read_text(), "supersim-ioq", text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
