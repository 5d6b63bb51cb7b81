"""The [workload] table: keys, defaults and validation (docs/configuration.md, "[workload]").

``normalize_workload`` is called by ``flitsim.config.normalize``; errors are ConfigErrors
whose message starts with the full key, e.g. ``workload.jobs[1].motif: unknown motif
"alltoal" (known: ...)``. Rules that need the topology (more ranks than nodes, a grid that
does not fit) are checked when the workload is built (flitsim.workload).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..validation import ConfigError
from ..validation import show as _show

__all__ = ["WORKLOAD_DEFAULTS", "WORKLOAD_KEYS", "JOB_KEYS", "MOTIF_KEYS", "MOTIFS",
           "ALLREDUCE_ALGORITHMS", "normalize_workload"]

# Top-level keys of [workload] and their defaults (`jobs` has none: it is required).
WORKLOAD_DEFAULTS: dict[str, Any] = {
    "packet_size": 16,        # flits per packet
    "flit_bytes": 16,         # bytes per flit
    "link_gbps": 100.0,       # link (and injection) bandwidth in Gbit/s
    "placement": "linear",    # default placement of jobs
    "max_cycles": 100_000_000,
    "ni_queues": 1,           # messages a network interface interleaves, packet by packet
}
# Keys of MPI trace replay (docs/workloads.md, "MPI traces"): how traced compute time becomes
# cycles. Optional and only in the normalised table when given, so configs without traces
# normalise (and hash, and store) exactly as before.
TRACE_WORKLOAD_KEYS = ("compute", "compute_cycle_ns")
COMPUTE_MODES = ("keep", "scale", "skip")
WORKLOAD_KEYS = ("jobs",) + tuple(WORKLOAD_DEFAULTS) + TRACE_WORKLOAD_KEYS

# Keys every job accepts.
JOB_KEYS = ("motif", "name", "ranks", "fraction", "nodes", "bytes", "placement", "iterations",
            "compute", "start", "background")
ALLREDUCE_ALGORITHMS = ("dissemination", "recursive-doubling", "ring")
# Motif -> its own keys.
MOTIF_KEYS: dict[str, tuple[str, ...]] = {
    "alltoall": ("order",),
    "nn3d": ("dims", "allreduce", "allreduce_bytes"),
    "stencil27": ("dims", "allreduce", "allreduce_bytes"),
    "bcast": ("root",),
    "reduce": ("root",),
    "allreduce": ("algorithm",),
    "perturbation": ("rounds",),
    "pairs": (),
    "spread": ("partners",),
    "umesh": ("partners",),
    "milc": ("dims",),
    "pf3d": ("dims",),
    "qbox": ("dims",),
    "program": ("file",),
    "trace": ("trace",),
}
MOTIFS = tuple(MOTIF_KEYS)
# Motifs whose message size has a default (the papers' sizes); the others require `bytes`.
BYTES_REQUIRED = ("alltoall", "nn3d", "stencil27", "perturbation")


def _err(key: str, rule: str, v: Any):
    return ConfigError(f"{key}: {rule}, got {_show(v)}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int(key: str, v: Any, lo: int, hi: int | None = None, hi_text: str = "") -> int:
    """An integer >= lo (and <= hi, written hi_text in the message, when given)."""
    if not _is_int(v) or v < lo or v > 2**63 - 1:
        raise _err(key, f"must be an integer >= {lo}" if hi is None else
                   f"must be an integer in [{lo}, {hi_text or hi}]", v)
    if hi is not None and v > hi:
        raise _err(key, f"must be an integer in [{lo}, {hi_text or hi}]", v)
    return v


# Upper bounds that keep sizes and cycle counts inside what the engine stores (int64 cycles,
# as sim.* in host/config/keys_sim.cpp; bytes and flits whose products stay in int64).
_CYCLES, _CYCLES_TEXT = 1 << 44, "2^44"
_BYTES, _BYTES_TEXT = 1 << 40, "2^40"
_COUNT, _COUNT_TEXT = 1 << 20, "2^20"


def _choice(key: str, v: Any, names: tuple[str, ...], what: str) -> str:
    if not isinstance(v, str) or v not in names:
        raise ConfigError(f"{key}: unknown {what} {_show(v)} (known: {', '.join(names)})")
    return v


def _int_list(key: str, v: Any, lo: int, length: int | None = None) -> list[int]:
    ok = isinstance(v, (list, tuple)) and v and all(_is_int(x) and x >= lo for x in v)
    if not ok or (length is not None and len(v) != length):
        n = f"{length} " if length else "a non-empty list of "
        raise _err(key, f"must be {n}integers >= {lo}", v)
    return list(v)


def _normalize_job(j: int, job: Any, default_placement: str) -> dict[str, Any]:
    where = f"workload.jobs[{j}]"
    if not isinstance(job, Mapping):
        raise ConfigError(f"{where}: must be a table (e.g. {{motif = \"alltoall\", ranks = 64, "
                          f"bytes = 7680}}), got {_show(job)}")
    if "motif" not in job:
        raise ConfigError(f"{where}.motif: is required (known: {', '.join(MOTIFS)})")
    motif = _choice(f"{where}.motif", job["motif"], MOTIFS, "motif")
    allowed = JOB_KEYS + MOTIF_KEYS[motif]
    for key in job:
        if key not in allowed:
            raise ConfigError(f'{where}: unknown key "{key}" for motif "{motif}" '
                              f'(known: {", ".join(allowed)})')
    out: dict[str, Any] = {"motif": motif}
    if "name" in job:
        if not isinstance(job["name"], str) or not job["name"]:
            raise _err(f"{where}.name", "must be a non-empty string", job["name"])
        out["name"] = job["name"]
    if "ranks" in job:
        out["ranks"] = _int(f"{where}.ranks", job["ranks"], 1)
    if "fraction" in job:
        f = job["fraction"]
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not math.isfinite(f) \
                or not 0 < f <= 1:
            raise _err(f"{where}.fraction", "must be a number in (0, 1] (share of the nodes)", f)
        if "ranks" in job:
            raise ConfigError(f"{where}.fraction: give ranks or fraction, not both")
        out["fraction"] = float(f)
    if "nodes" in job:
        nodes = _int_list(f"{where}.nodes", job["nodes"], 0)
        if len(set(nodes)) != len(nodes):
            raise _err(f"{where}.nodes", "must be distinct nodes", job["nodes"])
        if "ranks" in job and job["ranks"] != len(nodes):
            raise ConfigError(f"{where}.nodes: lists {len(nodes)} nodes for {job['ranks']} ranks")
        if "fraction" in job:
            raise ConfigError(f"{where}.nodes: give nodes or fraction, not both")
        out["nodes"] = nodes
    if motif not in ("program", "trace") and not ({"ranks", "fraction", "nodes"} & set(job)):
        raise ConfigError(f"{where}.ranks: is required (or fraction, or nodes)")
    if "bytes" in job:
        if motif in ("program", "trace"):
            raise ConfigError(f'{where}.bytes: a "{motif}" job takes its sizes from its file')
        out["bytes"] = _int(f"{where}.bytes", job["bytes"], 1, _BYTES, _BYTES_TEXT)
    elif motif in BYTES_REQUIRED:
        raise ConfigError(f"{where}.bytes: is required for motif \"{motif}\" (message size in bytes)")
    out["placement"] = _choice(f"{where}.placement", job.get("placement", default_placement),
                               ("linear", "random"), "placement")
    out["iterations"] = _int(f"{where}.iterations", job.get("iterations", 1), 1, _COUNT, _COUNT_TEXT)
    out["compute"] = _int(f"{where}.compute", job.get("compute", 0), 0, _CYCLES, _CYCLES_TEXT)
    out["start"] = _int(f"{where}.start", job.get("start", 0), 0, _CYCLES, _CYCLES_TEXT)
    bg = job.get("background", motif == "perturbation")
    if not isinstance(bg, bool):
        raise _err(f"{where}.background", "must be true or false", bg)
    out["background"] = bg
    # Motif keys.
    if "dims" in job:
        d = {"nn3d": 3, "stencil27": 3, "milc": 4, "pf3d": 3, "qbox": 2}[motif]
        out["dims"] = _int_list(f"{where}.dims", job["dims"], 1, d)
        if "ranks" in out and math.prod(out["dims"]) != out["ranks"]:
            raise ConfigError(f"{where}.dims: the product of {out['dims']} is not the "
                              f"{out['ranks']} ranks")
    if "allreduce" in job:
        out["allreduce"] = _choice(f"{where}.allreduce", job["allreduce"],
                                   ("none",) + ALLREDUCE_ALGORITHMS, "allreduce algorithm")
    if "allreduce_bytes" in job:
        out["allreduce_bytes"] = _int(f"{where}.allreduce_bytes", job["allreduce_bytes"], 1, _BYTES, _BYTES_TEXT)
    if "root" in job:
        out["root"] = _int(f"{where}.root", job["root"], 0)
        if "ranks" in out and out["root"] >= out["ranks"]:
            raise ConfigError(f"{where}.root: must be a rank below {out['ranks']}, got {out['root']}")
    if "algorithm" in job:
        out["algorithm"] = _choice(f"{where}.algorithm", job["algorithm"], ALLREDUCE_ALGORITHMS,
                                   "allreduce algorithm")
    if "order" in job:
        out["order"] = _choice(f"{where}.order", job["order"], ("shift", "random"), "order")
    if "rounds" in job:
        out["rounds"] = _int(f"{where}.rounds", job["rounds"], 1, _COUNT, _COUNT_TEXT)
    if "partners" in job:
        p = _int_list(f"{where}.partners", job["partners"], 1, 2)
        if p[0] > p[1]:
            raise _err(f"{where}.partners", "must be [lo, hi] with lo <= hi", job["partners"])
        out["partners"] = p
    if motif == "program":
        if not isinstance(job.get("file"), str) or not job["file"]:
            raise ConfigError(f"{where}.file: is required for motif \"program\" (a JSON program "
                              f"file, docs/workloads.md)")
        out["file"] = job["file"]
    if motif == "trace":
        if not isinstance(job.get("trace"), str) or not job["trace"]:
            raise ConfigError(f"{where}.trace: is required for motif \"trace\" (the anchor file of "
                              f"an OTF2 trace, PATH/traces.otf2, docs/workloads.md)")
        out["trace"] = job["trace"]
    return out


def normalize_workload(sec: Mapping[str, Any]) -> dict[str, Any]:
    """A validated copy of the [workload] table with every default filled in."""
    for key in sec:
        if key not in WORKLOAD_KEYS:
            raise ConfigError(f'workload: unknown key "{key}" (known: {", ".join(WORKLOAD_KEYS)})')
    out: dict[str, Any] = {}
    out["packet_size"] = _int("workload.packet_size", sec.get("packet_size", 16), 1)
    if out["packet_size"] > 1 << 20:
        raise _err("workload.packet_size", "must be <= 2^20 flits", out["packet_size"])
    out["flit_bytes"] = _int("workload.flit_bytes", sec.get("flit_bytes", 16), 1, _COUNT, _COUNT_TEXT)
    g = sec.get("link_gbps", WORKLOAD_DEFAULTS["link_gbps"])
    if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g) or g <= 0:
        raise _err("workload.link_gbps", "must be a number > 0 (Gbit/s)", g)
    out["link_gbps"] = float(g)
    out["placement"] = _choice("workload.placement", sec.get("placement", "linear"),
                               ("linear", "random"), "placement")
    out["max_cycles"] = _int("workload.max_cycles", sec.get("max_cycles", 100_000_000), 1, _CYCLES,
                             _CYCLES_TEXT)
    out["ni_queues"] = _int("workload.ni_queues", sec.get("ni_queues", 1), 1)
    if out["ni_queues"] > 4096:
        raise _err("workload.ni_queues", "must be <= 4096", out["ni_queues"])
    trace = {}
    if "compute" in sec:
        trace["compute"] = _choice("workload.compute", sec["compute"], COMPUTE_MODES,
                                   "compute mode")
    if "compute_cycle_ns" in sec:
        c = sec["compute_cycle_ns"]
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c <= 0:
            raise _err("workload.compute_cycle_ns", "must be a number > 0 (nanoseconds of traced "
                       "compute per cycle)", c)
        if sec.get("compute", "keep") != "scale":
            raise ConfigError('workload.compute_cycle_ns: only read with compute = "scale" '
                              f'(compute is {_show(sec.get("compute", "keep"))})')
        trace["compute_cycle_ns"] = float(c)
    elif trace.get("compute") == "scale":
        raise ConfigError('workload.compute_cycle_ns: is required with compute = "scale" '
                          '(nanoseconds of traced compute per simulated cycle)')
    jobs = sec.get("jobs")
    if not isinstance(jobs, (list, tuple)) or not jobs:
        raise ConfigError(f"workload.jobs: must be a non-empty list of job tables, e.g. "
                          f"jobs = [{{motif = \"alltoall\", ranks = 64, bytes = 7680}}], "
                          f"got {_show(jobs)}")
    out["jobs"] = [_normalize_job(j, job, out["placement"]) for j, job in enumerate(jobs)]
    if trace and not any(j["motif"] == "trace" for j in out["jobs"]):
        key = next(iter(trace))
        raise ConfigError(f'workload.{key}: only read by trace jobs (motif = "trace"), and no job '
                          f'is one')
    if all(j["background"] for j in out["jobs"]):
        raise ConfigError("workload.jobs: at least one job must not be a background job "
                          "(the run lasts until the foreground jobs finish)")
    return {"jobs": out["jobs"], **{k: out[k] for k in WORKLOAD_DEFAULTS}, **trace}
