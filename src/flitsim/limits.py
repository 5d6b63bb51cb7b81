"""Bounds of the inputs that are not configuration keys (those are bounded by the config
schema): command-line and API arguments whose unbounded values crash or exhaust a process."""

# CPU threads one run may ask for: OpenMP starts them all, and tens of thousands exhaust the
# process (a crash, not an error) long before they could help.
MAX_THREADS = 1024

# Points per sweep: each is validated and kept in memory up front, so the product is bounded.
MAX_SWEEP_POINTS = 100_000

# Input files read whole into memory: a config, a workload program (graph files are bounded
# by the C++ reader, at 256 MiB).
MAX_CONFIG_BYTES = 16 << 20
MAX_PROGRAM_BYTES = 256 << 20


def read_input_file(path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``limit`` bytes: a
    directory, a device such as /dev/zero or a FIFO would read forever or say nothing useful.
    Raises OSError (with a message naming ``what``) for anything else."""
    import os
    import stat
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"{what} is not a regular file")
    if st.st_size > limit:
        raise OSError(f"{what} has {st.st_size} bytes; at most {limit} are read")
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{what} grew past {limit} bytes while it was read")
    return data

# Replicas of one engine run (saturate --probes, sweep max_replicas): each is a full copy of
# the network state; the memory check bounds the total, this bounds the lists built first.
MAX_REPLICAS = 4096


def bounded_list(values, what: str, limit: int = MAX_REPLICAS) -> list:
    """``values`` as a list of at most ``limit`` items, refused (ConfigError naming ``what``)
    before a longer one is materialised: ``range(2**31)`` must not allocate 2^31 floats first."""
    from .validation import ConfigError
    n = None
    try:
        n = len(values)
    except TypeError:
        pass
    if n is not None and n > limit:
        raise ConfigError(f"{what}: at most {limit} replicas per engine run, got {n}")
    import itertools
    out = list(itertools.islice(iter(values), limit + 1))
    if len(out) > limit:
        raise ConfigError(f"{what}: at most {limit} replicas per engine run, got more")
    return out
