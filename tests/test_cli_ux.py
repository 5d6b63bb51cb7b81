"""Researcher-facing CLI and API details: help examples name real files, `flitsim config`
round-trips, `flitsim show` summarises files, results print briefly, submodules resolve."""
from flitsim import _core  # noqa: F401  (built before any test captures output: editable installs rebuild on import)
import json
import pathlib
import re
import subprocess
import sys

import pytest

import flitsim
from flitsim.cli import build_parser, main
from flitsim.config import load_config
from flitsim.toml_writer import dumps
from conftest import small_dragonfly

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").rglob("*.toml"))


def _help_texts():
    parser = build_parser()
    yield parser.epilog
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for p in sub.choices.values():
        yield (p.epilog or "") + (p.description or "")


def test_help_examples_name_files_that_exist():
    named = {m for text in _help_texts() for m in re.findall(r"configs/[\w./-]+\.toml", text)
             if "NAME" not in m}   # the placeholder of `reproduce --help`
    assert named, "the examples should use the shipped configurations"
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert not missing, f"--help examples name missing files: {missing}"


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_config_command_output_is_the_same_config(path, tmp_path, capsys):
    assert main(["config", str(path)]) == 0
    text = capsys.readouterr().out
    out = tmp_path / "c.toml"
    out.write_text(text)
    # Every key the run reads written out (config_keys.resolve): it reads back as itself, and it
    # is what the engine makes of the original.
    from flitsim.config_keys import resolve
    printed = load_config(str(out))
    assert printed == resolve(load_config(str(path))) == resolve(printed)


def test_toml_writer_round_trips_nested_values():
    import tomllib
    cfg = {"a": {"x": 1, "y": 0.1, "s": "q\"uote", "l": [[4, 4], [8]], "b": False,
                 "t": {"k": 2}}, "w": {"jobs": [{"motif": "alltoall", "ranks": 4}]}}
    assert tomllib.loads(dumps(cfg)) == cfg


def test_show_summarises_results_and_sweeps(tmp_path, capsys):
    cfg = small_dragonfly(sim={"warmup": 50, "measure": 200})
    rs = flitsim.run_replicas(cfg, [0.1, 0.3], backend="cpu")
    flitsim.hdf5.write_results(tmp_path / "r.h5", rs, rs[0].config)
    assert main(["show", str(tmp_path / "r.h5")]) == 0
    out = capsys.readouterr().out
    assert "replicas  2/2 finished" in out and "dragonfly (p=2, a=4, h=2" in out
    flitsim.sweep(cfg, ["traffic.load=0.1,0.2", "topology.p=1,2"], output=tmp_path / "s.h5",
                  backend="cpu")
    assert main(["show", str(tmp_path / "s.h5"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "sweep" and d["done"] == d["total"] == 4
    assert d["keys"] == ["traffic.load", "topology.p"] and len(d["points"]) == 4


def test_result_repr_is_short():
    r = flitsim.run(small_dragonfly(sim={"warmup": 50, "measure": 200}), backend="cpu")
    text = repr(r)
    assert text.startswith("<Result load=0.1 seed=1") and len(text) < 250
    assert f"accepted={r.accepted:.4g}" in text


def test_submodules_resolve_after_a_bare_import():
    code = ("import flitsim\n"
            "for m in flitsim.SUBMODULES:\n"
            "    assert getattr(flitsim, m).__name__ == 'flitsim.' + m, m\n"
            "try:\n    flitsim.nonexistent\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "has no attribute 'nonexistent'" in out.stdout


def test_packet_slot_warning_names_the_size(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n'
                   '[traffic]\nload = 0.9\npacket_size = 1\n[sim]\nwarmup = 100\nmeasure = 300\n'
                   'packet_slots = 2\n')
    assert main(["run", str(cfg), "--quiet", "--backend", "cpu"]) == 0
    err = capsys.readouterr().err
    assert "(sim.packet_slots = 2 per node, set)" in err and "--set sim.packet_slots=4" in err
