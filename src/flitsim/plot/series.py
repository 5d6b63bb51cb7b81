"""Finished points grouped into named series, with seed means, 95 % intervals and each series' saturation load."""
from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from .style import REPLICA_KEY, value_words


def _ci(values: list[float]) -> float:
    """Half-width of the 95 % Student-t interval of the mean of `values`."""
    from ..results import _t_quantile
    xs = np.array([v for v in values if math.isfinite(v)], dtype=float)
    if xs.size < 2:
        return float("nan")
    return _t_quantile(0.95, xs.size - 1) * float(xs.std(ddof=1)) / xs.size ** 0.5


def _point(rs: list, attr: str, ci_attr: str | None) -> tuple[float, float]:
    """(mean, 95 % half-width) of `attr` over the seeds `rs`; one seed: its batch means."""
    vals = [float(getattr(r, attr)) for r in rs]
    finite = [v for v in vals if math.isfinite(v)]
    mean = float(np.mean(finite)) if finite else float("nan")
    if len(rs) > 1:
        return mean, _ci(vals)
    return mean, float(getattr(rs[0], ci_attr)) if ci_attr else float("nan")


def series(points: Sequence[dict], results: Sequence[Any], x: str = "offered",
           series_keys: Sequence[str] | None = None, labels: dict | None = None
           ) -> "OrderedDict[str, list[tuple[Any, list]]]":
    """Group finished points: series label -> [(x value, Results of that point's seeds)],
    sorted by x (the configured load for x = offered or load). A series is one combination of `series_keys` (default: every swept
    key other than x, traffic.load and sim.seed), named in words."""
    xkey = "traffic.load" if x in ("offered", "load") else x
    swept = [k for k in (points[0] if points else {}) if k not in (xkey, REPLICA_KEY)]
    if x not in ("offered", "load") and points and x not in points[0]:
        raise ValueError(f"x: {x!r} is not a swept key of this file (swept: "
                         f"{', '.join(points[0]) if points else 'none'}; or offered, load)")
    keys = list(series_keys) if series_keys is not None else [k for k in swept if k != "traffic.load"]
    for k in keys:
        if k not in swept:
            raise ValueError(f"series: {k!r} is not a swept key of this file")
    groups: "OrderedDict[str, OrderedDict[str, tuple[Any, list]]]" = OrderedDict()
    for p, r in zip(points, results):
        if r is None:
            continue
        label = ", ".join(value_words(k, p[k], labels) for k in keys) or "all"
        xv = float(r.load) if xkey == "traffic.load" else p[xkey]
        slot = groups.setdefault(label, OrderedDict()).setdefault(repr(xv), (xv, []))
        slot[1].append(r)
    out: "OrderedDict[str, list[tuple[Any, list]]]" = OrderedDict()
    for label, by_x in groups.items():
        vals = list(by_x.values())
        if all(_is_number(xv) for xv, _ in vals):
            vals.sort(key=lambda t: t[0])
        out[label] = vals
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _saturation(groups: list[list]) -> tuple[float, str]:
    """(configured load, kind) of a series: the highest load below its first saturated point
    ('knee'); the highest load when none saturates ('not reached'); 0 when even the lowest is
    saturated ('below range')."""
    best = None
    for _, rs in groups:
        if any(r.saturated for r in rs):
            return (best, "knee") if best is not None else (float(rs[0].load), "below range")
        best = float(rs[0].load)
    return float(best), "not reached"
