"""The regression corpus: small configurations covering every routing, every topology kind,
multi-flit and variable-size packets, bursty injection, replicas and a workload, with a
digest of every result field.

Engine refactors that must not change results (per-port steps, registries, schedules) are
checked against `corpus_expected.json`, recorded from the engine before the change:
    python tests/corpus.py --record      # only when a change of results is intended
    python -m pytest tests/test_corpus.py
A mismatch names the case and the field. Every case runs in well under a second.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

EXPECTED = Path(__file__).with_name("corpus_expected.json")
ROOT = Path(__file__).resolve().parents[1]
# The MPI trace the replay case runs, and the program it converts to (compute kept at the
# default 1.28 ns per cycle): where the OTF2 library is missing (the GPU session installs
# flitsim without dependencies) the case runs that program instead, the same engine input.
# tests/test_trace.py checks that the file is the trace's conversion.
TRACE = ROOT / "configs" / "traces" / "stencil-8" / "traces.otf2"
TRACE_PROGRAM = Path(__file__).with_name("corpus_trace_stencil8.json")

_BASE = {
    "router": {"vcs": 4, "buffer": 4, "latency": 1},
    "channels": {"latency": 1},
    "traffic": {"pattern": "uniform", "load": 0.6, "packet_size": 2},
    "sim": {"warmup": 100, "measure": 400, "seed": 3, "drain_limit": 2000, "batches": 4,
            "latency_bins": 512},
}
DF = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
HX = {"kind": "hyperx", "widths": [4, 4], "terminals": 2}


def _case(topology, routing=None, **sections):
    cfg = copy.deepcopy(_BASE)
    cfg["topology"] = dict(topology)
    cfg["routing"] = dict(routing or {"algorithm": "min"})
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return cfg


# name -> (config, loads for a replica batch or None)
CASES: dict[str, tuple[dict, list[float] | None]] = {
    "df-min": (_case(DF), None),
    "df-min-adaptive-1flit": (_case(DF, {"algorithm": "min", "selection": "adaptive"},
                                    traffic={"packet_size": 1, "load": 0.8}), None),
    "df-valiant-restricted": (_case(DF, {"algorithm": "valiant"}), None),
    "df-valiant-any": (_case(DF, {"algorithm": "valiant", "valiant": "any"}, router={"vcs": 4}), None),
    "df-ugal-queue": (_case(DF, {"algorithm": "ugal", "cost": "queue"}, traffic={"pattern": "group-shift", "shift": 1}), None),
    "df-ugal-booksim": (_case(DF, {"algorithm": "ugal", "cost": "booksim", "n_indirect": 2}), None),
    "df-ugalg": (_case(DF, {"algorithm": "ugal-g", "snapshot_period": 3}), None),
    "df-par": (_case(DF, {"algorithm": "par"}, router={"vcs": 5}, traffic={"pattern": "worst-case"}), None),
    "df-min-onoff-sizes": (_case(DF, traffic={"injection": "onoff", "burst_on": 6, "burst_off": 10,
                                              "packet_sizes": [1, 5], "load": 0.3,
                                              "packet_size": 1}), None),  # the default: packet_sizes draws
    "df-min-replicas": (_case(DF, traffic={"packet_size": 3}), [0.2, 0.5, 0.9]),
    "df-rowcol-hotspot": (_case({"kind": "dragonfly", "p": 2, "intra": "row-column", "rows": 2, "cols": 2, "h": 1},
                                traffic={"pattern": "hotspot", "hotspots": [0, 5],
                                         "hotspot_fraction": 0.3}), None),
    "hx-dor-bitcomp": (_case(HX, {"algorithm": "dor"}, traffic={"pattern": "bitcomp"}), None),
    "hx-closad-urb": (_case(HX, {"algorithm": "clos-ad"}, traffic={"pattern": "urb", "dims": [0]}), None),
    "hx-dimwar-swap2": (_case(HX, {"algorithm": "dimwar"}, traffic={"pattern": "swap2"}), None),
    "hx-omniwar-dcr": (_case(HX, {"algorithm": "omniwar", "multi_deroute": False},
                             traffic={"pattern": "dcr"}), None),
    "hx-ugal-tornado": (_case(HX, {"algorithm": "ugal"}, router={"vcs": 4},
                              traffic={"pattern": "tornado"}), None),
    # The output-queued routers (phases/output_queue.cuh): a shared FIFO per port (cioq) and a
    # queue per port and VC whose flits wait there for credits (ioq), sensed by the WARs and UGAL.
    "hx-dimwar-cioq": (_case(HX, {"algorithm": "dimwar"}, router={"architecture": "cioq", "speedup": 2,
                                                                  "output_buffer": 3},
                             traffic={"pattern": "bitcomp", "load": 0.7}), None),
    "hx-omniwar-ioq": (_case(HX, {"algorithm": "omniwar", "sensing": "class", "congestion": "output_and_downstream"},
                             router={"architecture": "ioq", "speedup": 2, "output_buffer": 3},
                             traffic={"load": 0.8}), None),
    "df-ugal-ioq-vct": (_case(DF, {"algorithm": "ugal", "congestion": "output"},
                              router={"architecture": "ioq", "output_buffer": 4, "flow_control": "vct"},
                              traffic={"pattern": "group-shift", "shift": 1}), None),
    "torus-dor-tornado": (_case({"kind": "torus", "widths": [4, 4], "terminals": 2}, {"algorithm": "dor"},
                                traffic={"pattern": "tornado"}), None),
    "torus-ugal-dor-partial-wrap": (_case({"kind": "torus", "widths": [4, 3], "terminals": 2, "wrap": [True, False]},
                                          {"algorithm": "ugal-dor"}, traffic={"pattern": "neighbor"}), None),
    "mesh-valiant-dor-transpose": (_case({"kind": "mesh", "widths": [4, 4]}, {"algorithm": "valiant-dor"},
                                         traffic={"pattern": "transpose"}), None),
    "expressmesh-min": (_case({"kind": "hyperx", "widths": [6], "terminals": 2, "gap": 2}), None),
    "fattree-updown-dmodk": (_case({"kind": "fattree", "k": 4, "n": 2}, {"algorithm": "updown"},
                                   traffic={"pattern": "shift", "shift": 4}), None),
    "fattree-updown-adaptive": (_case({"kind": "fattree", "k": 4, "n": 3},
                                      {"algorithm": "updown", "selection": "adaptive"}), None),
    "fattree-updown-random": (_case({"kind": "fattree", "k": 4, "n": 2},
                                    {"algorithm": "updown", "selection": "oblivious"},
                                    traffic={"pattern": "randperm"}), None),
    "xgft-min-bitrev": (_case({"kind": "xgft", "m": [4, 4], "w": [1, 2]},
                              traffic={"pattern": "bitrev"}), None),
    "slimfly-min-worst": (_case({"kind": "slimfly", "q": 5}, traffic={"pattern": "worst-case"}), None),
    "slimfly-valiant": (_case({"kind": "slimfly", "q": 5}, {"algorithm": "valiant"}), None),
    "slimfly-ugal": (_case({"kind": "slimfly", "q": 5}, {"algorithm": "ugal"}), None),
    "slimfly-ugalg": (_case({"kind": "slimfly", "q": 5}, {"algorithm": "ugal-g"}), None),
    "mlfm-valiant": (_case({"kind": "mlfm", "h": 3}, {"algorithm": "valiant"}), None),
    "oft-min-neighbor": (_case({"kind": "oft", "k": 4}, traffic={"pattern": "neighbor"}), None),
    "graph-petersen-transpose": (_case({"kind": "graph", "terminals": 2, "links": [
        0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 5, 7, 7, 9, 9, 6, 6, 8, 8, 5]},
        traffic={"pattern": "uniform", "placement": "random"}), None),
    "df-shuffle-deep": (_case({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "groups": 4},
                              router={"vcs": 6, "buffer": 16, "latency": 3, "sa_iterations": 2},
                              channels={"global": 4, "local": 2},
                              traffic={"pattern": "shuffle", "packet_size": 6, "load": 0.9}), None),
    # Request-reply (traffic.reply_size): replies on their own VC half, turned around at the
    # destination; with on/off sources, with a replica batch and UGAL's sensing, with by-hop VCs.
    # (the by-hop case runs past saturation: full reply queues)
    "hx-dor-reply-onoff": (_case(HX, {"algorithm": "dor"},
                                 traffic={"reply_size": 3, "load": 0.15, "injection": "onoff",
                                          "burst_on": 6, "burst_off": 10}), None),
    "df-ugal-reply-replicas": (_case(DF, {"algorithm": "ugal"}, router={"vcs": 8},
                                     traffic={"reply_size": 2}), [0.2, 0.6]),
    "df-min-reply-byhop": (_case(DF, router={"vcs": 4, "vc_policy": "by-hop"},
                                 traffic={"reply_size": 1, "load": 0.4}), None),
    # Traffic classes ([[traffic.class]]): two patterns, fixed and drawn sizes, a source set and
    # priorities at both allocators; class 1 takes each replica's load (a replica batch).
    "hx-dor-two-classes": (_case(HX, {"algorithm": "dor"}, traffic={"class": [
        {"load": 0.2, "priority": 1, "packet_size": 1, "sources": [0, 24]},
        {"pattern": "bitcomp", "priority": 0, "packet_sizes": [2, 4]}]}), [0.3, 0.7]),
    "df-workload-alltoall": (_case(DF, sim={"warmup": 0},
                                   workload={"packet_size": 4, "ni_queues": 2, "jobs": [
                                       {"motif": "alltoall", "ranks": 32, "bytes": 256},
                                       {"motif": "allreduce", "ranks": 16, "bytes": 64,
                                        "placement": "random"}]}), None),
    "torus-trace-replay": (_case({"kind": "torus", "widths": [4, 4], "terminals": 1},
                                 {"algorithm": "dor"}, router={"vcs": 2}, sim={"warmup": 0},
                                 workload={"packet_size": 8, "placement": "random", "jobs": [
                                     {"motif": "trace", "trace": str(TRACE), "name": "stencil"},
                                     {"motif": "alltoall", "ranks": 8, "bytes": 1024,
                                      "iterations": 2, "start": 15000}]}), None),
}


def _without_otf2(cfg: dict) -> dict:
    """cfg with its trace jobs as the program file they convert to, when the OTF2 library
    is not installed."""
    try:
        import otf2  # noqa: F401
        return cfg
    except ImportError:
        pass
    cfg = copy.deepcopy(cfg)
    for job in cfg.get("workload", {}).get("jobs", []):
        if job.get("motif") == "trace":
            assert job.pop("trace") == str(TRACE)
            job.update(motif="program", file=str(TRACE_PROGRAM))
    return cfg


def _digest(value):
    """A JSON-able fingerprint: scalars as they are, arrays as dtype/shape/sha256."""
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        return f"{arr.dtype.str}{list(arr.shape)}:{hashlib.sha256(arr.tobytes()).hexdigest()[:24]}"
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, (list, tuple)):
        return [_digest(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _digest(v) for k, v in value.items()}
    return value


# The per-class arrays of a run with traffic classes ([[traffic.class]]); empty otherwise.
_CLASS_ARRAYS = ("class_sums", "class_latency_hist", "class_network_latency_hist")


def fingerprint(result) -> dict:
    """Every field of a Result (and of its per-job table) except wall time and config."""
    out = {}
    for f in dataclasses.fields(result):
        if f.name in ("wall_seconds", "config", "backend", "workload"):
            continue
        if f.name in _CLASS_ARRAYS and getattr(result, f.name).size == 0:
            continue  # one traffic class (every case recorded before classes): its totals say it all
        out[f.name] = _digest(getattr(result, f.name))
    if result.workload is not None:
        for f in dataclasses.fields(result.workload):
            out["workload." + f.name] = _digest(getattr(result.workload, f.name))
    return out


def run_case(name: str, sim: dict | None = None, **engine_options) -> list[dict]:
    """Fingerprints of one case's replicas. sim: [sim] keys to override (e.g. a schedule);
    engine_options go to flitsim.run/run_replicas."""
    import flitsim
    cfg, loads = CASES[name]
    given = cfg
    cfg = _without_otf2(cfg)
    replaced = cfg is not given
    if sim:
        cfg = {**cfg, "sim": {**cfg["sim"], **sim}}
    if loads is None:
        out = [fingerprint(flitsim.run(copy.deepcopy(cfg), **engine_options))]
    else:
        out = [fingerprint(r) for r in flitsim.run_replicas(copy.deepcopy(cfg), loads, **engine_options)]
    if replaced:
        # A trace run as its converted program: the same engine input, only named "program".
        for fp in out:
            if "workload.job_motifs" in fp:
                fp["workload.job_motifs"] = [j["motif"] for j in given["workload"]["jobs"]]
    return out


def compare(name: str, got: list[dict], want: list[dict]) -> list[str]:
    """Differences between two fingerprints of a case, one line per field."""
    diffs = []
    if len(got) != len(want):
        return [f"{name}: {len(got)} replicas, expected {len(want)}"]
    for i, (g, w) in enumerate(zip(got, want)):
        for key in sorted(set(g) | set(w)):
            if g.get(key) != w.get(key):
                diffs.append(f"{name}[{i}].{key}: {g.get(key)!r} != expected {w.get(key)!r}")
    return diffs


def main(argv: list[str]) -> int:
    if argv != ["--record"]:
        print(__doc__)
        return 2
    import os
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    data = {name: run_case(name, threads=1) for name in CASES}
    EXPECTED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(data)} cases in {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
