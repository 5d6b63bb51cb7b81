"""The memory a simulation's state takes, known before anything is allocated.

The engine computes it from the real layout of its state arrays (replicas, histograms and
tables included) and refuses a run that does not fit in the available host memory (the CUDA
backend also checks device memory before uploading). ``flitsim info`` shows the estimate.
"""
from __future__ import annotations

from typing import Any

__all__ = ["estimate", "human_bytes"]


def estimate(config: dict, replicas: int = 1) -> dict[str, int]:
    """``{"bytes", "replica_bytes", "replicas", "host_available"}`` for a normalised config
    (host_available is 0 when unknown). A closed-loop [workload] run adds its programs'
    arrays, which are not counted here."""
    from . import _core
    cfg: dict[str, Any] = {k: v for k, v in config.items() if k not in ("workload", "sweep", "cost")}
    return dict(_core.state_estimate(cfg, int(replicas)))


def human_bytes(b: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b} B"
