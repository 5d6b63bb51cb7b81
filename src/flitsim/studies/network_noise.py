"""Study 2 (Hoefler, Schneider, Lumsdaine, IPDPS 2009): slowdown of a reduce on fat trees under a perturbing job."""
from __future__ import annotations

import copy
import pathlib
from typing import Any

import numpy as np

from .common import SINGLE_COLUMN, Outcome, _finish, _load, _md, _plt, _Progress


NOISE_TREES = {  # nodes -> (m, w); 144 is the paper's xgft(2,12,6)
    16: ([4, 4], [1, 4]), 64: ([8, 8], [1, 8]), 144: ([12, 12], [1, 6]),
}


def network_noise(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    from .. import workload as wl
    from ..config import normalize
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
                                           threads=threads,
                                           progress=pr.engine(f"{n} nodes, ratio {ratio}"))
            pr.step(f"{n} nodes, ratio {ratio}")
    pr.close()
    from ..results import _t_quantile

    def half_width(s: np.ndarray) -> float:  # of the mean's 95 % t interval over the draws
        return float(_t_quantile(0.95, s.size - 1) * s.std(ddof=1) / s.size ** 0.5)

    rows = []
    for (n, ratio), r in res.items():
        s = np.asarray(r.slowdown, dtype=float)
        rows.append([str(n), f"{ratio:.2f}", f"{s.mean():.2f} ± {half_width(s):.2f}", f"{s.min():.2f}",
                     f"{s.max():.2f}", f"{r.times('quiet').mean():.1f}"])
    table = (_md(["nodes", "perturbation ratio", "mean slowdown (95 % CI)", "min", "max",
                  "T_quiet (cycles)"], rows) +
             f"\n\n{len(seeds)} draws (seeds: placements and the perturbing job's messages) per cell; the interval "
             "is the mean's, t-based over the draws.")
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(SINGLE_COLUMN, 2.6))
    for i, n in enumerate(trees):
        means, errs = [], []
        for ratio in ratios:
            s = np.asarray(res[(n, ratio)].slowdown, dtype=float)
            means.append(s.mean())
            errs.append(half_width(s))
        ax.errorbar(ratios, means, yerr=errs, marker=markers[i], color=colours[i], capsize=2,
                    label=f"{n} nodes")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("perturbation ratio (share of nodes)")
    ax.set_ylabel(r"reduce slowdown $T_\mathrm{perturbed}/T_\mathrm{quiet}$")
    ax.set_xticks(ratios)
    ax.legend(title="XGFT", loc="upper left")
    ax.grid(True, alpha=0.3, lw=0.5)
    return _finish(fig, plt, st, out, "network-noise", table)
