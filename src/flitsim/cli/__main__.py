"""`python -m flitsim.cli` runs the command line, like `python -m flitsim`."""
import sys

from flitsim.cli import main

sys.exit(main())
