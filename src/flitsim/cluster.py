"""Sweeps on Dask: one batch (engine run) per task, results streamed back to the client.

``flitsim.sweep(..., cluster=...)`` and ``flitsim sweep --cluster`` use this module; the
default (no cluster) runs batches in-process and never imports Dask. Dask is an optional
dependency: ``pip install 'flitsim[cluster]'``.

``cluster`` is one of

- ``"local"``: a ``dask.distributed.LocalCluster`` on this machine: ``workers`` processes
  (default: one per core) with one Dask thread each, and ``OMP_NUM_THREADS`` set to
  cores // workers for them, so the engine's OpenMP threads share the cores evenly;
- ``"tcp://host:port"`` (any address with ``://``): a running Dask scheduler, through
  ``Client(address)``; its workers must be able to import flitsim;
- ``"slurm"``: a ``dask_jobqueue.SLURMCluster`` built from ``slurm_options`` (cores, memory,
  queue, walltime, account, job_extra_directives, ...) and scaled to ``workers`` jobs
  (default 1). Each worker runs one batch at a time with the job's cores as OpenMP threads;
- a ``dask.distributed.Client`` (used as is, not closed) or a cluster object (a client is
  opened on it and closed afterwards; the cluster is left running).

Only the client writes the output file, so resume works as without a cluster.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from typing import Any, Iterator, Mapping, Sequence

__all__ = ["ClusterUnavailable", "MISSING_DASK", "check_args", "open_client", "parse_slurm_options",
           "run_batch", "SLURM_LIST_OPTIONS"]

MISSING_DASK = "--cluster needs dask: pip install 'flitsim[cluster]'"

# SLURMCluster options that take a list; ``--slurm-option KEY=VALUE`` given several times
# (or once) for these builds the list.
SLURM_LIST_OPTIONS = ("job_extra_directives", "job_directives_skip", "job_script_prologue",
                      "worker_extra_args", "scheduler_options", "env_extra", "extra",
                      "job_extra")


class ClusterUnavailable(ImportError):
    """Dask (or dask-jobqueue for Slurm) is not installed."""


def _import_distributed():
    try:
        import distributed
    except ImportError as e:
        raise ClusterUnavailable(MISSING_DASK) from e
    return distributed


def run_batch(config: dict, loads: list[float], seeds: list[int], backend: str | None,
              threads: int | None) -> list:
    """What one Dask task runs: one engine run of a batch's replicas (on a worker)."""
    from . import engine
    return engine.run_replicas(config, loads, seeds, backend=backend, threads=threads)


def parse_slurm_options(specs: Sequence[str] | Mapping[str, Any] | None) -> dict[str, Any]:
    """``["cores=16", "memory=64GB", "job_extra_directives=--gres=gpu:1"]`` -> kwargs of
    ``SLURMCluster``. A value is parsed as TOML when it can be (16, 1.5, true, ["a","b"]),
    else kept as a string (walltime=01:00:00 too); ``-`` in keys becomes ``_``. List options
    (``SLURM_LIST_OPTIONS``) collect every value given; any other key given twice is an
    error (ValueError)."""
    if specs is None:
        return {}
    if isinstance(specs, Mapping):
        return dict(specs)
    from .config import ConfigError
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    out: dict[str, Any] = {}
    for spec in specs:
        key, eq, text = spec.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or not key:
            raise ConfigError(f'--slurm-option "{spec}": must be KEY=VALUE (e.g. cores=16, '
                              f'memory=64GB, queue=normal, walltime=01:00:00)')
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except Exception:
            value = text.strip()
        if not isinstance(value, (str, int, float, bool, list)):
            value = text.strip()        # TOML times and dates: walltime=01:00:00 is a string
        if key in SLURM_LIST_OPTIONS:
            out.setdefault(key, []).extend(value if isinstance(value, list) else [value])
        elif key in out:
            raise ConfigError(f'--slurm-option "{spec}": {key} given twice')
        else:
            out[key] = value
    return out


def _slurm_cluster(workers: int | None, options: Mapping[str, Any]):
    try:
        import dask_jobqueue
    except ImportError as e:
        raise ClusterUnavailable("--cluster slurm needs dask-jobqueue: "
                                 "pip install 'flitsim[cluster]'") from e
    opts = dict(options)
    opts.setdefault("processes", 1)
    cores, processes = opts.get("cores"), opts["processes"]
    if isinstance(cores, int) and isinstance(processes, int) and processes >= 1:
        omp = max(1, cores // processes)
        # One batch at a time per worker (the "flitsim" resource), the worker's share of
        # the job's cores as OpenMP threads.
        opts["job_script_prologue"] = [f"export OMP_NUM_THREADS={omp}",
                                       *opts.get("job_script_prologue", [])]
    opts["worker_extra_args"] = [*opts.get("worker_extra_args", []), "--resources", "flitsim=1"]
    cluster = dask_jobqueue.SLURMCluster(**opts)
    cluster.scale(jobs=workers or 1)
    return cluster


def _check_job_size(opts: Mapping[str, Any]) -> None:
    """dask-jobqueue needs each job's cores and memory, from the options or from the Dask
    configuration (jobqueue.slurm.cores / .memory); without them it stops with advice for its
    Python API. Say it for the command line instead."""
    try:
        import dask
        configured = {k: dask.config.get(f"jobqueue.slurm.{k}", None) for k in ("cores", "memory")}
    except ImportError:
        configured = {}
    missing = [k for k in ("cores", "memory") if opts.get(k) is None and configured.get(k) is None]
    if missing:
        raise ValueError("--cluster slurm: each Slurm job needs its size: "
                         + " and ".join(f"--slurm-option {k}={'16' if k == 'cores' else '64GB'}" for k in missing)
                         + " (or jobqueue.slurm." + missing[0] + " in the Dask configuration)")


def check_args(cluster: Any, workers: int | None = None,
               slurm_options: Sequence[str] | Mapping[str, Any] | None = None) -> None:
    """Raise (ClusterUnavailable, ValueError) before anything runs when the cluster
    arguments cannot work: Dask missing, an unknown cluster name, misplaced options."""
    distributed = _import_distributed()
    if workers is not None and not (isinstance(workers, int) and not isinstance(workers, bool)
                                    and workers >= 1):
        raise ValueError(f"cluster workers: must be an integer >= 1, got {workers!r}")
    if not isinstance(cluster, str):
        if isinstance(cluster, distributed.Client) or hasattr(cluster, "scheduler_address"):
            return
        raise ValueError(f"cluster: must be local, slurm, a scheduler address, a Client or "
                         f"a cluster object, got {cluster!r}")
    if cluster not in ("local", "slurm") and "://" not in cluster:
        raise ValueError(f"--cluster: must be local, slurm or a scheduler address "
                         f"(tcp://host:port), got {cluster!r}")
    if slurm_options and cluster != "slurm":
        raise ValueError("--slurm-option needs --cluster slurm")
    if workers is not None and "://" in cluster:
        raise ValueError("--cluster-workers applies to local and slurm clusters, not to an "
                         "existing scheduler")
    if cluster == "slurm":
        opts = parse_slurm_options(slurm_options)
        # Without sbatch, or with a Slurm that does not answer, every job submission fails
        # inside Dask's event loop, which logs tracebacks and waits for workers that never
        # come: refuse here, in one line.
        if shutil.which("sbatch") is None:
            raise ClusterUnavailable("--cluster slurm: sbatch is not on PATH (run the sweep "
                                     "where Slurm jobs can be submitted, e.g. a login node)")
        _check_job_size(opts)
        _check_slurm_answers()


def _check_slurm_answers() -> None:
    """`sinfo` (beside sbatch in every Slurm client install) fails at once where no controller
    or configuration is reachable; skipped where it is missing."""
    sinfo = shutil.which("sinfo")
    if sinfo is None:
        return
    try:
        proc = subprocess.run([sinfo, "--noheader", "--format=%P"], capture_output=True,
                              text=True, timeout=30)
    except subprocess.TimeoutExpired:
        raise ClusterUnavailable("--cluster slurm: Slurm does not answer here (sinfo took over "
                                 "30 s)") from None
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        raise ClusterUnavailable(f"--cluster slurm: Slurm does not answer here ({said})")


@contextlib.contextmanager
def open_client(cluster: Any, workers: int | None = None,
                slurm_options: Sequence[str] | Mapping[str, Any] | None = None
                ) -> Iterator[tuple[Any, dict]]:
    """(client, extra ``Client.submit`` kwargs) for ``cluster`` (see the module docstring);
    closes what it opened on exit."""
    distributed = _import_distributed()
    check_args(cluster, workers, slurm_options)
    if isinstance(cluster, distributed.Client):
        yield cluster, {}
        return
    if not isinstance(cluster, str):     # a cluster object (LocalCluster, SLURMCluster, ...)
        with distributed.Client(cluster) as client:
            yield client, {}
        return
    if cluster == "local":
        cores = os.cpu_count() or 1
        n = workers or cores
        omp = max(1, cores // n)
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      env={"OMP_NUM_THREADS": str(omp)}) as lc, \
                distributed.Client(lc) as client:
            yield client, {}
    elif "://" in cluster:
        with distributed.Client(cluster, timeout="30s") as client:
            yield client, {}
    elif cluster == "slurm":
        sc = _slurm_cluster(workers, parse_slurm_options(slurm_options))
        try:
            with distributed.Client(sc) as client:
                yield client, {"resources": {"flitsim": 1}}
        finally:
            sc.close()


def run_batches(client: Any, submit_kw: dict, batches: list, backend: str | None,
                threads: int | None) -> Iterator[tuple[Any, list]]:
    """Submit one task per batch; yield (batch, results) as tasks finish (any order).
    Closing the generator early (an error or interruption on the client) cancels the
    tasks still pending."""
    distributed = _import_distributed()
    futures = {}
    for b in batches:
        f = client.submit(run_batch, b.config, b.loads, b.seeds, backend, threads,
                          pure=False, **submit_kw)
        futures[f] = b
    try:
        for f in distributed.as_completed(list(futures)):
            yield futures.pop(f), f.result()
    finally:
        if futures:
            client.cancel(list(futures))
