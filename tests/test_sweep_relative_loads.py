"""Swept loads given as fractions of each point's own saturation load (`traffic.load =
"saturation*F"`, docs/experiments.md "Loads relative to saturation")."""
import pytest

import flitsim
from flitsim.config import ConfigError
from flitsim.config_values import sweep_values
from flitsim.sweep import plan
from conftest import small_dragonfly

SIM = {"warmup": 100, "measure": 300, "drain_limit": 1000}


def test_values_parse_as_fractions():
    assert sweep_values("x", "saturation*0.25:0.75:0.25") == [
        "saturation*0.25", "saturation*0.5", "saturation*0.75"]
    assert sweep_values("x", "saturation*0.5,1,1.1") == [
        "saturation*0.5", "saturation*1.0", "saturation*1.1"]
    for bad in ("saturation*0,1", "saturation*", "saturation*x", "saturation*-0.5"):
        with pytest.raises(ConfigError, match="fractions F > 0"):
            sweep_values("traffic.load", bad)


def test_only_traffic_load_may_be_relative():
    with pytest.raises(ConfigError, match="only traffic.load"):
        plan(small_dragonfly(sim=SIM), {"router.buffer": ["saturation*0.5"]})
    with pytest.raises(ConfigError, match="fraction F > 0"):
        plan(small_dragonfly(sim=SIM), {"traffic.load": ["saturation*nope"]})


def test_each_combination_gets_its_own_saturation():
    # The stand-in search: a saturation load per routing. Loads are the fractions of it, per
    # combination of the other keys; seeds share their combination's search.
    calls = []

    def saturation_of(cfg):
        calls.append((cfg["routing"]["algorithm"], cfg["sim"]["seed"]))
        return {"min": 0.6, "valiant": 0.3}[cfg["routing"]["algorithm"]]

    keys, points, cfgs, batches = plan(
        small_dragonfly(sim=SIM, router={"vcs": 4}),
        {"routing.algorithm": ["min", "valiant"], "traffic.load": ["saturation*0.5", "saturation*2"],
         "sim.seed": [1, 2]}, saturation_of=saturation_of)
    assert calls == [("min", 1), ("valiant", 1)]
    loads = [(p["routing.algorithm"], p["traffic.load"]) for p in points]
    assert loads == [("min", 0.3)] * 2 + [("min", 1.0)] * 2 + [("valiant", 0.15)] * 2 + \
        [("valiant", 0.6)] * 2                    # 2 x 0.6 capped at 1.0
    assert all(c["traffic"]["load"] == p["traffic.load"] for c, p in zip(cfgs, points))
    assert len(batches) == 2                      # loads and seeds stay replica keys


def test_no_sustained_load_is_refused():
    with pytest.raises(ConfigError, match="no load is sustained"):
        plan(small_dragonfly(sim=SIM), {"traffic.load": ["saturation*0.5"]},
             saturation_of=lambda cfg: 0.0)


def test_sweep_runs_relative_to_the_real_search(tmp_path):
    cfg = small_dragonfly(sim=SIM)
    out = tmp_path / "s.h5"
    res = flitsim.sweep(cfg, ["traffic.load=saturation*0.5,1,1.2"], output=out, backend="cpu",
                        progress=False)
    sat = flitsim.saturate(cfg, backend="cpu", progress=False).saturation
    assert [p["traffic.load"] for p in res.points] == [round(f * sat, 6) for f in (0.5, 1, 1.2)]
    # The point at the saturation load is sustained (it is the search's own probe: replicas
    # do not depend on their batch), the one 20 % past it is not.
    assert not res.results[1].saturated and res.results[2].saturated
    from flitsim import hdf5
    stored = hdf5.read_sweep(out)
    assert stored["config"]["sweep"]["saturation_loads"][0]["saturation"] == sat
    again = flitsim.sweep(cfg, ["traffic.load=saturation*0.5,1,1.2"], output=out, backend="cpu",
                          progress=False)               # resumed: the same loads, nothing rerun
    assert [r.accepted for r in again.results] == [r.accepted for r in res.results]
