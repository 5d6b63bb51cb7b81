"""Jobs on a machine: ranks per job, node placement, and the compiled per-replica inputs the
engine runs (one program set per seed)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .motif_table import RANDOM_MOTIFS, build_motif
from .program import _I64, Program, WorkloadError, load_program


def job_ranks(job: Mapping[str, Any], nodes: int, label: str = "workload.jobs") -> int:
    """Ranks of a normalised job on a machine of `nodes` nodes (`fraction` of the nodes,
    rounded down, when given instead of `ranks`)."""
    if "ranks" in job:
        return int(job["ranks"])
    if "fraction" in job:
        return int(math.floor(job["fraction"] * nodes + 1e-9))
    if "nodes" in job:
        return len(job["nodes"])
    if job["motif"] == "program":
        return load_program(job["file"]).ranks
    if job["motif"] == "trace":
        from .trace_otf2 import trace_ranks
        return trace_ranks(job["trace"], label)
    raise WorkloadError("workload.jobs: a job needs ranks, fraction or nodes")


def place_jobs(jobs: Sequence[Mapping[str, Any]], nodes: int, seed: int) -> list[np.ndarray]:
    """Nodes of every job's ranks (rank i of job j on out[j][i]), all distinct.

    Jobs with explicit `nodes` keep them; "linear" jobs then take consecutive blocks of the
    remaining nodes from the lowest, in job order; "random" jobs take the nodes left after
    that in a random order drawn from `seed` (each job its own consecutive slice of one
    random permutation), so a job's ranks are scattered over the machine.
    """
    sizes = [job_ranks(jb, nodes, f"workload.jobs[{j}].trace") for j, jb in enumerate(jobs)]
    total = sum(sizes)
    if total > nodes:
        traces = "".join(f"; workload.jobs[{j}].trace has {sizes[j]} MPI ranks"
                         for j, jb in enumerate(jobs) if jb["motif"] == "trace")
        raise WorkloadError(f"workload.jobs: {total} ranks in all, but the topology has only "
                            f"{nodes} nodes (one rank per node){traces}")
    free = np.ones(nodes, bool)
    out: list[np.ndarray | None] = [None] * len(jobs)
    for j, job in enumerate(jobs):
        if "nodes" in job:
            nd = np.asarray(job["nodes"], _I64)
            if nd.size and (nd.min() < 0 or nd.max() >= nodes):
                raise WorkloadError(f"workload.jobs[{j}].nodes: must lie in [0, {nodes}), got "
                                    f"{int(nd.min())}..{int(nd.max())}")
            if not free[nd].all() or len(set(nd.tolist())) != nd.size:
                raise WorkloadError(f"workload.jobs[{j}].nodes: nodes must be distinct and not "
                                    f"used by another job")
            free[nd] = False
            out[j] = nd
    for j, job in enumerate(jobs):
        if out[j] is None and job.get("placement", "linear") == "linear":
            idx = np.flatnonzero(free)[:sizes[j]]  # the lowest free nodes, in order
            free[idx] = False
            out[j] = idx.astype(_I64)
    rest = np.flatnonzero(free)
    order = rest[np.random.default_rng([int(seed), 0x91ACE]).permutation(rest.size)]
    pos = 0
    for j, job in enumerate(jobs):
        if out[j] is None:
            out[j] = order[pos:pos + sizes[j]].astype(_I64)
            pos += sizes[j]
    return [np.asarray(o, _I64) for o in out]  # type: ignore[arg-type]


def _job_rng(seed: int, j: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), 0x10B, j])


def build_replica(wcfg: Mapping[str, Any], nodes: int, seed: int,
                  cache: dict | None = None) -> tuple[list[Program], list[dict[str, Any]]]:
    """Programs and placements of every job for one replica (seed). Programs of motifs that
    use no randomness are shared through `cache` ({job index: Program})."""
    jobs = wcfg["jobs"]
    placed = place_jobs(jobs, nodes, seed)
    progs, placements = [], []
    for j, job in enumerate(jobs):
        label = f"workload.jobs[{j}] ({job.get('name', job['motif'])})"
        jj = dict(job)
        jj.setdefault("ranks", len(placed[j]))
        if job["motif"] == "trace":   # the [workload] table's compute conversion
            from .trace import cycle_ns_for
            jj["_compute"], jj["_cycle_ns"] = wcfg.get("compute", "keep"), cycle_ns_for(wcfg)
        random_motif = job["motif"] in RANDOM_MOTIFS or job.get("order") == "random"
        if cache is not None and not random_motif and j in cache:
            prog = cache[j]
        else:
            prog = build_motif(jj, _job_rng(seed, j), label)
            if job.get("start", 0):  # the job begins with a delay (a compute-only first step)
                delayed = Program(prog.ranks, prog.label)
                for r in range(prog.ranks):
                    delayed.step(r, compute=int(job["start"]))
                prog = delayed.append(prog)
            if cache is not None and not random_motif:
                cache[j] = prog
        progs.append(prog)
        placements.append(dict(nodes=placed[j], background=bool(job.get("background", False))))
    return progs, placements


def compile_inputs(wcfg: Mapping[str, Any], nodes: int, seeds: Sequence[int]) -> dict[str, Any]:
    """The `workload` argument of the engine: unique programs and, per replica, the jobs'
    program indices, nodes and background flags."""
    cache: dict = {}
    programs: list[Program] = []
    index: dict[int, int] = {}
    replicas = []
    for seed in seeds:
        progs, placements = build_replica(wcfg, nodes, seed, cache)
        jobs = []
        for prog, pl in zip(progs, placements):
            if id(prog) not in index:
                index[id(prog)] = len(programs)
                programs.append(prog)
            jobs.append(dict(program=index[id(prog)], nodes=pl["nodes"].astype(np.int32),
                             background=pl["background"]))
        replicas.append(jobs)
    return dict(programs=[p.to_arrays() for p in programs], replicas=replicas,
                packet_size=int(wcfg["packet_size"]), flit_bytes=int(wcfg["flit_bytes"]),
                max_cycles=int(wcfg["max_cycles"]), ni_queues=int(wcfg.get("ni_queues", 1)))
