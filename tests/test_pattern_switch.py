"""A destination pattern the device switch forgets fails to compile (it used to fall back to
uniform traffic silently): pattern_rank has one case per PatternKind and no default, and the
build treats -Wswitch as an error. Checked by compiling the traffic headers with one case
removed (host compiler, syntax only)."""
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CXX = shutil.which("c++") or shutil.which("g++")


def _compile(cuda_dir: pathlib.Path, tmp: pathlib.Path) -> subprocess.CompletedProcess:
    src = tmp / "tu.cpp"
    src.write_text('#include "cuda/traffic/injection.cuh"\n')
    return subprocess.run([CXX, "-std=c++17", "-fsyntax-only", "-Werror=switch", f"-I{cuda_dir.parent}", str(src)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_a_pattern_without_a_device_case_fails_to_compile(tmp_path):
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "cuda", tree / "cuda")
    assert _compile(tree / "cuda", tmp_path).returncode == 0
    patterns = tree / "cuda/traffic/patterns.cuh"
    text = patterns.read_text()
    cut, n = re.subn(r"\n    case PatternKind::Shuffle:[^\n]*", "", text)
    assert n == 1
    patterns.write_text(cut)
    out = _compile(tree / "cuda", tmp_path)
    assert out.returncode != 0 and "Shuffle" in out.stderr and "not handled in switch" in out.stderr
