"""The ``flitsim`` command line (entry point ``flitsim.cli:main``).

One function per subcommand (``cmd_<name>``) plus one that adds its parser
(``_add_<name>``), in the module of its family: ``simulate.py`` (run, saturate, sweep),
``describe.py`` (info, config, show, check-deadlock), ``figures.py`` (plot, reproduce);
adding a subcommand means writing those two and listing the second in ``app.SUBCOMMANDS``.
``common.py`` holds the exit codes, argument types and output formatting they share. Exit
codes: 0 success, 2 bad input (config, options, unusable request), 1 failure at run time
(deadlock, broken invariant, I/O error).
"""
from .app import SUBCOMMANDS, build_parser, main
from .common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

__all__ = ["main", "build_parser", "SUBCOMMANDS", "EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE"]
