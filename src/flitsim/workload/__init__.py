"""Closed-loop message workloads: the [workload] table's keys and validation (config.py),
per-rank programs (program.py), motifs (motifs.py: regular patterns and collectives;
proxy_apps.py: the papers' random communicators and proxy applications; motif_table.py: the
table that selects them), jobs and placement (placement.py), runs (run.py), the per-job
results (result.py), the network-noise study (noise.py) and MPI trace replay from OTF2
(trace.py, trace_otf2.py, trace_info.py, trace_replay.py; trace_gen.py writes test traces).

A **program** gives every rank of a job a list of **steps**. A step sends messages
(destination rank, size in bytes; non-blocking, queued at the node's network interface in
order), then waits until the messages it expects have arrived (listed by source rank), then
computes for some cycles; then the next step starts. The engine (cuda/workload/program.cuh)
runs the programs of all jobs on both backends; host/workload/workload.cpp matches every send to one
receive before the run (the k-th message rank s sends to rank d is the k-th one d receives
from s) and proves that every rank can finish, so a program that would hang is an error
naming the rank and step.

Motifs build programs: ``alltoall`` (shift schedule), ``nn3d`` (6 neighbours on a 3-D
torus), ``stencil27`` (26-neighbour halo), ``bcast``/``reduce`` (binomial trees),
``allreduce`` (dissemination, recursive doubling, ring), ``perturbation`` (random
permutations, the network-noise paper's perturbation communicator), the iso-cost paper's
proxy applications (``pairs``, ``spread``, ``umesh``, ``milc``, ``pf3d``, ``qbox``) and
``program`` (a user's JSON file). docs/workloads.md describes them and the file format.

    >>> import flitsim.workload as wl
    >>> cfg = {"topology": {...}, "workload": {"jobs": [{"motif": "alltoall", "ranks": 64,
    ...        "bytes": 7680}]}}
    >>> res = wl.run(cfg)                       # or flitsim.run(cfg)
    >>> res.workload.jobs_table()[0]["effective_throughput"]
"""
from __future__ import annotations

# flitsim.config and flitsim.results import this package (through config.py and result.py), so
# its modules import flitsim.config, the runner and the engine only inside functions: at module
# level they import only numpy, flitsim.validation and each other, and importing everything
# here makes no cycle (tests/test_import_cycles.py imports each entry point first).
from .motif_table import DEFAULT_BYTES, MOTIF_BUILDERS, MOTIFS, RANDOM_MOTIFS, build_motif
from .motifs import (ALLREDUCE, allreduce_dissemination, allreduce_recursive_doubling, allreduce_ring, alltoall,
                     bcast, most_cubic, nn3d, reduce, stencil27)
from .proxy_apps import milc, pairs, perturbation, pf3d, qbox, random_derangement, spread, umesh
from .noise import NoiseResult, run_noise
from .placement import build_replica, compile_inputs, job_ranks, place_jobs
from .program import Program, WorkloadError, load_program, match, program_from_json, program_rounds
from .run import run, run_replicas
from .trace_replay import TraceReplay, replay

__all__ = [
    "Program", "WorkloadError", "MOTIFS", "RANDOM_MOTIFS", "MOTIF_BUILDERS", "build_motif", "most_cubic",
    "place_jobs", "build_replica", "compile_inputs", "run", "run_replicas", "run_noise",
    "NoiseResult", "load_program", "program_from_json", "program_rounds", "match",
    "alltoall", "nn3d", "stencil27", "bcast", "reduce", "allreduce_dissemination",
    "allreduce_recursive_doubling", "allreduce_ring", "perturbation", "pairs", "spread",
    "umesh", "milc", "pf3d", "qbox", "ALLREDUCE", "DEFAULT_BYTES", "job_ranks", "random_derangement",
    "replay", "TraceReplay",
]
