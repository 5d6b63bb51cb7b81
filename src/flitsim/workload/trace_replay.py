"""replay(config): a trace job's results — completion time, per-rank communication time and
its slowdown against an idle network (the same trace, nodes and routing with the other jobs
left out) — from one engine run of two replicas."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .placement import compile_inputs
from .program import WorkloadError
from .run import _num_nodes


@dataclass
class TraceReplay:
    """Results of replaying the trace job `job` of a [workload]."""
    job: int
    shared: Any               # Result of the config's workload (every job)
    idle: Any                 # Result of the trace job alone, on the same nodes

    def _exec(self, res) -> float:
        return float(res.workload.execution_cycles[self.job])

    @property
    def execution_cycles(self) -> float:
        """The trace's execution time (its start to the end of its last rank), cycles."""
        return self._exec(self.shared)

    @property
    def completion_cycles(self) -> float:
        """First injection to last delivery of the trace's messages, cycles."""
        return float(self.shared.workload.completion_cycles[self.job])

    @property
    def idle_execution_cycles(self) -> float:
        return self._exec(self.idle)

    @property
    def slowdown(self) -> float:
        """Execution time with the other jobs / on an idle network (1.0 when alone)."""
        return self.execution_cycles / self.idle_execution_cycles

    def comm_cycles(self, which: str = "shared") -> np.ndarray:
        """Per rank: cycles spent communicating — from the release of each step's sends to the
        end of its wait, summed over the rank's steps (the rest of its time is compute)."""
        res = self.shared if which == "shared" else self.idle
        st = res.workload.steps
        mine = st["job"] == self.job
        ranks = int(res.workload.job_ranks[self.job])
        return np.bincount(st["rank"][mine].astype(np.int64),
                           weights=(st["done"][mine] - st["start"][mine]).astype(np.float64),
                           minlength=ranks)

    def table(self) -> dict[str, Any]:
        comm = self.comm_cycles()
        return dict(job=self.job, execution_cycles=self.execution_cycles,
                    completion_cycles=self.completion_cycles,
                    idle_execution_cycles=self.idle_execution_cycles, slowdown=self.slowdown,
                    comm_cycles_mean=float(comm.mean()), comm_cycles_max=float(comm.max()))


def replay(config: Mapping[str, Any], job: int | None = None, backend: str | None = None,
           threads: int | None = None, progress: Any = False) -> TraceReplay:
    """Replay the config's trace job (`job`, default: its first "trace" job) with the other
    jobs and on an idle network (the others given no ranks; every placement unchanged), as
    two replicas of one engine run."""
    from ..config import normalize
    from ..runner import results_from_raw, simulate_raw
    from .noise import _idle_program
    cfg = normalize(config)
    if "workload" not in cfg:
        raise WorkloadError("workload: the config has no [workload] section")
    wcfg = cfg["workload"]
    traces = [j for j, jb in enumerate(wcfg["jobs"]) if jb["motif"] == "trace"]
    if job is None:
        if not traces:
            raise WorkloadError('workload.jobs: replay needs a job with motif = "trace"')
        job = traces[0]
    if job not in traces:
        raise WorkloadError(f"job: must be the index of a trace job of workload.jobs "
                            f"({traces}), got {job!r}")
    seed = int(cfg["sim"]["seed"])
    full = compile_inputs(wcfg, _num_nodes(cfg), [seed])
    inputs = dict(full, programs=list(full["programs"]) + [_idle_program()])
    idle = len(inputs["programs"]) - 1
    alone = [dict(jb, program=idle, nodes=jb["nodes"][:0]) if j != job else jb
             for j, jb in enumerate(full["replicas"][0])]
    inputs["replicas"] = [full["replicas"][0], alone]
    raw = simulate_raw(cfg, backend, threads, progress, [0.0, 0.0], [seed, seed], workload=inputs)
    shared, quiet = results_from_raw(raw, cfg)
    return TraceReplay(job=job, shared=shared, idle=quiet)
