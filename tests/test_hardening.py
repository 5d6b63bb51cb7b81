"""Every input bounded: the engine's integer keys against the types that store them, topology
integers before any builder multiplies them, input files by kind and size."""
import math
import re

import pytest

pytest.importorskip("flitsim._core")
import flitsim  # noqa: E402
from conftest import small_dragonfly  # noqa: E402
from flitsim import _core  # noqa: E402
from flitsim import topology as T  # noqa: E402
from flitsim.config import ConfigError, load_config, normalize  # noqa: E402

HOSTILE = [2**31, 2**32 + 8, 2**63 - 1, -1, math.nan, math.inf]


def _keys():
    # Every integer key the engine declares (host/config/keys_*.cpp) whose bounds are a storage
    # type's (traffic.shift takes any integer: it is reduced modulo the nodes).
    for k in _core.config_keys():
        if k["type"] == "int" and k["lo"] > -2**63 + 1:
            yield k["section"], k["name"], k


@pytest.mark.parametrize("section,key,bound", list(_keys()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_engine_integer_refuses_values_its_type_cannot_hold(section, key, bound):
    # Python's schema and the engine (reached directly, without normalize) give the same rule.
    for v in HOSTILE:
        inside = isinstance(v, int) and bound["lo"] <= v <= bound["hi"]
        cfg = small_dragonfly(**{section: {key: v}})
        if inside:
            normalize(cfg)
            continue
        with pytest.raises(ConfigError, match="^" + re.escape(f"{section}.{key}: {bound['rule']}, got ")):
            normalize(cfg)
        if isinstance(v, int):  # the engine's own check, for callers that skip normalize
            raw = normalize(small_dragonfly())
            raw[section][key] = v
            with pytest.raises(ValueError, match=rf"^{section}\.{key}: must be an integer in \["):
                _core.state_estimate(raw, 1)


def test_wrapped_values_are_refused_not_truncated():
    # The cases that used to wrap silently or crash.
    for section, key, v, rule in [
        ("router", "buffer", 2**32 + 8, r"\[1, 2\^16\]"),
        ("router", "sa_iterations", 2**32, r"\[1, 8\]"),
        ("router", "vcs", 2**31, r"\[1, 63\]"),
        ("traffic", "packet_size", 2**40, r"\[1, 2\^20\]"),
        ("sim", "latency_bins", 2**40, r"\[16, 2\^24\]"),
        ("sim", "batches", 2**62, r"\[1, 2\^16\]"),
        ("sim", "warmup", 2**62, r"\[0, 2\^44\]"),
        ("router", "latency", 10**7, r"\[0, 2\^20\]"),
    ]:
        with pytest.raises(ConfigError, match=rf"^{section}\.{key}: must be an integer in {rule}, got {v}$"):
            flitsim.run(small_dragonfly(**{section: {key: v}}), backend="cpu")


def test_topology_integers_bounded_before_building():
    with pytest.raises(ValueError, match=r"^topology\.p: must be an integer in \[-\(2\^31-1\), 2\^31-1\]"):
        T.build({"kind": "dragonfly", "p": 2**63 - 1, "a": 4, "h": 2})
    with pytest.raises(ValueError, match=r"^topology\.p: must be an integer, got \"4\""):
        T.build({"kind": "dragonfly", "p": "4", "a": 4, "h": 2})
    with pytest.raises(ConfigError, match=r"^topology\.p: must be an integer in \[-2\^63\+1, 2\^63-1\]"):
        normalize({"topology": {"kind": "dragonfly", "p": 2**64, "a": 4, "h": 2}})
    with pytest.raises(ValueError, match=r"^topology\.n: k\^n too large"):
        T.build({"kind": "fattree", "k": 4, "n": 2**31 - 1})  # used to loop for seconds
    T.build({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "seed": 2**63 - 1})  # seeds: any int64
    with pytest.raises(ConfigError, match=r"^topology\.k: must be a number or a string, got true"):
        normalize({"topology": {"kind": "fattree", "k": True, "n": 2}})
    normalize({"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "relabel": True}})


def test_config_file_must_be_a_regular_file(tmp_path):
    for path in ("/dev/zero", str(tmp_path)):
        with pytest.raises(ConfigError, match="cannot read config: the config is not a regular file"):
            load_config(path)


def test_replica_counts_bounded():
    from flitsim.sweep import plan
    with pytest.raises(ValueError, match=r"^probes: must be an integer in \[1, 4096\], got 1000000000"):
        flitsim.saturate(small_dragonfly(), probes=10**9)
    with pytest.raises(ConfigError, match=r"^sweep\.max_replicas: must be an integer in \[1, 4096\]"):
        plan(small_dragonfly(), {"traffic.load": [0.1]}, max_replicas=10**9)


def test_workload_sizes_bounded():
    from flitsim.workload.config import normalize_workload
    job = {"motif": "alltoall", "ranks": 4, "bytes": 64}
    for key, v, rule in [("iterations", 2**31, r"\[1, 2\^20\]"), ("bytes", 2**62, r"\[1, 2\^40\]"),
                         ("compute", 2**62, r"\[0, 2\^44\]")]:
        with pytest.raises(ValueError, match=rf"workload\.jobs\[0\]\.{key}: must be an integer in {rule}"):
            normalize_workload({"jobs": [{**job, key: v}]})
    with pytest.raises(ValueError, match=r"workload\.flit_bytes: must be an integer in \[1, 2\^20\]"):
        normalize_workload({"flit_bytes": 2**63 - 1, "jobs": [job]})
    # Within the bounds, a program too large to build is refused before it is built
    # (iterations x steps used to end in MemoryError).
    with pytest.raises(ValueError, match=r"iterations: 1048576 iterations make \d+ program steps and \d+ messages; at most 67108864"):
        flitsim.run(small_dragonfly(workload={"jobs": [{**job, "ranks": 64, "iterations": 2**20}]}),
                    backend="cpu")
