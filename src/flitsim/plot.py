"""Plots of result files (matplotlib, optional: ``pip install 'flitsim[plot]'``).

``plot_file(path)`` draws one PNG with four panels from a results or sweep file:
latency vs offered load and accepted vs offered load per series, the saturation load per
series (bars; only series that reach saturation), and channel utilisation by channel class.
A *series* is one combination of the swept keys other than ``traffic.load`` and
``sim.seed``; points of a series that differ only in seed are averaged.
"""
from __future__ import annotations

import json
import math
import os
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

__all__ = ["plot_file", "plot_results", "series", "PlotUnavailable", "MATPLOTLIB_HINT"]

MATPLOTLIB_HINT = ("plots need matplotlib, which is not installed; install it with "
                   "`pip install 'flitsim[plot]'` (or `pip install matplotlib`)")


class PlotUnavailable(ImportError):
    """matplotlib is missing."""


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(MATPLOTLIB_HINT) from None
    matplotlib.use("Agg", force=True)  # files only, never a display
    import matplotlib.pyplot as plt
    return plt


def series(points: Sequence[dict], results: Sequence[Any]) -> "OrderedDict[str, list[dict]]":
    """Group points into series (label -> rows sorted by configured load). Each row holds
    the seed-averaged offered, accepted, latency (mean, p99), saturated (any seed) and
    utilisation by class."""
    groups: "OrderedDict[str, OrderedDict[float, list]]" = OrderedDict()
    for p, r in zip(points, results):
        if r is None:
            continue
        label = ", ".join(f"{k}={_show(v)}" for k, v in p.items()
                          if k not in ("traffic.load", "sim.seed")) or "all"
        groups.setdefault(label, OrderedDict()).setdefault(float(r.load), []).append(r)
    out: "OrderedDict[str, list[dict]]" = OrderedDict()
    for label, by_load in groups.items():
        rows = []
        for load in sorted(by_load):
            rs = by_load[load]
            util: dict[str, list[float]] = {}
            for r in rs:
                for c, u in r.channel_utilisation().items():
                    util.setdefault(c, []).append(u)
            rows.append(dict(
                load=load,
                offered=float(np.mean([r.offered for r in rs])),
                accepted=float(np.mean([r.accepted for r in rs])),
                latency=_nanmean([r.latency_mean for r in rs]),
                latency_p99=_nanmean([r.latency_p99 for r in rs]),
                saturated=any(bool(r.saturated) for r in rs),
                utilisation={c: float(np.mean(v)) for c, v in util.items()},
            ))
        out[label] = rows
    return out


def _nanmean(xs: list[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return float(np.mean(xs)) if xs else float("nan")


def _show(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _saturation(rows: list[dict]) -> float | None:
    """Highest configured load of a series below its first saturated point; None when the
    series never saturates (or starts saturated)."""
    best = None
    for row in rows:
        if row["saturated"]:
            return best
        best = row["load"]
    return None


def plot_results(points: Sequence[dict], results: Sequence[Any], output: str | os.PathLike,
                 title: str | None = None) -> str:
    """Draw the four panels for these points/results into ``output`` (PNG, or any format
    matplotlib infers from the suffix) and return its path."""
    plt = _pyplot()
    groups = series(points, results)
    if not groups:
        raise ValueError("nothing to plot: no finished points")
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    ax_lat, ax_acc, ax_sat, ax_util = axes.ravel()
    top = 0.0
    for label, rows in groups.items():
        off = [r["offered"] for r in rows]
        ax_lat.plot(off, [r["latency"] for r in rows], "o-", label=label, ms=4)
        ax_acc.plot(off, [r["accepted"] for r in rows], "o-", label=label, ms=4)
        top = max(top, max(off))
    ax_lat.set(xlabel="offered load (flits/node/cycle)", ylabel="mean packet latency (cycles)",
               title="Latency vs offered load")
    ax_lat.set_yscale("log")
    ax_acc.plot([0, top], [0, top], ":", color="grey", lw=1, label="accepted = offered")
    ax_acc.set(xlabel="offered load (flits/node/cycle)",
               ylabel="accepted throughput (flits/node/cycle)", title="Accepted vs offered load")
    for ax in (ax_lat, ax_acc):
        ax.grid(True, alpha=0.3)
        if len(groups) <= 12:
            ax.legend(fontsize=7)

    sats = [(label, _saturation(rows)) for label, rows in groups.items()]
    sats = [(label, s) for label, s in sats if s is not None]
    if sats:
        ax_sat.bar(range(len(sats)), [s for _, s in sats], 0.6, color="tab:red", alpha=0.7)
        ax_sat.set_xlim(-0.8 if len(sats) > 1 else -1.5, len(sats) - 0.2 if len(sats) > 1
                        else 1.5)
        ax_sat.set_xticks(range(len(sats)), [label for label, _ in sats], rotation=30,
                          ha="right", fontsize=7)
        ax_sat.set(ylabel="saturation load (flits/node/cycle)",
                   title="Saturation (highest load before the first saturated point)")
    else:
        ax_sat.text(0.5, 0.5, "no series reaches saturation", ha="center", va="center",
                    transform=ax_sat.transAxes)
        ax_sat.set(title="Saturation", xticks=[], yticks=[])

    # Utilisation by class at each series' highest sustained point (else its lowest load).
    classes = list(dict.fromkeys(c for rows in groups.values() for r in rows
                                 for c in r["utilisation"]))
    width = 0.8 / max(len(classes), 1)
    for j, c in enumerate(classes):
        vals = []
        for rows in groups.values():
            ok = [r for r in rows if not r["saturated"]] or rows[:1]
            vals.append(ok[-1]["utilisation"].get(c, 0.0))
        ax_util.bar(np.arange(len(groups)) + (j - (len(classes) - 1) / 2) * width, vals,
                    width, label=c)
    ax_util.set_xticks(range(len(groups)), list(groups), rotation=30, ha="right", fontsize=7)
    ax_util.set(ylabel="flits/cycle per channel", ylim=(0, 1.05),
                title="Channel utilisation by class (highest sustained load)")
    ax_util.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    output = os.fspath(output)
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return output


def plot_file(path: str | os.PathLike, output: str | os.PathLike | None = None) -> str:
    """Plot a results file (``flitsim run -o``) or sweep file (``flitsim sweep -o``) into
    ``output`` (default: the input path with ``.png``). Returns the output path."""
    from . import hdf5
    _pyplot()  # fail early, before reading, when matplotlib is missing
    path = os.fspath(path)
    if hdf5.is_sweep(path):
        sw = hdf5.read_sweep(path)
        points, results = sw["points"], sw["results"]
    else:
        results = hdf5.read_results(path)
        points = [{"traffic.load": r.load, "sim.seed": r.seed} for r in results]
    if output is None:
        output = os.path.splitext(path)[0] + ".png"
    return plot_results(points, results, output, title=os.path.basename(path))
