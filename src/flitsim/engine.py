"""Simulates a configuration: validates it, runs the engine (runner.py) and returns Results.
A [workload] configuration runs closed loop (flitsim.workload)."""
from __future__ import annotations

from typing import Callable, Sequence

from .results import Result
from .runner import (SATURATION_RULE, available_backends, backend_status,  # noqa: F401 (re-exported)
                     results_from_raw, simulate_raw)


def _normalize(config: dict) -> dict:
    try:
        from .config import normalize
    except ImportError:  # pragma: no cover - config module missing in a broken checkout
        return config
    return normalize(config)


def run(config: dict, backend: str | None = None, progress: bool | Callable | None = None,
        threads: int | None = None) -> Result:
    """Simulate one configuration (validated first) and return its Result.

    backend: "cpu", "cuda" or None (the GPU when one is usable, else the CPU).
    progress: True for a progress line on stderr, False for none, None (default) for one in
    an interactive session only; or a callable(cycle, window_end, replicas_done, fraction).
    threads: CPU threads (default: the count measured fastest while running, up to all cores
        or OMP_NUM_THREADS; host/run/thread_tuner.hpp).
    """
    cfg = _normalize(config)
    if "workload" in cfg:  # closed loop: message programs instead of the [traffic] sources
        from .workload import run as run_workload
        return run_workload(cfg, backend=backend, progress=progress, threads=threads)
    raw = simulate_raw(cfg, backend, threads, progress)
    return results_from_raw(raw, cfg)[0]


def run_replicas(config: dict, loads: Sequence[float], seeds: Sequence[int] | None = None,
                 backend: str | None = None, progress: bool | Callable | None = None,
                 threads: int | None = None) -> list[Result]:
    """Simulate several replicas of one topology in one engine run, one per load (and seed)."""
    from .limits import bounded_list
    loads = bounded_list(loads, "loads")  # before anything the length would allocate
    if seeds is not None:
        seeds = bounded_list(seeds, "seeds")
    cfg = _normalize(config)
    from .runner import checked_seeds
    if seeds is not None:
        seeds = checked_seeds(seeds, None if "workload" in cfg else len(loads))
    if "workload" in cfg:  # closed loop: replicas differ in seed only (placement, random motifs)
        from .workload import run_replicas as run_workload_replicas
        seeds = seeds if seeds is not None else [int(cfg["sim"]["seed"])] * len(loads)
        return run_workload_replicas(cfg, seeds, backend, progress, threads)
    if seeds is None:
        seeds = [int(cfg.get("sim", {}).get("seed", 1))] * len(loads)
    raw = simulate_raw(cfg, backend, threads, progress, loads, seeds)
    return results_from_raw(raw, cfg)
