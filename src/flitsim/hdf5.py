"""Results to and from HDF5 (h5py). The schema is documented in docs/hdf5.md.

Everything a ``Result`` holds is stored exactly (integers as int64, arrays with their own
dtype, the config as JSON), so ``read_results(write_results(...))`` gives back equal
objects; derived values (``Result.summary()``) are stored too, for readers without flitsim.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import stat
from datetime import datetime, timezone
from typing import Any

import h5py
import numpy as np

from . import __version__
from .results import Result
from .workload.result import JOB_ARRAYS, NODE_ARRAYS, WorkloadResult

__all__ = ["SCHEMA_VERSION", "write_results", "read_results", "read_config", "read_resolved_config", "read_attrs",
           "create_sweep", "append_sweep", "read_sweep", "is_sweep", "file_kind", "DamagedFile"]

SCHEMA_VERSION = 1
COMPRESS_ABOVE = 4096  # bytes; smaller arrays stay contiguous (gzip would only add overhead)
TOPOLOGY_ARRAYS = ("port_router", "peer_port", "port_class")
_RESERVED_ROOT = ("flitsim_version", "schema_version", "created", "integrity")
# Integrity (docs/hdf5.md): the file's 512-byte user block holds the SHA-256 of the rest, checked
# before HDF5 reads the file (flipped bytes in its metadata can crash the library, and scalars
# and configs are attributes, which HDF5 does not checksum); every non-empty dataset also carries
# HDF5's Fletcher32 checksum, which any HDF5 tool checks.
INTEGRITY = "sha256 after the user block, fletcher32 datasets"
USERBLOCK = 512                  # bytes before the HDF5 superblock, holding the stamp
STAMP = b"flitsim-sha256:"       # then 64 hex digits and a newline

# Python type of each Result scalar, from the dataclass annotations (strings, because
# results.py uses `from __future__ import annotations`).
_SCALAR_TYPES = {f.name: f.type for f in dataclasses.fields(Result)}
_CASTS = {"int": int, "float": float, "bool": bool, "str": str}


def _attr(v: Any) -> Any:
    """A Python/numpy scalar as an HDF5 attribute value with a fixed, portable type."""
    if isinstance(v, (bool, np.bool_)):
        return np.uint8(v)  # 0/1: readable by any HDF5 tool (h5py's enum bool is not)
    if isinstance(v, (int, np.integer)):
        return np.int64(v)
    if isinstance(v, (float, np.floating)):
        return np.float64(v)
    return v


def _write_array(group: h5py.Group, name: str, a: np.ndarray) -> None:
    a = np.ascontiguousarray(a)
    if a.size == 0 or a.ndim == 0:  # nothing a chunk checksum could cover
        group.create_dataset(name, data=a)
    elif a.nbytes > COMPRESS_ABOVE:
        group.create_dataset(name, data=a, compression="gzip", compression_opts=4, shuffle=True,
                             fletcher32=True)
    else:
        group.create_dataset(name, data=a, fletcher32=True)


def _save(buf: io.BytesIO, tmp: str, stamp: bool = True) -> None:
    """Write an HDF5 file built in memory to ``tmp``, with the SHA-256 of everything after the
    user block in the user block (a reader checks it before HDF5 parses a single byte: a
    damaged file can crash the HDF5 library).

    Files are built in memory and written here with plain writes because a write that fails
    inside the HDF5 library (disk full, quota) leaves its objects unclosable, and the process
    then crashes (a segmentation fault after pages of tracebacks); a failed plain write is an
    ordinary OSError, and the results stay in memory for a fallback file."""
    import hashlib
    data = buf.getbuffer()
    if stamp:
        digest = hashlib.sha256(data[USERBLOCK:]).hexdigest().encode()
        data[:USERBLOCK] = (STAMP + digest + b"\n").ljust(USERBLOCK, b"\0")
    # Not mkstemp, whose mode 0600 would ignore the umask.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:1 << 24]):]
        os.fsync(fd)
    finally:
        os.close(fd)
        del data


def _digest(path: str) -> str:
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(USERBLOCK)
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_CHECKED: dict[tuple, bool] = {}  # (path, inode, size, mtime) -> stamped: one hash per version


def _check_stamp(path: str) -> bool:
    """True for a stamped file whose bytes are as flitsim wrote them, False for a file without
    a stamp (written before stamps, or by another tool); DamagedFile otherwise."""
    st = os.stat(path)
    seen = (os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if seen in _CHECKED:
        return _CHECKED[seen]
    with open(path, "rb") as f:
        head = f.read(USERBLOCK)
    if not head.startswith(STAMP):
        return False
    recorded = head[len(STAMP):len(STAMP) + 64].decode("ascii", "replace")
    if _digest(path) != recorded:
        raise DamagedFile(f"{path}: damaged: its SHA-256 no longer matches the one recorded when "
                          f"flitsim wrote it (flipped or lost bytes, or changed by another tool)")
    if len(_CHECKED) > 256:
        _CHECKED.clear()
    _CHECKED[seen] = True
    return True


def _check_shared_topology(results: list[Result]) -> None:
    first = results[0]
    for i, r in enumerate(results[1:], 1):
        same = list(r.class_names) == list(first.class_names) and all(
            np.array_equal(getattr(r, n), getattr(first, n)) for n in TOPOLOGY_ARRAYS)
        if not same:
            raise ValueError(f"results[{i}]: topology differs from results[0]; one file holds "
                             f"replicas of one topology")


def estimate_bytes(config: dict, replicas: int = 1) -> int:
    """An upper bound of the bytes a file of ``replicas`` results of ``config`` takes (arrays
    uncompressed, each replica's attributes and configs, HDF5's own overhead): what the
    output's folder must have free before anything is simulated. Builds the topology (its
    port and node counts size the arrays)."""
    from . import _core
    t = _core.build_topology(config["topology"])
    ports, nodes = len(t["port_router"]), int(t["num_nodes"])
    sim = config.get("sim", {})
    bins, batches = int(sim.get("latency_bins", 1 << 12)), int(sim.get("batches", 16))
    # Per replica: three histograms (latency, network latency, hops: at most `bins` each),
    # channel_flits[P], the node arrays (created, ejected; a workload's per-node table adds
    # up to eight more), four batch series, all int64; then attributes, summary and its own
    # config_json (counted as 64 KiB with the HDF5 object headers and checksums).
    config_bytes = len(json.dumps(config)) * 3
    per_replica = 8 * (3 * bins + ports + 10 * nodes + 4 * batches) + config_bytes + (64 << 10)
    topology = 9 * ports + (16 << 10)
    return int(replicas) * per_replica + topology + config_bytes + (256 << 10)


def write_results(path: str | os.PathLike, results: list[Result], config: dict,
                  extra_attrs: dict | None = None) -> None:
    """Write replicas of one topology and their config to ``path`` (replaced if present).

    ``extra_attrs`` become root attributes (e.g. what a sweep varied); dict values are
    stored as JSON strings. The file appears only once complete (written to a temporary
    name, then renamed), so a crash never leaves a half-written result behind.
    """
    results = list(results)
    if not results:
        raise ValueError("results: at least one Result is needed")
    _check_shared_topology(results)
    extra = dict(extra_attrs or {})
    clash = sorted(set(extra) & set(_RESERVED_ROOT))
    if clash:
        raise ValueError(f"extra_attrs: reserved attribute names {clash}")

    path = os.fspath(path)
    # Same folder (so the rename is atomic); not mkstemp, whose mode 0600 would ignore umask.
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        buf = io.BytesIO()
        with h5py.File(buf, "w", userblock_size=USERBLOCK) as f:
            _write_file(f, results, config, extra)
        _save(buf, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_file(f: h5py.File, results: list[Result], config: dict, extra: dict) -> None:
    f.attrs["flitsim_version"] = __version__
    f.attrs["schema_version"] = np.int64(SCHEMA_VERSION)
    f.attrs["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    f.attrs["integrity"] = INTEGRITY
    for k, v in extra.items():
        f.attrs[k] = json.dumps(v) if isinstance(v, dict) else _attr(v)

    _write_config(f, config)

    t = f.create_group("topology")
    for name in TOPOLOGY_ARRAYS:
        _write_array(t, name, getattr(results[0], name))
    t.attrs["class_names"] = list(results[0].class_names)

    reps = f.create_group("replicas")
    reps.attrs["count"] = np.int64(len(results))
    for i, r in enumerate(results):
        _write_replica(reps.create_group(str(i)), r)


def _write_replica(rg: h5py.Group, r: Result) -> None:
    for name in Result.SCALAR_FIELDS:
        rg.attrs[name] = _attr(getattr(r, name))
    rg.attrs["config_json"] = json.dumps(r.config)
    for name in Result.ARRAY_FIELDS:
        _write_array(rg, name, getattr(r, name))
    if r.workload is not None:
        _write_workload(rg.create_group("workload"), r.workload)
    sg = rg.create_group("summary")
    for k, v in r.summary().items():
        # traffic classes: the list of per-class objects as JSON (the arrays hold their counts)
        sg.attrs[k] = json.dumps(v) if k == "classes" else _attr(v)


# Closed-loop runs: /replicas/<i>/workload (docs/hdf5.md). The per-step trace is not stored.
_WL_ARRAYS = ("job_ranks", "job_background", "job_start") + JOB_ARRAYS + NODE_ARRAYS
_WL_SCALARS = {"foreground_end": int, "flit_bytes": int, "link_gbps": float, "packet_size": int}


def _write_workload(g: h5py.Group, w: WorkloadResult) -> None:
    g.attrs["job_names"] = list(w.job_names)
    g.attrs["job_motifs"] = list(w.job_motifs)
    for name in _WL_SCALARS:
        g.attrs[name] = _attr(getattr(w, name))
    for name in _WL_ARRAYS:
        _write_array(g, name, np.asarray(getattr(w, name)))


def _read_workload(g: h5py.Group) -> WorkloadResult:
    kw: dict[str, Any] = {name: g[name][()] for name in _WL_ARRAYS}
    kw.update({name: cast(g.attrs[name]) for name, cast in _WL_SCALARS.items()})
    kw["job_names"] = [str(x) for x in g.attrs["job_names"]]
    kw["job_motifs"] = [str(x) for x in g.attrs["job_motifs"]]
    return WorkloadResult(**kw)


def _resolved(config: dict) -> dict:
    """The config with every key the run reads and its value (config_keys.resolve), or the
    config itself where the engine cannot read it alone (a sweep's base before its points)."""
    from .config_keys import resolve
    from .validation import ConfigError
    try:
        return resolve(config)
    except ConfigError:
        return config


def _write_config(f: h5py.File, config: dict) -> None:
    # config_json is the exact copy of the normalised config; resolved_json adds every key the
    # run reads with the engine's value (the router model included); the per-section
    # attributes, of the resolved one, are for browsing.
    g = f.create_group("config")
    g.attrs["config_json"] = json.dumps(config)
    resolved = _resolved(config)
    g.attrs["resolved_json"] = json.dumps(resolved)
    for section, keys in resolved.items():
        sg = g.create_group(section)
        for k, v in keys.items():
            tables = isinstance(v, list) and any(isinstance(x, dict) for x in v)  # workload.jobs
            sg.attrs[k] = (json.dumps(v) if isinstance(v, dict) or tables else
                           np.asarray(v) if isinstance(v, list) else _attr(v))


def _scalar(name: str, v: Any) -> Any:
    cast = _CASTS.get(_SCALAR_TYPES.get(name, ""), lambda x: x)
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    return cast(v.item() if isinstance(v, np.generic) else v)


class FileError(ValueError):
    """A file that is not a flitsim results file of the kind asked for (the message names it)."""


class DamagedFile(FileError):
    """A results or sweep file that cannot be read back as written (flipped bytes, truncated,
    not HDF5): the message starts with the file's name."""


def _brief(e: BaseException, limit: int = 200) -> str:
    text = str(e) or type(e).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def _regular_file(path: str) -> None:
    """``path`` must be an existing regular file: opening a FIFO would block until a writer
    comes, and a directory or device says nothing useful."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise FileError(f"{path}: cannot read: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        what = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device or special file")
        raise FileError(f"{path}: is {what}, not a results file")


@contextlib.contextmanager
def _open_checked(path: str | os.PathLike):
    """The file open for reading, its schema version and checksums checked; anything the file
    holds that is not as flitsim wrote it becomes a DamagedFile naming the file."""
    p = os.fspath(path)
    _regular_file(p)
    try:
        stamped = _check_stamp(p)
    except OSError as e:
        raise FileError(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        f = h5py.File(p, "r")
    except OSError as e:
        raise DamagedFile(f"{p}: not a readable HDF5 file ({_brief(e)})") from None
    try:
        with f:
            version = f.attrs.get("schema_version")
            if version is None:
                raise FileError(f"{p}: not a flitsim results file (no schema_version)")
            if version != SCHEMA_VERSION:
                raise FileError(f"{p}: unsupported flitsim schema_version {version} "
                                f"(this flitsim reads {SCHEMA_VERSION})")
            if "integrity" in f.attrs and not stamped:
                raise DamagedFile(f"{p}: damaged: the SHA-256 flitsim recorded in its first "
                                  f"{USERBLOCK} bytes is gone")
            yield f
    except FileError:
        raise
    except (OSError, KeyError, ValueError, TypeError, IndexError, AttributeError, RuntimeError,
            UnicodeError) as e:
        raise DamagedFile(f"{p}: damaged or incomplete flitsim file ({_brief(e)})") from None


def file_kind(path: str | os.PathLike) -> str | None:
    """"results" or "sweep" for a readable flitsim file, None for anything else (another
    tool's HDF5 file, a damaged file, not HDF5 at all)."""
    try:
        with _open_checked(path) as f:
            return "sweep" if SWEEP_GROUP in f else "results"
    except FileError:
        return None


def read_results(path: str | os.PathLike) -> list[Result]:
    """All replicas of a file written by ``write_results``, in their original order.

    The topology arrays are shared by every returned Result and are read-only.
    """
    with _open_checked(path) as f:
        if "replicas" not in f and SWEEP_GROUP in f:
            return [r for r in _read_sweep_open(f)["results"] if r is not None]
        t = f["topology"]
        shared: dict[str, Any] = {}
        for name in TOPOLOGY_ARRAYS:
            a = t[name][()]
            a.flags.writeable = False  # one array object for all replicas: no silent aliasing
            shared[name] = a
        shared["class_names"] = [str(s) for s in t.attrs["class_names"]]
        reps = f["replicas"]
        return [_read_replica(reps[key], shared) for key in sorted(reps, key=int)]


# The request-reply statistics (traffic.reply_size), which files written before them lack: read
# as a run without replies reports them (0, empty histograms).
_REPLY_FIELDS = frozenset(("request_latency_sum", "reply_latency_sum", "round_trip_sum", "requests_measured",
                           "replies_measured", "reply_ejected_flits", "reply_created_flits", "request_latency_hist",
                           "reply_latency_hist", "round_trip_hist",
                           # traffic classes (class_results.py): empty, the run's one class is its totals
                           "class_sums", "class_latency_hist", "class_network_latency_hist"))


def _read_replica(rg: h5py.Group, shared: dict) -> Result:
    kw = {name: _scalar(name, rg.attrs[name]) for name in Result.SCALAR_FIELDS
          if name in rg.attrs or name not in _REPLY_FIELDS}
    kw.update({name: rg[name][()] for name in Result.ARRAY_FIELDS if name in rg or name not in _REPLY_FIELDS})
    for name in _REPLY_FIELDS - kw.keys():
        kw[name] = np.zeros(0, np.int64) if name in Result.ARRAY_FIELDS else 0
    kw["config"] = json.loads(rg.attrs["config_json"])
    if "workload" in rg:
        kw["workload"] = _read_workload(rg["workload"])
    return Result(**kw, **shared)


def read_resolved_config(path: str | os.PathLike) -> dict:
    """The config the file was written with, every key the run read written out with its value
    (files written before it was recorded: the normalised config)."""
    with _open_checked(path) as f:
        attrs = f["config"].attrs
        return json.loads(attrs["resolved_json"] if "resolved_json" in attrs else attrs["config_json"])


def read_config(path: str | os.PathLike) -> dict:
    """The normalised config the file was written with."""
    with _open_checked(path) as f:
        return json.loads(f["config"].attrs["config_json"])


def read_attrs(path: str | os.PathLike) -> dict[str, Any]:
    """Root attributes: flitsim_version, schema_version, created and any extra_attrs."""
    with _open_checked(path) as f:
        return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in f.attrs.items()}


# --- sweeps (docs/hdf5.md, "Sweep files") ----------------------------------------------------

SWEEP_GROUP = "sweep"


def is_sweep(path: str | os.PathLike) -> bool:
    """True for a file written by ``create_sweep`` (a sweep), False for ``write_results``."""
    with _open_checked(path) as f:
        return SWEEP_GROUP in f


def _topology_digest(r: Result) -> str:
    import hashlib
    h = hashlib.sha1()
    for name in TOPOLOGY_ARRAYS:
        a = np.ascontiguousarray(getattr(r, name))
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    h.update(json.dumps(list(r.class_names)).encode())
    return h.hexdigest()


def _index_dataset(values: list[Any]) -> np.ndarray:
    """One swept key's values over all points: float64 when every value is a number (bools
    included, as 0/1), else JSON strings."""
    if all(isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        return np.asarray(values, dtype=np.float64)
    return np.asarray([json.dumps(v) for v in values], dtype=h5py.string_dtype())


def create_sweep(path: str | os.PathLike, config: dict, keys: list[str],
                 points: list[dict[str, Any]], extra_attrs: dict | None = None) -> None:
    """Create an empty sweep file: the base config and the plan (every point's parameters,
    none done yet). ``append_sweep`` then adds finished points. Replaces ``path``."""
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        buf = io.BytesIO()
        with h5py.File(buf, "w", userblock_size=USERBLOCK) as f:
            f.attrs["flitsim_version"] = __version__
            f.attrs["schema_version"] = np.int64(SCHEMA_VERSION)
            f.attrs["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            f.attrs["integrity"] = INTEGRITY
            for k, v in (extra_attrs or {}).items():
                if k in _RESERVED_ROOT:
                    raise ValueError(f"extra_attrs: reserved attribute name {k!r}")
                f.attrs[k] = json.dumps(v) if isinstance(v, dict) else _attr(v)
            _write_config(f, config)
            sw = f.create_group(SWEEP_GROUP)
            sw.attrs["keys_json"] = json.dumps(list(keys))
            sw.attrs["count"] = np.int64(len(points))
            idx = sw.create_group("index")
            idx.create_dataset("point_json", data=np.asarray(
                [json.dumps(p, sort_keys=False) for p in points], dtype=h5py.string_dtype()))
            _write_array(idx, "done", np.zeros(len(points), np.uint8))
            for k in keys:
                values = _index_dataset([p[k] for p in points])
                if values.dtype.kind == "O":
                    idx.create_dataset(k, data=values)
                else:
                    _write_array(idx, k, values)
            sw.create_group("topologies")
            sw.create_group("points")
        _save(buf, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def append_sweep(path: str | os.PathLike, indices: list[int], results: list[Result]) -> None:
    """Add finished points (``results[j]`` is point ``indices[j]``) to a sweep file.

    Crash-safe: the file is read, extended in memory, written under a temporary name and
    renamed back, so an interruption or a failed write leaves either the old or the new file,
    never a damaged one.
    """
    if len(indices) != len(results):
        raise ValueError("append_sweep: one index per result")
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(path, "rb") as src:   # edited in memory, written whole (_save)
            buf = io.BytesIO(src.read())
        with h5py.File(buf, "r+") as f:
            stamped = "integrity" in f.attrs   # files from before stamps have no user block
            sw = f[SWEEP_GROUP]
            topos, pts = sw["topologies"], sw["points"]
            digests = {topos[t].attrs["digest"]: t for t in topos}
            done = sw["index/done"]
            for i, r in zip(indices, results):
                i = int(i)
                if not 0 <= i < done.shape[0]:
                    raise ValueError(f"append_sweep: point {i} is not in the plan")
                d = _topology_digest(r)
                if d not in digests:
                    t = str(len(topos))
                    tg = topos.create_group(t)
                    for name in TOPOLOGY_ARRAYS:
                        _write_array(tg, name, getattr(r, name))
                    tg.attrs["class_names"] = list(r.class_names)
                    tg.attrs["digest"] = d
                    digests[d] = t
                if str(i) in pts:
                    del pts[str(i)]
                rg = pts.create_group(str(i))
                _write_replica(rg, r)
                rg.attrs["topology"] = np.int64(int(digests[d]))
                done[i] = 1
        _save(buf, tmp, stamp=stamped)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read_sweep_open(f: h5py.File) -> dict[str, Any]:
    sw = f[SWEEP_GROUP]
    keys = json.loads(sw.attrs["keys_json"])
    points = [json.loads(s) for s in sw["index/point_json"].asstr()[()]]
    done = sw["index/done"][()].astype(bool)
    shared_by_topo = {}
    for t, tg in sw["topologies"].items():
        sh: dict[str, Any] = {}
        for name in TOPOLOGY_ARRAYS:
            a = tg[name][()]
            a.flags.writeable = False
            sh[name] = a
        sh["class_names"] = [str(s) for s in tg.attrs["class_names"]]
        shared_by_topo[int(t)] = sh
    results: list[Result | None] = [None] * len(points)
    for key, rg in sw["points"].items():
        i = int(key)
        if done[i]:
            results[i] = _read_replica(rg, shared_by_topo[int(rg.attrs["topology"])])
    return dict(keys=keys, points=points, done=done, results=results,
                config=json.loads(f["config"].attrs["config_json"]))


def read_sweep(path: str | os.PathLike) -> dict[str, Any]:
    """A sweep file as ``{"keys", "points", "done", "results", "config"}``: the swept keys,
    every planned point's parameters, a bool array of finished points, one Result per point
    (None where not done yet) and the base config."""
    with _open_checked(path) as f:
        if SWEEP_GROUP not in f:
            raise FileError(f"{os.fspath(path)}: not a sweep file (no /{SWEEP_GROUP} group)")
        return _read_sweep_open(f)
