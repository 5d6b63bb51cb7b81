"""The configurations in configs/ ship with flitsim (package data) and every one of them is
usable as shipped: `flitsim info` describes it and a short `flitsim run` simulates it, from a
folder that has no configs/ of its own (how an installed flitsim is used)."""
from flitsim import _core  # noqa: F401  (built before any test captures output)
import pathlib
import re
import shutil
import subprocess

import pytest

from flitsim import shipped
from flitsim.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIGS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "configs").rglob("*") if p.is_file())
# Seconds per config on one core: a window of 30 cycles after 20 of warm-up.
SHORT = ["--set", "sim.warmup=20", "--set", "sim.measure=30", "--set", "sim.drain_limit=300",
         "--threads", "1", "--quiet", "--json"]


# Shipped files besides the TOML configs: the example MPI trace's OTF2 archive (anchor,
# definitions, events) under configs/traces/.
TRACE_FILES = (".otf2", ".def", ".evt")


def test_every_config_is_toml_and_installed_as_package_data():
    # CMakeLists.txt installs configs/ (its *.toml files and the OTF2 files of configs/traces/)
    # as flitsim/configs: every shipped file must be one the rule installs.
    odd = [c for c in CONFIGS if not (c.endswith(".toml") or
                                      (c.startswith("configs/traces/") and c.endswith(TRACE_FILES)))]
    assert not odd
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert re.search(r'install\(DIRECTORY configs/ DESTINATION flitsim/configs MESSAGE_NEVER FILES_MATCHING '
                     r'PATTERN "\*\.toml"\s+PATTERN "\*\.otf2" PATTERN "\*\.def" PATTERN "\*\.evt"\)', cmake)


def test_cmake_install_puts_the_configs_in_the_package(tmp_path, monkeypatch):
    # The install step a wheel is made from, run on this checkout's build directory.
    build = ROOT / "build" / "editable"
    if not (build / "cmake_install.cmake").exists() or shutil.which("cmake") is None:
        pytest.skip("no configured CMake build directory here (non-editable install)")
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(tmp_path)], check=True,
                   capture_output=True)
    installed = sorted(p.relative_to(tmp_path / "flitsim").as_posix()
                       for p in (tmp_path / "flitsim" / "configs").rglob("*") if p.is_file())
    assert installed == CONFIGS
    # The lookup finds a paper's experiment file there, from a folder without configs/.
    monkeypatch.chdir(tmp_path)
    found = shipped.find("configs/papers/iso-nr-em.toml", search=[tmp_path / "flitsim" / "configs"])
    assert found == tmp_path / "flitsim" / "configs" / "papers" / "iso-nr-em.toml"


def test_lookup_prefers_the_working_folder_and_names_only_configs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pkg = tmp_path / "site" / "flitsim" / "configs"
    (pkg / "papers").mkdir(parents=True)
    (pkg / "papers" / "x.toml").write_text("# shipped\n")
    assert shipped.find("configs/papers/x.toml", search=[pkg]) == pkg / "papers" / "x.toml"
    assert shipped.find("./configs/papers/x.toml", search=[pkg]) == pkg / "papers" / "x.toml"
    (tmp_path / "configs" / "papers").mkdir(parents=True)
    (tmp_path / "configs" / "papers" / "x.toml").write_text("# mine\n")
    assert shipped.find("configs/papers/x.toml", search=[pkg]) == pathlib.Path("configs/papers/x.toml")
    assert shipped.find("other/x.toml", search=[pkg]) is None
    assert shipped.find("configs/../x.toml", search=[pkg]) is None
    assert shipped.shipped_name("/abs/configs/x.toml") is None


def test_reproduce_and_run_from_a_folder_without_configs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "configs").exists()
    assert main(["reproduce", "iso-cost", "-o", "out", "--quiet"]) == 0
    assert (tmp_path / "out" / "iso-cost.md").exists()
    assert main(["info", "configs/dragonfly-1k.toml"]) == 0
    assert "1056" in capsys.readouterr().out.replace(",", "")


def test_a_missing_config_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["info", "configs/papers/no-such-study.toml"]) == 2
    assert "configs/papers/no-such-study.toml: cannot read config" in capsys.readouterr().err


@pytest.mark.parametrize("config", [c for c in CONFIGS if c.endswith(".toml")])
def test_shipped_config_passes_info_and_a_short_run(config, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)     # found as package data, not in the working folder
    assert main(["info", config, "--json"]) == 0, capsys.readouterr().err
    import json
    info = json.loads(capsys.readouterr().out)
    assert info["nodes"] > 0 and info["warnings"] == [], info["warnings"]
    assert main(["run", config, *SHORT]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["cycles"] >= 50 or "jobs" in out
