"""Bounds of the inputs that are not configuration keys (those are bounded by the config
schema): command-line and API arguments whose unbounded values crash or exhaust a process."""

# CPU threads one run may ask for: OpenMP starts them all, and tens of thousands exhaust the
# process (a crash, not an error) long before they could help.
MAX_THREADS = 1024

# Points per sweep: each is validated and kept in memory up front, so the product is bounded.
MAX_SWEEP_POINTS = 100_000
