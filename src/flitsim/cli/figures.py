"""The commands that make figures and tables: ``plot`` and ``reproduce``."""
from __future__ import annotations

import argparse
import importlib

from .common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, _add_engine_args, _error, _Formatter

# --- plot -----------------------------------------------------------------------------------

PLOT_EXAMPLES = """\
examples:
  flitsim plot sweep.h5                         latency and throughput vs offered load: sweep.png
  flitsim plot sweep.h5 --style paper --metric p99 -o fig.pdf
  flitsim plot sweep.h5 --panels latency,throughput,saturation,utilisation
  flitsim plot sweep.h5 --label routing.algorithm=Routing --label ugal="UGAL-L" \\
      --title "1,056-node dragonfly, uniform" --xlim 0:0.8 --ylim 0:200 --size 7,2.6
  flitsim plot sweep.h5 --x router.vcs --y hops_mean     any Result field vs a swept key
  flitsim plot run.h5 --links                   per-channel utilisation: run-links.png

series: one per combination of the swept keys other than the x key and sim.seed, named from
their values (MIN, UGAL, p = 4); seeds of a point are averaged with 95 % error bars.
"""


def _pair(text: str, sep: str) -> tuple[float, float]:
    parts = text.replace("x", sep).split(sep) if sep == "," else text.split(sep)
    try:
        a, b = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs two numbers A{sep}B, got {text!r}") from None
    return a, b


def _add_plot(sub: argparse._SubParsersAction) -> None:
    from ..plot import FORMATS, METRICS, PANELS, SATURATED
    p = sub.add_parser(
        "plot", formatter_class=_Formatter, epilog=PLOT_EXAMPLES,
        help="plot a results or sweep file (needs matplotlib)",
        description="Draw a file written by `flitsim run -o` or `flitsim sweep -o`: by default\n"
                    "packet latency and accepted throughput vs offered load, one curve per\n"
                    "series; saturated points are left out of the latency panel (their latency\n"
                    "only measures the run's length). Needs matplotlib: pip install\n"
                    "'flitsim[plot]'.")
    p.add_argument("result", metavar="RESULT.h5", help="results or sweep file")
    p.add_argument("-o", "--output", metavar="OUT.png",
                   help="image file (default: RESULT with .png or --format; format from the suffix)")
    p.add_argument("--panels", default="latency,throughput", metavar="P[,P...]",
                   help=f"panels, left to right: {', '.join(PANELS)} (default latency,throughput)")
    p.add_argument("--metric", choices=list(METRICS), default="mean",
                   help="latency statistic (default mean)")
    p.add_argument("--x", default="offered", metavar="KEY",
                   help="x axis: offered (measured, default), load (configured) or a swept key")
    p.add_argument("--y", metavar="FIELD",
                   help="one panel of this Result field vs x instead of --panels "
                        "(hops_mean, nonminimal_fraction, latency_p99, fairness, ...)")
    p.add_argument("--series", action="append", metavar="KEY",
                   help="swept key that makes the series (repeatable; default: all but x, seed)")
    p.add_argument("--label", action="append", default=[], metavar="KEY=TEXT",
                   help="words for a key or a value in legends and axes (repeatable)")
    p.add_argument("--title", help="figure title (default none)")
    p.add_argument("--xlim", type=lambda t: _pair(t, ":"), metavar="LO:HI")
    p.add_argument("--ylim", type=lambda t: _pair(t, ":"), metavar="LO:HI")
    p.add_argument("--size", type=lambda t: _pair(t, ","), metavar="W,H",
                   help="figure size in inches")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument("--saturated", choices=SATURATED, default="cut",
                   help="saturated points in the latency panel: cut (default), mark (hollow), show")
    p.add_argument("--no-errorbars", dest="errorbars", action="store_false",
                   help="no 95%% intervals (over seeds, else the run's batch means)")
    p.add_argument("--style", choices=("default", "paper"), default="default",
                   help="paper: a single-column figure (3.5 in wide), 8 pt serif fonts, "
                        "colour-blind-safe colours")
    p.add_argument("--columns", type=int, choices=(1, 2), default=1,
                   help="with --style paper: 1 column (3.5 in, default) or 2 (7.16 in) wide")
    p.add_argument("--format", dest="fmt", choices=FORMATS,
                   help="output format (default: from the output suffix, else png)")
    p.add_argument("--links", action="store_true",
                   help="per-channel utilisation of one run instead (a results file): a heat "
                        "map per channel class, and a layout drawing for dragonfly and HyperX "
                        "(default output RESULT-links.png)")
    p.add_argument("--class", dest="traffic_class", type=int, default=None, metavar="K",
                   help="plot traffic class K's statistics ([[traffic.class]]) instead of the totals")
    p.add_argument("--replica", type=int, default=0, metavar="I",
                   help="with --links: the replica to draw (default 0)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    from ..outputs import check_output
    import os
    if args.links:
        check_output(args.output or os.path.splitext(args.result)[0] + "-links.png", hdf5=False)
        try:
            from ..plot.links import plot_links
            out = plot_links(args.result, args.output, replica=args.replica,
                             style=args.style, fmt=args.fmt)
        except importlib.import_module("flitsim.plot").PlotUnavailable as e:
            _error(e)
            return EXIT_FAILURE
        print(f"plot written to {out}")
        return EXIT_OK
    check_output(args.output or os.path.splitext(args.result)[0] + ".png", hdf5=False)
    plot = importlib.import_module("flitsim.plot")
    labels = {}
    for item in args.label:
        key, sep, text = item.partition("=")
        if not sep or not key:
            _error(f"--label: needs KEY=TEXT, got {item!r}")
            return EXIT_USAGE
        labels[key] = text
    opts = plot.PlotOptions(
        panels=[x.strip() for x in args.panels.split(",") if x.strip()], metric=args.metric,
        x=args.x, y=args.y, series_keys=args.series, labels=labels, title=args.title,
        xlim=args.xlim, ylim=args.ylim, size=args.size, logy=args.logy,
        saturated=args.saturated, errorbars=args.errorbars, style=args.style, fmt=args.fmt,
        columns=args.columns, traffic_class=args.traffic_class)
    try:
        out = plot.plot_file(args.result, args.output, opts)
    except plot.PlotUnavailable as e:
        _error(e)
        return EXIT_FAILURE
    print(f"plot written to {out}")
    return EXIT_OK


# --- reproduce ------------------------------------------------------------------------------

REPRODUCE_EXAMPLES = """\
examples:
  flitsim reproduce --list
  flitsim reproduce dragonfly-valiant                 quick sizes, minutes on 2 cores
  flitsim reproduce hyperx-dimwar --full -o results/  the paper's sizes (hours on a CPU)

Each study starts from its experiment file (configs/papers/NAME.toml: router, traffic or
workload, routing, sweep; iso-cost reads the 20 designs configs/papers/iso-*.toml), shipped
with flitsim, so it runs from any folder; a configs/papers/ folder in the working directory
takes precedence. It writes NAME.md (a markdown table) and NAME.png (a figure) into the
output directory. The papers are cited in full in docs/reproductions.md.
"""


def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce", formatter_class=_Formatter, epilog=REPRODUCE_EXAMPLES,
        help="regenerate one of the five papers' figures and tables",
        description="Run one of the papers' studies (see --list) and write its table and figure.")
    p.add_argument("study", nargs="?", metavar="STUDY", help="study name (see --list)")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--full", action="store_true",
                   help="the papers' sizes instead of the quick ones (much longer)")
    p.add_argument("-o", "--output", default="reproductions", metavar="DIR",
                   help="directory for NAME.md and the figure (default ./reproductions)")
    _add_engine_args(p)
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    studies = importlib.import_module("flitsim.studies")
    if args.list or not args.study:
        for st in studies.STUDIES.values():
            print(f"{st.name:18} {st.paper}\n{'':18} {st.what}\n{'':18} quick: {st.quick}; "
                  f"full: {st.full}")
        return EXIT_OK if args.list else EXIT_USAGE
    res = studies.reproduce(args.study, args.output, quick=not args.full,
                            backend=None if args.backend == "auto" else args.backend,
                            threads=args.threads, progress=not args.quiet)
    print(res.table)
    print(f"table written to {args.output}/{args.study}.md; figure: {res.figure}")
    return EXIT_OK
