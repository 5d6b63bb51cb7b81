"""Study 3 (Bhatele et al., SIGSIM-PADS 2019): structure and cost of the 20 iso-cost designs."""
from __future__ import annotations

import pathlib

import numpy as np

from .common import DOUBLE_COLUMN, Outcome, _finish, _md, _plt, _Progress, experiment_path


ISO_CONSTRAINTS = {"n": "Iso-N", "nl": "Iso-NL", "nr": "Iso-NR", "nrl": "Iso-NRL", "rl": "Iso-RL"}
ISO_TOPOLOGIES = {"ft": "fat tree", "em": "express mesh", "a2a": "dragonfly (all-to-all)",
                  "rc": "dragonfly (row-column)"}


# The paper's Table 2 (P2:L127-L147; docs/targets.md IS-1..IS-20): nodes, routers, links of
# each design, shown beside what flitsim builds from its config.
ISO_PAPER = {
    ("n", "a2a"): (12000, 1200, 17400), ("n", "rc"): (12250, 1750, 28875),
    ("n", "em"): (12000, 1200, 17400), ("n", "ft"): (12000, 1500, 24000),
    ("nr", "a2a"): (12000, 1200, 15000), ("nr", "rc"): (12000, 1200, 16200),
    ("nr", "em"): (12000, 1200, 15000), ("nr", "ft"): (12012, 1100, 16000),
    ("nl", "a2a"): (12000, 1200, 18000), ("nl", "rc"): (12096, 1512, 18144),
    ("nl", "em"): (12000, 1200, 17400), ("nl", "ft"): (12012, 1100, 16000),
    ("nrl", "a2a"): (12000, 1500, 24000), ("nrl", "rc"): (12000, 1500, 24000),
    ("nrl", "em"): (12000, 1500, 24000), ("nrl", "ft"): (12000, 1500, 24000),
    ("rl", "a2a"): (13500, 1500, 22500), ("rl", "rc"): (10500, 1500, 24000),
    ("rl", "em"): (12000, 1500, 24000), ("rl", "ft"): (12000, 1500, 24000),
}


def _vs_paper(ours: int, paper: int) -> str:
    """flitsim's count, and the paper's where it differs (docs/targets.md says why: IS-7, IS-8,
    IS-12, IS-19, IS-20 are not reproducible as printed)."""
    return f"{ours:,}" if ours == paper else f"{ours:,} (paper {paper:,})"


def iso_cost(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    """Structure and cost of the 20 designs (Table 2 / Table 4 of the paper): cheap, so the
    same in --quick and --full."""
    from .. import topology
    from ..config import load_config
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
        paper = ISO_PAPER[(c, t)]
        rows.append([ISO_CONSTRAINTS[c], ISO_TOPOLOGIES[t], _vs_paper(d["nodes"], paper[0]),
                     _vs_paper(d["routers"], paper[1]), _vs_paper(d["links"], paper[2]),
                     str(d["radix"]), str(d["diameter"]),
                     f"{d['cost']:,.0f}", f"{d['cost'] / d['nodes']:.2f}"])
    table = _md(["constraint", "topology", "nodes", "routers", "links", "radix", "diameter",
                 "cost", "cost per node"], rows)
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(DOUBLE_COLUMN, 2.4))
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
