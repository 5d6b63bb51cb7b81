"""Saturation search: the highest offered load a network sustains, by batched bisection.

Criterion (the engine's, ``engine.SATURATION_RULE``): a load is **sustained** when its
replica is not ``saturated``, i.e. every measured packet was delivered within
``sim.drain_limit`` cycles after the window and the rule ``sim.saturation`` picks holds: by
default accepted >= (1 - sim.saturation_tolerance) x offered; ``"latency"``, BookSim2's
criterion, a mean packet latency at most ``sim.latency_threshold``; ``"stable"``, latency and
accepted rate settled over the window. The saturation load is the highest sustained load
found; the search stops once the lowest saturated load above it is at most ``tolerance`` away.

Each round probes ``probes`` loads as replicas of ONE engine run (``engine.run_replicas``):
round 1 evenly over (lower, upper]; later rounds around the knee the plateau predicts (under
the default rule a load is saturated once what the network accepts at most, the plateau P,
falls below (1 - sim.saturation_tolerance) x load, so the knee is near P / (1 - tolerance)),
widening on the side where the knee turns out to lie when the prediction is off, and
bisecting the bracket once the knee is inside it. Only probes decide the answer; the
prediction only decides where to probe. On the CPU a replica inside one run costs as much as
a run of its own, so the default there is one probe per run (the fewest probes in all);
on a GPU eight, simulated side by side (``default_probes``). docs/experiments.md has the
measured costs (benchmarks/saturate_cost.py).
"""
from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["saturate", "SaturationResult", "Probe", "CRITERION", "default_probes"]

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
    cycles: int = 0         # cycles its replica ran (window, then drain): the search's cost

    def as_dict(self) -> dict[str, Any]:
        return dict(load=self.load, offered=self.offered, accepted=self.accepted,
                    latency=self.latency, saturated=self.saturated, drained=self.drained,
                    round=self.round, cycles=self.cycles)


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
    def replica_cycles(self) -> int:
        """Cycles simulated over all replicas of all engine runs: the search's cost, free of
        the machine's speed (benchmarks/saturate_cost.py)."""
        return sum(p.cycles for p in self.probes)

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
                    replica_cycles=self.replica_cycles, wall_seconds=self.wall_seconds, criterion=self.criterion,
                    probes=[p.as_dict() for p in self.probes])


def _round_load(x: float) -> float:
    return round(x, 9)  # readable probe loads; far below any meaningful tolerance


def saturate(config: dict, tolerance: float = 0.005, probes: int | None = None,
             backend: str | None = None, progress: bool | Callable | None = None,
             threads: int | None = None, lower: float = 0.0,
             upper: float = 1.0, guided: bool = True, traffic_class: int | None = None) -> SaturationResult:
    """Find the saturation load of ``config`` (its ``traffic.load`` is ignored).

    tolerance: stop when the bracket (highest sustained, lowest saturated) is this narrow.
    probes: loads per engine run (replicas of one run); None (default): default_probes(backend).
    progress: True for a progress line on stderr (ETA from the runs still expected, as
    _Search._rounds_left models them, and the cycles of the running one), None (default) for
    one in an interactive session only, or a callable(round, lo, hi, probes) called after
    each round.
    lower, upper: the initial bracket; `upper` itself is probed in the first round.
    guided: under sim.saturation = "accepted", aim the rounds after the first at the load the
    plateau predicts (module docstring); False: plain bisection of the bracket.
    traffic_class: with [[traffic.class]] tables, search the load of class K alone, the other
    classes at their own loads: a load of class K is sustained when the class accepts at least
    (1 - sim.saturation_tolerance) x what it offers (the throughput rule applied to the class;
    the other classes may saturate). Plain bisection (the plateau's knee is the run's).
    Raises ValueError for a bad argument; engine errors (deadlock) propagate.
    """
    from .config import normalize
    from .limits import MAX_REPLICAS
    if probes is None:
        probes = default_probes(backend)
    if not (isinstance(probes, int) and not isinstance(probes, bool) and 1 <= probes <= MAX_REPLICAS):
        raise ValueError(f"probes: must be an integer in [1, {MAX_REPLICAS}], got {probes!r}")
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance: must be a number > 0, got {tolerance!r}")
    if not (0.0 <= lower < upper <= 1.0):
        raise ValueError(f"lower, upper: need 0 <= lower < upper <= 1, got {lower}, {upper}")
    cfg = normalize(config)
    cfg.pop("sweep", None)
    if traffic_class is not None:
        cfg = _class_search_config(cfg, traffic_class)
        guided = False
    start = time.monotonic()
    search = _Search(cfg, tolerance, probes, backend, threads, progress, lower, upper, guided)
    search.traffic_class = traffic_class
    search.run()
    return search.result(start)


def _class_search_config(cfg: dict, k: int) -> dict:
    """cfg with class k's load taken from traffic.load (the probes' loads); every other class
    must state its own, or the probes would move it too."""
    from .validation import ConfigError
    tables = cfg["traffic"].get("class") or []
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(tables):
        raise ConfigError(f"--class: {k!r} is not a traffic class of this config "
                          f"(it has {len(tables)} [[traffic.class]] table(s))")
    for j, t in enumerate(tables):
        if j != k and "load" not in t:
            raise ConfigError(f"traffic.class.{j}.load: searching class {k} moves traffic.load, which class {j} "
                              f"would follow: give class {j} a load of its own")
    tables[k].pop("load", None)
    return cfg


def default_probes(backend: str | None) -> int:
    """Loads per engine run when none is given: 8 on a GPU, which simulates replicas side by
    side; 1 on the CPU, where a replica costs as much inside one run as in a run of its own,
    so the search that needs the fewest probes, one after the other, is also the fastest."""
    from .runner import available_backends
    chosen = backend if backend not in (None, "auto") else available_backends()[0]
    return 8 if chosen == "cuda" else 1


class _Search:
    """Batched bisection over a bracket [lo, hi] of offered load: each round probes `probes`
    loads inside `region` as replicas of one engine run, then moves lo to the highest
    sustained probe and hi to the lowest saturated one. The region is the whole bracket, or,
    once a saturated probe predicts the knee, `probes` loads `tolerance` apart around it."""

    def __init__(self, cfg, tolerance, probes, backend, threads, progress, lower, upper, guided):
        from .progress import Reporter, RunLength, enabled
        self.cfg, self.tolerance, self.probes = cfg, tolerance, probes
        self.backend, self.threads = backend, threads
        self.progress = enabled(progress)
        self.lower = lower
        self.lo, self.hi = float(lower), float(upper)
        self.hi_saturated = False      # is `hi` known to be saturated (probed), or just a bound?
        self.best_lo: Probe | None = None
        self.region = (self.lo, self.hi)
        self.found: list[Probe] = []
        self.runs = 0
        sim = cfg["sim"]
        # Only the throughput rule ties the knee to the plateau (module docstring).
        self.knee_factor = (1.0 / (1.0 - float(sim["saturation_tolerance"]))
                            if guided and sim.get("saturation", "accepted") == "accepted" else None)
        self.line = Reporter("saturate") if self.progress is True else None
        self.length = RunLength()    # rounds with saturated probes drain long: learnt for the ETA
        self.drain_limit = int(sim["drain_limit"])
        self.window = int(sim["warmup"]) + int(sim["measure"])

    def _loads(self) -> list[float]:
        a, b = self.region
        # The unprobed upper bound is probed itself; otherwise only new loads strictly inside
        # the bracket are (its ends are known already).
        with_b = b == self.hi and not self.hi_saturated
        k = self.probes if with_b else self.probes + 1
        loads = [a + (b - a) * i / k for i in range(1, self.probes + 1)]
        # Once rounding leaves no new load inside the bracket, it cannot shrink further and the
        # search ends, whatever the tolerance (a tolerance below the rounding step used to loop
        # forever).
        probed = {p.load for p in self.found}
        return sorted({x for x in map(_round_load, loads)
                       if self.lo < x and (x < self.hi or (with_b and x <= self.hi))
                       and x not in probed})

    def _rounds_left(self) -> int:
        """Engine runs still to come, this one included (for the ETA). Bisection: as many as
        the bracket needs. Guided: after a first run over the bracket (which predicts the
        knee), the probes aimed at the knee close what is left as they would a bracket of
        8 tolerances, whatever it was (a model of the search, tests/test_progress.py: four runs
        of one probe, two of eight, as benchmarks/saturate_cost.py measured)."""
        width = self.hi - self.lo
        if self.knee_factor is None:
            return _rounds_needed(width, self.tolerance, self.probes)
        rounds = 0
        if not self.found:
            rounds, width = 1, width / self.probes
        width = min(width, 8 * self.tolerance)
        while width > self.tolerance + 1e-12:
            width /= self.probes + 1
            rounds += 1
        return max(rounds, 1)

    def _during(self, cycle: int, window_end: int, _done: int, _fraction: float = -1.0) -> None:
        rounds = self.runs + self._rounds_left()
        share = cycle / self.length.expected(window_end, self.drain_limit, cycle) if window_end > 0 else 0.0
        self.line.update(f"round {self.runs + 1}/~{rounds}, bracket [{self.lo:.4f}, {self.hi:.4f}], "
                         f"cycle {cycle:,}", (self.runs + share) / max(rounds, self.runs + 1))

    def run(self) -> None:
        from . import engine
        while True:
            loads = self._loads()
            if not loads:
                break
            results = engine.run_replicas(self.cfg, loads, backend=self.backend, threads=self.threads,
                                          progress=self._during if self.line else False)
            batch = [self._probe(r) for r in results]
            self.found.extend(batch)
            self.runs += 1
            self.length.observe(self.window, batch[0].cycles)
            self._update(batch)
            if self.line is not None:
                _report(self.line, self.runs, self.lo, self.hi, batch)
            elif callable(self.progress):
                self.progress(self.runs, self.lo, self.hi, batch)
            if self.hi - self.lo <= self.tolerance + 1e-12:
                break
        if self.line is not None:
            self.line.close()

    traffic_class: int | None = None  # saturate(traffic_class=K): the class whose load is searched

    def _probe(self, r) -> Probe:
        cycles = int(getattr(r, "cycles", self.window))  # stand-ins in tests lack it
        if self.traffic_class is None:
            return Probe(load=r.load, offered=r.offered, accepted=r.accepted, latency=r.latency_mean,
                         saturated=bool(r.saturated), drained=bool(r.drained), round=self.runs, cycles=cycles)
        c = r.classes[self.traffic_class]  # the throughput rule on the class alone
        tol = float(self.cfg["sim"]["saturation_tolerance"])
        return Probe(load=r.load, offered=c.offered, accepted=c.accepted, latency=c.latency_mean,
                     saturated=bool(c.accepted < (1.0 - tol) * c.offered), drained=bool(r.drained),
                     round=self.runs, cycles=cycles)

    def _update(self, batch: list[Probe]) -> None:
        # The new hi is the lowest saturated probe; the new lo the highest sustained probe
        # below it (a sustained probe above a saturated one is noise near the knee).
        sat = [p for p in batch if p.saturated]
        if sat:
            self.hi, self.hi_saturated = min(p.load for p in sat), True
        below = [p for p in batch if not p.saturated and p.load < self.hi]
        if below:
            top = max(below, key=lambda p: p.load)
            if top.load > self.lo:
                self.lo, self.best_lo = top.load, top
        a, b = self.region
        if not self.hi_saturated and not sat and b == self.hi:
            # Even the upper bound is sustained: nothing left to search, and that probe is the
            # answer (it is not in `below`, which takes loads under hi only).
            self.lo, self.best_lo = self.hi, max(batch, key=lambda p: p.load)
        self.region = self._next_region(bool(sat), bool(below), b - a)

    def _next_region(self, any_saturated: bool, any_sustained: bool, width: float) -> tuple[float, float]:
        knee = self._predicted_knee()
        if knee is not None and self.lo < knee < self.hi:
            half = (self.probes + 1) * self.tolerance / 2  # probes `tolerance` apart
            return max(self.lo, knee - half), min(self.hi, knee + half)
        if any_saturated and any_sustained:
            return self.lo, self.hi
        # The knee lies beyond this round's region (a prediction that was off): twice its width
        # on that side, so a wrong prediction costs a few probes, never a search from scratch.
        step = max(2 * width, (self.probes + 1) * self.tolerance)
        if any_saturated:
            return max(self.lo, self.hi - step), self.hi
        return self.lo, min(self.hi, self.lo + step)

    def _predicted_knee(self) -> float | None:
        """Under the throughput rule a load L is saturated once the plateau P (what the network
        accepts when offered more than it carries) falls below (1 - tolerance) x L: the knee
        is near P / (1 - sim.saturation_tolerance), P being the most any saturated probe accepted."""
        if self.knee_factor is None:
            return None
        plateau = max((p.accepted for p in self.found if p.saturated), default=None)
        return None if plateau is None else _round_load(plateau * self.knee_factor)

    def result(self, start: float) -> SaturationResult:
        return SaturationResult(
            saturation=self.lo if self.best_lo is not None else float(self.lower),
            upper=self.hi,
            accepted_at_saturation=self.best_lo.accepted if self.best_lo else float("nan"),
            latency_at_saturation=self.best_lo.latency if self.best_lo else float("nan"),
            max_accepted=max((p.accepted for p in self.found), default=float("nan")),
            probes=self.found, engine_runs=self.runs, replicas_per_run=self.probes,
            wall_seconds=time.monotonic() - start, tolerance=float(self.tolerance),
            criterion=criterion_of(self.cfg) if self.traffic_class is None else
            (f"a load of traffic class {self.traffic_class} is sustained when the class accepts at least "
             f"(1 - sim.saturation_tolerance) x what it offers, the other classes at their own loads"),
            config=self.cfg)


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
