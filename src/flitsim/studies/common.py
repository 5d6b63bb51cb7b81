"""What the studies share: the Study and Outcome records, experiment files, progress lines, figure setup and table formatting."""
from __future__ import annotations

import copy
import math
import pathlib
from dataclasses import dataclass
from typing import Callable

from ..plot.style import PAPER_WIDTHS


@dataclass
class Study:
    name: str
    paper: str           # short citation; docs/reproductions.md has the full one
    what: str            # one line: what is reproduced
    quick: str           # what --quick runs
    full: str            # what --full runs
    run: Callable[..., "Outcome"]


@dataclass
class Outcome:
    table: str           # markdown
    figure: str          # path written


def experiment_path(name: str) -> pathlib.Path:
    """configs/papers/NAME.toml: in the working directory when it has one, else the copy
    shipped with flitsim (package data, or the source tree of an editable install)."""
    from ..shipped import find
    rel = pathlib.Path("configs") / "papers" / f"{name}.toml"
    found = find(rel)
    if found is None:
        raise FileNotFoundError(f"{rel}: not found here nor among the configurations shipped "
                                "with flitsim (reinstall it: pip install flitsim)")
    return found


def _load(name: str) -> dict:
    from ..config import load_config
    return load_config(str(experiment_path(name)))


def _with(cfg: dict, **sections: dict) -> dict:
    out = copy.deepcopy(cfg)
    for sec, keys in sections.items():
        out.setdefault(sec, {}).update(keys)
    return out


class _Progress:
    """Study-level progress: a line per finished step and, in between, the running step's
    share from its engine run (so `reproduce --full`, whose steps take minutes, never sits
    silent); the ETA from the work done, where a step's work is its `weight` (e.g. the nodes
    simulated; 1 each by default)."""

    def __init__(self, name: str, total: int, enabled: bool, weights: list[float] | None = None):
        from ..progress import Reporter, RunLength
        self.line = Reporter(f"reproduce {name}") if enabled else None
        self.total, self.done = total, 0
        self.weights = weights or [1.0] * total
        self.work = 0.0
        self.length = RunLength()      # the drain of the steps run so far
        self.last = (0, 0)             # (window_end, cycle) of the running step's engine run

    def _weight(self) -> float:
        return self.weights[min(self.done, len(self.weights) - 1)]

    def _show(self, text: str, share: float, force: bool = False) -> None:
        share = min(max(share, 0.0), 1.0)
        self.line.update(text, (self.work + share * self._weight()) / sum(self.weights), force=force)

    def engine(self, what: str):
        """A ``progress=`` callable for flitsim.run/run_replicas: the share of the running step
        (cycles against the expected length, drain included; a workload's own fraction)."""
        if self.line is None:
            return False

        def during(cycle: int, window_end: int, done: int, fraction: float = -1.0) -> None:
            self.last = (window_end, cycle)
            share = (fraction if window_end <= 0 else
                     cycle / self.length.expected(window_end, None, cycle))
            self._show(f"{self.done}/{self.total} done; running {what}: cycle {cycle:,}", share)
        return during

    def batches(self, what: str):
        """A ``progress=`` callable for flitsim.sweep: the running step's share after each batch."""
        if self.line is None:
            return False
        return lambda st: self._show(f"{self.done}/{self.total} done; running {what}: batch "
                                     f"{st.batch}/{st.batches}", st.fraction)

    def step(self, text: str) -> None:
        if self.last[0] > 0:
            self.length.observe(*self.last)
        self.last = (0, 0)
        self.work += self._weight()
        self.done += 1
        if self.line is not None:
            self.line.update(f"{self.done}/{self.total} done ({text})",
                             self.work / sum(self.weights), force=True)

    def close(self) -> None:
        if self.line is not None:
            self.line.close()


# The studies' figure widths: the page and one column of the usual two-column formats
# (plot.style.PAPER_WIDTHS), so a figure goes into a paper at its size.
SINGLE_COLUMN, DOUBLE_COLUMN = PAPER_WIDTHS[1], PAPER_WIDTHS[2]


def _plt(style: str = "paper"):
    from ..plot.style import MARKERS, PAPER_COLOURS, PlotOptions, _pyplot, _style
    plt = _pyplot()
    st = _style(plt, PlotOptions(style=style))
    return plt, PAPER_COLOURS, MARKERS, st


def _finish(fig, plt, st, out: pathlib.Path, name: str, table: str, rect=None) -> Outcome:
    """Lay out, save as out/NAME.png, close, and pair the figure with its table."""
    fig.tight_layout(**({"rect": rect} if rect else {}))
    path = out / f"{name}.png"
    fig.savefig(path, dpi=st["dpi"])
    plt.close(fig)
    return Outcome(table, str(path))


def _full_load_bars(ax, colours, groups: list, series: list, value: Callable, label: Callable,
                    marks: dict[str, Callable] | None = None, error: Callable | None = None) -> None:
    """Grouped bars of the accepted throughput at full offered load (%): a group per x tick, a
    bar per series (value(group, series) in [0, 1]), as the diameter-two and HyperX studies draw.
    marks: {legend name: f(group, series) -> value in [0, 1] or None}: a reference drawn over
    each bar it has a value for (the bound the text cites, the paper's value).
    error: f(group, series) -> half-width of the value's 95 % interval, drawn as an error bar."""
    import numpy as np
    width = 0.8 / len(series)
    styles = [dict(color="black", lw=1.2, ls="-"), dict(color="black", lw=1.0, ls=":")]
    drawn: dict[str, bool] = {}
    for j, sr in enumerate(series):
        xs = np.arange(len(groups)) + (j - (len(series) - 1) / 2) * width
        yerr = [100 * error(g, sr) for g in groups] if error else None
        ax.bar(xs, [100 * value(g, sr) for g in groups], width, color=colours[j % len(colours)], label=label(sr),
               yerr=yerr, error_kw=dict(lw=0.8, capsize=1.5, ecolor="black"))
        for k, (name, f) in enumerate((marks or {}).items()):
            for x, g in zip(xs, groups):
                v = f(g, sr)
                if v is not None:
                    ax.plot([x - width / 2, x + width / 2], [100 * v, 100 * v],
                            label=None if drawn.get(name) else name, **styles[k % len(styles)])
                    drawn[name] = True
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel("accepted at full load (%)")
    ax.set_ylim(0, 105)
    entries = len(series) + len(drawn)   # above the axes, in rows no wider than the page figure
    ax.legend(ncol=entries if entries <= 4 else (entries + 1) // 2, loc="lower center",
              bbox_to_anchor=(0.5, 1.02))
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)


def _md(head: list[str], rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
                     ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def _stall_note(stalls: int) -> str:
    """Full-load studies must not be limited by the packet table (sim.packet_slots): say so."""
    if stalls == 0:
        return "\nPacket-slot stalls: none (no source waited for a packet slot).\n"
    return (f"\nWARNING: sources waited {stalls:,} cycles for a packet slot: these numbers depend "
            "on sim.packet_slots; raise it in the experiment file.\n")


def _pct(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{100 * x:.1f}%"


# The seeds of every simulated cell of the full-load studies: a cell is their mean with a 95 %
# Student-t interval. Three is the fewest that gives an interval worth drawing (t = 4.30 for
# two degrees of freedom; with two seeds t = 12.7 makes any interval too wide to read).
STUDY_SEEDS = (1, 2, 3)


def _mean_ci(values: list[float]) -> tuple[float, float]:
    """(mean, half-width of its 95 % Student-t interval; NaN for one value)."""
    from ..plot.series import _ci
    finite = [v for v in values if math.isfinite(v)]
    mean = sum(finite) / len(finite) if finite else float("nan")
    return mean, _ci(values)


def _pct_ci(cell: tuple[float, float]) -> str:
    """A cell as "49.0 ± 0.4%" (mean ± 95 % half-width), or its mean alone for one seed."""
    mean, half = cell
    if not math.isfinite(mean):
        return "-"
    return f"{100 * mean:.1f} ± {100 * half:.1f}%" if math.isfinite(half) else _pct(mean)
