"""Runs the compiled engine on a normalised configuration and turns its integer counters into
Results. The open- and closed-loop front ends (engine.py, workload/) both call it; it imports
neither, so they import it without a cycle."""
from __future__ import annotations

from typing import Any

from typing import Callable, Sequence

from .limits import MAX_THREADS
from .results import ENGINE_STATISTICS, Result

# A replica is saturated when its measured packets did not all arrive within sim.drain_limit
# cycles after the window, or by the rule sim.saturation picks. The engine decides it, once
# (host/run/replica_stats.cpp), with the configured tolerance and threshold.
SATURATION_RULES = {
    "accepted": "accepted < (1 - sim.saturation_tolerance) * offered (replicas saturated by this "
                "rule stop at the window's end)",
    "latency": "their mean packet latency > sim.latency_threshold, BookSim2's criterion (replicas stop "
               "once the packets still missing can no longer bring the mean under it)",
    "stable": "the mean latency of the packets created in the window's second half exceeds the first "
              "half's by more than sim.saturation_tolerance (relative), or the accepted rate of the "
              "second half is below the first half's by more than that",
}
SATURATION_RULE = (
    "saturated = measured packets not all delivered within sim.drain_limit cycles after the "
    "window, or, by sim.saturation: \"accepted\" (the default): " + SATURATION_RULES["accepted"] +
    "; \"latency\": " + SATURATION_RULES["latency"] + "; \"stable\": " + SATURATION_RULES["stable"] +
    "; and, whatever the rule, with sim.latency_threshold set, a mean packet latency > it"
)


def saturation_rule_of(config: dict) -> str:
    """The saturation rule a normalised config runs with, in words."""
    sim = config.get("sim", {})
    rule = sim.get("saturation", "accepted")
    text = "measured packets not all delivered within sim.drain_limit cycles, or " + SATURATION_RULES[rule]
    if rule != "latency" and sim.get("latency_threshold") is not None:
        text += ", or their mean packet latency > sim.latency_threshold"
    return f"sim.saturation = \"{rule}\": saturated when {text}"


def _core():
    from . import _core as core  # the compiled extension
    return core


def available_backends() -> list[str]:
    """Backends usable on this machine, best first."""
    core = _core()
    ok, _ = core.cuda_usable() if core.cuda_compiled() else (False, "")
    return ["cuda", "cpu"] if ok else ["cpu"]


def backend_status() -> str:
    """One line saying which backend `auto` picks here and why."""
    core = _core()
    if not core.cuda_compiled():
        return "cpu (this build has no CUDA backend)"
    ok, why = core.cuda_usable()
    built = f"; CUDA backend built with {core.cuda_build()}"
    return ("cuda" if ok else f"cpu ({why})") + built


class _Progress:
    """The engine's progress line (flitsim.progress): cycles against the expected length of an
    open-loop run (warm-up + window + the drain, progress.RunLength), foreground flits
    delivered for a workload, replicas done while draining."""

    def __init__(self, replicas: int = 1, what: str = "run", drain_limit: int | None = None):
        from .progress import Reporter, RunLength
        self.line, self.replicas = Reporter(what), replicas
        self.length, self.drain_limit = RunLength(), drain_limit

    def __call__(self, cycle: int, window_end: int, done: int, fraction: float = -1.0) -> None:
        rate = cycle / max(self.line.elapsed(), 1e-9)
        reps = f", {done}/{self.replicas} replicas done" if self.replicas > 1 else ""
        if window_end <= 0:  # a workload run: the programs decide the end
            self.line.update(f"cycle {cycle:,}, foreground flits delivered{reps}, "
                             f"{rate:,.0f} cycles/s", fraction if fraction >= 0 else None)
            return
        expected = self.length.expected(window_end, self.drain_limit, cycle)
        if cycle < window_end:
            self.line.update(f"cycle {cycle:,}/{window_end:,} (warm-up + window, then the "
                             f"drain){reps}, {rate:,.0f} cycles/s", cycle / expected)
        else:  # draining: the end is when the measured packets arrive (at most drain_limit)
            bound = (f", at most {window_end + self.drain_limit - cycle:,} more cycles"
                     if self.drain_limit else "")
            self.line.update(f"cycle {cycle:,}, draining measured packets{reps}{bound}, "
                             f"{rate:,.0f} cycles/s", cycle / expected)

    def close(self) -> None:
        self.line.close()


def _no_progress(cycle: int, window_end: int, done: int, fraction: float = -1.0) -> None:
    """The callback of a quiet run: calling it lets the engine see Ctrl-C."""


def checked_seeds(seeds: Any, count: int | None = None, name: str = "seeds") -> list[int]:
    """The per-replica seeds as integers, each a valid sim.seed: 1.9 is refused, not run as
    seed 1 (int() would truncate it silently), and so are booleans and strings."""
    import numbers
    from .config_keys import SCHEMA
    from .validation import ConfigError
    try:
        values = list(seeds)
    except TypeError:
        raise ConfigError(f"{name}: must be a list of integers, got {seeds!r}") from None
    if count is not None and len(values) != count:
        raise ConfigError(f"{name}: one seed per replica: {len(values)} seeds for {count} loads")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            v = int(v)
        out.append(SCHEMA["sim"]["seed"](f"{name}[{i}] (sim.seed)", v))
    return out


def simulate_raw(config: dict, backend: str | None = None, threads: int | None = None,
                 progress: bool | Callable | None = None, loads: Sequence[float] | None = None,
                 seeds: Sequence[int] | None = None, workload: dict | None = None) -> dict:
    """The engine's raw output for a normalised config (several replicas when loads/seeds
    are given: one replica per (load, seed) pair, all advancing in one engine run).
    workload: flitsim.workload.compile_inputs() for a closed-loop run (one program set per
    seed)."""
    if workload is None and "workload" in config:
        from .validation import ConfigError
        raise ConfigError("workload: a [workload] run needs its programs: use flitsim.run or "
                          "flitsim.workload.run_replicas (they build them)")
    if workload is None:  # open loop: a [traffic] or [routing] key this run would not read
        from .config_keys import refuse_unread_keys
        refuse_unread_keys(config)
    if threads is not None and not (isinstance(threads, int) and 0 <= threads <= MAX_THREADS):
        from .validation import ConfigError
        raise ConfigError(f"threads: must be an integer in [1, {MAX_THREADS}] (0 or None: all "
                          f"cores), got {threads!r}")
    # Always a callback: the engine calls it between pieces of cycles and checks for Ctrl-C
    # there, so an interrupt is honoured promptly even when no progress is shown.
    from .progress import enabled
    progress = enabled(progress)
    cb = (_Progress(len(loads) if loads is not None else 1,
                    drain_limit=int(config.get("sim", {}).get("drain_limit", 0)) or None)
          if progress is True
          else (progress or _no_progress))
    try:
        return _core().simulate(config, backend or "auto", int(threads or 0), cb,
                                None if loads is None else [float(x) for x in loads],
                                None if seeds is None else checked_seeds(seeds), workload)
    finally:
        if isinstance(cb, _Progress):
            cb.close()


def results_from_raw(raw: dict, config: dict) -> list[Result]:
    sim = config.get("sim", {})
    warmup, measure = int(sim.get("warmup", 1000)), int(sim.get("measure", 2000))
    closed = bool(raw.get("workload"))
    out = []
    for rep in raw["replicas"]:
        # Each replica's own length: it stopped where a run of its own would have ended.
        cycles = int(rep["cycles"])
        if closed:  # the whole run is measured; "measure" is its length, so rates are per cycle
            warmup, measure = 0, cycles
        res = Result(
            backend=raw["backend"], nodes=raw["nodes"], routers=raw["routers"], load=rep["load"],
            seed=rep["seed"], cycles=cycles, wall_seconds=raw["wall_seconds"],
            warmup=warmup, measure=measure, saturated=rep["saturated"], drained=rep["drained"],
            **{st["name"]: rep[st["name"]] for st in ENGINE_STATISTICS},
            port_router=raw["port_router"], peer_port=raw["peer_port"],
            port_class=raw["port_class"], class_names=list(raw["class_names"]), config=config,
        )
        if closed:
            from .workload.result import WorkloadResult
            res.workload = WorkloadResult.from_raw(rep["workload"], config["workload"])
        out.append(res)
    return out


