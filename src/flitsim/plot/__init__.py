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

import os
from typing import Any, Sequence

# Figure assembly and file I/O live here; the vocabulary and looks in style.py, the
# grouping into series in series.py, the panels in panels.py. Their names stay
# importable from flitsim.plot, the public path.
from .panels import _PANEL_TITLES, _draw_curves, _draw_saturation, _draw_utilisation
from .series import _ci, _is_number, _point, _saturation, series  # noqa: F401
from .style import (FORMATS, KEY_WORDS, MARKERS, MATPLOTLIB_HINT, METRICS, PANELS,
                    PAPER_COLOURS, PAPER_WIDTHS, REPLICA_KEY, SATURATED, SELF_NAMING, VALUE_WORDS,
                    PlotOptions, PlotUnavailable, _pyplot, _style, _value_text, key_words,
                    value_words)  # noqa: F401

__all__ = ["plot_file", "plot_results", "series", "PlotOptions", "PlotUnavailable",
           "MATPLOTLIB_HINT", "METRICS", "PANELS"]


def plot_results(points: Sequence[dict], results: Sequence[Any], output: str | os.PathLike,
                 options: PlotOptions | None = None, **kw) -> str:
    """Draw the chosen panels for these points/results into ``output`` and return its path.
    Options: a PlotOptions or its fields as keywords (see the module docstring)."""
    opts = options or PlotOptions(**kw)
    if options is not None and kw:
        raise TypeError("plot_results: pass options or keywords, not both")
    opts.check()
    plt = _pyplot()
    if opts.traffic_class is not None:  # one traffic class's statistics in place of the totals
        from ..class_results import ClassView
        results = [ClassView(r, opts.traffic_class) if r is not None else None for r in results]
    groups = series(points, results, opts.x, opts.series_keys, opts.labels)
    if not groups:
        raise ValueError("nothing to plot: no finished points")
    panels = [f"y:{opts.y}"] if opts.y else list(opts.panels)
    with plt.rc_context():
        st = _style(plt, opts)
        w, h = st["panel_size"]
        if opts.style == "paper":   # the whole figure one column (3.5 in) or two (7.16 in) wide
            size = opts.size or (PAPER_WIDTHS[opts.columns], h)
        else:
            size = opts.size or (w * len(panels), h)
        fig, axes = plt.subplots(1, len(panels), figsize=size, squeeze=False, layout="constrained")
        colours = {label: st["colours"][i % len(st["colours"])] for i, label in enumerate(groups)}
        markers = {label: MARKERS[i % len(MARKERS)] for i, label in enumerate(groups)}
        hollow_in = {}   # panel axes -> whether it drew saturated points hollow
        for ax, panel in zip(axes[0], panels):
            if panel == "saturation":
                _draw_saturation(ax, groups, colours, opts)
            elif panel == "utilisation":
                _draw_utilisation(ax, groups, colours, opts)
            else:
                hollow_in[ax] = _draw_curves(ax, panel, groups, colours, markers, opts)
            if st["titles"]:
                ax.set_title(_PANEL_TITLES.get(panel, ""), fontsize=10)
        _few_seeds_note(fig, groups, opts)
        # The legend sits in the first curve panel that drew saturated points hollow (so its
        # "saturated" entry explains something it shows), else in the first curve panel.
        curve_axes = [ax for ax, p in zip(axes[0], panels) if p not in ("saturation", "utilisation")]
        first_curve = next((ax for ax in curve_axes if hollow_in[ax]),
                           curve_axes[0] if curve_axes else None)
        any_saturated = first_curve is not None and hollow_in[first_curve]
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


def _few_seeds_note(fig, groups, opts: PlotOptions) -> None:
    """Intervals from fewer than 3 seeds are wide and unreliable (t quantile 12.7 for 2):
    say so on the figure rather than let a reader take them at face value."""
    if not opts.errorbars:
        return
    counts = {len(rs) for glist in groups.values() for _, rs in glist}
    n = min(counts) if counts else 0
    if n == 2:
        fig.text(0.995, 0.005, "95 % t intervals over 2 seeds: too wide to read; run >= 3",
                 ha="right", va="bottom", fontsize="x-small", color="grey")
    elif n == 1:
        fig.text(0.995, 0.005, "one seed: intervals are the run's batch means",
                 ha="right", va="bottom", fontsize="x-small", color="grey")


def read_points(path: str | os.PathLike) -> tuple[list[dict], list]:
    """(points, results) of a results file (``flitsim run -o``) or a sweep file."""
    from .. import hdf5
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
