"""Configurations drawn from the key schema (flitsim.config_keys.KEYS), run through the command
line in forked children: valid values of every type, range and choice, combined at random,
and among them values just outside the range, of the wrong type, unknown choices, unknown keys
and unknown sections. Seeded (the same cases every run) and small: tiny networks and a few
dozen simulated cycles, so the whole draw takes seconds.

Prints one JSON line per case: {"case", "command", "rc", "err", "traceback", "seconds"}.
Run by tests/test_fuzz_configs.py in a child process, so that a crash (a signal) fails the
test instead of killing pytest; run it directly to see every outcome.
"""
from __future__ import annotations

import json
import math
import os
import random
import sys
import tempfile

os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_configs import run_forked  # noqa: E402 - the forked runner of the older fuzzer

from flitsim.toml_writer import dumps  # noqa: E402

SEED = 34
CASES = int(os.environ.get("FLITSIM_FUZZ_SCHEMA_CASES", "240"))

# Small networks of several kinds (72, 18, 16 and 50 nodes): builders, routings and patterns
# of more than one family get drawn keys.
TOPOLOGIES = [
    {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
    {"kind": "fattree", "k": 4, "n": 2},
    {"kind": "slimfly", "q": 5},
]
# Simulated cycles stay in the tens: a drawn key may still lengthen the run (sim.* in range),
# which is why a case that sets a cycle count above CHEAP_CYCLES is only checked, not run.
SIM = {"warmup": 20, "measure": 40, "drain_limit": 200, "watchdog": 400, "latency_bins": 64}
CHEAP_CYCLES = 2000
# Keys whose in-range values make the run long or large: drawn small when in range.
SMALL = 16


def _valid(k: dict, rng: random.Random):
    t = k["type"]
    if t == "int":
        lo, hi = k["lo"], k["hi"]
        lo = max(lo, 0) if hi > 0 else lo
        return rng.randint(lo, min(hi, lo + SMALL))
    if t == "float":
        lo, hi = k["lo"], min(k["hi"], max(k["lo"], 0) + SMALL)
        return round(rng.uniform(lo, hi), 3)
    if t == "bool":
        return rng.random() < 0.5
    if t == "int_list":
        lo = max(k["lo"], 0)
        return [rng.randint(lo, lo + 3) for _ in range(rng.randint(1, 3))]
    return rng.choice(k["choices"])


def _invalid(k: dict, rng: random.Random):
    """A value the key's declaration refuses: out of range, of another type, an unknown
    choice."""
    t = k["type"]
    if t == "int":
        return rng.choice([k["lo"] - 1, k["hi"] + 1, 2**64, 1.5, "4", True, [1]])
    if t == "float":
        return rng.choice([k["lo"] - 1, k["hi"] * 2 + 1, float("nan"), float("inf"), "0.5", True])
    if t == "bool":
        return rng.choice([1, 0, "yes", "true", 2.0])
    if t == "int_list":
        return rng.choice([[], [k["lo"] - 1], "1,2", [1.5], 7, [True]])
    return rng.choice(["no-such-" + k["name"], 3, "", k["choices"][0].upper() + "!", [k["choices"][0]]])


def cases(seed: int = SEED, count: int = CASES):
    from flitsim.config_keys import KEYS
    keys = [k for k in KEYS if k["section"] in ("router", "routing", "traffic", "sim")]
    rng = random.Random(seed)
    for n in range(count):
        cfg = {"topology": dict(rng.choice(TOPOLOGIES)), "router": {"vcs": 4, "buffer": 8},
               "routing": {"algorithm": "min"}, "traffic": {"load": 0.2}, "sim": dict(SIM)}
        drawn = []
        for k in rng.sample(keys, rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.7:
                v, how = _valid(k, rng), "valid"
            elif roll < 0.92:
                v, how = _invalid(k, rng), "invalid"
            else:  # a misspelt key in the same section
                cfg[k["section"]][k["name"] + "_x"] = 1
                drawn.append(f"{k['section']}.{k['name']}_x (unknown)")
                continue
            if k["section"] == "routing" and k["name"] == "deadlock_avoidance" and v is False:
                v = True  # a deadlock is a run-time failure (status 1) by design, not a bad input
            cfg[k["section"]][k["name"]] = v
            drawn.append(f"{k['section']}.{k['name']}={json.dumps(v, default=str)} ({how})")
        if n % 40 == 39:
            cfg["sectionx"] = {"a": 1}
            drawn.append("[sectionx] (unknown section)")
        yield f"case {n}: " + ", ".join(drawn), cfg


def cheap(cfg: dict) -> bool:
    """Whether running the case is bounded by the small windows (else only `info` runs)."""
    sim = cfg["sim"]
    cycles = [sim.get(k, 0) for k in ("warmup", "measure", "drain_limit", "watchdog")]
    return all(isinstance(c, int) and not isinstance(c, bool) and c <= CHEAP_CYCLES for c in cycles)


def _toml(cfg: dict) -> str | None:
    try:
        return dumps(cfg)
    except (TypeError, ValueError):  # NaN and infinities have TOML spellings; others may not
        return None


def main() -> int:
    import flitsim._core  # noqa: F401 - built (and any rebuild message printed) before forking
    from flitsim.cli import main as cli_main
    limit = float(os.environ.get("FLITSIM_FUZZ_CASE_SECONDS", "20"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.toml")
        for name, cfg in cases():
            text = _toml(cfg)
            if text is None:
                continue
            with open(path, "w") as f:
                f.write(text)
            command = ["run", path, "--json", "--backend", "cpu", "--quiet", "--threads", "1"] \
                if cheap(cfg) else ["info", path, "--json"]
            res = run_forked(cli_main, command, limit)
            print(json.dumps(dict(case=name, command=command[0], **res)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
