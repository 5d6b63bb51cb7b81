"""Regenerates the saturation table of docs/reproductions.md (HyperX study): a saturation
search (flitsim.saturate, tolerance 0.01, seed 1) per pattern and routing of the quick study,
to set beside its accepted rates at full offered load.

    python analysis/hyperx_saturation_table.py      # about 20 minutes on one core

Prints the Markdown table; paste it over the one in docs/reproductions.md. Each cell is the
most any probe of the search accepted, then the saturation load (the highest offered load
accepted within sim.saturation_tolerance) in parentheses."""
import sys

import flitsim
from flitsim.studies.common import _load, _md, _with
from flitsim.studies.hyperx_dimwar import HX_DRAIN_FACTOR, HX_PATTERNS, HX_ROUTINGS, hx_valiant_zero_load


def quick_base() -> dict:
    """The quick study's configuration (src/flitsim/studies/hyperx_dimwar.py), seed 1."""
    base = _load("hyperx-dimwar")
    base.pop("sweep")
    base["topology"].update(widths=[4, 4, 4], terminals=4)
    base["sim"].update(warmup=2000, measure=2000)
    base["sim"]["drain_limit"] = HX_DRAIN_FACTOR * hx_valiant_zero_load(base)
    return base


def main():
    base = quick_base()
    rows = []
    for i, (pattern, traffic) in enumerate(HX_PATTERNS.items()):
        print(f"pattern {i + 1} of {len(HX_PATTERNS)}", file=sys.stderr)
        row = [pattern]
        for keys in HX_ROUTINGS.values():
            s = flitsim.saturate(_with(base, traffic=dict(traffic), routing=dict(keys)), tolerance=0.01,
                                 backend="cpu", threads=1, progress=False)
            # no saturated probe: the network kept up with offered 1.0 (the search then reports 0.0)
            load = (f"{s.saturation:.3f}" if any(p.saturated for p in s.probes) else "1.0, not saturated")
            row.append(f"{100 * s.max_accepted:.1f}% ({load})")
        rows.append(row)
    print(_md(["traffic"] + list(HX_ROUTINGS), rows), end="")


if __name__ == "__main__":
    main()
