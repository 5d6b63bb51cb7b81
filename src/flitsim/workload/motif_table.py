"""The motif table: one builder per workload motif (MOTIF_BUILDERS; its keys are
those of MOTIF_KEYS in workload/config.py) and build_motif, the program of one job table."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .config import MOTIF_KEYS
from .motifs import ALLREDUCE, alltoall, bcast, nn3d, reduce, stencil27
from .program import Program, WorkloadError, load_program
from .proxy_apps import milc, pairs, perturbation, pf3d, qbox, spread, umesh

MOTIFS = tuple(MOTIF_KEYS)
RANDOM_MOTIFS = ("perturbation", "pairs", "spread", "umesh")
# Default message sizes (bytes) where the papers give one; other motifs require `bytes`.
DEFAULT_BYTES = {"pairs": 4 << 20, "spread": 2 << 20, "umesh": 2 << 20, "milc": 2 << 20,
                 "pf3d": 2 << 20, "qbox": 1 << 20, "bcast": 8, "reduce": 8, "allreduce": 8}


def _halo(build: Callable[..., Program]) -> Callable[..., Program]:
    """nn3d / stencil27 exchange, followed by the job's optional allreduce."""
    def motif(job: Mapping[str, Any], n: int, b: int, rng: np.random.Generator, label: str) -> Program:
        one = build(n, b, job.get("dims"), label)
        coll = job.get("allreduce", "none")
        if coll != "none":
            one.append(ALLREDUCE[coll](n, int(job.get("allreduce_bytes", 8)), label))
        return one
    return motif


# The motif table: one builder per motif (job table, ranks, bytes, rng, label) -> one iteration.
# Its keys are those of MOTIF_KEYS in workload/config.py ("program" reads a file and "trace" an
# OTF2 trace, see build_motif).
MOTIF_BUILDERS: dict[str, Callable[..., Program]] = {
    "alltoall": lambda job, n, b, rng, label: alltoall(n, b, label, job.get("order", "shift"), rng),
    "nn3d": _halo(nn3d),
    "stencil27": _halo(stencil27),
    "bcast": lambda job, n, b, rng, label: bcast(n, b, int(job.get("root", 0)), label),
    "reduce": lambda job, n, b, rng, label: reduce(n, b, int(job.get("root", 0)), label),
    "allreduce": lambda job, n, b, rng, label: ALLREDUCE[job.get("algorithm", "dissemination")](n, b, label),
    "perturbation": lambda job, n, b, rng, label: perturbation(n, b, int(job.get("rounds", 100)), rng, label),
    "pairs": lambda job, n, b, rng, label: pairs(n, b, rng, label),
    "spread": lambda job, n, b, rng, label: spread(n, b, rng, tuple(job.get("partners", (16, 32))), label),
    "umesh": lambda job, n, b, rng, label: umesh(n, b, rng, tuple(job.get("partners", (6, 20))), label),
    "milc": lambda job, n, b, rng, label: milc(n, b, job.get("dims"), label),
    "pf3d": lambda job, n, b, rng, label: pf3d(n, b, job.get("dims"), label),
    "qbox": lambda job, n, b, rng, label: qbox(n, b, job.get("dims"), label),
}
# Motifs that are a whole run by themselves: `compute` and `iterations` do not apply
# (perturbation has its own rounds).
WHOLE_RUN_MOTIFS = ("perturbation",)
# Program steps and messages of one job: the engine's tables are int32-indexed and every
# step costs memory before the run starts.
MAX_PROGRAM_STEPS = 1 << 26


def build_motif(job: Mapping[str, Any], rng: np.random.Generator | None = None,
                label: str | None = None) -> Program:
    """The program of one normalised job table (one iteration is the motif; `iterations`
    repeats it, each preceded by `compute` cycles when > 0)."""
    motif = job["motif"]
    label = label or job.get("name") or motif
    rng = rng if rng is not None else np.random.default_rng(0)
    if motif == "program":
        one = load_program(job["file"], label)
        if "ranks" in job and job["ranks"] != one.ranks:
            raise WorkloadError(f"{label}.ranks: {job['ranks']} but {job['file']} has "
                                f"programs for {one.ranks} ranks")
    elif motif == "trace":
        from .trace import trace_program
        one = trace_program(job, label)
        if "ranks" in job and job["ranks"] != one.ranks:
            raise WorkloadError(f"{label}.ranks: {job['ranks']} but the trace {job['trace']} has "
                                f"{one.ranks} MPI ranks")
    elif motif in MOTIF_BUILDERS:
        n, b = int(job["ranks"]), int(job.get("bytes", DEFAULT_BYTES.get(motif, 0)))
        one = MOTIF_BUILDERS[motif](job, n, b, rng, label)
        if motif in WHOLE_RUN_MOTIFS:
            return one
    else:  # normalize() rejects unknown motifs first
        raise WorkloadError(f"{label}.motif: unknown motif {motif!r}")
    compute = int(job.get("compute", 0))
    if compute:
        pre = Program(one.ranks, label)
        for r in range(one.ranks):
            pre.step(r, compute=compute)
        one = pre.append(one)
    times = int(job.get("iterations", 1))
    steps = sum(len(s) for s in one.steps) * times
    messages = sum(st[0].size for s in one.steps for st in s) * times
    if max(steps, messages) > MAX_PROGRAM_STEPS:  # before building: the repeat would exhaust memory
        raise WorkloadError(f"{label}.iterations: {times} iterations make {steps} program steps and "
                            f"{messages} messages; at most {MAX_PROGRAM_STEPS} (2^26) of each")
    need = program_bytes(steps, messages)
    available = available_memory()
    if available is not None and need > available // 2:
        from ..memory import human_bytes
        raise WorkloadError(f"{label}.iterations: {times} iterations make {steps} program steps and "
                            f"{messages} messages, about {human_bytes(need)} to build before the run; "
                            f"{human_bytes(available)} of memory is available (at most half of it is "
                            f"used for programs): lower the iterations or the ranks")
    return one.repeat(times)


# Bytes per program step and per message while a program is built and handed to the engine (the
# repeated step lists, the CSR arrays and their temporaries, the engine's copy), an upper bound:
# 8 ranks x 2^17 all-to-all iterations (2^20 steps, 7.3 M messages) peaked at 270 MiB building
# (ru_maxrss around flitsim.workload.placement.compile_inputs) plus 24 B per step and message
# for the engine's copy, 470 MiB in all, against 720 MiB counted here.
STEP_BYTES, MESSAGE_BYTES = 160, 80


def program_bytes(steps: int, messages: int) -> int:
    return STEP_BYTES * steps + MESSAGE_BYTES * messages


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation: Linux MemAvailable, or the process's
    address-space limit (ulimit -v) when that is lower; None when neither is known."""
    import resource
    found = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY:
        found = limit if found is None else min(found, limit)
    return found
