"""Output files are checked before anything is simulated, and nothing is lost on the way out.

- ``check_output(path, option, force, kind, expected_bytes)``: the whole output path is checked
  before anything is simulated - the name and the temporary name written first fit the file
  system, the folder exists and is writable, it has room for the expected size, and an
  existing file is a flitsim file of the same kind (a results file for ``run``, the same sweep
  for ``sweep``) unless ``force`` - so a bad ``-o`` fails in a second, not after an hour of
  simulation, and ``-o notes.txt`` or another tool's HDF5 file is never clobbered.
- ``write_or_rescue(write, path)``: a write that fails anyway (disk full, quota, I/O error)
  loses nothing: the results go to a fallback file and the error says where.
- ``sweep_lock(path)``: held while a sweep writes ``path``; a second sweep, or a ``run -o``
  onto the same file, is refused instead of breaking the first one.
- ``remove_stale_temporaries(path)``: the ``<path>.<pid>.tmp`` files of writers that died
  (SIGKILL, power loss) are removed when the file is opened again.
- ``deferred_interrupt()``: Ctrl-C during a short critical section (writing a finished batch)
  takes effect right after it, so a finished batch is always on disk before the exit.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import signal
import threading
from collections.abc import Iterator

from .config import ConfigError

__all__ = ["check_output", "sweep_lock", "remove_stale_temporaries", "deferred_interrupt",
           "HDF5_SIGNATURE", "OutputLost", "write_or_rescue", "temporary_name"]

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _is_hdf5(path: str) -> bool:
    # The signature sits at offset 0 (or 512, 1024, ... when a user block precedes it).
    try:
        with open(path, "rb") as f:
            for offset in (0, 512, 1024, 2048):
                f.seek(offset)
                if f.read(8) == HDF5_SIGNATURE:
                    return True
    except OSError:
        return False
    return False


def _lock_path(path: str) -> str:
    head, tail = os.path.split(os.path.abspath(path))
    return os.path.join(head, f".{tail}.lock")


def _locked_by_other(path: str) -> bool:
    """Whether a sweep in another process (or another open lock) holds ``path``."""
    lock = _lock_path(path)
    if not os.path.exists(lock):
        return False
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as e:
        return e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
    finally:
        os.close(fd)  # releases the probe's shared lock
    return False


def temporary_name(path: str) -> str:
    """The name every writer uses first (then renames): same folder, so the rename is atomic."""
    return f"{path}.{os.getpid()}.tmp"


def _shown(p: str, limit: int = 80) -> str:
    return p if len(p) <= limit else p[:40] + "..." + p[-30:] + f" ({len(p)} characters)"


def _pid_digits() -> int:
    try:
        with open("/proc/sys/kernel/pid_max") as f:
            return len(f.read().strip())
    except OSError:
        return 7  # Linux's largest pid_max, 4194304


def _check_names(p: str, where: str, lock: bool) -> None:
    """The output name, the temporary name written first and (for sweeps) the lock file's name
    must each fit the file system's NAME_MAX, and the full paths PATH_MAX: found here, not as
    ENAMETOOLONG when the finished result is written."""
    parent = os.path.dirname(os.path.abspath(p))
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
        path_max = os.pathconf(parent, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    tail = os.path.basename(p).encode(errors="surrogateescape")
    extra = len(".tmp") + 1 + _pid_digits()   # <name>.<pid>.tmp
    if lock:
        extra = max(extra, len(".lock") + 1)  # .<name>.lock
    if len(tail) + extra > name_max:
        raise ConfigError(f"{where}: the file name is {len(tail)} bytes; with the temporary name "
                          f"flitsim writes first (<name>.<pid>.tmp) it must be at most "
                          f"{name_max - extra} bytes here (NAME_MAX {name_max})")
    full = len(os.path.abspath(p).encode(errors="surrogateescape")) + extra
    if full >= path_max:
        raise ConfigError(f"{where}: the path is too long ({full} bytes with the temporary name; "
                          f"PATH_MAX {path_max})")


def _free_bytes(folder: str) -> int | None:
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def check_output(path: str | os.PathLike | None, option: str = "-o", force: bool = False,
                 hdf5: bool = True, kind: str | None = None, expected_bytes: int = 0) -> None:
    """Raise ConfigError naming ``option`` when ``path`` cannot take the output.

    hdf5: the output is an HDF5 file; an existing file that is not a flitsim file of ``kind``
    ("results": written by run, replaced; "sweep": resumed) is refused unless ``force``.
    expected_bytes: room the output needs in its folder (the temporary copy included).
    """
    if path is None:
        return
    p = os.fspath(path)
    where = f'{option} "{_shown(p)}"'
    if p == "" or p.endswith(os.sep):
        raise ConfigError(f"{where}: must name a file")
    if os.path.isdir(p):
        raise ConfigError(f"{where}: is a directory; give a file name")
    parent = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(parent):
        raise ConfigError(f"{where}: folder {_shown(parent)} does not exist")
    _check_names(p, where, lock=kind == "sweep")
    if os.path.lexists(p):
        if not os.path.isfile(p):
            raise ConfigError(f"{where}: exists and is not a regular file")
        if not os.access(p, os.W_OK):
            raise ConfigError(f"{where}: exists and is not writable")
        if hdf5 and not force:
            _check_existing(p, where, kind)
        if hdf5 and _locked_by_other(p):
            raise ConfigError(f"{where}: another flitsim sweep is writing this file; "
                              f"wait for it or choose another output")
    # Writing goes through <path>.<pid>.tmp in the same folder, then a rename.
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: folder {_shown(parent)} is not writable")
    free = _free_bytes(parent)
    if expected_bytes and free is not None and free < expected_bytes:
        from .memory import human_bytes
        raise ConfigError(f"{where}: folder {_shown(parent)} has {human_bytes(free)} free; the "
                          f"output needs about {human_bytes(expected_bytes)} (its temporary copy "
                          f"included)")


_FORCE_HINT = "(remove it, choose another name, or pass --force to replace it)"


def _check_existing(p: str, where: str, kind: str | None) -> None:
    """An existing file is replaced (or resumed) only when flitsim wrote it, as ``kind``."""
    if not _is_hdf5(p):
        raise ConfigError(f"{where}: exists and is not an HDF5 file; refusing to overwrite it "
                          f"{_FORCE_HINT}")
    if kind is None:
        return
    from .hdf5 import file_kind
    found = file_kind(p)
    if found is None:
        raise ConfigError(f"{where}: exists and is not a readable flitsim results file (another "
                          f"tool's HDF5 file, or a damaged one); refusing to overwrite it "
                          f"{_FORCE_HINT}")
    if found != kind:
        raise ConfigError(f"{where}: exists and is a flitsim {found} file, not a {kind} file; "
                          f"refusing to replace it {_FORCE_HINT}")


class OutputLost(RuntimeError):
    """Writing an output failed; the message says where the results went instead (or that
    they could not be saved anywhere)."""

    def __init__(self, message: str, rescued: str | None):
        super().__init__(message)
        self.rescued = rescued


def _rescue_folders(failed: str) -> list[str]:
    import tempfile
    out = []
    for d in (os.getcwd(), os.path.expanduser("~"), tempfile.gettempdir()):
        d = os.path.abspath(d)
        if d not in out and d != os.path.dirname(os.path.abspath(failed)):
            out.append(d)
    return out


def write_or_rescue(write, path: str | os.PathLike, what: str = "the results") -> None:
    """``write(path)``; when it fails with an I/O error (full disk, quota, ...), ``write`` into a
    fallback file (the working folder, home, then the temporary folder) and raise OutputLost
    naming it, so a finished simulation is never lost to a failed write."""
    p = os.fspath(path)
    try:
        write(p)
        return
    except (OSError, RuntimeError, ValueError) as e:  # ValueError: ConfigError of a re-check
        reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
    import time
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in _rescue_folders(p):
        fallback = os.path.join(folder, f"flitsim-rescued-{stamp}-{os.getpid()}.h5")
        try:
            write(fallback)
        except (OSError, RuntimeError, ValueError):
            continue
        raise OutputLost(f'cannot write "{_shown(p)}" ({reason}); {what} were written to '
                         f"{fallback} instead", fallback)
    raise OutputLost(f'cannot write "{_shown(p)}" ({reason}), nor a fallback file in '
                     f"{', '.join(_rescue_folders(p))}; {what} were not saved", None)


def remove_stale_temporaries(path: str | os.PathLike) -> list[str]:
    """Remove ``<path>.<pid>.tmp`` files whose writer process no longer exists."""
    removed = []
    p = os.fspath(path)
    for tmp in glob.glob(glob.escape(p) + ".*.tmp"):
        pid_text = tmp[len(p) + 1:-len(".tmp")]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid != os.getpid() and _pid_alive(pid):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
            removed.append(tmp)
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


@contextlib.contextmanager
def sweep_lock(path: str | os.PathLike | None) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (a hidden ``.<name>.lock`` beside it) while a sweep
    writes it; ConfigError when another process holds it. The kernel drops the lock when the
    holder dies, so a killed sweep never blocks the next one."""
    if path is None:
        yield
        return
    lock = _lock_path(os.fspath(path))
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise ConfigError(f'-o "{os.fspath(path)}": another flitsim sweep is writing '
                                  f"this file; wait for it or choose another output") from None
            raise
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(lock)
    finally:
        os.close(fd)


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Ctrl-C (SIGINT) inside the block is held back and raised as KeyboardInterrupt when the
    block ends. Outside the main thread (where handlers cannot be set) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda sig, frame: pending.append(sig))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pending:
        raise KeyboardInterrupt
