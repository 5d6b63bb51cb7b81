"""Saturation search: the highest offered load a network sustains, by batched bisection.

Criterion (the engine's, ``engine.SATURATION_RULE``): a load is **sustained** when its
replica is not ``saturated``, i.e. every measured packet was delivered within
``sim.drain_limit`` cycles after the window and the rule ``sim.saturation`` picks holds: by
default accepted >= (1 - sim.saturation_tolerance) x offered; ``"latency"``, BookSim2's
criterion, a mean packet latency at most ``sim.latency_threshold``; ``"stable"``, latency and
accepted rate settled over the window. The saturation load is the highest sustained load
found; the search stops once the lowest saturated load above it is at most ``tolerance`` away.

Each round probes ``probes`` loads spread evenly inside the current bracket, all as
replicas of ONE engine run (``engine.run_replicas``), so a round costs one simulation of
the network with ``probes`` replicas and the bracket shrinks by a factor ``probes + 1``
per round (the first round, over (0, 1], by ``probes``). With the defaults (8 probes,
tolerance 0.005) that is three engine runs.
"""
from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["saturate", "SaturationResult", "Probe", "CRITERION"]

CRITERION = ("a load is sustained when its replica is not saturated: every measured packet "
             "delivered within sim.drain_limit cycles after the window and, by sim.saturation, "
             "accepted >= (1 - sim.saturation_tolerance) x offered (\"accepted\", the default: 0.95 x), "
             "a mean packet latency at most sim.latency_threshold (\"latency\", BookSim2's), or latency "
             "and accepted rate settled over the window (\"stable\"); with sim.latency_threshold set, "
             "a mean packet latency at most that under every rule (engine.SATURATION_RULE)")


def criterion_of(config: dict) -> str:
    """CRITERION for one normalised config: the rule its sim.saturation picks."""
    from .runner import saturation_rule_of
    return "a load is sustained when its replica is not saturated; " + saturation_rule_of(config)


@dataclass
class Probe:
    """One probed load and what the network did with it."""
    load: float
    offered: float
    accepted: float
    latency: float          # mean packet latency of the measured packets (cycles)
    saturated: bool
    drained: bool
    round: int              # engine run (0-based) that simulated it

    def as_dict(self) -> dict[str, Any]:
        return dict(load=self.load, offered=self.offered, accepted=self.accepted,
                    latency=self.latency, saturated=self.saturated, drained=self.drained,
                    round=self.round)


@dataclass
class SaturationResult:
    saturation: float               # highest sustained load (0.0 when none was)
    upper: float                    # lowest saturated load above it (1.0 bound when none)
    accepted_at_saturation: float   # accepted throughput at `saturation` (NaN when none)
    latency_at_saturation: float
    max_accepted: float             # highest accepted throughput of any probe
    probes: list[Probe]             # in the order simulated
    engine_runs: int
    replicas_per_run: int
    wall_seconds: float
    tolerance: float
    criterion: str = CRITERION
    config: dict = field(default_factory=dict, repr=False)

    @property
    def bracket(self) -> tuple[float, float]:
        return self.saturation, self.upper

    @property
    def throughput(self) -> float:
        """The plateau: the highest accepted rate (flits/node/cycle) of any probe, i.e. what the
        network delivers when offered more than it can carry. `saturation` is an offered load
        and may exceed it by up to sim.saturation_tolerance (accepted >= (1 - tolerance) x offered)."""
        return self.max_accepted

    def as_dict(self) -> dict[str, Any]:
        """The object ``flitsim saturate --json`` prints."""
        return dict(throughput=self.throughput, saturation=self.saturation, upper=self.upper,
                    accepted_at_saturation=self.accepted_at_saturation,
                    latency_at_saturation=self.latency_at_saturation,
                    max_accepted=self.max_accepted, tolerance=self.tolerance,
                    engine_runs=self.engine_runs, replicas_per_run=self.replicas_per_run,
                    wall_seconds=self.wall_seconds, criterion=self.criterion,
                    probes=[p.as_dict() for p in self.probes])


def _round_load(x: float) -> float:
    return round(x, 9)  # readable probe loads; far below any meaningful tolerance


def saturate(config: dict, tolerance: float = 0.005, probes: int = 8,
             backend: str | None = None, progress: bool | Callable | None = None,
             threads: int | None = None, lower: float = 0.0,
             upper: float = 1.0) -> SaturationResult:
    """Find the saturation load of ``config`` (its ``traffic.load`` is ignored).

    tolerance: stop when the bracket (highest sustained, lowest saturated) is this narrow.
    probes: loads per engine run (replicas of one run).
    progress: True for a progress line on stderr (ETA from the rounds the bracket needs and
    the cycles of the running one), None (default) for one in an interactive session only,
    or a callable(round, lo, hi, probes) called after each round.
    lower, upper: the initial bracket; `upper` itself is probed in the first round.
    Raises ValueError for a bad argument; engine errors (deadlock) propagate.
    """
    from . import engine
    from .config import normalize

    from .limits import MAX_REPLICAS
    if not (isinstance(probes, int) and not isinstance(probes, bool) and 1 <= probes <= MAX_REPLICAS):
        raise ValueError(f"probes: must be an integer in [1, {MAX_REPLICAS}], got {probes!r}")
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance: must be a number > 0, got {tolerance!r}")
    if not (0.0 <= lower < upper <= 1.0):
        raise ValueError(f"lower, upper: need 0 <= lower < upper <= 1, got {lower}, {upper}")
    cfg = normalize(config)
    cfg.pop("sweep", None)
    start = time.monotonic()
    lo, hi = float(lower), float(upper)
    hi_saturated = False          # is `hi` known to be saturated (probed), or just a bound?
    found: list[Probe] = []
    best_lo: Probe | None = None
    runs = 0
    from .progress import Reporter, enabled
    progress = enabled(progress)
    line = Reporter("saturate") if progress is True else None
    rounds = _rounds_needed(hi - lo, tolerance, probes)

    from .progress import RunLength
    length = RunLength()   # rounds with saturated probes drain long: learnt for the ETA
    drain_limit = int(cfg["sim"]["drain_limit"])
    window = int(cfg["sim"]["warmup"]) + int(cfg["sim"]["measure"])

    def during(cycle: int, window_end: int, _done: int, _fraction: float = -1.0) -> None:
        share = cycle / length.expected(window_end, drain_limit, cycle) if window_end > 0 else 0.0
        line.update(f"round {runs + 1}/~{rounds}, bracket [{lo:.4f}, {hi:.4f}], cycle {cycle:,}",
                    (runs + share) / max(rounds, runs + 1))
    while True:
        if runs == 0:
            loads = [lo + (hi - lo) * i / probes for i in range(1, probes + 1)]
        else:
            loads = [lo + (hi - lo) * i / (probes + 1) for i in range(1, probes + 1)]
        # Only new loads strictly inside the bracket (the first round also probes `upper`):
        # once rounding leaves none, the bracket cannot shrink further and the search ends,
        # whatever the tolerance (a tolerance below the rounding step used to loop forever).
        probed = {p.load for p in found}
        loads = sorted({x for x in map(_round_load, loads)
                        if lo < x and (x < hi or (runs == 0 and x <= hi)) and x not in probed})
        if not loads:
            break
        results = engine.run_replicas(cfg, loads, backend=backend, threads=threads,
                                      progress=during if line else False)
        batch = [Probe(load=r.load, offered=r.offered, accepted=r.accepted,
                       latency=r.latency_mean, saturated=bool(r.saturated),
                       drained=bool(r.drained), round=runs) for r in results]
        found.extend(batch)
        runs += 1
        length.observe(window, int(getattr(results[0], "cycles", window)))  # stand-ins in tests lack it
        # The new hi is the lowest saturated probe; the new lo the highest sustained probe
        # below it (a sustained probe above a saturated one is noise near the knee).
        sat = [p for p in batch if p.saturated]
        if sat:
            hi, hi_saturated = min(p.load for p in sat), True
        below = [p for p in batch if not p.saturated and p.load < hi]
        if below:
            top = max(below, key=lambda p: p.load)
            if top.load > lo:
                lo, best_lo = top.load, top
        if not hi_saturated and not sat:
            lo = hi  # even the upper bound is sustained: nothing left to search
        if line is not None:
            _report(line, runs, lo, hi, batch)
        elif callable(progress):
            progress(runs, lo, hi, batch)
        if hi - lo <= tolerance + 1e-12:
            break
    if line is not None:
        line.close()
    max_acc = max((p.accepted for p in found), default=float("nan"))
    return SaturationResult(
        saturation=lo if best_lo is not None else float(lower),
        upper=hi,
        accepted_at_saturation=best_lo.accepted if best_lo else float("nan"),
        latency_at_saturation=best_lo.latency if best_lo else float("nan"),
        max_accepted=max_acc, probes=found, engine_runs=runs, replicas_per_run=probes,
        wall_seconds=time.monotonic() - start, tolerance=float(tolerance),
        criterion=criterion_of(cfg), config=cfg)


def _rounds_needed(width: float, tolerance: float, probes: int) -> int:
    """Engine runs until the bracket is `tolerance` wide when every round finds the knee
    inside it: the first divides `width` by `probes`, each later one by `probes + 1`."""
    rounds, width = 1, width / probes
    while width > tolerance + 1e-12:
        width /= probes + 1
        rounds += 1
    return rounds


def _report(line, runs, lo, hi, batch) -> None:
    n_sat = sum(p.saturated for p in batch)
    line.message(f"run {runs}: {len(batch)} loads, {n_sat} saturated -> bracket "
                 f"[{lo:.4f}, {hi:.4f}] width {hi - lo:.4f}  ({line.elapsed():.1f} s)")


class _CallableModule(type(sys)):
    """``flitsim.saturate(config)`` works whether ``flitsim.saturate`` resolves to this
    module (once imported, Python binds the submodule on the package) or to the function."""

    def __call__(self, *args, **kwargs):
        return saturate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
