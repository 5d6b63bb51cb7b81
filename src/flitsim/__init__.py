"""flitsim: cycle-level simulation of interconnection networks on GPUs and CPUs.

    >>> import flitsim
    >>> cfg = flitsim.load_config("configs/dragonfly-1k.toml")
    >>> res = flitsim.run(cfg)
    >>> res.accepted, res.latency_mean
"""
from __future__ import annotations

__version__ = "0.1.0"

import os as _os
import signal as _signal
import sys as _sys


def _started_as_command() -> bool:
    """Whether this process is the `flitsim` command (the script, or python -m flitsim[.cli])."""
    if _os.path.basename(_sys.argv[0] if _sys.argv else "") == "flitsim":
        return True
    orig = list(getattr(_sys, "orig_argv", ()))
    return "-m" in orig[:-1] and orig[orig.index("-m") + 1] in ("flitsim", "flitsim.cli")


def _interrupted_at_startup(signum, frame):  # pragma: no cover - exercised in a subprocess
    # Ctrl-C while numpy, h5py and the engine load: one line and status 130, not a traceback
    # (or numpy's "bad install" advice, which an interrupted import of it prints).
    _os.write(2, b"flitsim: interrupted\n")
    _os._exit(130)


# Until cli.main() takes over Ctrl-C (it restores Python's handler first thing).
if _started_as_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_at_startup)

# The CPU backend has one OpenMP barrier per simulated cycle. Threads that spin at it steal the
# cores of a busy machine (a 72-node run took 5-25 s on 2 threads instead of 0.2 s on one with
# GNU OpenMP's default spin), so waiting threads spin only briefly (GOMP_SPINCOUNT, GNU
# OpenMP's pause iterations before sleeping; tens of microseconds), then sleep, unless the user
# says otherwise. Sleeping at once cost two threads half their speed where a cycle takes tens
# of microseconds (1,056-node dragonfly, load 0.1: 17-19 K cycles/s against 30-33 K with the
# short spin; docs/gpu.md, the CPU executor). Both must be set before the engine's OpenMP
# runtime loads, which is when flitsim._core is first imported.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
_os.environ.setdefault("GOMP_SPINCOUNT", "1000")

from .results import Result  # noqa: E402


def __getattr__(name):
    # Lazy imports keep `import flitsim` cheap and let the front end load without the engine.
    if name in ("run", "run_replicas", "available_backends", "backend_status"):
        from . import engine
        return getattr(engine, name)
    if name in ("load_config", "loads_config", "normalize", "ConfigError"):
        from . import config
        return getattr(config, name)
    if name in ("saturate", "sweep"):
        # The function of the same-named module (which is itself callable, so
        # `flitsim.saturate(cfg)` works also once Python has bound the submodule here).
        import importlib
        return getattr(importlib.import_module(f".{name}", __name__), name)
    if name == "resolve_config":  # every key the run reads, with the engine's value
        from .config_keys import resolve
        return resolve
    if name == "open":  # flitsim.open(path): a results or sweep file as pandas tables
        from .reader import open_results
        return open_results
    if name in SUBMODULES or name in _MOVED:  # flitsim.workload, ... without an explicit import
        import importlib
        return importlib.import_module(f".{_MOVED.get(name, name)}", __name__)
    raise AttributeError(f"module 'flitsim' has no attribute {name!r}")


# Submodules reachable as attributes after a bare `import flitsim` (loaded on first use).
SUBMODULES = ("topology", "topology_analysis", "config", "engine", "results", "workload",
              "hdf5", "reader", "plot", "deadlock", "cluster", "cost", "progress", "studies",
              "cli")
# Former top-level modules, now in workload/ (flitsim.workload.config, .result): the old
# attribute names flitsim.workload_config and flitsim.workload_result still reach them.
_MOVED = {"workload_config": "workload.config", "workload_result": "workload.result"}


__all__ = ["Result", "run", "run_replicas", "load_config", "loads_config", "normalize",
           "resolve_config", "ConfigError", "open", "available_backends", "backend_status", "__version__"]
