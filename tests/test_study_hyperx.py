"""The HyperX study (`flitsim reproduce hyperx-dimwar`): what it runs (the paper's routings, seeds,
a drain limit from the zero-load latency), the bounds it draws, and the paper's orderings it
checks (src/flitsim/studies/hyperx_orderings.py) against cells built to pass or fail each."""
from flitsim import _core  # noqa: F401  (built before any test captures output)
import itertools
import types

import pytest

import flitsim
from flitsim.studies import reproduce
from flitsim.studies.common import STUDY_SEEDS, _load
from flitsim.studies.hyperx_dimwar import (HX_DRAIN_FACTOR, HX_PATTERNS, HX_REFERENCE, HX_ROUTINGS, hx_bounds,
                                           hx_valiant_zero_load)
from flitsim.studies.hyperx_orderings import hx_orderings, orderings_md


def test_drain_limit_of_the_experiment_file_follows_its_rule():
    # The file's comment: 4 x (2N hops x 50 + (2N + 1) routers x (50 + 1) + 2 x 5 + 15) = 4 x 682.
    cfg = _load("hyperx-dimwar")
    assert hx_valiant_zero_load(cfg) == 6 * 50 + 7 * 51 + 2 * 5 + 15 == 682
    assert cfg["sim"]["drain_limit"] == HX_DRAIN_FACTOR * hx_valiant_zero_load(cfg)


def test_valiant_zero_load_is_the_latency_of_its_longest_route():
    # Near zero load (0.05 %; at 0.2 % two packets already met, 4 cycles more) no packet waits,
    # so the slowest packet is one on a longest Valiant route (2N hops, drawn often on a 3 x 3
    # HyperX) with the largest packet, and it takes exactly the computed latency: every term
    # of the formula is one of the engine's pipeline stages.
    cfg = {"topology": {"kind": "hyperx", "widths": [3, 3], "terminals": 1},
           "router": {"preset": "hyperx-paper"}, "channels": {"latency": 7, "terminal": 3},
           "routing": {"algorithm": "valiant"},
           "traffic": {"pattern": "uniform", "load": 0.0005, "packet_sizes": [4, 4]},
           "sim": {"warmup": 200, "measure": 40000, "seed": 1}}
    expected = 4 * 7 + 5 * 51 + 2 * 3 + 3
    assert hx_valiant_zero_load(cfg) == expected
    r = flitsim.run(cfg, backend="cpu", threads=1)
    assert r.latency_max == expected


def test_bounds_are_dors_channel_bounds_and_valiants_half():
    b = hx_bounds(8, 8)
    assert b["BC"]["DOR"] == b["URBy"]["DOR"] == 1 / 8 and b["DCR"]["DOR"] == 1 / 64
    assert b["S2"]["DOR"] == 1 / 4 and "DOR" not in b["UR"]
    assert all(b[p]["VAL"] == 0.5 for p in HX_PATTERNS)


def _paper_cells(T: int = 4) -> dict:
    """Cells that meet every statement HX-R1..R8 (the paper's figure, scaled to T)."""
    c = {}
    for p in HX_PATTERNS:
        c.update({(p, "DOR"): 1 / T, (p, "VAL"): 0.44, (p, "UGAL"): 0.46, (p, "Clos-AD"): 0.46,
                  (p, "DimWAR"): 0.48, (p, "OmniWAR"): 0.49})
    c.update({("UR", "DOR"): 0.88, ("UR", "UGAL"): 0.85, ("UR", "Clos-AD"): 0.86, ("UR", "DimWAR"): 0.87,
              ("UR", "OmniWAR"): 0.89, ("URBy", "UGAL"): 1 / T, ("URBy", "Clos-AD"): 1 / T,
              ("S2", "DOR"): 2 / T, ("S2", "UGAL"): 0.50, ("S2", "Clos-AD"): 0.9, ("S2", "DimWAR"): 0.96,
              ("S2", "OmniWAR"): 0.97, ("DCR", "DOR"): 1 / (4 * T), ("DCR", "DimWAR"): 0.1,
              ("DCR", "UGAL"): 0.3, ("DCR", "Clos-AD"): 0.3})
    return c


def test_orderings_all_hold_on_the_papers_cells():
    verdicts = hx_orderings(_paper_cells(), 4, 4)
    assert [v.id for v in verdicts] == [f"HX-R{i}" for i in range(1, 9)]
    assert all(v.holds for v in verdicts), [v.id for v in verdicts if not v.holds]
    md = orderings_md(verdicts)
    assert md.count("holds:") == 8 and "HX-R9..R11" in md


@pytest.mark.parametrize("change, fails", [
    ({("UR", "DimWAR"): 0.90}, {"HX-R1", "HX-R7"}),                 # OmniWAR not the best under UR
    ({("BC", "UGAL"): 0.44}, {"HX-R2"}),                            # an adaptive routing under 45 %
    ({("BC", "Clos-AD"): 0.485}, {"HX-R2", "HX-R7"}),               # Clos-AD above DimWAR under BC
    ({("URBx", "DimWAR"): 0.40}, {"HX-R3", "HX-R7"}),
    ({("URBy", "UGAL"): 0.29}, {"HX-R4", "HX-R8"}),                 # 1.16/T: above DOR's bound
    ({("S2", "UGAL"): 0.61}, {"HX-R5"}),
    ({("DCR", "DimWAR"): 0.35}, {"HX-R6"}),                         # DimWAR above UGAL under DCR
    ({("DCR", "OmniWAR"): 0.44, ("DCR", "VAL"): 0.43}, {"HX-R6"}),  # OmniWAR short of 45 %
    ({("URBx", "UGAL"): 0.495}, {"HX-R7"}),                         # UGAL over OmniWAR
])
def test_each_ordering_fails_when_its_cells_break_it(change, fails):
    verdicts = hx_orderings({**_paper_cells(), **change}, 4, 4)
    assert {v.id for v in verdicts if not v.holds} == fails
    assert orderings_md(verdicts).count("Not met: ") == len(fails)   # each says which part


def test_study_runs_the_papers_routings_over_three_seeds(tmp_path, monkeypatch):
    # A stand-in sweep records what the study asks for and answers with a cell per routing.
    pytest.importorskip("matplotlib")
    asked = []

    def sweep(cfg, over, **kw):
        asked.append((cfg, over))
        points = [dict(zip(over, v)) for v in itertools.product(*over.values())]
        return types.SimpleNamespace(points=points, results=[
            types.SimpleNamespace(accepted=0.3 + 0.01 * p["sim.seed"], slot_stalls=0) for p in points])
    monkeypatch.setattr(flitsim, "sweep", sweep)
    out = reproduce("hyperx-dimwar", str(tmp_path), quick=True, progress=False)
    routings = {**HX_ROUTINGS, **HX_REFERENCE}
    fixed = set(_load("hyperx-dimwar")["routing"]) - {"algorithm"}   # the file's own [routing] keys

    def keys(cfg, alg):
        return {"algorithm": alg, **{k: v for k, v in cfg["routing"].items() if k not in fixed | {"algorithm"}}}
    assert len(asked) == len(HX_PATTERNS) * 3        # per pattern: plain, class and port sensing
    for cfg, over in asked:
        assert over["sim.seed"] == list(STUDY_SEEDS)
        assert cfg["topology"]["widths"] == [4, 4, 4] and cfg["sim"]["drain_limit"] == 4 * 682
    ran = [keys(cfg, a) for cfg, over in asked for a in over["routing.algorithm"]]   # with exactly its keys
    assert all(ran.count(r) == len(HX_PATTERNS) for r in routings.values())
    assert HX_ROUTINGS["UGAL"] == {"algorithm": "ugal-dor"}
    assert HX_ROUTINGS["OmniWAR"]["sensing"] == HX_ROUTINGS["DimWAR"]["sensing"] == "class"
    rows = [ln for ln in out.table.splitlines() if ln.startswith("| ") and not ln.startswith("|---")]
    assert len(rows) == 1 + len(HX_PATTERNS) and rows[0].count("|") == 1 + 1 + len(routings)
    # Every cell: the mean of 0.31, 0.32, 0.33 with its t interval (4.30 x 0.01 / sqrt(3) = 2.5 points).
    assert rows[1].split("|")[2].strip() == "32.0 ± 2.5% (~100%)"
    assert "HX-R8" in out.table and (tmp_path / "hyperx-dimwar.png").stat().st_size > 20_000


def test_saturation_table_searches_the_studys_cells(monkeypatch):
    # analysis/hyperx_saturation_table.py (docs/reproductions.md) must search the quick study's
    # configuration, so that its cells sit beside the study's full-load cells.
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "analysis"))
    from hyperx_saturation_table import quick_base
    asked = []

    def sweep(cfg, over, **kw):
        asked.append(cfg)
        points = [dict(zip(over, v)) for v in itertools.product(*over.values())]
        return types.SimpleNamespace(points=points, results=[types.SimpleNamespace(accepted=0.5, slot_stalls=0)
                                                             for _ in points])
    monkeypatch.setattr(flitsim, "sweep", sweep)
    class Drawn(Exception):
        pass

    def stop():
        raise Drawn
    monkeypatch.setattr(sys.modules["flitsim.studies.hyperx_dimwar"], "_plt", stop)
    with pytest.raises(Drawn):   # stop before the figure: the configurations are what counts
        reproduce("hyperx-dimwar", "unused", quick=True, progress=False)
    assert len(asked) == 3 * len(HX_PATTERNS)
    base = quick_base()
    for cfg in asked:
        assert {k: v for k, v in cfg.items() if k not in ("traffic", "routing")} == \
            {k: v for k, v in base.items() if k not in ("traffic", "routing")}
