"""The five papers' studies as experiments: ``flitsim reproduce NAME`` (or
``python -m flitsim.studies NAME``) runs one and writes ``NAME.md`` (a markdown table) and
``NAME.png`` (a figure) into the output directory.

Each study starts from its experiment file, ``configs/papers/NAME.toml``, which holds the
whole experiment of one data point (router, channels, routing, traffic or workload, sim and,
where the varied keys are independent, a ``[sweep]``); the study varies what the file alone
cannot, i.e. keys that move together (the dragonfly size p = a/2 = h with the shift p + 1,
the perturbation ratio with both jobs' ranks). ``--quick`` (the default) runs small sizes in
minutes on two cores; ``--full`` runs the papers' sizes (hours on a CPU; a GPU helps). The
papers, in full, are cited in docs/papers.md.
"""
from __future__ import annotations

import argparse
import copy
import math
import os
import pathlib
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["STUDIES", "Study", "reproduce", "experiment_path", "main"]


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
    for root in (pathlib.Path.cwd(), pathlib.Path(__file__).resolve().parents[2]):
        if (root / rel).exists():
            return root / rel
    raise FileNotFoundError(f"{rel}: not found here or in the flitsim source tree; run from a "
                            "clone of the repository (the experiment files live in configs/papers/)")


def _load(name: str) -> dict:
    from .config import load_config
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
        from .progress import Reporter
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
    from .plot import PAPER_COLOURS, MARKERS, _pyplot, _style, PlotOptions
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


# --- 1. dragonfly Valiant imbalance ------------------------------------------------------------

DF_ROUTINGS = {  # label -> overrides
    "MIN": {"routing": {"algorithm": "min"}},
    "VR": {"routing": {"algorithm": "valiant", "valiant": "restricted"}},
    "VA": {"routing": {"algorithm": "valiant", "valiant": "any"}},
    "VR+rand": {"routing": {"algorithm": "valiant", "valiant": "restricted"},
                "topology": {"relabel": True, "seed": 7}},
}
DF_PATTERNS = {"bit complement": "bitcomp", "group shift": "group-shift"}


def _df_bounds(p: int) -> dict[str, float]:
    a, h = 2 * p, p
    G = a * h + 1
    return {"MIN": 1 / (a * p), "VR": (G - 2) / ((h + 1) * a * p), "VA": (G - 2) / (2 * a * p),
            "model": 3 / (4 * p)}


def dragonfly_valiant(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    base = _load("dragonfly-valiant")
    base.pop("sweep", None)
    sizes = [2, 3, 4] if quick else [2, 3, 4, 5, 6, 7, 8]
    acc: dict[tuple[int, str, str], float] = {}
    nodes: dict[int, int] = {}
    stalls = 0
    per_size = len(DF_PATTERNS) * len(DF_ROUTINGS)
    pr = _Progress("dragonfly-valiant", len(sizes) * per_size, progress,   # cost ~ nodes
                   [2 * p * p * (2 * p * p + 1) for p in sizes for _ in range(per_size)])
    for p in sizes:
        for pname, pattern in DF_PATTERNS.items():
            for label, ov in DF_ROUTINGS.items():
                cfg = _with(base, topology={"p": p, "a": 2 * p, "h": p},
                            traffic={"pattern": pattern, "shift": p + 1})
                for sec, keys in ov.items():
                    cfg[sec].update(keys)
                r = flitsim.run(cfg, backend=backend, threads=threads, progress=False)
                acc[(p, pname, label)], nodes[p] = r.accepted, r.nodes
                stalls += r.slot_stalls
                pr.step(f"p={p} {pname} {label}")
    pr.close()
    rows = []
    for p in sizes:
        b = _df_bounds(p)
        for pname in DF_PATTERNS:
            rows.append([str(p), f"{nodes[p]:,}", pname] +
                        [_pct(acc[(p, pname, lb)]) for lb in DF_ROUTINGS] +
                        [_pct(b["model"]), _pct(b["VR"]), _pct(b["VA"])])
    table = _md(["p = a/2 = h", "nodes", "pattern", *DF_ROUTINGS, "model 3/(4p)", "VR bound",
                 "VA bound"], rows) + _stall_note(stalls)
    plt, colours, markers, st = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.6), sharey=True)
    xs = [nodes[p] for p in sizes]
    for ax, pname in zip(axes, DF_PATTERNS):
        for i, lb in enumerate(DF_ROUTINGS):
            ax.plot(xs, [100 * acc[(p, pname, lb)] for p in sizes], "-", marker=markers[i],
                    color=colours[i], label=lb)
        ax.plot(xs, [100 * _df_bounds(p)["VR"] for p in sizes], ":", color=colours[1], lw=0.9,
                label="VR bound")
        ax.plot(xs, [100 * _df_bounds(p)["model"] for p in sizes], "--", color="grey", lw=0.9,
                label="model 3/(4p)")
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{x:,}" for x in xs])
        ax.minorticks_off()
        ax.set_xlabel(f"nodes ({pname})")
        ax.grid(True, alpha=0.3, lw=0.5)
    axes[0].set_ylabel("accepted throughput (% of injection)")
    axes[0].set_ylim(0, None)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, ncol=len(names), loc="lower center", bbox_to_anchor=(0.5, 0.0))
    return _finish(fig, plt, st, out, "dragonfly-valiant", table, rect=(0, 0.09, 1, 1))


# --- 2. network noise on fat trees ---------------------------------------------------------------

NOISE_TREES = {  # nodes -> (m, w); 144 is the paper's xgft(2,12,6)
    16: ([4, 4], [1, 4]), 64: ([8, 8], [1, 8]), 144: ([12, 12], [1, 6]),
}


def network_noise(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    from . import workload as wl
    from .config import normalize
    base = _load("network-noise")
    trees = [16, 64] if quick else [16, 64, 144]
    ratios = [0.25, 0.5, 0.75]
    seeds = range(1, (8 if quick else 16) + 1)
    res: dict[tuple[int, float], Any] = {}
    pr = _Progress("network-noise", len(trees) * len(ratios), progress,
                   [n for n in trees for _ in ratios])
    for n in trees:
        m, w = NOISE_TREES[n]
        for ratio in ratios:
            cfg = copy.deepcopy(base)
            cfg["topology"].update(m=m, w=w)
            app, noise = cfg["workload"]["jobs"]
            noise["ranks"] = int(n * ratio)
            app["ranks"] = n - noise["ranks"]
            res[(n, ratio)] = wl.run_noise(normalize(cfg), seeds=seeds, backend=backend,
                                           threads=threads)
            pr.step(f"{n} nodes, ratio {ratio}")
    pr.close()
    rows = []
    for (n, ratio), r in res.items():
        s = r.slowdown
        rows.append([str(n), f"{ratio:.2f}", f"{s.mean():.2f}", f"{s.min():.2f}",
                     f"{s.max():.2f}", f"{r.times('quiet').mean():.1f}"])
    table = _md(["nodes", "perturbation ratio", "mean slowdown", "min", "max",
                 "T_quiet (cycles)"], rows)
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(3.4, 2.6))
    from .results import _t_quantile
    for i, n in enumerate(trees):
        means, errs = [], []
        for ratio in ratios:
            s = np.asarray(res[(n, ratio)].slowdown, dtype=float)
            means.append(s.mean())
            errs.append(_t_quantile(0.95, s.size - 1) * s.std(ddof=1) / s.size ** 0.5)
        ax.errorbar(ratios, means, yerr=errs, marker=markers[i], color=colours[i], capsize=2,
                    label=f"{n} nodes")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("perturbation ratio (share of nodes)")
    ax.set_ylabel(r"reduce slowdown $T_\mathrm{perturbed}/T_\mathrm{quiet}$")
    ax.set_xticks(ratios)
    ax.legend(title="XGFT", loc="upper left")
    ax.grid(True, alpha=0.3, lw=0.5)
    return _finish(fig, plt, st, out, "network-noise", table)


# --- 3. iso-cost design space --------------------------------------------------------------------

ISO_CONSTRAINTS = {"n": "Iso-N", "nl": "Iso-NL", "nr": "Iso-NR", "nrl": "Iso-NRL", "rl": "Iso-RL"}
ISO_TOPOLOGIES = {"ft": "fat tree", "em": "express mesh", "a2a": "dragonfly (all-to-all)",
                  "rc": "dragonfly (row-column)"}


def iso_cost(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    """Structure and cost of the 20 designs (Table 2 / Table 4 of the paper): cheap, so the
    same in --quick and --full."""
    from . import topology
    from .config import load_config
    designs = [(c, t) for c in ISO_CONSTRAINTS for t in ISO_TOPOLOGIES]
    info: dict[tuple[str, str], dict] = {}
    pr = _Progress("iso-cost", len(designs), progress)
    for c, t in designs:
        cfg = load_config(str(experiment_path(f"iso-{c}-{t}")))
        info[(c, t)] = topology.describe(cfg, paths=False)  # path diversity: slow, not needed
        pr.step(f"{ISO_CONSTRAINTS[c]} {t}")
    pr.close()
    rows = []
    for (c, t), d in info.items():
        rows.append([ISO_CONSTRAINTS[c], ISO_TOPOLOGIES[t], f"{d['nodes']:,}", f"{d['routers']:,}",
                     f"{d['links']:,}", str(d["radix"]), str(d["diameter"]),
                     f"{d['cost']:,.0f}", f"{d['cost'] / d['nodes']:.2f}"])
    table = _md(["constraint", "topology", "nodes", "routers", "links", "radix", "diameter",
                 "cost", "cost per node"], rows)
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 2.4))
    width = 0.8 / len(ISO_TOPOLOGIES)
    for j, t in enumerate(ISO_TOPOLOGIES):
        xs = np.arange(len(ISO_CONSTRAINTS)) + (j - (len(ISO_TOPOLOGIES) - 1) / 2) * width
        ax.bar(xs, [info[(c, t)]["cost"] / info[(c, t)]["nodes"] for c in ISO_CONSTRAINTS],
               width, color=colours[j], label=ISO_TOPOLOGIES[t])
    ax.set_xticks(range(len(ISO_CONSTRAINTS)), list(ISO_CONSTRAINTS.values()))
    ax.set_ylabel("cost per node (flitsim cost units)")
    ax.legend(ncol=4, loc="upper center", bbox_to_anchor=(0.5, 1.18))
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)
    return _finish(fig, plt, st, out, "iso-cost", table)


# --- 4. diameter-two topologies --------------------------------------------------------------------

D2_TOPOLOGIES_QUICK = {"Slim Fly q=5": {"kind": "slimfly", "q": 5},
                       "MLFM h=4": {"kind": "mlfm", "h": 4},
                       "OFT k=4": {"kind": "oft", "k": 4}}
D2_TOPOLOGIES_FULL = {"Slim Fly q=13": {"kind": "slimfly", "q": 13, "p": 9},
                      "MLFM h=15": {"kind": "mlfm", "h": 15},
                      "OFT k=12": {"kind": "oft", "k": 12}}


def diameter_two(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    from . import topology
    base = _load("diameter-two")
    over = base.pop("sweep")["over"]
    tops = D2_TOPOLOGIES_QUICK if quick else D2_TOPOLOGIES_FULL
    cells: dict[tuple[str, str, str], float] = {}
    desc = {}
    stalls = 0
    pr = _Progress("diameter-two", len(tops), progress)
    for name, topo in tops.items():
        cfg = _with(base)
        cfg["topology"] = dict(topo)
        desc[name] = topology.describe(cfg)
        sw = flitsim.sweep(cfg, over, backend=backend, threads=threads, progress=False)
        for p, r in zip(sw.points, sw.results):
            cells[(name, p["routing.algorithm"], p["traffic.pattern"])] = r.accepted
            stalls += r.slot_stalls
        pr.step(name)
    pr.close()
    algs, pats = list(over["routing.algorithm"]), list(over["traffic.pattern"])
    from .plot import value_words
    combos = [(a, t) for a in algs for t in pats]
    rows = []
    for name in tops:
        d = desc[name]
        rows.append([name, f"{d['nodes']:,}", f"{d['routers']:,}", str(d["radix"]),
                     str(d["diameter"]), f"{d['cost'] / d['nodes']:.2f}"] +
                    [_pct(cells[(name, a, t)]) for a, t in combos])
    head = ["topology", "nodes", "routers", "radix", "diameter", "cost/node"] + [
        f"{value_words('routing.algorithm', a)} {value_words('traffic.pattern', t)}"
        for a, t in combos]
    table = _md(head, rows) + _stall_note(stalls)
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 2.4))
    width = 0.8 / len(combos)
    for j, (a, t) in enumerate(combos):
        xs = np.arange(len(tops)) + (j - (len(combos) - 1) / 2) * width
        ax.bar(xs, [100 * cells[(n, a, t)] for n in tops], width, color=colours[j],
               label=f"{value_words('routing.algorithm', a)}, {value_words('traffic.pattern', t)}")
    ax.set_xticks(range(len(tops)), list(tops))
    ax.set_ylabel("accepted at full load (%)")
    ax.set_ylim(0, 105)
    ax.legend(ncol=len(combos), loc="upper center", bbox_to_anchor=(0.5, 1.2))
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)
    return _finish(fig, plt, st, out, "diameter-two", table)


# --- 5. HyperX DimWAR / OmniWAR ------------------------------------------------------------------

# The paper's patterns (Table 3); URB's targeted dimension moves with the pattern.
HX_PATTERNS = {"UR": {"pattern": "uniform"}, "BC": {"pattern": "bitcomp"},
               "URBx": {"pattern": "urb", "dims": [0]}, "URBy": {"pattern": "urb", "dims": [1]},
               "S2": {"pattern": "swap2"}, "DCR": {"pattern": "dcr"}}
HX_LABELS = {"dor": "DOR", "valiant": "VAL", "ugal": "UGAL", "clos-ad": "Clos-AD",
             "dimwar": "DimWAR", "omniwar": "OmniWAR"}


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


def hyperx_dimwar(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    base = _load("hyperx-dimwar")
    over = base.pop("sweep")["over"]
    algs = list(over["routing.algorithm"])
    if quick:  # the paper's 8x8x8 with 8 terminals is 4,096 nodes: 4x4x4 with 4 (T = W, as the paper) runs in minutes
        base["topology"].update(widths=[4, 4, 4], terminals=4)
        base["sim"].update(warmup=2000, measure=2000)
    W, T = base["topology"]["widths"][0], base["topology"]["terminals"]
    pr = _Progress("hyperx-dimwar", len(HX_PATTERNS), progress)
    cells: dict[tuple[str, str], float] = {}
    stalls = 0
    for label, traffic in HX_PATTERNS.items():
        cfg = _with(base, traffic={k: v for k, v in traffic.items()})
        sw = flitsim.sweep(cfg, {"routing.algorithm": algs}, backend=backend, threads=threads, progress=False)
        for p, r in zip(sw.points, sw.results):
            cells[(label, HX_LABELS[p["routing.algorithm"]])] = r.accepted
            stalls += r.slot_stalls
        pr.step(label)
    pr.close()
    names = [HX_LABELS[a] for a in algs]
    targets = hx_paper_targets(W, T)
    rows = [[pat] + [f"{_pct(cells[(pat, n)])} ({targets[pat][n]})" for n in names] for pat in HX_PATTERNS]
    table = (f"Accepted throughput at full offered load, {'x'.join(map(str, base['topology']['widths']))} "
             f"HyperX, {T} terminals per router, router.preset = \"{base['router'].get('preset', 'flitsim')}\" "
             "(in parentheses: the paper's statement, scaled to this size)\n\n" +
             _md(["traffic"] + names, rows) + _stall_note(stalls))
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 2.6))
    width = 0.8 / len(names)
    for j, n in enumerate(names):
        xs = np.arange(len(HX_PATTERNS)) + (j - (len(names) - 1) / 2) * width
        ax.bar(xs, [100 * cells[(p, n)] for p in HX_PATTERNS], width, color=colours[j % len(colours)], label=n)
    ax.set_xticks(range(len(HX_PATTERNS)), list(HX_PATTERNS))
    ax.set_ylabel("accepted at full load (%)")
    ax.set_ylim(0, 105)
    ax.legend(ncol=len(names), loc="upper center", bbox_to_anchor=(0.5, 1.22))
    ax.grid(True, axis="y", alpha=0.3, lw=0.5)
    return _finish(fig, plt, st, out, "hyperx-dimwar", table)


STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("dragonfly-valiant", "Prisacari et al., HPSR 2015",
          "accepted throughput under bit complement and group shift for MIN, Valiant "
          "restricted/any and restricted with random group numbering vs dragonfly size",
          "p = 2, 3, 4 (72 to 1,056 nodes)", "p = 2..8 (72 to 16,512 nodes)", dragonfly_valiant),
    Study("network-noise", "Hoefler, Schneider, Lumsdaine, IPDPS 2009 (LSPP)",
          "slowdown of an 8-byte binomial reduce on fat trees under a perturbing job vs "
          "perturbation ratio", "16- and 64-node XGFTs, 8 draws",
          "plus the 144-node xgft(2,12,6), 16 draws", network_noise),
    Study("iso-cost", "Bhatele, Jain, Mubarak, Gamblin, SIGSIM-PADS 2019",
          "nodes, routers, links, radix, diameter and cost of the 20 iso-cost designs",
          "all 20 designs (structure only: fast)", "the same", iso_cost),
    Study("diameter-two", "Kathareios et al., SC 2015",
          "accepted throughput at full load of Slim Fly, MLFM and OFT under uniform and "
          "worst-case traffic, MIN and Valiant", "SF q=5, MLFM h=4, OFT k=4",
          "SF q=13 (p=9), MLFM h=15, OFT k=12", diameter_two),
    Study("hyperx-dimwar", "McDonald et al., SC 2019",
          "accepted throughput at full load of DOR, VAL, UGAL, Clos-AD, DimWAR and OmniWAR on a "
          "3-D HyperX with the paper's router, under UR, BC, URBx, URBy, S2 and DCR",
          "4x4x4 HyperX, 4 terminals (256 nodes)",
          "8x8x8, 8 terminals (4,096 nodes) as in the paper", hyperx_dimwar),
)}


def reproduce(name: str, output: str | os.PathLike = "reproductions", quick: bool = True,
              backend: str | None = None, threads: int | None = None,
              progress: bool | None = None) -> Outcome:
    """Run study `name` and write NAME.md and its figure(s) into `output`."""
    from .progress import enabled
    if name not in STUDIES:
        raise ValueError(f"study: {name!r} is not one of {', '.join(STUDIES)}")
    out = pathlib.Path(output)
    out.mkdir(parents=True, exist_ok=True)
    st = STUDIES[name]
    experiment = "configs/papers/iso-*.toml" if name == "iso-cost" else f"configs/papers/{name}.toml"
    t0 = time.monotonic()
    res = st.run(out, quick, backend, threads, enabled(progress) is True)
    scale = st.quick if quick else st.full
    text = (f"# {name}: {st.what}\n\nPaper: {st.paper} (full citation in docs/papers.md). "
            f"Experiment: {experiment}; {'--quick' if quick else '--full'}: "
            f"{scale}; {time.monotonic() - t0:.0f} s.\n\n{res.table}\nFigure: {res.figure}\n")
    (out / f"{name}.md").write_text(text)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flitsim.studies", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=list(STUDIES))
    ap.add_argument("--full", action="store_true")
    ap.add_argument("-o", "--output", default="reproductions")
    args = ap.parse_args(argv)
    res = reproduce(args.name, args.output, quick=not args.full, progress=True)
    print(res.table)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
