"""Output files are checked before anything is simulated, and nothing is lost on the way out.

- ``check_output(path, option, force)``: the path must be writable, not a directory, and (for
  HDF5 outputs) not an existing file of another kind unless ``force`` - so a bad ``-o`` fails
  in a second, not after an hour of simulation, and ``-o notes.txt`` never clobbers notes.
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
           "HDF5_SIGNATURE"]

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


def check_output(path: str | os.PathLike | None, option: str = "-o", force: bool = False,
                 hdf5: bool = True) -> None:
    """Raise ConfigError naming ``option`` when ``path`` cannot take the output.

    hdf5: the output is an HDF5 file; an existing file that is not HDF5 is refused unless
    ``force`` (a results file being replaced, or a sweep being resumed, is fine).
    """
    if path is None:
        return
    p = os.fspath(path)
    where = f'{option} "{p}"'
    if p == "" or p.endswith(os.sep):
        raise ConfigError(f"{where}: must name a file")
    if os.path.isdir(p):
        raise ConfigError(f"{where}: is a directory; give a file name")
    parent = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(parent):
        raise ConfigError(f"{where}: folder {parent} does not exist")
    if os.path.exists(p):
        if not os.path.isfile(p):
            raise ConfigError(f"{where}: exists and is not a regular file")
        if not os.access(p, os.W_OK):
            raise ConfigError(f"{where}: exists and is not writable")
        if hdf5 and not force and not _is_hdf5(p):
            raise ConfigError(f"{where}: exists and is not an HDF5 file; refusing to overwrite it "
                              f"(remove it, choose another name, or pass --force)")
        if hdf5 and _locked_by_other(p):
            raise ConfigError(f"{where}: another flitsim sweep is writing this file; "
                              f"wait for it or choose another output")
    # Writing goes through <path>.<pid>.tmp in the same folder, then a rename.
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: folder {parent} is not writable")


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
