"""What the studies share: the Study and Outcome records, experiment files, progress lines, figure setup and table formatting."""
from __future__ import annotations

import copy
import math
import pathlib
from dataclasses import dataclass
from typing import Callable


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
    """configs/papers/NAME.toml: relative to the working directory, else to the source tree
    this flitsim was installed from (an editable install or a clone)."""
    rel = pathlib.Path("configs") / "papers" / f"{name}.toml"
    for root in (pathlib.Path.cwd(), pathlib.Path(__file__).resolve().parents[3]):
        if (root / rel).exists():
            return root / rel
    raise FileNotFoundError(f"{rel}: not found here or in the flitsim source tree; run from a "
                            "clone of the repository (the experiment files live in configs/papers/)")


def _load(name: str) -> dict:
    from ..config import load_config
    return load_config(str(experiment_path(name)))


def _with(cfg: dict, **sections: dict) -> dict:
    out = copy.deepcopy(cfg)
    for sec, keys in sections.items():
        out.setdefault(sec, {}).update(keys)
    return out


class _Progress:
    """Study-level progress: one line per finished step, the ETA from the work done, where a
    step's work is its `weight` (e.g. the nodes simulated; 1 each by default)."""

    def __init__(self, name: str, total: int, enabled: bool, weights: list[float] | None = None):
        from ..progress import Reporter
        self.line = Reporter(f"reproduce {name}") if enabled else None
        self.total, self.done = total, 0
        self.weights = weights or [1.0] * total
        self.work = 0.0

    def step(self, text: str) -> None:
        self.work += self.weights[min(self.done, len(self.weights) - 1)]
        self.done += 1
        if self.line is not None:
            self.line.update(f"{self.done}/{self.total} done ({text})",
                             self.work / sum(self.weights), force=True)

    def close(self) -> None:
        if self.line is not None:
            self.line.close()


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
                    legend_y: float) -> None:
    """Grouped bars of the accepted throughput at full offered load (%): a group per x tick, a
    bar per series (value(group, series) in [0, 1]), as the diameter-two and HyperX studies draw."""
    import numpy as np
    width = 0.8 / len(series)
    for j, sr in enumerate(series):
        xs = np.arange(len(groups)) + (j - (len(series) - 1) / 2) * width
        ax.bar(xs, [100 * value(g, sr) for g in groups], width, color=colours[j % len(colours)], label=label(sr))
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel("accepted at full load (%)")
    ax.set_ylim(0, 105)
    ax.legend(ncol=len(series), loc="upper center", bbox_to_anchor=(0.5, legend_y))
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
