"""`python -m flitsim` runs the command line, like the installed `flitsim` script."""
import sys

from flitsim.cli import main

sys.exit(main())
