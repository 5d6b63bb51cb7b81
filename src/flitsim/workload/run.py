"""Closed-loop runs: compile the [workload] jobs for every seed and run them as replicas."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .placement import compile_inputs
from .program import WorkloadError


def _num_nodes(cfg: Mapping[str, Any]) -> int:
    from .. import _core
    return int(_core.build_topology(dict(cfg["topology"]))["num_nodes"])


def run_replicas(config: Mapping[str, Any], seeds: Sequence[int] | None = None,
                 backend: str | None = None, progress: bool | Callable | None = None,
                 threads: int | None = None) -> list:
    """Run the config's [workload] once per seed (placements and random motifs drawn from
    the seed), all as replicas of one engine run; one Result per seed."""
    from ..config import normalize
    from ..runner import results_from_raw, simulate_raw
    cfg = normalize(config)
    if "workload" not in cfg:
        raise WorkloadError("workload: the config has no [workload] section")
    seeds = [int(cfg["sim"]["seed"])] if seeds is None else [int(s) for s in seeds]
    if not seeds:
        raise WorkloadError("seeds: at least one seed")
    inputs = compile_inputs(cfg["workload"], _num_nodes(cfg), seeds)
    raw = simulate_raw(cfg, backend, threads, progress, [0.0] * len(seeds), seeds,
                       workload=inputs)
    return results_from_raw(raw, cfg)


def run(config: Mapping[str, Any], backend: str | None = None, progress: bool | Callable | None = None,
        threads: int | None = None):
    """Run the config's [workload] with sim.seed; the Result has a `workload` table."""
    return run_replicas(config, None, backend, progress, threads)[0]
