"""Plots of result files (matplotlib, optional: ``pip install 'flitsim[plot]'``).

``plot_file(path, output, **options)`` draws a results or sweep file. By default two panels
side by side: packet latency vs offered load and accepted vs offered load, one curve per
*series* (a combination of the swept keys other than the x key and ``sim.seed``), named in
words from the swept values ("UGAL", "p = 4"). Options (all also on ``flitsim plot``):

- ``panels``: any of ``latency``, ``throughput``, ``saturation`` (bars, series colours),
  ``utilisation`` (channel use by class at each series' highest sustained load);
- ``metric``: the latency statistic, ``mean``, ``p50``, ``p90``, ``p99`` or ``p99.9``;
- ``x``: ``offered`` (measured, default), ``load`` (configured) or any swept key;
  ``y``: one panel of any Result field (``hops_mean``, ``nonminimal_fraction``, ...) vs x;
- ``saturated``: ``cut`` (default: saturated points leave the latency panel, whose values
  only measure how long the run lasted), ``mark`` (drawn hollow) or ``show``;
- error bars: 95 % Student-t intervals over seeds when a point has several, else the run's
  own batch-means interval (mean latency, throughput); ``errorbars=False`` drops them;
- ``labels`` (``{key or value: words}``), ``title``, ``xlim``/``ylim``, ``size`` (inches),
  ``logy``, ``fmt`` (png, pdf, svg; default from the suffix) and ``style="paper"``: a
  single-column figure with 8-9 pt fonts, colour-blind-safe colours with distinct markers,
  no panel titles and 300 dpi bitmaps / embedded TrueType in PDFs.
"""
from __future__ import annotations

import math
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

__all__ = ["plot_file", "plot_results", "series", "PlotOptions", "PlotUnavailable",
           "MATPLOTLIB_HINT", "METRICS", "PANELS"]

MATPLOTLIB_HINT = ("plots need matplotlib, which is not installed; install it with "
                   "`pip install 'flitsim[plot]'` (or `pip install matplotlib`)")

# Latency statistic -> (Result attribute, words for the axis).
METRICS = {"mean": ("latency_mean", "mean"), "p50": ("latency_p50", "median"),
           "p90": ("latency_p90", "90th-percentile"), "p99": ("latency_p99", "99th-percentile"),
           "p99.9": ("latency_p999", "99.9th-percentile")}
PANELS = ("latency", "throughput", "saturation", "utilisation")
SATURATED = ("cut", "mark", "show")
FORMATS = ("png", "pdf", "svg")
REPLICA_KEY = "sim.seed"

# Words for keys and values in legends and axes (anything else: the key's last part).
KEY_WORDS = {
    "traffic.load": "offered load (flits/node/cycle)", "offered": "offered load (flits/node/cycle)",
    "load": "configured load (flits/node/cycle)", "accepted": "accepted load (flits/node/cycle)",
    "routing.algorithm": "routing", "traffic.pattern": "traffic", "topology.kind": "topology",
    "router.vcs": "VCs", "router.buffer": "buffer (flits)", "router.latency": "router latency",
    "traffic.packet_size": "packet size (flits)", "sim.seed": "seed",
    "routing.cost": "UGAL cost", "routing.valiant": "Valiant intermediates",
    "hops_mean": "mean hops", "nonminimal_fraction": "non-minimal packets (fraction)",
    "extra_hops_mean": "extra hops per packet", "network_latency_mean": "mean network latency (cycles)",
    "fairness": "Jain fairness of accepted throughput",
}
VALUE_WORDS = {
    "min": "MIN", "ugal": "UGAL", "ugal-g": "UGAL-G", "valiant": "Valiant", "par": "PAR",
    "dor": "DOR", "dimwar": "DimWAR", "omniwar": "OmniWAR", "clos-ad": "Clos-AD",
    "updown": "up*/down*", "booksim": "BookSim cost", "uniform": "uniform",
    "bitcomp": "bit complement", "worst-case": "worst case", "tornado": "tornado",
}
# Keys whose values name themselves ("UGAL", not "routing = UGAL").
SELF_NAMING = ("routing.algorithm", "traffic.pattern", "topology.kind", "routing.cost")

# Okabe & Ito's colour-blind-safe palette, with a marker each for print in grey.
PAPER_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                 "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


class PlotUnavailable(ImportError):
    """matplotlib is missing."""


@dataclass
class PlotOptions:
    panels: Sequence[str] = ("latency", "throughput")
    metric: str = "mean"
    x: str = "offered"
    y: str | None = None
    series_keys: Sequence[str] | None = None
    labels: dict = field(default_factory=dict)
    title: str | None = None
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    size: tuple[float, float] | None = None
    logy: bool = False
    saturated: str = "cut"
    errorbars: bool = True
    style: str = "default"
    fmt: str | None = None

    def check(self) -> None:
        bad = [p for p in self.panels if p not in PANELS]
        if bad or not self.panels:
            raise ValueError(f"panels: each must be one of {', '.join(PANELS)}, got {list(self.panels)}")
        if self.metric not in METRICS:
            raise ValueError(f"metric: must be one of {', '.join(METRICS)}, got {self.metric!r}")
        if self.saturated not in SATURATED:
            raise ValueError(f"saturated: must be one of {', '.join(SATURATED)}, got {self.saturated!r}")
        if self.style not in ("default", "paper"):
            raise ValueError(f"style: must be default or paper, got {self.style!r}")
        if self.fmt is not None and self.fmt not in FORMATS:
            raise ValueError(f"format: must be one of {', '.join(FORMATS)}, got {self.fmt!r}")
        for name in ("xlim", "ylim"):
            lim = getattr(self, name)
            if lim is not None and not (len(lim) == 2 and lim[0] < lim[1]):
                raise ValueError(f"{name}: needs LOW < HIGH, got {lim}")
        if self.size is not None and not (len(self.size) == 2 and min(self.size) > 0):
            raise ValueError(f"size: needs WIDTH,HEIGHT > 0 inches, got {self.size}")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(MATPLOTLIB_HINT) from None
    matplotlib.use("Agg", force=True)  # files only, never a display
    import matplotlib.pyplot as plt
    return plt


def _value_text(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return "x".join(_value_text(x) for x in v)
    return str(v)


def key_words(key: str, labels: dict | None = None) -> str:
    labels = labels or {}
    if key in labels:
        return labels[key]
    return KEY_WORDS.get(key, key.rsplit(".", 1)[-1].replace("_", " "))


def value_words(key: str, value: Any, labels: dict | None = None) -> str:
    labels = labels or {}
    text = _value_text(value)
    for k in (f"{key}={text}", text):
        if k in labels:
            return labels[k]
    if key in SELF_NAMING:
        return VALUE_WORDS.get(text, text)
    return f"{key_words(key, labels)} = {text}"


def _ci(values: list[float]) -> float:
    """Half-width of the 95 % Student-t interval of the mean of `values`."""
    from .results import _t_quantile
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


def _style(plt, opts: PlotOptions) -> dict:
    if opts.style == "paper":
        plt.rcParams.update({
            "font.size": 8, "axes.labelsize": 8, "legend.fontsize": 7, "xtick.labelsize": 7,
            "ytick.labelsize": 7, "axes.linewidth": 0.6, "lines.linewidth": 1.1,
            "lines.markersize": 4.5, "lines.markeredgewidth": 0.8, "legend.frameon": False, "pdf.fonttype": 42,
            "ps.fonttype": 42, "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
            "axes.spines.top": False, "axes.spines.right": False,
            "font.family": "serif", "mathtext.fontset": "dejavuserif",
        })
        return dict(colours=PAPER_COLOURS, panel_size=(2.4, 2.0), dpi=300, titles=False)
    plt.rcParams.update({"savefig.bbox": "tight"})
    return dict(colours=[c["color"] for c in plt.rcParams["axes.prop_cycle"]],
                panel_size=(5.0, 3.8), dpi=130, titles=True)


def plot_results(points: Sequence[dict], results: Sequence[Any], output: str | os.PathLike,
                 options: PlotOptions | None = None, **kw) -> str:
    """Draw the chosen panels for these points/results into ``output`` and return its path.
    Options: a PlotOptions or its fields as keywords (see the module docstring)."""
    opts = options or PlotOptions(**kw)
    if options is not None and kw:
        raise TypeError("plot_results: pass options or keywords, not both")
    opts.check()
    plt = _pyplot()
    groups = series(points, results, opts.x, opts.series_keys, opts.labels)
    if not groups:
        raise ValueError("nothing to plot: no finished points")
    panels = [f"y:{opts.y}"] if opts.y else list(opts.panels)
    with plt.rc_context():
        st = _style(plt, opts)
        w, h = st["panel_size"]
        size = opts.size or (w * len(panels), h)
        fig, axes = plt.subplots(1, len(panels), figsize=size, squeeze=False, layout="constrained")
        colours = {label: st["colours"][i % len(st["colours"])] for i, label in enumerate(groups)}
        markers = {label: MARKERS[i % len(MARKERS)] for i, label in enumerate(groups)}
        any_saturated = False
        for ax, panel in zip(axes[0], panels):
            if panel == "saturation":
                _draw_saturation(ax, groups, colours, opts)
            elif panel == "utilisation":
                _draw_utilisation(ax, groups, colours, opts)
            else:
                any_saturated |= _draw_curves(ax, panel, groups, colours, markers, opts)
            if st["titles"]:
                ax.set_title(_PANEL_TITLES.get(panel, ""), fontsize=10)
        first_curve = next((ax for ax, p in zip(axes[0], panels)
                            if p not in ("saturation", "utilisation")), None)
        if first_curve is not None and len(groups) > 1 or (first_curve is not None and any_saturated):
            # Every series, also one whose points were all cut from this panel.
            from matplotlib.lines import Line2D
            names = list(groups)
            handles = [Line2D([], [], color=colours[lb], marker=markers[lb]) for lb in names]
            if any_saturated and opts.saturated != "show":
                handles.append(Line2D([], [], ls="", marker="o", mfc="none", mec="grey"))
                names.append("saturated")
            keys = opts.series_keys if opts.series_keys is not None else [
                k for k in points[0] if k not in ("traffic.load", REPLICA_KEY, opts.x)]
            title = key_words(keys[0], opts.labels) if len(keys) == 1 else None
            first_curve.legend(handles, names, title=title, loc="best")
        if opts.title:
            fig.suptitle(opts.title)
        output = os.fspath(output)
        fig.savefig(output, dpi=st["dpi"], format=opts.fmt)
        plt.close(fig)
    return output


_PANEL_TITLES = {"latency": "Latency vs offered load", "throughput": "Accepted vs offered load",
                 "saturation": "Saturation load", "utilisation": "Channel utilisation by class"}


def _draw_curves(ax, panel: str, groups, colours, markers, opts: PlotOptions) -> bool:
    """Latency, throughput or a chosen field against x, one line per series. Returns whether
    some point was saturated."""
    if panel == "latency":
        attr, ci_attr = METRICS[opts.metric][0], "latency_mean_ci95" if opts.metric == "mean" else None
        ylabel = (f"{METRICS[opts.metric][1]} packet latency (cycles)" if opts.style != "paper"
                  else f"{'mean' if opts.metric == 'mean' else opts.metric} latency (cycles)")
    elif panel == "throughput":
        attr, ci_attr = "accepted", "accepted_ci95"
        ylabel = key_words("accepted", opts.labels) if opts.style != "paper" or \
            "accepted" in opts.labels else "accepted (flits/node/cycle)"
    else:
        attr, ci_attr = panel[2:], None
        ylabel = key_words(attr, opts.labels)
    cut = panel == "latency" and opts.saturated == "cut"
    hollow = opts.saturated != "show"
    saw_saturated, top = False, 0.0
    numeric_x = opts.x in ("offered", "load")
    for label, glist in groups.items():
        xs, ys, es, sat = [], [], [], []
        for i, (xv, rs) in enumerate(glist):
            s = any(bool(r.saturated) for r in rs)
            saw_saturated |= s
            if s and cut:
                continue
            y, e = _point(rs, attr, ci_attr if opts.errorbars else None)
            if not opts.errorbars:
                e = float("nan")
            if opts.x == "offered":    # measured offered load, seed-averaged
                xv = float(np.mean([r.offered for r in rs]))
            elif not _is_number(xv):   # categories (e.g. routing names): evenly spaced
                xv = i
            xs.append(xv), ys.append(y), es.append(e), sat.append(s)
        if not xs:
            continue
        c, m = colours[label], markers[label]
        ax.plot(xs, ys, "-", color=c, label=label)
        ok = [not s or not hollow for s in sat]
        ax.plot([x for x, o in zip(xs, ok) if o], [y for y, o in zip(ys, ok) if o], ls="",
                marker=m, color=c)
        if hollow and not all(ok):
            ax.plot([x for x, o in zip(xs, ok) if not o], [y for y, o in zip(ys, ok) if not o],
                    ls="", marker=m, mfc="none", mec=c)
        errs = np.array(es, dtype=float)
        if np.isfinite(errs).any():
            ax.errorbar(xs, ys, yerr=np.where(np.isfinite(errs), errs, 0.0), fmt="none",
                        ecolor=c, elinewidth=0.8, capsize=2)
        top = max(top, max(xs) if numeric_x else 0)
    if panel == "throughput" and numeric_x:
        ax.plot([0, top], [0, top], ":", color="grey", lw=0.8, zorder=0)
    glist = next(iter(groups.values()))
    if not all(_is_number(xv) for xv, _ in glist):
        ax.set_xticks(range(len(glist)), [value_words(opts.x, xv, opts.labels).split(" = ")[-1]
                                          for xv, _ in glist])
    xlabel = key_words(opts.x, opts.labels)
    if opts.style == "paper" and opts.x == "offered" and opts.x not in opts.labels:
        xlabel = "offered (flits/node/cycle)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel(opts.labels.get(f"y:{panel}", ylabel))
    if opts.logy and panel != "throughput":   # latencies span decades; throughput does not
        ax.set_yscale("log")
    if opts.xlim:
        ax.set_xlim(*opts.xlim)
    if opts.ylim and panel != "throughput" or (opts.ylim and opts.y):
        ax.set_ylim(*opts.ylim)
    elif panel in ("latency",) and not opts.logy:
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3, lw=0.5)
    return saw_saturated


def _draw_saturation(ax, groups, colours, opts: PlotOptions) -> None:
    labels = list(groups)
    vals = [_saturation(groups[lb]) for lb in labels]
    xs = np.arange(len(labels))
    for x, lb, (v, kind) in zip(xs, labels, vals):
        ax.bar(x, v, 0.65, color=colours[lb], hatch="//" if kind != "knee" else None,
               edgecolor="white" if kind == "knee" else "black", lw=0.5)
        note = {"knee": f"{v:.2f}", "not reached": f"≥{v:.2f}", "below range": f"<{v:.2f}"}[kind]
        ax.text(x, v, note, ha="center", va="bottom", fontsize="small")
    ax.set_xticks(xs, labels, rotation=30 if len(labels) > 3 else 0,
                  ha="right" if len(labels) > 3 else "center")
    ax.set_ylabel("saturation load (flits/node/cycle)")
    ax.set_ylim(0, min(1.05, max(v for v, _ in vals) * 1.18 + 1e-9))
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)


def _draw_utilisation(ax, groups, colours, opts: PlotOptions) -> None:
    labels = list(groups)
    rows = []
    for lb in labels:
        ok = [rs for _, rs in groups[lb] if not any(r.saturated for r in rs)] or [groups[lb][0][1]]
        rs = ok[-1]
        util: dict[str, list[float]] = {}
        for r in rs:
            for c, u in r.channel_utilisation().items():
                util.setdefault(c, []).append(u)
        rows.append({c: float(np.mean(v)) for c, v in util.items()})
    classes = list(dict.fromkeys(c for row in rows for c in row))
    width = 0.8 / max(len(classes), 1)
    hatches = ["", "//", "..", "xx", "\\\\", "oo"]
    for j, c in enumerate(classes):
        xs = np.arange(len(labels)) + (j - (len(classes) - 1) / 2) * width
        ax.bar(xs, [row.get(c, 0.0) for row in rows], width, label=c,
               color=[colours[lb] for lb in labels], hatch=hatches[j % len(hatches)],
               edgecolor="black", lw=0.4)
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 3 else 0,
                  ha="right" if len(labels) > 3 else "center")
    ax.set_ylabel("channel utilisation (flits/cycle)")
    ax.set_ylim(0, 1.05)
    if classes:
        from matplotlib.patches import Patch
        ax.legend([Patch(facecolor="white", edgecolor="black", hatch=hatches[j % len(hatches)])
                   for j in range(len(classes))], classes, title="channel class")
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)


def read_points(path: str | os.PathLike) -> tuple[list[dict], list]:
    """(points, results) of a results file (``flitsim run -o``) or a sweep file."""
    from . import hdf5
    path = os.fspath(path)
    if hdf5.is_sweep(path):
        sw = hdf5.read_sweep(path)
        return sw["points"], sw["results"]
    results = hdf5.read_results(path)
    return [{"traffic.load": r.load, "sim.seed": r.seed} for r in results], results


def plot_file(path: str | os.PathLike, output: str | os.PathLike | None = None,
              options: PlotOptions | None = None, **kw) -> str:
    """Plot a results file (``flitsim run -o``) or sweep file (``flitsim sweep -o``) into
    ``output`` (default: the input path with ``.png``, or with the ``fmt`` given). Returns
    the output path. Options: see the module docstring."""
    opts = options or PlotOptions(**kw)
    opts.check()
    _pyplot()  # fail early, before reading, when matplotlib is missing
    path = os.fspath(path)
    points, results = read_points(path)
    if output is None:
        output = os.path.splitext(path)[0] + "." + (opts.fmt or "png")
    return plot_results(points, results, output, opts)
