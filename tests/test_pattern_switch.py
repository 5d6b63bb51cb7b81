"""A destination pattern cannot silently fall back to uniform traffic (as it once did): the
PatternKind enum, the device dispatch pattern_rank and the host's pattern table are generated
from one list (cuda/traffic/registry.h), the dispatch has no default and the build treats
-Wswitch as an error. Checked by compiling the traffic headers (host compiler, syntax only)
with a registry line whose device rule does not exist, and with a hand-made kind the switch
does not list."""
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


@pytest.fixture
def tree(tmp_path):
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "cuda", tree / "cuda")
    assert _compile(tree / "cuda", tmp_path).returncode == 0
    return tree


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_a_registry_line_without_its_device_rule_fails_to_compile(tree, tmp_path):
    registry = tree / "cuda/traffic/registry.h"
    text = registry.read_text()
    line = '  X(Bogus, 99, "bogus", rule_bogus, setup_bogus, no_dims) \\\n'
    cut, n = re.subn(r"(#define FLITSIM_PATTERNS\(X\)[^\n]*\n)", lambda m: m.group(1) + line, text)
    assert n == 1
    registry.write_text(cut)
    out = _compile(tree / "cuda", tmp_path)
    assert out.returncode != 0 and "rule_bogus" in out.stderr


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_a_kind_outside_the_registry_fails_to_compile(tree, tmp_path):
    # A kind added to the enum by hand, past the registry, has no case in the generated switch.
    state = tree / "cuda/params.cuh"  
    text = state.read_text()
    cut, n = re.subn(r"(  FLITSIM_PATTERNS\(FLITSIM_PATTERN_ENUM\)\n)", r"\1  HandMade = 98,\n", text)
    assert n == 1
    state.write_text(cut)
    out = _compile(tree / "cuda", tmp_path)
    assert out.returncode != 0 and "HandMade" in out.stderr and "not handled in switch" in out.stderr
