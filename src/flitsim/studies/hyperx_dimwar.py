"""Study 5 (McDonald et al., SC 2019): accepted throughput at full load of six routings on a 3-D HyperX."""
from __future__ import annotations

import math
import pathlib

from .common import (DOUBLE_COLUMN, STUDY_SEEDS, Outcome, _finish, _full_load_bars, _load, _md, _mean_ci, _pct_ci, _plt,
                     _Progress, _stall_note, _with)
from .hyperx_orderings import hx_orderings, orderings_md


# The paper's patterns (Table 3); URB's targeted dimension moves with the pattern.
HX_PATTERNS = {"UR": {"pattern": "uniform"}, "BC": {"pattern": "bitcomp"},
               "URBx": {"pattern": "urb", "dims": [0]}, "URBy": {"pattern": "urb", "dims": [1]},
               "S2": {"pattern": "swap2"}, "DCR": {"pattern": "dcr"}}

# The paper's six routings as it meant them ([routing] keys per label). UGAL is the paper's
# source-adaptive UGAL on HyperX, "two phases of dimension order routing" (P4:L56): `ugal-dor`,
# whose minimal candidate is the DOR route judged by its first (dimension-order) hop. Clos-AD
# is source-adaptive with DOR phases already (cuda/routing/hyperx_closad.cuh). DimWAR and
# OmniWAR sense the VCs of the packet's VC class only (`sensing = "class"`), as SuperSim's
# HyperX routings do with a VC-resolution congestion sensor (docs/routing.md "What the WARs
# sense"); the table's reference columns below keep the port sensing beside them.
HX_ROUTINGS = {"DOR": {"algorithm": "dor"}, "VAL": {"algorithm": "valiant"},
               "UGAL": {"algorithm": "ugal-dor"}, "Clos-AD": {"algorithm": "clos-ad"},
               "DimWAR": {"algorithm": "dimwar", "sensing": "class"},
               "OmniWAR": {"algorithm": "omniwar", "sensing": "class"}}
# Table-only columns: what the choices above replace, measured in the same runs' conditions.
HX_REFERENCE = {"UGAL (table)": {"algorithm": "ugal"},   # the generic table UGAL: any minimal route
                "DimWAR (port)": {"algorithm": "dimwar", "sensing": "port"},
                "OmniWAR (port)": {"algorithm": "omniwar", "sensing": "port"},
                # DAL (Ahn et al., P4's related adaptive routing; docs/routing.md), sensing as the WARs
                "DAL": {"algorithm": "dal", "sensing": "class"}}
HX_LABELS = {"dor": "DOR", "valiant": "VAL", "ugal-dor": "UGAL", "ugal": "UGAL (table)", "clos-ad": "Clos-AD",
             "dimwar": "DimWAR", "omniwar": "OmniWAR", "dal": "DAL"}

# sim.drain_limit in multiples of Valiant's zero-load latency (hx_valiant_zero_load): room for
# the measured packets of a run below saturation to arrive, whatever the channel latencies.
HX_DRAIN_FACTOR = 4


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


def hx_bounds(W: int, T: int) -> dict[str, dict[str, float]]:
    """The bounds the text cites, per pattern and routing: DOR's channel bounds (1/T on BC and
    URB: T nodes share the one link a dimension's bisection offers them; 2/T on S2; 1/(W·T) on
    DCR, W·T nodes on one link) and VAL's 1/2 (every packet crosses the network twice)."""
    dor = {"BC": 1 / T, "URBx": 1 / T, "URBy": 1 / T, "S2": min(1.0, 2 / T), "DCR": 1 / (W * T)}
    return {p: {**({"DOR": dor[p]} if p in dor else {}), "VAL": 0.5} for p in HX_PATTERNS}


def hx_valiant_zero_load(cfg: dict) -> int:
    """Zero-load latency (cycles) of Valiant's longest route on this HyperX, from the config:
    2N router-to-router hops (N dimensions, DOR-like phases of N hops each at most) through
    2N + 1 routers, the two terminal channels and the largest packet's serialisation. A
    router takes router.latency cycles, one more with output queues (cioq, ioq) and one more with
    separate VC and switch allocation (docs/configuration.md [router])."""
    from ..config_keys import resolve
    r = resolve(cfg)
    router, ch, tr = r["router"], r["channels"], r["traffic"]
    hops = 2 * len(r["topology"]["widths"])
    per_router = (router["latency"] + (router["architecture"] != "iq") +
                  (router["va_sa"] == "separate"))
    terminal = ch.get("terminal", ch["latency"])
    largest = max(tr.get("packet_sizes") or [tr["packet_size"]])
    return (hops * ch["latency"] + (hops + 1) * per_router + 2 * terminal + router["injection_delay"] +
            largest - 1)


def _groups(routings: dict[str, dict]) -> dict[tuple, list[str]]:
    """Routings that differ only in routing.algorithm share one sweep: {other keys: labels}."""
    out: dict[tuple, list[str]] = {}
    for label, keys in routings.items():
        rest = tuple(sorted((k, v) for k, v in keys.items() if k != "algorithm"))
        out.setdefault(rest, []).append(label)
    return out


def hyperx_dimwar(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    base = _load("hyperx-dimwar")
    base.pop("sweep")
    if quick:  # the paper's 8x8x8 with 8 terminals is 4,096 nodes: 4x4x4 with 4 (T = W, as the paper) runs in minutes
        base["topology"].update(widths=[4, 4, 4], terminals=4)
        base["sim"].update(warmup=2000, measure=2000)
    zero_load = hx_valiant_zero_load(base)
    base["sim"]["drain_limit"] = HX_DRAIN_FACTOR * zero_load
    W, T = base["topology"]["widths"][0], base["topology"]["terminals"]
    routings = {**HX_ROUTINGS, **HX_REFERENCE}
    pr = _Progress("hyperx-dimwar", len(HX_PATTERNS), progress)
    seeds: dict[tuple[str, str], list[float]] = {}
    stalls = 0
    for label, traffic in HX_PATTERNS.items():
        for rest, labels in _groups(routings).items():
            cfg = _with(base, traffic=dict(traffic), routing=dict(rest))
            algs = {routings[lb]["algorithm"]: lb for lb in labels}
            sw = flitsim.sweep(cfg, {"routing.algorithm": list(algs), "sim.seed": list(STUDY_SEEDS)},
                               backend=backend, threads=threads, progress=pr.batches(label))
            for p, r in zip(sw.points, sw.results):
                seeds.setdefault((label, algs[p["routing.algorithm"]]), []).append(r.accepted)
                stalls += r.slot_stalls
        pr.step(label)
    pr.close()
    cells = {k: _mean_ci(v) for k, v in seeds.items()}   # (mean, 95 % half-width) over the seeds
    names, refs = list(HX_ROUTINGS), list(HX_REFERENCE)
    targets = hx_paper_targets(W, T)
    rows = [[pat] + [f"{_pct_ci(cells[(pat, n)])} ({targets[pat][n]})" for n in names] +
            [_pct_ci(cells[(pat, n)]) for n in refs] for pat in HX_PATTERNS]
    means = {k: v[0] for k, v in cells.items()}
    table = (f"Accepted throughput at full offered load (offered 1.0, not a saturation search), "
             f"{'x'.join(map(str, base['topology']['widths']))} HyperX, {T} terminals per router, "
             f"router.preset = \"{base['router'].get('preset', 'flitsim')}\" (in parentheses: the paper's "
             "statement, scaled to this size; the last four columns, for reference: the generic table "
             "UGAL, the WARs with port sensing, and DAL with class sensing)\n\n" +
             _md(["traffic"] + names + refs, rows) +
             f"\nCells: mean ± 95 % Student-t half-width over seeds {', '.join(map(str, STUDY_SEEDS))}; "
             f"sim.drain_limit = {HX_DRAIN_FACTOR} × {zero_load:,} cycles (Valiant's zero-load latency "
             "on its longest route).\n" + _stall_note(stalls) +
             "\nThe paper's orderings (docs/targets.md), from the means above:\n\n" +
             orderings_md(hx_orderings(means, W, T)))
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(DOUBLE_COLUMN, 2.6))
    _full_load_bars(ax, colours, HX_PATTERNS, names, lambda p, n: cells[(p, n)][0], str,
                    marks={"paper (scaled)": lambda p, n: _percent(targets[p][n])},
                    error=lambda p, n: cells[(p, n)][1] if math.isfinite(cells[(p, n)][1]) else 0.0)
    _bound_marks(ax, W, T, names)
    return _finish(fig, plt, st, out, "hyperx-dimwar", table)


def _bound_marks(ax, W: int, T: int, names: list[str]) -> None:
    """The bounds the text cites (hx_bounds) as triangles over the bars they bound: they often
    equal the paper's value, whose line would hide a second line at the same height."""
    bounds = hx_bounds(W, T)
    width = 0.8 / len(names)   # as _full_load_bars places the bars
    pts = [(i + (j - (len(names) - 1) / 2) * width, 100 * bounds[p][n])
           for i, p in enumerate(HX_PATTERNS) for j, n in enumerate(names) if n in bounds[p]]
    ax.plot([x for x, _ in pts], [y for _, y in pts], ls="none", marker="v", ms=3.5, color="black",
            markerfacecolor="white", markeredgewidth=0.8, label="bound (DOR 1/T, 2/T, 1/(W·T); VAL 1/2)")
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.02))
