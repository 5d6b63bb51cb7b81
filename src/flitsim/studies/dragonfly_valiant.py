"""Study 1 (Prisacari et al., HPSR 2015): accepted throughput of MIN and Valiant variants vs dragonfly size."""
from __future__ import annotations

import pathlib

from .common import (DOUBLE_COLUMN, STUDY_SEEDS, Outcome, _finish, _load, _md, _mean_ci, _pct, _pct_ci, _plt,
                     _Progress, _stall_note, _with)


DF_ROUTINGS = {  # label -> overrides
    "MIN": {"routing": {"algorithm": "min"}},
    "VR": {"routing": {"algorithm": "valiant", "valiant": "restricted"}},
    "VA": {"routing": {"algorithm": "valiant", "valiant": "any"}},
    "VR+rand": {"routing": {"algorithm": "valiant", "valiant": "restricted"},
                "topology": {"relabel": True, "seed": 7}},
}
DF_PATTERNS = {"bit complement": "bitcomp", "group shift": "group-shift"}


# The paper's relative throughput of Valiant-any under bit complement and shift, at every size:
# "33 % - 43 %" (P0:L125; DF-R2 in docs/targets.md), drawn as a band.
DF_PAPER_VA = (0.33, 0.43)


def _df_bounds(p: int) -> dict[str, float]:
    a, h = 2 * p, p
    G = a * h + 1
    return {"MIN": 1 / (a * p), "VR": (G - 2) / ((h + 1) * a * p), "VA": (G - 2) / (2 * a * p),
            "model": 3 / (4 * p)}


def dragonfly_valiant(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    from .. import engine
    base = _load("dragonfly-valiant")
    base.pop("sweep", None)
    sizes = [2, 3, 4] if quick else [2, 3, 4, 5, 6, 7, 8]
    acc: dict[tuple[int, str, str], tuple[float, float]] = {}   # (mean, 95 % half-width) over seeds
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
                if pattern != "group-shift":  # only group shift reads it (a run refuses it unread)
                    cfg["traffic"].pop("shift")
                for sec, keys in ov.items():
                    cfg[sec].update(keys)
                load = cfg["traffic"]["load"]        # the seeds: replicas of one engine run
                rs = engine.run_replicas(cfg, [load] * len(STUDY_SEEDS), seeds=list(STUDY_SEEDS),
                                                 backend=backend, threads=threads,
                                                 progress=pr.engine(f"p={p} {pname} {label}"))
                acc[(p, pname, label)], nodes[p] = _mean_ci([r.accepted for r in rs]), rs[0].nodes
                stalls += sum(r.slot_stalls for r in rs)
                pr.step(f"p={p} {pname} {label}")
    pr.close()
    rows = []
    for p in sizes:
        b = _df_bounds(p)
        for pname in DF_PATTERNS:
            rows.append([str(p), f"{nodes[p]:,}", pname] +
                        [_pct_ci(acc[(p, pname, lb)]) for lb in DF_ROUTINGS] +
                        [_pct(b["model"]), _pct(b["VR"]), _pct(b["VA"])])
    table = _md(["p = a/2 = h", "nodes", "pattern", *DF_ROUTINGS, "model 3/(4p)", "VR bound",
                 "VA bound"], rows) + f"\nCells: mean ± 95 % Student-t half-width over seeds " \
        f"{', '.join(map(str, STUDY_SEEDS))}. The paper: VA {100 * DF_PAPER_VA[0]:.0f}-" \
        f"{100 * DF_PAPER_VA[1]:.0f} % at every size under both patterns, VR below 15 % beyond 512 " \
        "switches (p >= 6).\n" + _stall_note(stalls)
    plt, colours, markers, st = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(DOUBLE_COLUMN, 2.6), sharey=True)
    xs = [nodes[p] for p in sizes]
    for ax, pname in zip(axes, DF_PATTERNS):
        # The paper's VA at every size and under both patterns (DF-R2, docs/targets.md).
        ax.axhspan(100 * DF_PAPER_VA[0], 100 * DF_PAPER_VA[1], color=colours[2], alpha=0.12, lw=0,
                   label="paper: VA")
        for i, lb in enumerate(DF_ROUTINGS):
            ax.errorbar(xs, [100 * acc[(p, pname, lb)][0] for p in sizes],
                        yerr=[100 * acc[(p, pname, lb)][1] for p in sizes], fmt="-", marker=markers[i],
                        color=colours[i], label=lb, capsize=2, lw=1.2)
        ax.plot(xs, [100 * _df_bounds(p)["VR"] for p in sizes], ":", color=colours[1], lw=0.9,
                label="VR bound")
        ax.plot(xs, [100 * _df_bounds(p)["model"] for p in sizes], "--", color="grey", lw=0.9,
                label="model 3/(4p)")
        if pname == "group shift":   # MIN's bound under group shift (bit complement spreads more)
            ax.plot(xs, [100 * _df_bounds(p)["MIN"] for p in sizes], "-.", color=colours[0], lw=0.9,
                    label="MIN bound 1/(ap)")
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{x:,}" for x in xs])
        ax.minorticks_off()
        ax.set_xlabel(f"nodes ({pname})")
        ax.grid(True, alpha=0.3, lw=0.5)
    axes[0].set_ylabel("accepted throughput (% of injection)")
    axes[0].set_ylim(0, None)
    handles, names = axes[1].get_legend_handles_labels()   # the second panel has every entry
    fig.legend(handles, names, ncol=len(names), loc="lower center", bbox_to_anchor=(0.5, 0.0))
    return _finish(fig, plt, st, out, "dragonfly-valiant", table, rect=(0, 0.09, 1, 1))
