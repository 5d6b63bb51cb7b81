"""Saturation search over batched replicas (issue 5)."""
import json

import pytest

import flitsim
from flitsim.cli import main
from conftest import small_dragonfly

BASE = dict(sim={"warmup": 200, "measure": 1000, "drain_limit": 3000})


SEARCHES = {"bisection-6": dict(probes=6, guided=False), "guided-6": dict(probes=6),
            "cpu-default": dict()}


@pytest.fixture(scope="module", params=list(SEARCHES))
def found(request):
    cfg = small_dragonfly(**BASE)
    return cfg, flitsim.saturate(cfg, tolerance=0.01, backend="cpu", **SEARCHES[request.param]), \
        request.param


def test_bracket_is_narrow_and_probes_agree(found):
    _, res, search = found
    assert 0.3 < res.saturation < 0.9   # uniform MIN on this dragonfly knees near 0.65
    assert res.upper - res.saturation <= 0.01 + 1e-12
    if search == "bisection-6":
        # 1 -> 1/6 -> 1/42 -> 1/294: three runs to a bracket of 0.01
        assert res.engine_runs == 3 and res.replicas_per_run == 6
    elif search == "guided-6":
        # aimed at the knee the first run's plateau predicts, the second run brackets it
        assert res.engine_runs == 2 and res.replicas_per_run == 6
    else:
        assert res.replicas_per_run == 1    # the CPU default: one probe per run
    assert len(res.probes) == res.engine_runs * res.replicas_per_run
    assert res.replica_cycles == sum(p.cycles for p in res.probes) > 0
    by_load = {p.load: p for p in res.probes}
    assert not by_load[res.saturation].saturated
    assert by_load[res.upper].saturated
    assert res.accepted_at_saturation == by_load[res.saturation].accepted
    assert res.max_accepted >= res.accepted_at_saturation


def test_direct_runs_just_below_and_above(found):
    # Independent single runs confirm the bracket: the network keeps up just below the
    # reported saturation and falls behind just above it.
    cfg, res, _ = found
    below = flitsim.run(small_dragonfly(**BASE, traffic={"load": res.saturation - 0.03}),
                        backend="cpu")
    above = flitsim.run(small_dragonfly(**BASE, traffic={"load": res.upper + 0.03}),
                        backend="cpu")
    assert not below.saturated and below.accepted >= 0.95 * below.offered
    assert above.saturated and above.accepted < 0.95 * above.offered
    # The probe at the saturation load equals a separate run at that load (replicas are
    # independent of their batch).
    at = flitsim.run(small_dragonfly(**BASE, traffic={"load": res.saturation}), backend="cpu")
    assert at.accepted == res.accepted_at_saturation


def test_everything_sustained_gives_the_upper_bound():
    cfg = small_dragonfly(**BASE)
    for probes in (1, 2):   # one probe: the bound alone (it reported 0.0 and NaN before)
        res = flitsim.saturate(cfg, probes=probes, backend="cpu", upper=0.2)
        assert res.saturation == 0.2 and res.engine_runs == 1
        assert not any(p.saturated for p in res.probes)
        top = max(res.probes, key=lambda p: p.load)
        assert top.load == 0.2
        assert res.accepted_at_saturation == top.accepted and res.latency_at_saturation == top.latency


def test_bad_arguments():
    cfg = small_dragonfly(**BASE)
    with pytest.raises(ValueError, match="probes"):
        flitsim.saturate(cfg, probes=0)
    with pytest.raises(ValueError, match="tolerance"):
        flitsim.saturate(cfg, tolerance=0)


def test_cli_json(tmp_path, capsys):
    path = tmp_path / "df.toml"
    path.write_text("[topology]\np = 2\na = 4\nh = 2\n[router]\nvcs = 2\nbuffer = 8\n"
                    "latency = 1\n[sim]\nwarmup = 200\nmeasure = 1000\ndrain_limit = 3000\n")
    rc = main(["saturate", str(path), "--json", "--probes", "4", "--tolerance", "0.05",
               "--backend", "cpu"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    for key in ("saturation", "accepted_at_saturation", "probes", "engine_runs",
                "wall_seconds", "criterion"):
        assert key in out
    assert set(out["probes"][0]) >= {"load", "accepted", "latency", "saturated"}
    assert out["upper"] - out["saturation"] <= 0.05 + 1e-12
    assert main(["saturate", str(path), "--tolerance", "-1"]) == 2
    assert main(["saturate", str(path), "--set", "traffic.lod=1"]) == 2


def _fake_engine(monkeypatch, knee, plateau):
    """The engine replaced by a network that accepts min(load, plateau) and is saturated above
    `knee`; returns the list of each run's loads."""
    from types import SimpleNamespace
    from flitsim import engine
    calls = []

    def fake(cfg, loads, backend=None, threads=None, **kw):
        calls.append(list(loads))
        return [SimpleNamespace(load=x, offered=x, accepted=min(x, plateau), latency_mean=1.0,
                                saturated=x > knee, drained=x <= knee) for x in loads]

    monkeypatch.setattr(engine, "run_replicas", fake)
    return calls


def test_tolerance_below_rounding_still_terminates(monkeypatch):
    # A tolerance finer than the probe rounding (1e-9) used to re-probe the same loads
    # forever; the search must end once no new load fits strictly inside the bracket.
    knee = 0.123456789012
    calls = _fake_engine(monkeypatch, knee, plateau=knee)
    res = flitsim.saturate(small_dragonfly(**BASE), tolerance=1e-12, probes=8)
    assert len(calls) < 30
    assert all(len(set(c)) == len(c) for c in calls)
    probed = [x for c in calls for x in c]
    assert len(set(probed)) == len(probed)           # no load simulated twice
    assert res.saturation <= knee < res.upper <= res.saturation + 2e-9


def test_guided_search_probes_the_predicted_knee(monkeypatch):
    # Accepted rule: the knee is where the plateau falls below 0.95 x load. One probe per run:
    # load 1.0 shows the plateau 0.6, the next probe goes to 0.6 / 0.95 and the bracket closes
    # in a few runs; bisection needs log2(1 / 0.005) = 8.
    knee = 0.6 / 0.95 - 0.001
    calls = _fake_engine(monkeypatch, knee, plateau=0.6)
    res = flitsim.saturate(small_dragonfly(**BASE), tolerance=0.005, probes=1)
    assert calls[0] == [1.0]
    assert abs(calls[1][0] - 0.6 / 0.95) < 1e-6
    assert res.saturation <= knee < res.upper <= res.saturation + 0.005 + 1e-12
    assert res.engine_runs <= 4
    calls.clear()
    plain = flitsim.saturate(small_dragonfly(**BASE), tolerance=0.005, probes=1, guided=False)
    assert plain.saturation <= knee < plain.upper and plain.engine_runs >= 8


@pytest.mark.parametrize("knee", [0.45, 0.2, 0.9])
def test_a_wrong_prediction_costs_runs_not_correctness(monkeypatch, knee):
    # The knee far from plateau / 0.95 (a network saturated by undelivered packets first, or
    # one whose throughput collapses past the knee): the search widens its region on the
    # knee's side and still brackets it within the tolerance.
    calls = _fake_engine(monkeypatch, knee, plateau=0.6)
    for probes in (1, 8):
        calls.clear()
        res = flitsim.saturate(small_dragonfly(**BASE), tolerance=0.005, probes=probes)
        assert res.saturation <= knee < res.upper <= res.saturation + 0.005 + 1e-12
        assert len(calls) <= 14
        probed = [x for c in calls for x in c]
        assert len(set(probed)) == len(probed)           # no load simulated twice


def test_no_prediction_under_the_latency_rule(monkeypatch):
    # The latency rule does not tie the knee to the plateau: the search bisects.
    calls = _fake_engine(monkeypatch, 0.5, plateau=0.6)
    cfg = small_dragonfly(sim={**BASE["sim"], "saturation": "latency", "latency_threshold": 500})
    flitsim.saturate(cfg, tolerance=0.01, probes=1)
    assert [c[0] for c in calls[:3]] == [1.0, 0.5, 0.75]


def test_default_probes_per_backend():
    from flitsim.saturate import default_probes
    assert default_probes("cpu") == 1 and default_probes("cuda") == 8


@pytest.mark.parametrize("probes", [1, 2, 8])
def test_the_eta_counts_the_runs_the_guided_search_takes(monkeypatch, probes):
    # The progress line's "round r/~R": R estimated before each run. For the guided search it
    # must be the runs it takes within one (bisection's count, 9 runs of one probe for a
    # tolerance of 0.005, was twice the 4 it takes); for plain bisection it stays exact.
    from flitsim import saturate as sat
    estimates = []
    real_run = sat._Search.run

    def watching_run(self):
        original = self._loads
        def loads():
            estimates.append(self.runs + self._rounds_left())
            return original()
        self._loads = loads
        real_run(self)

    monkeypatch.setattr(sat._Search, "run", watching_run)
    for plateau in (0.3, 0.45, 0.6, 0.72):
        calls = _fake_engine(monkeypatch, plateau / 0.95 - 0.001, plateau=plateau)
        estimates.clear()
        flitsim.saturate(small_dragonfly(**BASE), tolerance=0.005, probes=probes)
        assert abs(estimates[0] - len(calls)) <= 1, (plateau, estimates, len(calls))
        assert all(abs(e - len(calls)) <= 1 for e in estimates[:len(calls)])
    calls = _fake_engine(monkeypatch, 0.5, plateau=0.6)
    estimates.clear()
    flitsim.saturate(small_dragonfly(**BASE), tolerance=0.005, probes=probes, guided=False)
    assert estimates[0] == len(calls) == sat._rounds_needed(1.0, 0.005, probes)
