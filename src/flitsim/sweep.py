"""Parameter sweeps: the cartesian product of any config keys, batched into engine runs.

Points that differ only in ``traffic.load`` and ``sim.seed`` share a topology and a router
configuration, so they run as replicas of ONE engine run (``engine.run_replicas``, at most
``max_replicas`` at a time); every other combination is its own batch. Results go to one
HDF5 file (docs/hdf5.md, "Sweep files"), written after each batch, so an interrupted sweep
started again with the same output file redoes only the batches that had not finished.
"""
from __future__ import annotations

import contextlib
import copy
import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .config import ConfigError, check_sweep_key, normalize, sweep_values
from .traffic_classes import get_key, set_key
from .config_values import RELATIVE_TO_SATURATION, saturation_fraction
from .limits import MAX_REPLICAS, MAX_SWEEP_POINTS

__all__ = ["sweep", "parse_over", "plan", "SweepResult", "SweepStatus", "Batch",
           "REPLICA_KEYS", "DEFAULT_MAX_REPLICAS"]

# Keys that replicas of one engine run may differ in.
REPLICA_KEYS = ("traffic.load", "sim.seed")
DEFAULT_MAX_REPLICAS = 32


def parse_over(specs: Sequence[str]) -> dict[str, list[Any]]:
    """``["traffic.load=0.1:0.9:0.1", "topology.p=2,3,4"]`` -> ``{key: [values]}``.
    Raises ConfigError naming the spec for an unknown key, an empty or malformed range,
    a step <= 0, or a key given twice."""
    out: dict[str, list[Any]] = {}
    for spec in specs:
        key, eq, text = spec.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ConfigError(f'sweep "{spec}": must be section.key=values '
                              f'(e.g. traffic.load=0.1:0.9:0.1 or topology.p=2,3,4)')
        check_sweep_key(spec, key)
        if key in out:
            raise ConfigError(f'sweep "{spec}": key {key} is swept twice')
        try:
            out[key] = sweep_values(spec, text)
        except ConfigError as e:
            raise ConfigError(f'sweep "{key}=...": {e}' if str(e).startswith("value ") else str(e)) from None
    return out


@dataclass
class Batch:
    """Points run together as the replicas of one engine run."""
    indices: list[int]
    config: dict            # normalised config of the first point (load/seed per replica)
    loads: list[float]
    seeds: list[int]


def _set(cfg: dict, key: str, value: Any) -> None:
    set_key(cfg, key, value)  # section.key, or traffic.class.<i>.<key>


def plan(config: Mapping[str, Any], over: Mapping[str, Sequence[Any]] | None = None,
         max_replicas: int | None = None,
         saturation_of: Callable[[dict], float] | None = None
         ) -> tuple[list[str], list[dict], list[dict], list[Batch]]:
    """(keys, points, point configs, batches) of a sweep, every point validated.

    ``over`` defaults to the config's ``[sweep] over``; given, it replaces it (command-line
    ``--over`` replaces the file's table). Points are in cartesian order, the first key
    varying slowest. A ``traffic.load`` written ``"saturation*F"`` becomes F x the saturation
    load ``saturation_of(cfg)`` gives for the point's configuration (called once per
    combination of the other keys, seed aside); None: 1.0, which validates the points
    without searching.
    """
    base = copy.deepcopy(dict(config))
    table = base.pop("sweep", None) or {}
    if over is None:
        over = table.get("over")
    if not over:
        raise ConfigError("sweep: nothing to sweep (give --over section.key=values or a "
                          "[sweep] table with over = {...})")
    over = {k: sweep_values(f"{k}", v) for k, v in over.items()}
    for k in over:
        check_sweep_key(k, k)
    if max_replicas is None:
        max_replicas = table.get("max_replicas", DEFAULT_MAX_REPLICAS)
    if not (isinstance(max_replicas, int) and not isinstance(max_replicas, bool)
            and 1 <= max_replicas <= MAX_REPLICAS):
        raise ConfigError(f"sweep.max_replicas: must be an integer in [1, {MAX_REPLICAS}], "
                          f"got {max_replicas!r}")
    keys = list(over)
    total = math.prod(len(over[k]) for k in keys)
    if total > MAX_SWEEP_POINTS:
        sizes = " x ".join(f"{len(over[k])} ({k})" for k in keys)
        raise ConfigError(f"sweep.over: {sizes} = {total} points; at most {MAX_SWEEP_POINTS} per sweep "
                          f"(split it into several sweeps)")
    fractions = _saturation_fractions(over)
    saturations: dict[str, float] = {}
    points, cfgs = [], []
    for combo in itertools.product(*(over[k] for k in keys)):
        point = dict(zip(keys, combo))
        cfg = copy.deepcopy(base)
        for k, v in point.items():
            _set(cfg, k, v)
        fraction = fractions.get(point.get("traffic.load"))
        if fraction is not None:
            _set(cfg, "traffic.load", 0.5)    # a stand-in until the saturation load is known
        try:
            cfg = normalize(cfg)
        except ConfigError as e:
            shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in point.items())
            raise ConfigError(f"sweep point {shown}: {e}") from None
        if fraction is not None:
            shape = _shape(cfg)
            if shape not in saturations:
                saturations[shape] = saturation_of(cfg) if saturation_of else 1.0
            if saturations[shape] <= 0:
                shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in point.items() if k != "traffic.load")
                raise ConfigError(f"sweep point {shown}: no load is sustained (saturation 0), so "
                                  f"traffic.load cannot be a fraction of it")
            load = min(1.0, round(fraction * saturations[shape], 6))
            cfg["traffic"]["load"] = point["traffic.load"] = load
        points.append(point)
        cfgs.append(cfg)
    _drop_unread_keys(cfgs)
    # Group by everything except the replica keys, keeping first-appearance order.
    groups: dict[str, list[int]] = {}
    for i, cfg in enumerate(cfgs):
        groups.setdefault(_shape(cfg), []).append(i)
    batches = []
    for members in groups.values():
        for s in range(0, len(members), max_replicas):
            chunk = members[s:s + max_replicas]
            batches.append(Batch(indices=chunk, config=cfgs[chunk[0]],
                                 loads=[cfgs[i]["traffic"]["load"] for i in chunk],
                                 seeds=[cfgs[i]["sim"]["seed"] for i in chunk]))
    return keys, points, cfgs, batches


def _shape(cfg: dict) -> str:
    """A point's configuration without the replica keys: what one engine run shares."""
    shape = copy.deepcopy(cfg)
    shape["traffic"].pop("load")
    shape["sim"].pop("seed")
    return json.dumps(shape, sort_keys=True)


def _shape_keys(cfg: dict, keys: Sequence[str]) -> dict:
    """The swept keys other than the replica keys, as cfg has them."""
    return {k: get_key(cfg, k) for k in keys if k not in REPLICA_KEYS}


def _saturation_fractions(over: Mapping[str, Sequence[Any]]) -> dict[str, float]:
    """{"saturation*F": F} of the swept loads written so; refused on any other key."""
    out = {}
    for key, values in over.items():
        for v in values:
            if not (isinstance(v, str) and v.startswith(RELATIVE_TO_SATURATION)):
                continue
            if key != "traffic.load":
                raise ConfigError(f'sweep "{key}": only traffic.load may be swept as '
                                  f'{RELATIVE_TO_SATURATION}F, got "{v}"')
            try:
                f = saturation_fraction(v)
            except ValueError:
                f = None
            if f is None or not (math.isfinite(f) and f > 0):
                raise ConfigError(f'sweep "{key}": {RELATIVE_TO_SATURATION}F needs a fraction '
                                  f'F > 0, got "{v}"')
            out[v] = f
    return out


def _drop_unread_keys(cfgs: list[dict]) -> None:
    """A key of the base config that only some points read (traffic.shift over the patterns
    bitcomp and group-shift) is dropped from the points that do not read it: each point's
    config is then exactly what its run reads. A key no point reads is refused, as a run
    refuses it (config_keys.refuse_unread_keys)."""
    from .config_keys import unread_keys
    unread = [{} if "workload" in c else {(k["section"], k["name"]): why for k, why in unread_keys(c)}
              for c in cfgs]
    for sec, name in dict.fromkeys(sk for u in unread for sk in u):
        if all((sec, name) in u for u in unread):
            raise ConfigError(f"{sec}.{name}: {unread[0][sec, name]}, nor by any other point of this "
                              f"sweep (it would have no effect: remove it)")
    for c, u in zip(cfgs, unread):
        for sec, name in u:
            del c[sec][name]


@dataclass
class SweepStatus:
    """What a progress callback receives after each batch (and the progress line shows)."""
    done: int               # points finished, including those found in the output file
    total: int
    resumed: int            # points found finished in the output file at start
    elapsed: float          # seconds since this sweep call started
    eta: float              # estimated seconds left (NaN when nothing has run yet)
    cycles_per_second: float  # engine cycles per wall second, over the batches run so far
    batch: int              # batches run in this call
    batches: int            # batches this call has to run
    fraction: float = float("nan")  # share of this call's work done (replica-cycles)

    def line(self) -> str:
        rate = "-" if math.isnan(self.cycles_per_second) else f"{self.cycles_per_second:,.0f}"
        return (f"points {self.done}/{self.total}  batch {self.batch}/{self.batches}  "
                f"{rate} cycles/s")


def _window(b: "Batch") -> int:
    """Warm-up + window cycles of a batch (0 for a workload: the programs set its length)."""
    if "workload" in b.config:
        return 0
    sim = b.config.get("sim", {})
    return int(sim.get("warmup", 1000)) + int(sim.get("measure", 2000))


def _drain_limit(b: "Batch") -> int | None:
    return int(b.config.get("sim", {}).get("drain_limit", 0)) or None


def _work(b: "Batch", length: Any, cycle: int = 0) -> float:
    """Expected cost of a batch for the ETA: replicas x its expected cycles, the drain
    included (progress.RunLength, learnt from the batches that finished); a workload, whose
    length is unknown, counts as a 1,000-cycle run per replica until one has finished."""
    w = _window(b)
    if w <= 0:
        return len(b.indices) * max(length.ratio() * 1000.0, float(cycle))
    return len(b.indices) * length.expected(w, _drain_limit(b), cycle)


@dataclass
class SweepResult:
    keys: list[str]
    points: list[dict]              # parameters of each point, in plan order
    results: list                   # one Result per point
    engine_runs: int                # engine runs made by this call (0 when all resumed)
    resumed: int                    # points read back from the output file
    wall_seconds: float
    output: str | None = None
    config: dict = field(default_factory=dict, repr=False)

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per point: its parameters, then its summary."""
        return [{**p, **r.summary()} for p, r in zip(self.points, self.results)]


def sweep(config: Mapping[str, Any], over: Mapping[str, Sequence[Any]] | Sequence[str] | None = None,
          output: str | os.PathLike | None = None, backend: str | None = None,
          progress: bool | Callable[[SweepStatus], None] | None = None, threads: int | None = None,
          max_replicas: int | None = None, cluster: Any = None,
          cluster_workers: int | None = None,
          slurm_options: Sequence[str] | Mapping[str, Any] | None = None,
          force: bool = False) -> SweepResult:
    """Run every point of a sweep and return their Results (in plan order).

    over: ``{key: values}`` or ``["key=spec", ...]``; default the config's ``[sweep]``.
    output: HDF5 file, written after every batch; when it already holds this sweep,
    finished points are read back and only the rest run (a different sweep in it is an
    error: ConfigError). progress: True for a line on stderr (ETA from the replica-cycles
    done), None (default) for one in an interactive session only, or a callable receiving a
    SweepStatus after each batch (an exception it raises stops the sweep; what was
    written stays).
    cluster: run the batches on Dask, one task per batch: ``"local"`` (a LocalCluster of
    ``cluster_workers`` processes, default one per core), a scheduler address
    ``"tcp://host:port"``, ``"slurm"`` (dask-jobqueue SLURMCluster built from
    ``slurm_options`` and scaled to ``cluster_workers`` jobs), or a Client / cluster object
    (see flitsim.cluster). Results come back as tasks finish and only this process writes
    ``output``. Needs ``pip install 'flitsim[cluster]'``; the default (None) runs in-process.
    force: replace an existing ``output`` that is not a flitsim sweep file (refused otherwise:
    another tool's HDF5 file, a results file, a damaged file).
    The output path is checked before anything runs, locked while the sweep writes it (a
    second writer is refused), and a Ctrl-C never loses a batch that has finished.
    """
    from .outputs import check_output, sweep_lock

    if over is not None and not isinstance(over, Mapping):
        over = parse_over(list(over))
    keys, points, cfgs, batches = plan(config, over, max_replicas)
    from .memory import check_run
    for b in batches:  # every batch's memory, from its configuration alone, before any runs
        if "workload" not in b.config:
            check_run(b.config, len(b.loads))
    if cluster is not None:     # Dask present, arguments usable: checked before any output
        from .cluster import check_args
        check_args(cluster, cluster_workers, slurm_options)
    elif cluster_workers is not None or slurm_options:
        raise ConfigError("sweep: cluster_workers and slurm_options need a cluster")
    base = normalize({k: v for k, v in dict(config).items() if k != "sweep"})
    check_output(output, force=force, kind="sweep",
                 expected_bytes=_expected_output_bytes(batches, output))
    found: list[dict] = []
    if _saturation_fractions(over if over is not None else
                             (dict(config).get("sweep") or {}).get("over") or {}):
        # Loads written as fractions of saturation: one saturation search per combination of
        # the other keys (seed: the combination's first), then the plan with the real loads.
        from .progress import enabled

        def saturation_of(cfg: dict) -> float:
            from .saturate import saturate
            where = _shape_keys(cfg, keys)
            shown = enabled(progress) is True
            if shown:
                print("sweep: saturation search for " + (", ".join(
                    f"{k}={json.dumps(v)}" for k, v in where.items()) or "the config"), file=sys.stderr)
            res = saturate(cfg, backend=backend, threads=threads, progress=shown)
            found.append({"config": where, "saturation": res.saturation, "upper": res.upper})
            return res.saturation
        keys, points, cfgs, batches = plan(config, over, max_replicas, saturation_of)
    base["sweep"] = {"over": {k: _distinct(p[k] for p in points) for k in keys}}
    if found:
        base["sweep"]["saturation_loads"] = found
    with sweep_lock(output):
        return _run_locked(keys, points, cfgs, batches, base, output, backend, progress,
                           threads, cluster, cluster_workers, slurm_options)


def _run_locked(keys, points, cfgs, batches, base, output, backend, progress, threads,
                cluster, cluster_workers, slurm_options) -> SweepResult:
    from . import engine, hdf5
    from .outputs import deferred_interrupt, remove_stale_temporaries
    results: list = [None] * len(points)
    resumed = 0
    if output is not None:
        remove_stale_temporaries(output)  # left by a writer that was killed
    # Resumed only from a readable sweep file (check_output refused anything else unless --force,
    # which replaces it).
    if output is not None and os.path.exists(output) and hdf5.file_kind(output) == "sweep":
        old = hdf5.read_sweep(output)
        if old["keys"] != keys or old["points"] != json.loads(json.dumps(points)) or \
                _strip_sweep(old["config"]) != json.loads(json.dumps(_strip_sweep(base))):
            raise ConfigError(f"{os.fspath(output)}: holds a different sweep (other config, "
                              f"keys or points); remove it or choose another output")
        for i, r in enumerate(old["results"]):
            if r is not None:
                results[i] = r
                resumed += 1
    elif output is not None:
        try:
            hdf5.create_sweep(output, base, keys, points, extra_attrs={"kind": "sweep"})
        except (OSError, RuntimeError) as e:   # nothing simulated yet: nothing to rescue
            raise OSError(f'-o "{os.fspath(output)}": cannot create the sweep file '
                          f"({getattr(e, 'strerror', None) or e})") from None
    todo = [b for b in batches if any(results[i] is None for i in b.indices)]
    start = time.monotonic()
    from .progress import Reporter, RunLength, enabled, eta as eta_of
    progress = enabled(progress)
    line = Reporter("sweep") if progress is True else None
    done, cycles, engine_wall, runs = resumed, 0, 0.0, 0
    length = RunLength()       # the drain of the batches run so far, for the ETA
    work_done = 0.0            # replica-cycles of the finished batches
    finished_ids: set[int] = set()

    def status(batch_no: int, current: float = 0.0, current_cycle: int = 0) -> SweepStatus:
        # Done: the finished batches' replica-cycles plus the running one's; left: the running
        # batch's expected rest and every other batch's expected length, drains included.
        elapsed = time.monotonic() - start
        running = todo[batch_no] if cluster is None and batch_no < len(todo) else None
        left = sum(_work(b, length) for k, b in enumerate(todo)
                   if k not in finished_ids and b is not running)
        if running is not None and current > 0:
            left += max(_work(running, length, current_cycle) - current, 0.0)
        elif running is not None:
            left += _work(running, length)
        frac = (work_done + current) / max(work_done + current + left, 1e-9)
        rate = cycles / engine_wall if engine_wall > 0 else float("nan")
        return SweepStatus(done, len(points), resumed, elapsed, eta_of(elapsed, frac), rate,
                           batch_no, len(todo), frac)

    def during(cycle: int, window_end: int, _done: int, fraction: float = -1.0) -> None:
        # The running batch's replica-cycles so far against its expected length.
        if line is None or runs >= len(todo):
            return
        st = status(runs, len(todo[runs].indices) * float(cycle), cycle)
        run_rate = cycle / max(time.monotonic() - t0, 1e-9)
        phase = "draining" if 0 < window_end <= cycle else "cycle"
        line.update(f"{st.line()}  [batch {runs + 1}: {phase} {cycle:,}, {run_rate:,.0f} cycles/s]",
                    st.fraction)

    def in_process():
        nonlocal t0
        for b in todo:
            t0 = time.monotonic()
            yield b, engine.run_replicas(b.config, b.loads, b.seeds, backend=backend,
                                         threads=threads, progress=during if line else False)

    t0 = time.monotonic()
    try:
        with contextlib.ExitStack() as stack:
            if cluster is None:
                finished = in_process()
            elif not todo:
                finished = iter(())
            else:
                from . import cluster as dask_cluster
                client, submit_kw = stack.enter_context(
                    dask_cluster.open_client(cluster, cluster_workers, slurm_options))
                finished = dask_cluster.run_batches(client, submit_kw, todo, backend, threads)
            if hasattr(finished, "close"):     # cancels pending cluster tasks on an error
                stack.callback(finished.close)
            if line is not None:
                line.update(status(0).line(), 0.0, force=True)
            # Batches as they finish (in plan order in-process, in any order on a cluster);
            # this process alone writes the output file.
            for b, rs in finished:
                for i, r in zip(b.indices, rs):
                    r.config = cfgs[i]  # each replica's own config (load and seed included)
                    results[i] = r
                runs += 1
                done += len(b.indices)
                finished_ids.update(k for k, x in enumerate(todo) if x.indices == b.indices)
                work_done += len(b.indices) * float(rs[0].cycles)
                if _window(b) > 0:
                    length.observe(_window(b), int(rs[0].cycles))
                else:   # workloads: their length per 1,000 cycles of the placeholder
                    length.observe(1000, int(rs[0].cycles))
                cycles += rs[0].cycles
                engine_wall += rs[0].wall_seconds
                if output is not None:
                    with deferred_interrupt():  # a finished batch reaches the file first
                        _append_or_rescue(output, b, rs, base)
                st = status(runs)
                if line is not None:
                    line.update(st.line(), st.fraction, force=line.tty or runs == len(todo))
                elif callable(progress):
                    progress(st)
    finally:
        if line is not None:
            line.close()
    return SweepResult(keys=keys, points=points, results=results, engine_runs=runs,
                       resumed=resumed, wall_seconds=time.monotonic() - start,
                       output=None if output is None else os.fspath(output), config=base)


def _append_or_rescue(output, b: Batch, rs: list, base: dict) -> None:
    """Add a finished batch to the sweep file; when that fails (disk full, quota, I/O error)
    the file keeps the points finished before (append_sweep is all or nothing), this batch's
    results go to a fallback file, and OutputLost says both."""
    from . import hdf5
    from .outputs import OutputLost, write_or_rescue

    def first_try(path):
        if path != os.fspath(output):   # the fallback: a results file of this batch alone
            hdf5.write_results(path, rs, b.config, extra_attrs={"sweep_points": list(b.indices)})
        else:
            hdf5.append_sweep(path, b.indices, rs)
    try:
        write_or_rescue(first_try, output, what=f"the results of points {_ranges(b.indices)}")
    except OutputLost as e:
        raise OutputLost(f"{e}; {os.fspath(output)} still holds the points finished before "
                         f"(run the same sweep again to resume once the problem is fixed)",
                         e.rescued) from None


def _ranges(indices: Sequence[int]) -> str:
    return ", ".join(str(i) for i in indices[:8]) + (f" ... ({len(indices)} points)" if len(indices) > 8 else "")


def _expected_output_bytes(batches: list, output) -> int:
    """Room a sweep file needs: every point's arrays (hdf5.estimate_bytes), and the copy
    append_sweep makes of the whole file before renaming it back."""
    if output is None:
        return 0
    from .hdf5 import estimate_bytes
    per_replica: dict[str, int] = {}   # one topology build per distinct topology and sim table
    total = 0
    for b in batches:
        shape = json.dumps([b.config["topology"], b.config.get("sim")], sort_keys=True)
        if shape not in per_replica:
            per_replica[shape] = estimate_bytes(b.config, 1)
        total += len(b.indices) * per_replica[shape]
    return 2 * total


def _distinct(values) -> list:
    out, seen = [], set()
    for v in values:
        j = json.dumps(v)
        if j not in seen:
            seen.add(j)
            out.append(v)
    return out


def _strip_sweep(cfg: dict) -> dict:
    return {k: v for k, v in cfg.items() if k != "sweep"}


class _CallableModule(type(sys)):
    """``flitsim.sweep(config, ...)`` works whether ``flitsim.sweep`` resolves to this module
    or to the function."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
