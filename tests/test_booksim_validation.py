"""flitsim's side of the BookSim2 comparison (docs/validation.md, "BookSim2 side by side").

Each case is a configs/validation/booksim-*.toml network with the overrides below, measured
at four offered loads: 0.01 (zero-load latency), about 50 % and 80 % of BookSim2's
saturation (mean packet latency), and a load past saturation (accepted flits/node/cycle,
the saturation throughput). FLITSIM holds flitsim's long-run numbers (warm-up 3,000, window
10,000 cycles; 20,000 at 0.01) and BOOKSIM BookSim2's, both as in the docs' table. The tests
rerun flitsim with the same windows and seed (so on this commit they reproduce FLITSIM's
latencies exactly; saturation runs use a shorter window) and check:
  * zero-load latency within 2 % of BookSim2's (the comparison's goal, met by every case);
  * latency at 50 % / 80 % within 8 % of FLITSIM and saturation within ±0.02: room for
    changes of the router model that keep the comparison (issue 12's separable switch
    allocator, which the booksim preset will select, moves them by up to 6 % and 0.019:
    flattened-butterfly UGAL under bit complement), none for a change that breaks it;
  * where flitsim meets the goal (latency within 10 %, saturation within ±0.02 of BookSim2)
    the measured value is also checked against BookSim2 with that tolerance.
"""
import pathlib

import pytest

import flitsim

ROOT = pathlib.Path(__file__).resolve().parents[1] / "configs" / "validation"
DF, FF, FT = (str(ROOT / f"booksim-{n}.toml") for n in ("dragonfly72", "flatfly44", "fattree43"))
BAD = ["traffic.pattern=bad-dragon", "traffic.self=false"]
BC = ["traffic.pattern=bitcomp", "traffic.self=false"]
# flitsim's dragonfly UGAL with valiant = "node" uses VA's 4 classes (BookSim2 uses 3 VCs,
# not deadlock-free in general); by-hop gives each class one VC in both.
DF_UGAL = ["routing.algorithm=ugal", "router.vcs=4"]
# Flattened-butterfly UGAL: BookSim2's ugal_flatfly, i.e. dimension-ordered phases on 4 VCs
# (2 each), the intermediate drawn where source and destination differ, one candidate, its
# cost rule (bias 2, unweighted), its sensing (downstream credits in use only) and its
# decision time (lookahead routing: as the packet enters the injection channel).
FF_UGAL = ["routing.algorithm=ugal-dor", "routing.valiant=differing-dims", "routing.cost=booksim-flatfly",
           "routing.congestion=downstream", "routing.n_indirect=1", "routing.decide_at_injection=true"]
# flitsim's Valiant phases take any minimal path, so each needs a class per hop: 8 VCs give
# every hop 2, as BookSim2's DOR phases get (4 VCs split in halves).
V8 = ["router.vcs=8"]

# case: (config, overrides, offered loads [zero-load, ~50 %, ~80 %, past saturation])
CASES = {
    "df-min-uniform": (DF, ["router.eject_vc=arrival"], [0.01, 0.2, 0.33, 0.46]),
    "df-ugal-uniform": (DF, DF_UGAL, [0.01, 0.2, 0.32, 0.5]),
    "df-min-bad_dragon": (DF, BAD, [0.01, 0.03, 0.05, 0.1]),
    "df-ugal-bad_dragon": (DF, DF_UGAL + BAD, [0.01, 0.09, 0.14, 0.2]),
    "ff-dor-uniform": (FF, [], [0.01, 0.33, 0.53, 0.75]),
    "ff-dor-bitcomp": (FF, BC, [0.01, 0.125, 0.2, 0.35]),
    "ff-valiant-uniform": (FF, ["routing.algorithm=valiant"] + V8, [0.01, 0.17, 0.28, 0.45]),
    "ff-valiant-bitcomp": (FF, ["routing.algorithm=valiant"] + V8 + BC, [0.01, 0.16, 0.25, 0.45]),
    "ff-ugal-uniform": (FF, FF_UGAL, [0.01, 0.26, 0.42, 0.8]),
    "ff-ugal-bitcomp": (FF, FF_UGAL + BC, [0.01, 0.16, 0.26, 0.45]),
    "ft-nca-uniform": (FT, [], [0.01, 0.35, 0.55, 0.8]),
}
# [zero-load latency, latency at ~50 %, latency at ~80 %, saturation throughput]
FLITSIM = {
    "df-min-uniform": [116.13, 117.6, 122.64, 0.4222],
    "df-ugal-uniform": [116.13, 125.53, 142.65, 0.4079],
    "df-min-bad_dragon": [128.68, 129.42, 132.49, 0.0621],
    "df-ugal-bad_dragon": [128.71, 373.51, 598.05, 0.1846],
    "ff-dor-uniform": [12.0, 12.81, 15.44, 0.6908],
    "ff-dor-bitcomp": [14.02, 14.37, 15.54, 0.25],
    "ff-valiant-uniform": [16.96, 17.95, 20.94, 0.3819],
    "ff-valiant-bitcomp": [18.03, 19.04, 21.42, 0.3436],
    "ff-ugal-uniform": [12.01, 12.85, 14.21, 0.5389],
    "ff-ugal-bitcomp": [14.06, 16.44, 20.17, 0.3029],
    "ft-nca-uniform": [19.55, 20.71, 24.02, 0.7304],
}
BOOKSIM = {
    "df-min-uniform": [116.07, 117.67, 122.47, 0.4215],
    "df-ugal-uniform": [116.46, 125.63, 144.54, 0.3990],
    "df-min-bad_dragon": [128.54, 129.45, 132.64, 0.0625],
    "df-ugal-bad_dragon": [128.78, 465.43, None, 0.1822],  # BookSim2 aborts at 0.14 (latency > 500)
    "ff-dor-uniform": [12.04, 12.86, 16.00, 0.6866],
    "ff-dor-bitcomp": [14.02, 14.38, 15.52, 0.2500],
    "ff-valiant-uniform": [16.95, 18.00, 20.77, 0.3783],
    "ff-valiant-bitcomp": [18.04, 19.05, 21.49, 0.3496],
    "ff-ugal-uniform": [12.02, 12.96, 14.32, 0.5500],
    "ff-ugal-bitcomp": [14.09, 16.67, 20.63, 0.2979],
    "ft-nca-uniform": [19.52, 20.84, 24.72, 0.7267],
}


def run(name, point):
    """The docs' run: the config's windows (warm-up 3,000, window 10,000; 20,000 at zero load),
    shorter past saturation (warm-up 2,000, window 4,000: the accepted rate settles fast)."""
    cfgf, over, loads = CASES[name]
    extra = {0: ["sim.measure=20000"], 3: ["sim.warmup=2000", "sim.measure=4000"]}.get(point, [])
    cfg = flitsim.load_config(cfgf, [f"traffic.load={loads[point]}", *over, *extra])
    return flitsim.run(cfg, backend="cpu", threads=1, progress=False)


@pytest.mark.parametrize("name", CASES)
def test_zero_load_latency_within_2_percent_of_booksim2(name):
    ref = BOOKSIM[name][0]
    r = run(name, 0)
    assert r.latency_mean == pytest.approx(FLITSIM[name][0], rel=0.01)
    if ref is not None:
        assert FLITSIM[name][0] == pytest.approx(ref, rel=0.02)
        assert r.latency_mean == pytest.approx(ref, rel=0.02)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("point", [1, 2], ids=["50%", "80%"])
def test_latency_below_saturation(name, point):
    r = run(name, point)
    assert not r.saturated
    assert r.latency_mean == pytest.approx(FLITSIM[name][point], rel=0.08)
    ref = BOOKSIM[name][point]
    if ref is not None and abs(FLITSIM[name][point] / ref - 1) <= 0.10:
        assert r.latency_mean == pytest.approx(ref, rel=0.10)


@pytest.mark.parametrize("name", [n for n in CASES if FLITSIM[n][3] is not None])
def test_saturation_throughput(name):
    r = run(name, 3)
    assert r.saturated
    assert r.accepted == pytest.approx(FLITSIM[name][3], abs=0.02)
    ref = BOOKSIM[name][3]
    if ref is not None and abs(FLITSIM[name][3] - ref) <= 0.02:
        assert r.accepted == pytest.approx(ref, abs=0.02)


# Dragonfly UGAL under bad_dragon (issue 12, BookSim2's UGAL conventions). Both simulators'
# latency at offered 0.09 and BookSim2's throughput past saturation drift for tens of thousands
# of cycles, so these compare one fixed window, cycles 20,000-30,000 (BookSim2: the third of
# its warm-up periods with sample_period = 10000; flitsim: warm-up 20,000, window 10,000).
# BookSim2: latency 508.5 at offered 0.09; accepted 0.177, 0.168, 0.145 in its three periods at
# offered 0.2 (docs/validation.md).
DF_LATE = ["sim.warmup=20000", "sim.measure=10000", "sim.drain_limit=1"]


def test_dragonfly_ugal_bad_dragon_latency_settles_where_booksim2s_does():
    cfg = flitsim.load_config(DF, ["traffic.load=0.09", *DF_UGAL, *BAD, *DF_LATE])
    r = flitsim.run(cfg, backend="cpu", threads=1, progress=False)
    assert r.latency_mean == pytest.approx(507.9, rel=0.08)
    assert r.latency_mean == pytest.approx(508.5, rel=0.10)


def late_accepted(extra):
    cfg = flitsim.load_config(DF, ["traffic.load=0.2", *DF_UGAL, *BAD, *DF_LATE, *extra])
    return flitsim.run(cfg, backend="cpu", threads=1, progress=False).accepted


def test_booksim2s_dragonfly_ugal_vcs_reproduce_its_decline_past_saturation():
    # With BookSim2's ugal_dragonflynew VCs (routing.vc_scheme = "booksim", 3 VCs) the accepted
    # rate at offered 0.2 falls as BookSim2's does (0.144 vs 0.145 over cycles 20,000-30,000).
    a = late_accepted(["routing.vc_scheme=booksim", "router.vcs=3"])
    assert a == pytest.approx(0.144, abs=0.015)
    assert a == pytest.approx(0.145, abs=0.02)


def test_flitsims_dragonfly_ugal_classes_hold_their_throughput_past_saturation():
    assert late_accepted([]) == pytest.approx(0.182, abs=0.015)  # 4 VCs, ValiantAny's classes
