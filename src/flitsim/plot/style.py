"""Plot vocabulary and looks: the options and their choices, words for keys and values, colours, matplotlib loading and the styles."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .. import _core

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
# Routing labels are the routings' own (their traits, cuda/routing/<routing>.cuh).
VALUE_WORDS = {
    **{r["algorithm"]: r["label"] for r in _core.routings()},
    "booksim": "BookSim cost", "uniform": "uniform", "booksim-flatfly": "BookSim flatfly cost",
    "bitcomp": "bit complement", "worst-case": "worst case", "tornado": "tornado",
}
# Keys whose values name themselves ("UGAL", not "routing = UGAL").
SELF_NAMING = ("routing.algorithm", "traffic.pattern", "topology.kind", "routing.cost")

# Okabe & Ito's colour-blind-safe palette, with a marker each for print in grey.
PAPER_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                 "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
# Figure widths of --style paper (inches): one column and the full page of the usual
# two-column formats (IEEE and ACM: 3.5 and 7.16 in).
PAPER_WIDTHS = {1: 3.5, 2: 7.16}


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
    columns: int = 1          # --style paper: figure width of 1 column (3.5 in) or 2 (7.16 in)
    traffic_class: int | None = None  # [[traffic.class]]: plot class K's statistics (class_results.ClassView)

    def check(self) -> None:
        bad = [p for p in self.panels if p not in PANELS]
        if bad or not self.panels:
            raise ValueError(f"panels: each must be one of {', '.join(PANELS)}, got {list(self.panels)}")
        if self.metric not in METRICS:
            raise ValueError(f"metric: must be one of {', '.join(METRICS)}, got {self.metric!r}")
        if self.saturated not in SATURATED:
            raise ValueError(f"saturated: must be one of {', '.join(SATURATED)}, got {self.saturated!r}")
        if self.columns not in PAPER_WIDTHS:
            raise ValueError(f"columns: must be 1 or 2, got {self.columns!r}")
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
        return dict(colours=PAPER_COLOURS, panel_size=(1.75, 2.0), dpi=300, titles=False)
    plt.rcParams.update({"savefig.bbox": "tight"})
    return dict(colours=[c["color"] for c in plt.rcParams["axes.prop_cycle"]],
                panel_size=(5.0, 3.8), dpi=130, titles=True)
