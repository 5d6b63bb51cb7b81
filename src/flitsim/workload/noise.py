"""The network-noise study: a job's completion times with and without a perturbation job."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .placement import compile_inputs
from .program import _I64, WorkloadError
from .run import _num_nodes


@dataclass
class NoiseResult:
    """Slowdown of the foreground jobs by a perturbation job, per seed (replica)."""
    seeds: list[int]
    quiet: list[Any]           # Results without the perturbation
    perturbed: list[Any]       # Results with it
    job: int                   # index of the measured job

    def times(self, which: str = "perturbed") -> np.ndarray:
        """Completion (first injection to last delivery) of the measured job, cycles."""
        res = self.perturbed if which == "perturbed" else self.quiet
        return np.array([r.workload.completion_cycles[self.job] for r in res], dtype=float)

    @property
    def slowdown(self) -> np.ndarray:
        """T_perturbed / T_quiet per seed (the ratio reading of the paper's slowdown)."""
        return self.times("perturbed") / self.times("quiet")

    @property
    def extra(self) -> np.ndarray:
        """(T_perturbed - T_quiet) / T_quiet per seed (the difference reading)."""
        return self.slowdown - 1.0


def _idle_program() -> dict[str, Any]:
    z = np.zeros(0, _I64)
    return dict(label="idle", ranks=0, step_ptr=np.zeros(1, _I64), send_ptr=np.zeros(1, _I64),
                send_dst=z, send_bytes=z, recv_ptr=np.zeros(1, _I64), recv_src=z, compute=z)


def run_noise(config: Mapping[str, Any], seeds: Sequence[int], job: int = 0,
              backend: str | None = None, threads: int | None = None,
              progress: Any = False) -> NoiseResult:
    """The noise paper's experiment: the config's workload with and without its
    perturbation jobs (motif "perturbation"), on the same placements (drawn per seed with
    the perturbation present), each seed one replica. Returns the measured job's
    completion times and slowdowns. progress: False, or an engine progress callable
    (cycle, window_end, done, fraction) told the share of both runs done."""
    from ..config import normalize
    from ..runner import results_from_raw, simulate_raw
    cfg = normalize(config)
    wcfg = cfg["workload"]
    nodes = _num_nodes(cfg)
    pert = [j for j, jb in enumerate(wcfg["jobs"]) if jb["motif"] == "perturbation"]
    if not pert:
        raise WorkloadError("workload.jobs: run_noise needs a job with motif \"perturbation\"")
    jobs = len(wcfg["jobs"])
    if not (isinstance(job, int) and not isinstance(job, bool) and 0 <= job < jobs):
        raise WorkloadError(f"job: must be the index of a workload.jobs entry, an integer in "
                            f"[0, {jobs - 1}], got {job!r}")
    if job in pert:
        raise WorkloadError(f"job: {job} is the perturbation; measure another job")
    from ..runner import checked_seeds
    seeds = checked_seeds(seeds)
    full = compile_inputs(wcfg, nodes, seeds)
    # The quiet run keeps every job and placement; the perturbation jobs get an empty
    # program of 0 ranks (so job indices and the other jobs' nodes stay the same).
    quiet = dict(full, programs=list(full["programs"]) + [_idle_program()])
    idle = len(quiet["programs"]) - 1
    quiet["replicas"] = [[dict(jb, program=idle, nodes=jb["nodes"][:0]) if j in pert else jb
                          for j, jb in enumerate(reps)] for reps in full["replicas"]]
    out = []
    for i, inputs in enumerate((quiet, full)):
        cb = False
        if callable(progress):   # each of the two runs is half of the work
            def cb(cycle, window_end, done, fraction=-1.0, _i=i):
                progress(cycle, 0, done, (_i + max(fraction, 0.0)) / 2)
        raw = simulate_raw(cfg, backend, threads, cb, [0.0] * len(seeds), seeds,
                           workload=inputs)
        out.append(results_from_raw(raw, cfg))
    return NoiseResult(seeds=seeds, quiet=out[0], perturbed=out[1], job=job)
