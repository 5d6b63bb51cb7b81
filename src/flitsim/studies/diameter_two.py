"""Study 4 (Kathareios et al., SC 2015): accepted throughput at full load of Slim Fly, MLFM and OFT."""
from __future__ import annotations

import pathlib

from .common import (DOUBLE_COLUMN, STUDY_SEEDS, Outcome, _finish, _full_load_bars, _load, _md, _mean_ci, _pct_ci, _plt,
                     _Progress, _stall_note, _with)


D2_TOPOLOGIES_QUICK = {"Slim Fly q=5": {"kind": "slimfly", "q": 5},
                       "MLFM h=4": {"kind": "mlfm", "h": 4},
                       "OFT k=4": {"kind": "oft", "k": 4}}
D2_TOPOLOGIES_FULL = {"Slim Fly q=13": {"kind": "slimfly", "q": 13, "p": 9},
                      "MLFM h=15": {"kind": "mlfm", "h": 15},
                      "OFT k=12": {"kind": "oft", "k": 12}}


def _min_worst_case_bound(topo: dict, desc: dict) -> float | None:
    """MIN's throughput bound under the worst-case pattern (docs/traffic.md): 1/(2p) on a Slim
    Fly with p nodes per router, 1/h on an MLFM, 1/k on an OFT."""
    if topo["kind"] == "slimfly":
        return 1 / (2 * (desc["nodes"] // desc["routers"]))
    if topo["kind"] == "mlfm":
        return 1 / topo["h"]
    if topo["kind"] == "oft":
        return 1 / topo["k"]
    return None


# The paper's saturation throughputs at its full sizes (docs/targets.md): MIN under uniform
# "approximately 96 to 98 %" (D2-R1, Slim Fly p = 9, MLFM, OFT; drawn at 97 %), and indirect
# random (Valiant) half of that under both patterns (D2-R3: about 48.5 %).
D2_PAPER = {("min", "uniform"): 0.97, ("valiant", "uniform"): 0.485, ("valiant", "worst-case"): 0.485}


def diameter_two(out: pathlib.Path, quick: bool, backend, threads, progress) -> Outcome:
    import flitsim
    from .. import topology
    base = _load("diameter-two-ioq")   # the paper's switch (the file's comments)
    over = {**base.pop("sweep")["over"], "sim.seed": list(STUDY_SEEDS)}   # seeds: replicas of one run
    tops = D2_TOPOLOGIES_QUICK if quick else D2_TOPOLOGIES_FULL
    seeds: dict[tuple[str, str, str], list[float]] = {}
    desc = {}
    stalls = 0
    pr = _Progress("diameter-two", len(tops), progress)
    for name, topo in tops.items():
        cfg = _with(base)
        cfg["topology"] = dict(topo)
        desc[name] = topology.describe(cfg)
        sw = flitsim.sweep(cfg, over, backend=backend, threads=threads, progress=pr.batches(name))
        for p, r in zip(sw.points, sw.results):
            seeds.setdefault((name, p["routing.algorithm"], p["traffic.pattern"]), []).append(r.accepted)
            stalls += r.slot_stalls
        pr.step(name)
    pr.close()
    cells = {k: _mean_ci(v) for k, v in seeds.items()}   # (mean, 95 % half-width) over the seeds
    algs, pats = list(over["routing.algorithm"]), list(over["traffic.pattern"])
    from ..plot.style import value_words
    combos = [(a, t) for a in algs for t in pats]
    rows = []
    for name in tops:
        d = desc[name]
        rows.append([name, f"{d['nodes']:,}", f"{d['routers']:,}", str(d["radix"]),
                     str(d["diameter"]), f"{d['cost'] / d['nodes']:.2f}"] +
                    [_pct_ci(cells[(name, a, t)]) for a, t in combos])
    head = ["topology", "nodes", "routers", "radix", "diameter", "cost/node"] + [
        f"{value_words('routing.algorithm', a)} {value_words('traffic.pattern', t)}"
        for a, t in combos]
    table = (_md(head, rows) + f"\nCells: mean ± 95 % Student-t half-width over seeds "
             f"{', '.join(map(str, STUDY_SEEDS))}.\n" + _stall_note(stalls))
    plt, colours, markers, st = _plt()
    fig, ax = plt.subplots(figsize=(DOUBLE_COLUMN, 2.4))
    _full_load_bars(ax, colours, tops, combos, lambda n, c: cells[(n, *c)][0],
                    lambda c: f"{value_words('routing.algorithm', c[0])}, {value_words('traffic.pattern', c[1])}",
                    marks={"MIN worst-case bound": lambda n, c: (_min_worst_case_bound(tops[n], desc[n])
                                                                  if c == ("min", "worst-case") else None),
                           "paper (full size)": lambda n, c: D2_PAPER.get(c)},
                    error=lambda n, c: cells[(n, *c)][1])
    return _finish(fig, plt, st, out, "diameter-two", table)
