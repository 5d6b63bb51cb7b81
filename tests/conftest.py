"""Shared fixtures: small, fast configurations (the CI machine has 2 cores and no GPU)."""
import copy
import os

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
