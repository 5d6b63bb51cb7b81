"""Saturation search over batched replicas (issue 5)."""
import json

import pytest

import flitsim
from flitsim.cli import main
from conftest import small_dragonfly

BASE = dict(sim={"warmup": 200, "measure": 1000, "drain_limit": 3000})


@pytest.fixture(scope="module")
def found():
    cfg = small_dragonfly(**BASE)
    return cfg, flitsim.saturate(cfg, tolerance=0.01, probes=6, backend="cpu")


def test_bracket_is_narrow_and_probes_agree(found):
    _, res = found
    assert 0.3 < res.saturation < 0.9   # uniform MIN on this dragonfly knees near 0.65
    assert res.upper - res.saturation <= 0.01 + 1e-12
    assert res.engine_runs == 3 and res.replicas_per_run == 6
    assert len(res.probes) == res.engine_runs * res.replicas_per_run
    by_load = {p.load: p for p in res.probes}
    assert not by_load[res.saturation].saturated
    assert by_load[res.upper].saturated
    assert res.accepted_at_saturation == by_load[res.saturation].accepted
    assert res.max_accepted >= res.accepted_at_saturation


def test_direct_runs_just_below_and_above(found):
    # Independent single runs confirm the bracket: the network keeps up just below the
    # reported saturation and falls behind just above it.
    cfg, res = found
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
    res = flitsim.saturate(cfg, probes=2, backend="cpu", upper=0.2)
    assert res.saturation == 0.2 and res.engine_runs == 1
    assert not any(p.saturated for p in res.probes)


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


def test_tolerance_below_rounding_still_terminates(monkeypatch):
    # A tolerance finer than the probe rounding (1e-9) used to re-probe the same loads
    # forever; the search must end once no new load fits strictly inside the bracket.
    from types import SimpleNamespace
    from flitsim import engine
    knee = 0.123456789012
    calls = []

    def fake(cfg, loads, backend=None, threads=None, **kw):
        calls.append(list(loads))
        return [SimpleNamespace(load=x, offered=x, accepted=min(x, knee), latency_mean=1.0,
                                saturated=x > knee, drained=x <= knee) for x in loads]

    monkeypatch.setattr(engine, "run_replicas", fake)
    res = flitsim.saturate(small_dragonfly(**BASE), tolerance=1e-12, probes=8)
    assert len(calls) < 30
    assert all(len(set(c)) == len(c) for c in calls)
    probed = [x for c in calls for x in c]
    assert len(set(probed)) == len(probed)           # no load simulated twice
    assert res.saturation <= knee < res.upper <= res.saturation + 2e-9
