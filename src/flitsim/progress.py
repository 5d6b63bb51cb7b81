"""One progress reporter for every long-running flitsim command (run, sweep, saturate,
check-deadlock, reproduce; `run` of a [workload] too), on stderr.

On a terminal the line is redrawn in place (``\\r``) a few times a second; anywhere else (a
log file, a pipe, a Slurm ``.err`` file) a plain line ending in a newline is written every
``FLITSIM_PROGRESS_INTERVAL`` seconds (default 5), so logs stay readable. Every line carries
the elapsed time and, when the fraction of work done is known, an ETA computed from it.

Our own thin layer rather than rich/tqdm: the engine reports once per chunk of cycles, the
line is one ``write``, and flitsim gains no dependency.

``enabled(progress)`` resolves the ``progress=`` argument of the Python API: ``None`` (the
default) means on in an interactive session (REPL, IPython, Jupyter) and off in scripts.
"""
from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, TextIO

__all__ = ["Reporter", "RunLength", "enabled", "interactive", "hms", "LOG_INTERVAL", "TTY_INTERVAL"]

TTY_INTERVAL = 0.25   # seconds between redraws on a terminal


def _log_interval() -> float:
    try:
        v = float(os.environ.get("FLITSIM_PROGRESS_INTERVAL", "5"))
    except ValueError:
        v = 5.0
    return v if math.isfinite(v) and v >= 0 else 5.0


LOG_INTERVAL = _log_interval()


def interactive() -> bool:
    """True in an interactive Python session: the plain REPL (``sys.ps1``), ``python -i``,
    IPython or Jupyter."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipy = sys.modules.get("IPython")
    return bool(ipy is not None and getattr(ipy, "get_ipython", lambda: None)() is not None)


def enabled(progress: Any) -> Any:
    """The effective value of a ``progress=`` argument: None -> on when interactive."""
    return interactive() if progress is None else progress


def hms(seconds: float) -> str:
    """1:02:03 or 2:03; '-' when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    s = int(round(max(seconds, 0.0)))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def eta(elapsed: float, fraction: float | None) -> float:
    """Seconds left when `fraction` of the work took `elapsed` seconds (NaN when unknown)."""
    if fraction is None or not (0.0 < fraction <= 1.0):
        return float("nan")
    return elapsed * (1.0 - fraction) / fraction


class Reporter:
    """A progress line for one task, e.g. ``Reporter("sweep")``.

    ``update(text, fraction)`` shows ``sweep: <text>  <pct>  elapsed m:ss  ETA m:ss``,
    throttled (``force=True`` bypasses the throttle); ``message(text)`` writes a line that
    stays; ``close()`` ends the line. `fraction` (0..1) is the share of the whole task done.
    """

    def __init__(self, what: str, stream: TextIO | None = None, interval: float | None = None,
                 tty: bool | None = None):
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
        self.tty = tty
        self.interval = interval if interval is not None else (TTY_INTERVAL if tty else LOG_INTERVAL)
        self.start = time.monotonic()
        self.last = self.start      # the first line comes after one interval: short tasks stay quiet
        self.width = 0              # of the line drawn in place (terminal only)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def format(self, text: str, fraction: float | None = None) -> str:
        el = self.elapsed()
        parts = [f"{self.what}: {text}"]
        if fraction is not None and math.isfinite(fraction):
            parts.append(f"{100.0 * min(max(fraction, 0.0), 1.0):5.1f}%")
        parts.append(f"elapsed {hms(el)}")
        parts.append(f"ETA {hms(eta(el, fraction))}")
        return "  ".join(parts)

    def update(self, text: str, fraction: float | None = None, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        line = self.format(text, fraction)
        if self.tty:
            pad = max(self.width - len(line), 0)
            self.stream.write("\r" + line + " " * pad)
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def message(self, text: str) -> None:
        """A line that stays (a finished round, a warning), above the redrawn line."""
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0
        self.stream.write(f"{self.what}: {text}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0


class RunLength:
    """The expected length in cycles of open-loop engine runs, drain included, for ETAs.

    A run lasts its warm-up + window (known) plus a drain (not known in advance: until the
    measured packets arrive, at most sim.drain_limit cycles; short below saturation, the whole
    limit for a saturated replica). The drain is learnt from the runs that finished (their
    cycles over their warm-up + window), DRAIN_PRIOR of the window before any has; a run that
    drains longer than expected is assumed to need as long again as it has drained so far,
    never past its drain limit. So an ETA neither stops at "0:00" while a run drains nor jumps
    from minutes to seconds at the end of a window."""

    DRAIN_PRIOR = 0.1

    def __init__(self) -> None:
        self.window_cycles = 0.0   # sum over finished runs of warm-up + window
        self.run_cycles = 0.0      # sum of the cycles they ran

    def observe(self, window_end: int, cycles: int) -> None:
        """A run with this warm-up + window finished after `cycles` cycles."""
        if window_end > 0:
            self.window_cycles += window_end
            self.run_cycles += max(cycles, window_end)

    def ratio(self) -> float:
        """Expected cycles per cycle of warm-up + window."""
        if self.window_cycles > 0:
            return self.run_cycles / self.window_cycles
        return 1.0 + self.DRAIN_PRIOR

    def expected(self, window_end: int, drain_limit: int | None = None, cycle: int = 0) -> float:
        """Expected total cycles of a run with this warm-up + window that is at `cycle`."""
        end = window_end * self.ratio()
        if cycle >= end:   # draining longer than expected: as long again as so far
            end = cycle + max(cycle - window_end, 1)
        if drain_limit is not None:
            end = min(end, window_end + drain_limit)
        return max(end, float(cycle), 1.0)
