"""The flitsim command with a fake engine and topology module (no compiled code needed),
plus one end-to-end run that needs the compiled module."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import flitsim
from flitsim.cli import main
from flitsim.hdf5 import read_config, read_results
from results_factory import build_result  # tests/ helper

REQUIRED = ("offered", "accepted", "latency_mean", "latency_p99", "hops_mean", "saturated",
            "cycles", "wall_seconds", "backend")


def _install(monkeypatch, name: str, **attrs) -> types.ModuleType:
    """Put a fake flitsim.<name> where both `import flitsim.<name>` and attribute access
    find it; monkeypatch restores the real one (if any) afterwards."""
    mod = types.ModuleType(f"flitsim.{name}")
    for k, v in attrs.items():
        setattr(mod, k, v)
    monkeypatch.setitem(sys.modules, f"flitsim.{name}", mod)
    # Through the module dict, not setattr: flitsim's lazy __getattr__ must not run (it
    # would import the real module), and an attribute absent before is removed afterwards.
    monkeypatch.setitem(vars(flitsim), name, mod)
    return mod


@pytest.fixture
def engine(monkeypatch):
    """Fake flitsim.engine: records each call; `engine.result` / `engine.error` steer it."""
    def run(config, backend=None, progress=False, threads=None):
        fake.calls.append(dict(config=config, backend=backend, progress=progress,
                               threads=threads))
        if fake.error is not None:
            raise fake.error
        if fake.chatter:
            print("engine chatter on stdout")
        return fake.result
    fake = _install(monkeypatch, "engine", run=run, available_backends=lambda: ["cpu"],
                    backend_status=lambda: "cpu (fake engine)",
                    calls=[], error=None, chatter=False, result=build_result(load=0.3))
    return fake


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "df.toml"
    path.write_text("[topology]\np = 2\na = 4\nh = 2\n[traffic]\nload = 0.3\n")
    return path


def test_run_json_prints_one_object(engine, config_file, capsys):
    assert main(["run", str(config_file), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    summary = json.loads(out)
    for key in REQUIRED:
        assert key in summary, key
    expected = engine.result.summary()
    assert summary["accepted"] == pytest.approx(expected["accepted"])
    assert summary["latency_mean"] == pytest.approx(expected["latency_mean"])
    assert summary["saturated"] is False and summary["backend"] == "cpu"
    assert engine.calls[0]["progress"] is False  # no progress bar around JSON output


def test_json_maps_nan_to_null_and_keeps_stdout_clean(engine, config_file, capsys):
    engine.result = build_result(packets_measured=0, latency_hist=np.zeros(64, np.int64))
    engine.chatter = True
    assert main(["run", str(config_file), "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)  # exactly one JSON object: chatter went to stderr
    assert summary["latency_mean"] is None and summary["latency_p99"] is None
    assert "engine chatter" in captured.err


def test_set_reaches_the_engine_config(engine, config_file):
    assert main(["run", str(config_file), "--quiet", "--set", "traffic.load=0.55",
                 "--set", "routing.algorithm=ugal", "--set", "channels.global=10"]) == 0
    cfg = engine.calls[0]["config"]
    assert cfg["traffic"]["load"] == 0.55
    assert cfg["routing"]["algorithm"] == "ugal"
    assert cfg["channels"]["global"] == 10
    assert cfg["topology"] == {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
    assert cfg["sim"]["warmup"] == 1000  # normalised: defaults are filled


@pytest.mark.parametrize("argv,backend,progress,threads", [
    ([], None, True, None),
    (["--backend", "auto"], None, True, None),
    (["--backend", "cpu", "--threads", "3"], "cpu", True, 3),
    (["--backend", "cuda", "--quiet"], "cuda", False, None),
])
def test_run_options_reach_the_engine(engine, config_file, argv, backend, progress, threads):
    assert main(["run", str(config_file), *argv]) == 0
    call = engine.calls[0]
    assert (call["backend"], call["progress"], call["threads"]) == (backend, progress, threads)


def test_human_summary(engine, config_file, capsys):
    assert main(["run", str(config_file)]) == 0
    out = capsys.readouterr().out
    s = engine.result.summary()
    for label in ("offered load", "accepted load", "packet latency", "network latency",
                  "hops", "saturated", "cycles", "wall time", "cycles/s", "backend"):
        assert label in out, label
    assert f"{s['offered']:.4g}" in out and f"{s['latency_mean']:.4g}" in out
    assert "saturated        no" in out and str(s["cycles"]) in out
    # What was simulated, so that a saved summary names its experiment.
    lines = dict(line.split(None, 1) for line in out.splitlines()[:3])
    assert lines["network"].startswith("dragonfly (p=2, a=4, h=2") and \
        f"{engine.result.nodes:,} nodes" in lines["network"]
    assert lines["routing"].startswith("min, ")
    assert lines["traffic"].startswith("uniform, load 0.3 flits/node/cycle")


def test_output_file_reads_back(engine, config_file, tmp_path, capsys):
    out = tmp_path / "out.h5"
    assert main(["run", str(config_file), "--json", "-o", str(out),
                 "--set", "sim.seed=5"]) == 0
    json.loads(capsys.readouterr().out)  # still only the JSON object on stdout
    (back,) = read_results(out)
    assert back.latency_hist.tobytes() == engine.result.latency_hist.tobytes()
    assert back.ejected_flits == engine.result.ejected_flits
    assert read_config(out) == engine.calls[0]["config"]
    assert read_config(out)["sim"]["seed"] == 5


@pytest.mark.parametrize("text,overrides,message", [
    ("[router]\nvcs = 0\n", [], "router.vcs: must be an integer in [1, 63], got 0"),
    ("[sim]\nwarmpu = 1\n", [], 'sim: unknown key "warmpu"'),
    ("[router\n", [], "malformed TOML"),
    ("", ["traffic.load=1.5"], "traffic.load: must be in [0, 1], got 1.5"),
    ("", ["novalue"], 'override "novalue": must be section.key=value'),
    ("", ["foo.bar=1"], "foo: unknown section"),
])
def test_bad_config_exits_2_naming_the_key(engine, tmp_path, capsys, text, overrides, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    argv = ["run", str(path), "--json"] + [a for o in overrides for a in ("--set", o)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("flitsim: error: ") and message in captured.err
    assert captured.out == "" and engine.calls == []


def test_missing_config_file_exits_2(engine, tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: cannot read config" in capsys.readouterr().err


def test_engine_errors_map_to_exit_codes(engine, config_file, capsys):
    engine.error = RuntimeError("deadlock: no flit moved for 5000 cycles")
    assert main(["run", str(config_file), "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "flitsim: error: deadlock: no flit moved for 5000 cycles\n"
    assert captured.out == ""
    engine.error = ValueError("routing.algorithm: dor is not supported by dragonfly")
    assert main(["run", str(config_file)]) == 2
    assert "routing.algorithm: dor" in capsys.readouterr().err


def test_bad_output_paths_refused_before_simulating(engine, config_file, tmp_path, capsys):
    # Exit 2 (bad option) and the engine never runs: a bad -o must not cost a simulation.
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    for out, why in ((tmp_path / "no" / "dir" / "x.h5", "does not exist"),
                     (tmp_path, "is a directory"),
                     (notes, "is not an HDF5 file")):
        assert main(["run", str(config_file), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith('flitsim: error: -o "') and why in err, err
    assert engine.calls == []
    assert notes.read_text() == "my notes\n"
    # --force lets -o replace a file that is not HDF5
    assert main(["run", str(config_file), "-o", str(notes), "--force", "--quiet"]) == 0
    from flitsim.hdf5 import file_kind
    assert file_kind(notes) == "results"   # a flitsim results file now (HDF5 after its user block)


def test_usage_errors_exit_2(engine, config_file, capsys):
    assert main([]) == 2
    assert main(["run"]) == 2
    assert main(["run", str(config_file), "--backend", "tpu"]) == 2
    assert main(["run", str(config_file), "--threads", "0"]) == 2
    assert main(["run", str(config_file), "--threads", "100000"]) == 2  # used to segfault
    assert main(["frobnicate"]) == 2
    assert engine.calls == []


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["info", "--help"]])
def test_help_has_description_and_examples(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "flitsim" in out
    assert len(out.split("\n\n")) >= 3  # usage, description, options, epilog


# --- info -------------------------------------------------------------------------------------

DESCRIPTION = {"nodes": 72, "routers": 36, "links": 90, "radix": 7, "diameter": 3,
               "avg_distance": 2.4571, "balance": 1.0, "cost": 1.25, "links_copper": 54,
               "links_optical": 36, "classes": ["terminal", "local", "global"]}


BISECTION = {"cut_links": 16, "per_node": 16 / 36, "nodes": (36, 36), "method": "spectral"}


@pytest.fixture
def topology(monkeypatch):
    def describe(config):
        fake.calls.append(config)
        return dict(DESCRIPTION)
    fake = _install(monkeypatch, "topology", describe=describe, calls=[],
                    bisection=lambda config: dict(BISECTION),
                    named_attrs=lambda kind, attrs: dict(attrs))
    return fake


def test_info_table(topology, config_file, capsys):
    assert main(["info", str(config_file), "--set", "topology.p=3"]) == 0
    assert topology.calls[0]["topology"]["p"] == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["kind", "dragonfly"]
    table = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines}
    assert table["nodes"] == "72" and table["avg_distance"] == "2.457"
    assert table["links_optical"] == "36" and table["classes"] == "terminal, local, global"


def test_info_json(topology, config_file, capsys):
    assert main(["info", str(config_file), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info.pop("state_bytes") > 0 and info.pop("host_memory_available") >= 0  # the engine's estimate
    gpu = info.pop("gpu")  # a device's name and memory, or why there is none
    assert set(gpu) in ({"name", "free_bytes", "total_bytes"}, {"why_not"})
    assert info.pop("bisection") == {**BISECTION, "nodes": list(BISECTION["nodes"])}
    assert info.pop("warnings") == []       # a run would accept this configuration
    assert info == {"kind": "dragonfly", **DESCRIPTION}


def test_info_bad_config_exits_2(topology, tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text('[topology]\nkind = "moebius"\n')
    assert main(["info", str(path)]) == 2
    assert 'topology.kind: unknown topology "moebius"' in capsys.readouterr().err
    assert topology.calls == []


# --- the installed entry points ---------------------------------------------------------------

def test_python_dash_m(tmp_path):
    # The installed package (src/ alone has no compiled engine, which config now reads its
    # registries from at import, so it must not shadow the installation).
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "flitsim", "--help"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0 and "usage: flitsim" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "flitsim", "run", str(tmp_path / "x.toml")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and "flitsim: error: " in proc.stderr


def test_end_to_end_with_the_compiled_engine(tmp_path, capsys):
    pytest.importorskip("flitsim._core")
    path = tmp_path / "df.toml"
    path.write_text("[topology]\np = 2\na = 4\nh = 2\n"
                    "[traffic]\nload = 0.2\n[sim]\nwarmup = 300\nmeasure = 1000\n")
    out = tmp_path / "df.h5"
    assert main(["run", str(path), "--json", "--backend", "cpu", "-o", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["backend"] == "cpu" and summary["nodes"] == 72
    assert summary["saturated"] is False
    assert summary["accepted"] == pytest.approx(0.2, rel=0.1)
    assert summary["offered"] == pytest.approx(0.2, rel=0.1)
    assert 1 <= summary["hops_mean"] <= 3  # diameter of a dragonfly with minimal routing
    assert summary["latency_mean"] >= summary["hops_mean"]
    (back,) = read_results(out)
    assert back.summary()["accepted"] == summary["accepted"]
