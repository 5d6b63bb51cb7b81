"""Study 5 (McDonald et al., SC 2019): accepted throughput at full load of six routings on a 3-D HyperX."""
from __future__ import annotations

import pathlib

from .common import (Outcome, _finish, _full_load_bars, _load, _md, _pct, _plt, _Progress, _stall_note,
                     _with)


# The paper's patterns (Table 3); URB's targeted dimension moves with the pattern.
HX_PATTERNS = {"UR": {"pattern": "uniform"}, "BC": {"pattern": "bitcomp"},
               "URBx": {"pattern": "urb", "dims": [0]}, "URBy": {"pattern": "urb", "dims": [1]},
               "S2": {"pattern": "swap2"}, "DCR": {"pattern": "dcr"}}
HX_LABELS = {"dor": "DOR", "valiant": "VAL", "ugal": "UGAL", "clos-ad": "Clos-AD",
             "dimwar": "DimWAR", "omniwar": "OmniWAR"}


def _percent(statement: str) -> float | None:
    """The paper's statement as a fraction when it is a number ("25.0%", "~50%"), else None
    ("high", "poor": nothing to draw)."""
    s = statement.lstrip("~").rstrip("%")
    try:
        return float(s) / 100 if statement.endswith("%") and not statement.startswith("<") else None
    except ValueError:
        return None


def hx_paper_targets(W: int, T: int) -> dict[str, dict[str, str]]:
    """The paper's statements (docs/targets.md HX-R1..R7) per pattern and routing, for W-wide
    dimensions and T terminals per router (the paper: W = T = 8; its 12.5 % is 1/T, its
    1.56 % for DCR is 1/(W·T), its 50 % the bisection)."""
    t, wt = f"{100 / T:.1f}%", f"{100 / (W * T):.2f}%"
    return {"UR": {"DOR": "~100%", "VAL": "50%", "UGAL": "high", "Clos-AD": "high", "DimWAR": "high",
                   "OmniWAR": "highest"},
            "BC": {"DOR": t, "VAL": "50%", "UGAL": "~50%", "Clos-AD": "~50%", "DimWAR": "~50%",
                   "OmniWAR": "~50%"},
            "URBx": {"DOR": t, "VAL": "50%", "UGAL": "~50%", "Clos-AD": "~50%", "DimWAR": "~50%",
                     "OmniWAR": "~50%"},
            "URBy": {"DOR": t, "VAL": "50%", "UGAL": t, "Clos-AD": t, "DimWAR": "50%", "OmniWAR": "50%"},
            "S2": {"DOR": f"{100 * 2 / T:.1f}%" if T > 2 else "-", "VAL": "50%", "UGAL": "50%",
                   "Clos-AD": "mostly full", "DimWAR": "100%", "OmniWAR": "100%"},
            "DCR": {"DOR": wt, "VAL": "50%", "UGAL": "< 50%", "Clos-AD": "< 50%", "DimWAR": "poor",
                    "OmniWAR": "50%"}}


def hyperx_dimwar(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    base = _load("hyperx-dimwar")
    over = base.pop("sweep")["over"]
    algs = list(over["routing.algorithm"])
    if quick:  # the paper's 8x8x8 with 8 terminals is 4,096 nodes: 4x4x4 with 4 (T = W, as the paper) runs in minutes
        base["topology"].update(widths=[4, 4, 4], terminals=4)
        base["sim"].update(warmup=2000, measure=2000)
    W, T = base["topology"]["widths"][0], base["topology"]["terminals"]
    pr = _Progress("hyperx-dimwar", len(HX_PATTERNS), progress)
    cells: dict[tuple[str, str], float] = {}
    stalls = 0
    for label, traffic in HX_PATTERNS.items():
        cfg = _with(base, traffic={k: v for k, v in traffic.items()})
        sw = flitsim.sweep(cfg, {"routing.algorithm": algs}, backend=backend, threads=threads,
                           progress=pr.batches(label))
        for p, r in zip(sw.points, sw.results):
            cells[(label, HX_LABELS[p["routing.algorithm"]])] = r.accepted
            stalls += r.slot_stalls
        pr.step(label)
    pr.close()
    names = [HX_LABELS[a] for a in algs]
    targets = hx_paper_targets(W, T)
    rows = [[pat] + [f"{_pct(cells[(pat, n)])} ({targets[pat][n]})" for n in names] for pat in HX_PATTERNS]
    table = (f"Accepted throughput at full offered load, {'x'.join(map(str, base['topology']['widths']))} "
             f"HyperX, {T} terminals per router, router.preset = \"{base['router'].get('preset', 'flitsim')}\" "
             "(in parentheses: the paper's statement, scaled to this size)\n\n" +
             _md(["traffic"] + names, rows) + _stall_note(stalls))
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 2.6))
    _full_load_bars(ax, colours, HX_PATTERNS, names, lambda p, n: cells[(p, n)], str,
                    marks={"paper (scaled)": lambda p, n: _percent(targets[p][n])})
    return _finish(fig, plt, st, out, "hyperx-dimwar", table)
