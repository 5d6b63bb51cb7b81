"""The memory a simulation's state takes, known before anything is allocated.

The engine computes it from the real layout of its state arrays (replicas, histograms and
tables included) and refuses a run that does not fit in the available host memory (the CUDA
backend also checks device memory before uploading). ``flitsim info`` shows the estimate.
"""
from __future__ import annotations

from typing import Any

__all__ = ["estimate", "estimate_run", "check_run", "human_bytes"]


def estimate(config: dict, replicas: int = 1) -> dict[str, int]:
    """``{"bytes", "replica_bytes", "replicas", "host_available"}`` for a normalised config
    (host_available is 0 when unknown). A closed-loop [workload] run adds its programs'
    arrays, which are not counted here."""
    from . import _core
    cfg: dict[str, Any] = {k: v for k, v in config.items() if k not in ("workload", "sweep", "cost")}
    return dict(_core.state_estimate(cfg, int(replicas)))


def estimate_run(config: dict, replicas: int = 1) -> dict[str, Any]:
    """The whole run's memory from the configuration alone, before anything is built:
    ``{"known", "topology", "routing", "state", "total", "keys", "host_available"}`` (bytes;
    ``known`` is False for topology kinds without a size function, whose state is still
    checked exactly once the topology is built)."""
    from . import _core
    cfg: dict[str, Any] = {k: v for k, v in config.items() if k not in ("workload", "sweep", "cost")}
    return dict(_core.memory_estimate(cfg, int(replicas), False))


def check_run(config: dict, replicas: int = 1) -> None:
    """Raise ConfigError (naming the keys that drive the size) when ``replicas`` replicas of
    ``config`` cannot fit in the host memory available (FLITSIM_MEMORY_LIMIT included)."""
    from . import _core
    cfg: dict[str, Any] = {k: v for k, v in config.items() if k not in ("workload", "sweep", "cost")}
    _core.memory_estimate(cfg, int(replicas), True)


def human_bytes(b: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b} B"
