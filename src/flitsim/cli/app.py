"""The ``flitsim`` parser (one subparser per command module) and main(), which maps errors to exit codes."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence

from .common import EXIT_FAILURE, EXIT_USAGE, _error, _Formatter

EXIT_INTERRUPTED = 130   # 128 + SIGINT, as shells report a Ctrl-C
EXIT_BROKEN_PIPE = 141   # 128 + SIGPIPE, what `cat` and other filters exit with
from .describe import _add_check_deadlock, _add_config, _add_info, _add_show
from .figures import _add_plot, _add_reproduce
from .simulate import _add_run, _add_saturate, _add_sweep
from .trace import _add_replay, _add_trace_info

SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    _add_run, _add_info, _add_config, _add_saturate, _add_sweep, _add_plot, _add_show,
    _add_check_deadlock, _add_reproduce, _add_trace_info, _add_replay)

MAIN_EXAMPLES = """\
examples:
  flitsim info configs/dragonfly-1k.toml            topology size, diameter, cost
  flitsim config configs/dragonfly-1k.toml          the configuration with every default
  flitsim run configs/dragonfly-1k.toml --set traffic.load=0.3
  flitsim run configs/dragonfly-1k.toml --json -o df.h5   JSON summary plus HDF5 results
  flitsim show df.h5                                what a results or sweep file holds
  flitsim reproduce --list                          the papers' experiments, one command each
  flitsim run --help                                options of one subcommand

exit status: 0 success, 2 bad configuration or usage, 1 failure during the run
(e.g. deadlock detected by the watchdog, an output that could not be written), 130
interrupted (Ctrl-C), 141 stdout closed by its reader (e.g. | head)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flitsim", formatter_class=_Formatter, epilog=MAIN_EXAMPLES,
        description="flitsim: cycle-level simulation of HPC and datacenter interconnection\n"
                    "networks on GPUs and CPUs (configuration keys: docs/configuration.md).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # while parsing or importing, before a command took over
        _error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _broken_pipe()


def _broken_pipe() -> int:
    """The reader of stdout went away (`flitsim info X | head`): stop quietly, as `cat` does.
    stdout is pointed at /dev/null so that the interpreter's last flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    if threading.current_thread() is threading.main_thread():  # Ctrl-C: KeyboardInterrupt again
        signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2): return it, do not exit
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        return args.func(args)
    except BrokenPipeError:
        return _broken_pipe()
    except ValueError as e:  # ConfigError, and the C++ builders' checks of topology keys
        _error(e)
        return EXIT_USAGE
    except ImportError as e:  # the compiled engine or a module it needs is missing
        _error(f"flitsim is not fully installed ({e}); build it with `pip install .`")
        return EXIT_FAILURE
    except (RuntimeError, OSError) as e:  # deadlock, broken invariant, unwritable output
        _error(e)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except RecursionError:  # e.g. a structure nested thousands deep in an input file
        _error("input nested too deeply to read")
        return EXIT_USAGE
    except MemoryError:
        _error("out of memory (reduce the network, the replicas or the workload)")
        return EXIT_FAILURE
