"""The panels of a figure: curves (latency, throughput or any field vs x), saturation bars and channel utilisation bars."""
from __future__ import annotations

import numpy as np

from .series import _is_number, _point, _saturation
from .style import METRICS, PlotOptions, key_words, value_words


_PANEL_TITLES = {"latency": "Latency vs offered load", "throughput": "Accepted vs offered load",
                 "saturation": "Saturation load", "utilisation": "Channel utilisation by class"}


def _draw_curves(ax, panel: str, groups, colours, markers, opts: PlotOptions) -> bool:
    """Latency, throughput or a chosen field against x, one line per series; grouped bars
    when x is categorical (routing names, patterns: no line joins categories). Returns
    whether this panel drew saturated points hollow (so its legend explains them)."""
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
    drew_hollow, top = False, 0.0
    numeric_x = opts.x in ("offered", "load")
    first = next(iter(groups.values()))
    if not numeric_x and not all(_is_number(xv) for xv, _ in first):
        return _draw_bars(ax, attr, ci_attr, ylabel, groups, colours, opts, cut, hollow, panel)
    for label, glist in groups.items():
        xs, ys, es, sat = [], [], [], []
        for i, (xv, rs) in enumerate(glist):
            s = any(bool(r.saturated) for r in rs)
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
            drew_hollow = True
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
    return drew_hollow


def _draw_bars(ax, attr, ci_attr, ylabel, groups, colours, opts: PlotOptions, cut: bool,
               hollow: bool, panel: str) -> bool:
    """Grouped bars for a categorical x: a group per category, a bar per series, 95 % error
    bars; a saturated point is hatched (or left out of a latency panel cutting them)."""
    labels = list(groups)
    cats: list = []
    for glist in groups.values():
        for xv, _ in glist:
            if xv not in cats:
                cats.append(xv)
    width = 0.8 / len(labels)
    drew_hollow = False
    for j, lb in enumerate(labels):
        by_x = {repr(xv): rs for xv, rs in groups[lb]}
        for i, xv in enumerate(cats):
            rs = by_x.get(repr(xv))
            if not rs:
                continue
            s = any(bool(r.saturated) for r in rs)
            if s and cut:
                continue
            y, e = _point(rs, attr, ci_attr if opts.errorbars else None)
            x = i + (j - (len(labels) - 1) / 2) * width
            mark = s and hollow
            drew_hollow |= mark
            ax.bar(x, y, width, color="white" if mark else colours[lb], edgecolor=colours[lb],
                   hatch="//" if mark else None, lw=0.6, label=lb if i == 0 else None)
            if opts.errorbars and np.isfinite(e):
                ax.errorbar([x], [y], yerr=[e], fmt="none", ecolor="black", elinewidth=0.7,
                            capsize=1.5)
    ax.set_xticks(range(len(cats)), [value_words(opts.x, xv, opts.labels).split(" = ")[-1]
                                     for xv in cats],
                  rotation=30 if len(cats) > 4 else 0, ha="right" if len(cats) > 4 else "center")
    ax.set_xlabel(key_words(opts.x, opts.labels))
    ax.set_ylabel(opts.labels.get(f"y:{panel}", ylabel))
    if opts.logy and panel != "throughput":
        ax.set_yscale("log")
    if opts.ylim:
        ax.set_ylim(*opts.ylim)
    elif not opts.logy:
        ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)
    return drew_hollow


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
