"""`python -m flitsim.studies NAME` runs one study, like `flitsim reproduce NAME`."""
import sys

from flitsim.studies import main

sys.exit(main())
