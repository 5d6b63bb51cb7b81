"""Sweeps: cartesian products, batching into replicas, one HDF5 file, resume (issue 5)."""
import json
import pathlib

import h5py
import numpy as np
import pytest

import flitsim
from flitsim import engine
from flitsim.cli import main
from flitsim.config import ConfigError, loads_config
from flitsim.hdf5 import read_results, read_sweep
from flitsim.sweep import parse_over, plan, sweep
from conftest import small_dragonfly

OVER = ["traffic.load=0.1,0.4", "topology.p=1,2", "sim.seed=1:2:1"]
FIELDS = ("latency_hist", "network_latency_hist", "hop_hist", "channel_flits",
          "node_created_flits", "node_ejected_flits")
DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"


def cfg(**kw):
    kw["sim"] = {"warmup": 100, "measure": 500, **kw.get("sim", {})}
    return small_dragonfly(**kw)


def same(a, b):
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    for k in ("created_flits", "ejected_flits", "latency_sum", "hops_sum", "packets_measured",
              "load", "seed", "nodes"):
        assert getattr(a, k) == getattr(b, k), k


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = engine.run_replicas

    def run_replicas(config, loads, seeds=None, **kw):
        calls.append(list(loads))
        return real(config, loads, seeds, **kw)
    monkeypatch.setattr(engine, "run_replicas", run_replicas)
    return calls


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "full.h5"
    return out, sweep(cfg(), OVER, output=out, backend="cpu")


def test_every_point_in_cartesian_order_batched_by_topology(full):
    out, res = full
    assert res.keys == ["traffic.load", "topology.p", "sim.seed"]
    assert len(res.points) == 8 and res.engine_runs == 2      # p=1 and p=2, 4 replicas each
    assert res.points[0] == {"traffic.load": 0.1, "topology.p": 1, "sim.seed": 1}
    assert res.points[-1] == {"traffic.load": 0.4, "topology.p": 2, "sim.seed": 2}
    for p, r in zip(res.points, res.results):
        assert r.load == p["traffic.load"] and r.seed == p["sim.seed"]
        assert r.config["topology"]["p"] == p["topology.p"]
        assert r.config["traffic"]["load"] == p["traffic.load"]
        assert r.nodes == 36 * p["topology.p"]                 # 36 routers (a=4, h=2)
    back = read_sweep(out)
    assert back["done"].all() and back["points"] == res.points
    for a, b in zip(res.results, back["results"]):
        same(a, b)
        assert a.config == b.config
    assert len(read_results(out)) == 8
    with h5py.File(out) as f:
        np.testing.assert_array_equal(f["sweep/index/topology.p"][()], [1, 1, 2, 2, 1, 1, 2, 2])
        assert len(f["sweep/topologies"]) == 2                # stored once per topology
        assert json.loads(f["config"].attrs["config_json"])["sweep"]["over"]["sim.seed"] == [1, 2]


def test_batched_points_equal_separate_runs(full):
    _, res = full
    for i in (1, 6):
        p = res.points[i]
        alone = flitsim.run(cfg(traffic={"load": p["traffic.load"]},
                                topology={"p": p["topology.p"]}, sim={"seed": p["sim.seed"]}),
                            backend="cpu")
        same(res.results[i], alone)


def test_interrupted_sweep_resumes_without_redoing_points(tmp_path, full, counted):
    out = tmp_path / "part.h5"

    def stop(status):
        assert status.done == 4 and status.total == 8 and status.cycles_per_second > 0
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(cfg(), OVER, output=out, backend="cpu", progress=stop)
    assert read_sweep(out)["done"].tolist() == [1, 1, 0, 0, 1, 1, 0, 0]
    assert not list(tmp_path.glob("*.tmp"))
    counted.clear()
    res = sweep(cfg(), OVER, output=out, backend="cpu")
    assert res.resumed == 4 and res.engine_runs == 1 and len(counted) == 1
    for a, b in zip(res.results, full[1].results):
        same(a, b)
    counted.clear()
    again = sweep(cfg(), OVER, output=out, backend="cpu")      # complete: nothing to run
    assert again.engine_runs == 0 and again.resumed == 8 and not counted


def test_output_holding_another_sweep_is_refused(full):
    out, _ = full
    with pytest.raises(ConfigError, match="different sweep"):
        sweep(cfg(), ["traffic.load=0.2"], output=out, backend="cpu")
    with pytest.raises(ConfigError, match="different sweep"):
        sweep(cfg(router={"buffer": 4}), OVER, output=out, backend="cpu")


def test_max_replicas_splits_batches(counted):
    res = sweep(cfg(), ["traffic.load=0.1:0.3:0.1"], backend="cpu", max_replicas=2)
    assert [len(c) for c in counted] == [2, 1] and res.engine_runs == 2
    assert [r.load for r in res.results] == [0.1, 0.2, 0.3]


def test_ranges_and_lists():
    over = parse_over(["traffic.load=0.05:0.95:0.05", "topology.widths=[4,4],[8,8]",
                       "routing.algorithm=min,ugal", "sim.seed=1:5:2"])
    assert len(over["traffic.load"]) == 19 and over["traffic.load"][-1] == 0.95
    assert over["traffic.load"][2] == 0.15
    assert over["topology.widths"] == [[4, 4], [8, 8]]
    assert over["routing.algorithm"] == ["min", "ugal"]
    assert over["sim.seed"] == [1, 3, 5]


@pytest.mark.parametrize("spec, message", [
    ("traffic.lod=0.1,0.2", r'sweep "traffic\.lod=0\.1,0\.2": unknown key'),
    ("nosuch.key=1", r'sweep "nosuch\.key=1": unknown section'),
    ("traffic.load=0.9:0.1:0.1", r'sweep "traffic\.load=0\.9:0\.1:0\.1": empty range'),
    ("traffic.load=0.1:0.9:0", r"step must be > 0"),
    ("traffic.load=0.1:0.9:-0.1", r"step must be > 0"),
    ("traffic.load=0.1:0.9", r"a range is start:stop:step"),
    ("traffic.load=a:b:c", r"must be numbers"),
    ("traffic.load=", r'sweep "traffic\.load=": no values'),
    ("traffic.load", r'sweep "traffic\.load": must be section\.key=values'),
])
def test_bad_specs_name_the_spec(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_over([spec])


def test_bad_point_values_are_reported_before_running(counted):
    with pytest.raises(ConfigError, match=r"sweep point traffic\.load=1\.5: traffic\.load: must "
                                          r"be in \[0, 1\]"):
        sweep(cfg(), ["traffic.load=0.5,1.5"], backend="cpu")
    assert not counted


def test_sweep_table_in_toml_and_cli(tmp_path, capsys):
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n[router]\nvcs = 2\nbuffer = 8\n"
                    "[sim]\nwarmup = 100\nmeasure = 300\n"
                    '[sweep]\nover = {"traffic.load" = "0.1:0.3:0.2", "sim.seed" = [3, 4]}\n')
    assert loads_config(toml.read_text())["sweep"]["over"]["traffic.load"] == [0.1, 0.3]
    out = tmp_path / "s.h5"
    assert main(["sweep", str(toml), "-o", str(out), "--json", "--backend", "cpu"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["engine_runs"] == 1 and len(doc["points"]) == 4
    assert [(p["traffic.load"], p["sim.seed"]) for p in doc["points"]] == \
        [(0.1, 3), (0.1, 4), (0.3, 3), (0.3, 4)]
    assert "accepted" in doc["points"][0] and len(read_results(out)) == 4
    # --over replaces the table; the text table lists the points.
    assert main(["sweep", str(toml), "--over", "traffic.load=0.2", "--backend", "cpu",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "traffic.load" in text and "1 points, 1 engine runs" in text
    assert main(["sweep", str(toml), "--over", "traffic.load=0.5:0.1:0.1"]) == 2
    assert "empty range" in capsys.readouterr().err
    toml.write_text('[sweep]\nover = {"traffic.lod" = [0.1]}\n')
    assert main(["sweep", str(toml)]) == 2
    assert 'unknown key "traffic.lod"' in capsys.readouterr().err


def test_sweep_table_is_documented():
    text = (DOCS / "configuration.md").read_text()
    assert "## `[sweep]`" in text
    for key in ("over", "max_replicas"):
        assert f"| `{key}` |" in text
    assert "Sweep files" in (DOCS / "hdf5.md").read_text()
