"""Adversarial configurations through the command line's own code path, in one process.

Every numeric (and a few other) configuration keys get hostile values - 2^31, 2^32+8, 2^63-1,
2^64, -1, NaN, infinity, a string, a boolean, a list - one key at a time and in random
combinations (seeded: the same cases every run). Each case runs ``flitsim info`` (which
builds the topology and checks the whole engine configuration without allocating), then,
when accepted and cheap, ``flitsim run``. Prints one JSON line per case:
{"case", "command", "rc", "err", "traceback", "seconds"}.

Run by tests/test_fuzz.py in a child process, so that a crash (a signal) fails the test
instead of killing pytest; run it directly to see every outcome.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback

os.environ.setdefault("OMP_NUM_THREADS", "1")

from flitsim.toml_writer import dumps, toml_value  # noqa: E402 (after the thread count)

BASE = {
    "topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    "router": {"vcs": 2, "buffer": 4, "latency": 1},
    "channels": {"latency": 1},
    "routing": {"algorithm": "min"},
    "traffic": {"load": 0.2},
    "sim": {"warmup": 50, "measure": 100, "drain_limit": 400, "watchdog": 400, "latency_bins": 64,
            "batches": 2},
}
# Other topology kinds, so their builders' keys are fuzzed too.
TOPOLOGIES = [
    {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
    {"kind": "fattree", "k": 4, "n": 2},
    {"kind": "slimfly", "q": 5},
    {"kind": "graph", "links": [0, 1, 1, 2, 2, 0], "terminals": 2},
]

HOSTILE = [2**31, 2**32 + 8, 2**40, 2**63 - 1, 2**64, -1, 0, float("nan"), float("inf"), 0.5,
           "4", True]
# Builder keys share one generic bound and type check: fewer values each keep the run short.
HOSTILE_TOPOLOGY = [2**31, 2**63 - 1, 2**64, -1, "4", True]

# Keys fuzzed one by one (section, key): every key of the fixed sections, the channel
# latency, the topology keys of the kinds above, and [cost].
def fuzz_keys() -> list[tuple[str, str]]:
    from flitsim.config import SCHEMA, TOPOLOGY_KEYS
    keys = [(sec, k) for sec, rules in SCHEMA.items() for k in rules]
    keys.append(("channels", "latency"))
    for t in TOPOLOGIES:
        keys += [("topology", k) for k in TOPOLOGY_KEYS[t["kind"]] if k not in ("file",)]
    keys += [("cost", k) for k in ("optical", "copper", "router")]
    seen, out = set(), []
    for k in keys:
        if k not in seen:
            seen.add(k)
            out.append(k)
    return out


def to_toml(cfg: dict) -> str:
    return dumps(cfg)


def cases(seed: int = 14, combos: int = 100):
    """(name, config) pairs: one hostile value per key, then random combinations."""
    rng = random.Random(seed)
    keys = fuzz_keys()
    from flitsim.config import TOPOLOGY_KEYS

    def base_for(sec, key):
        cfg = json.loads(json.dumps(BASE))
        if sec == "topology":
            topo = next((t for t in TOPOLOGIES if key in TOPOLOGY_KEYS[t["kind"]]), TOPOLOGIES[0])
            cfg["topology"] = dict(topo)
            if topo["kind"] != "dragonfly":
                cfg["routing"] = {"algorithm": "min"}
        return cfg

    for sec, key in keys:
        for v in (HOSTILE_TOPOLOGY if sec == "topology" else HOSTILE):
            cfg = base_for(sec, key)
            cfg.setdefault(sec, {})[key] = v
            yield f"{sec}.{key}={toml_value(v)}", cfg
    # [workload]: its own keys and a job's, on a small all-to-all.
    for key in ("packet_size", "flit_bytes", "link_gbps", "max_cycles", "ni_queues",
                "jobs.ranks", "jobs.bytes", "jobs.iterations", "jobs.compute"):
        for v in HOSTILE:
            cfg = json.loads(json.dumps(BASE))
            job = {"motif": "alltoall", "ranks": 8, "bytes": 64}
            wl = {}
            if key.startswith("jobs."):
                job[key[5:]] = v
            else:
                wl[key] = v
            cfg["workload"] = {**wl, "jobs": [job]}
            yield f"workload.{key}={toml_value(v)}", cfg
    for i in range(combos):
        picks = rng.sample(keys, rng.randint(2, 3))
        cfg = base_for(*picks[0])
        for sec, key in picks:
            if sec == "topology" and key not in TOPOLOGY_KEYS[cfg["topology"]["kind"]]:
                continue
            cfg.setdefault(sec, {})[key] = rng.choice(HOSTILE + [-2**63, 2**31 - 1, 1e300, [], 1, 2, 3, 8, 100])
        yield "combo " + ", ".join(f"{s}.{k}" for s, k in picks), cfg


MAX_CASE_BYTES = 6 << 30  # address space per case


class CaseTimeout(BaseException):
    """A case ran past its time limit (BaseException: the CLI must not swallow it)."""


def _alarm(signum, frame):
    raise CaseTimeout()


def cheap(cfg: dict) -> bool:
    """Whether simulating the case is bounded by the base's small windows."""
    sim = cfg.get("sim", {})
    for k in ("warmup", "measure", "drain_limit", "watchdog"):
        v = sim.get(k, BASE["sim"][k])
        if not isinstance(v, int) or v > 2000:
            return False
    jobs = cfg.get("workload", {}).get("jobs", [])
    for sec in ("router", "channels", "traffic", "routing", "topology", "workload"):
        values = list(cfg.get(sec, {}).values()) + ([v for j in jobs for v in j.values()] if sec == "workload" else [])
        for v in values:
            if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > 64:
                return False
    return True


def run_case(main, argv: list[str], limit: float) -> dict:
    out, err = io.StringIO(), io.StringIO()
    tb = ""
    start = time.monotonic()
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    except CaseTimeout:
        rc, tb = "timeout", f"ran past {limit} s"
    except BaseException:  # noqa: BLE001 - a traceback is exactly what the test looks for
        rc, tb = "exception", traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return dict(rc=rc, err=err.getvalue()[-2000:], traceback=tb,
                seconds=round(time.monotonic() - start, 3))


def run_forked(main, argv: list[str], limit: float) -> dict:
    """run_case in a forked child, so a crash becomes {"rc": "signal N"} and the next case
    still runs (fork after import: milliseconds per case)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        # A hang inside the engine never returns to Python, where the alarm would fire: the
        # CPU limit kills it (SIGXCPU) and the parent reports the signal.
        soft = int(limit) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
        # Memory that grows without a check ends in bad_alloc (a traceback) instead of
        # swapping the machine.
        resource.setrlimit(resource.RLIMIT_AS, (MAX_CASE_BYTES, MAX_CASE_BYTES))
        try:
            res = run_case(main, argv, limit)
            os.write(w, json.dumps(res).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return dict(rc=f"signal {os.WTERMSIG(status)}", err="", traceback="", seconds=None)
    return json.loads(b"".join(chunks).decode())


def main(argv: list[str] | None = None) -> int:
    import flitsim._core  # noqa: F401 - built (and any rebuild message printed) before capturing
    from flitsim.cli import main as cli_main
    limit = float(os.environ.get("FLITSIM_FUZZ_CASE_SECONDS", "10"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.toml")
        for name, cfg in cases():
            with open(path, "w") as f:
                f.write(to_toml(cfg))
            for command in ("info", "run"):
                if command == "run" and not cheap(cfg):
                    break
                argv = [command, path, "--json"] + (["--backend", "cpu", "--quiet"] if command == "run" else [])
                res = run_forked(cli_main, argv, limit)
                print(json.dumps(dict(case=name, command=command, **res)), flush=True)
                if res["rc"] != 0:
                    break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
