"""Shared fixtures: small, fast configurations (the CI machine has 2 cores and no GPU)."""
import copy
import json
import os
import subprocess
import sys

import pytest

# One OpenMP thread unless a test asks for more: the CI machine has 2 often-shared cores, and
# threads spinning at the per-cycle barrier make small runs 10-30x slower when oversubscribed.
# (Set before the engine module loads, which is when the OpenMP runtime reads it.)
os.environ.setdefault("OMP_NUM_THREADS", "1")


def small_dragonfly(**sections):
    """A 72-node dragonfly (p=2, a=4, h=2) with short windows; sections override keys."""
    cfg = {
        "topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
        "router": {"vcs": 2, "buffer": 8, "latency": 1},
        "channels": {"latency": 1},
        "routing": {"algorithm": "min"},
        "traffic": {"pattern": "uniform", "load": 0.1, "packet_size": 1},
        "sim": {"warmup": 200, "measure": 1000, "seed": 1},
    }
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return copy.deepcopy(cfg)


@pytest.fixture
def dragonfly72():
    return small_dragonfly


def cuda_usable():
    try:
        from flitsim import _core
    except ImportError:
        return False, "flitsim._core is not built"
    if not _core.cuda_compiled():
        return False, "this build has no CUDA backend"
    return _core.cuda_usable()


def run_engine_script(script: str, threads: int = 1, order: str | None = None):
    """Runs `script` (python -c) in a fresh process with OMP_NUM_THREADS = threads and, if
    given, FLITSIM_STEP_ORDER = order (both read when the engine starts), and returns the
    JSON its last line printed: how the bit-identity tests compare thread counts and orders."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if order:
        env["FLITSIM_STEP_ORDER"] = order
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def build_cpp_harness(tmp_path_factory, source: str, *engine_sources: str):
    """Compile tests/cpp/SOURCE.cpp (a harness that runs engine code on fixed inputs), with the
    engine's .cpp files it needs (paths from the repository root), into a temporary executable
    and return its path; skip when there is no C++ compiler."""
    import shutil
    from pathlib import Path
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        pytest.skip("no C++ compiler")
    root = Path(__file__).resolve().parent.parent
    exe = tmp_path_factory.mktemp(source) / source
    subprocess.run([cxx, "-O1", "-std=c++17", f"-I{root}", str(root / "tests" / "cpp" / f"{source}.cpp"),
                    *(str(root / s) for s in engine_sources), "-o", str(exe)], check=True, timeout=300)
    return exe
