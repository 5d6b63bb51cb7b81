"""Issue 12's "done when": every router-model key runs on every topology and each of its
routings, or refuses clearly, and is bit-identical whatever the execution order.

The keys and their values come from the configuration schema (config.SCHEMA["router"]: the
choices of each choice key, true/false, and the lowest two values of each integer key from
the engine's bounds), so a key added later is covered without editing this file. Each value is
run alone on a small base router, and again with the key its rule needs (COMPANIONS: a cioq-only
key with architecture = "cioq", a size in bytes with traffic.flit_bytes). The topology kinds and
their routings come from the engine's registries. For every (kind, routing, case):
  - either it runs: the engine's end-of-run invariants pass (flit and credit conservation,
    output-queue occupancy; a broken one raises), every measured packet is delivered unless the
    replica saturated, and a run with the CPU executor's shuffled step order
    (FLITSIM_STEP_ORDER, host/run/step_order.hpp: the stand-in for any thread count or GPU
    schedule) gives the same statistics bit for bit;
  - or it raises ConfigError naming one of the case's keys, and the same error comes from the
    engine's configuration check alone (_core.routing_setup), i.e. before anything simulates;
and it is refused exactly when a documented rule says so (must_refuse). Random combinations of
many keys at once cover interactions; every case also runs a closed-loop [workload]; test_router_keys_are_bit_identical_on_one_and_two_threads
runs every case on 1 and 2 real threads (enough replicas that the CPU executor splits the
routers between two threads). The issue's options outside [router] (the [routing] keys'
choices, traffic.self, bad-dragon) get the same run-or-refuse check on every routing, and with a
GPU every router case is compared CUDA against CPU.
"""
import os
import random
from contextlib import contextmanager

import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim.config import (ALGORITHMS, PIPELINE_DELAY_KEYS, ROUTER_PRESETS, SCHEMA, TOPOLOGY_KEYS, ConfigError,
                            normalize)
from flitsim.results import ENGINE_STATISTICS
from flitsim.validation import bool_rule

# A refusal: the Python schema's ConfigError or the engine's (both ValueErrors).
REFUSED = (ConfigError, _core.ConfigError)

# One small instance of every topology kind (builder keys are not router keys: given here).
TOPOLOGIES = {
    "dragonfly": {"kind": "dragonfly", "p": 1, "a": 2, "h": 1},
    "fattree": {"kind": "fattree", "k": 4, "n": 2},
    "graph": {"kind": "graph", "links": [0, 1, 1, 2, 2, 3, 3, 0], "terminals": 1},
    "hyperx": {"kind": "hyperx", "widths": [2, 2], "terminals": 1},
    "mesh": {"kind": "mesh", "widths": [2, 2], "terminals": 1},  # diameter 2: the table routings fit 4 VCs
    "torus": {"kind": "torus", "widths": [3, 3], "terminals": 1},
    "mlfm": {"kind": "mlfm", "h": 2, "l": 2, "p": 1},
    "oft": {"kind": "oft", "k": 3, "p": 1},
    "slimfly": {"kind": "slimfly", "q": 3, "p": 1},
    "xgft": {"kind": "xgft", "m": [2, 3], "w": [1, 2]},  # 3 leaf routers: Valiant and UGAL run
}
BASE_ROUTER = {"vcs": 4, "buffer": 4, "latency": 1}
TRAFFIC = {"pattern": "uniform", "load": 0.4, "packet_size": 2}
SIM = {"warmup": 40, "measure": 160, "seed": 3, "drain_limit": 4000, "watchdog": 2000, "latency_bins": 64,
       "batches": 2}

# What a key's rule needs besides the key itself (docs/configuration.md [router]).
COMPANIONS = {
    "speedup": {"router": {"architecture": "cioq"}},
    "output_buffer": {"router": {"architecture": "cioq"}},
    "output_buffer_bytes": {"router": {"architecture": "cioq"}, "traffic": {"flit_bytes": 1}},
    "buffer_bytes": {"traffic": {"flit_bytes": 1}},
    "speculative": {"router": {"va_sa": "separate"}},
    "speculation": {"router": {"va_sa": "separate", "speculative": True}},
}
# Combinations the one-key cases miss: sizes in bytes with real flit sizes, the presets with
# overrides, cioq with speedup and a shallow output queue, VCT with a packet larger than a VC.
EXTRA = {
    "4 KB per VC, 64-byte flits": ({"buffer_bytes": 4096}, {"flit_bytes": 64}),
    "cioq, 2 KB output queue": ({"architecture": "cioq", "output_buffer_bytes": 2048}, {"flit_bytes": 64}),
    "cioq, speedup 3, 1-flit output queue": ({"architecture": "cioq", "speedup": 3, "output_buffer": 1}, {}),
    "cioq, speedup 2, 1-flit output queue, speculative": ({"architecture": "cioq", "speedup": 2, "output_buffer": 1,
                                                           "va_sa": "separate", "speculative": True}, {}),
    "vct, packet > buffer": ({"flow_control": "vct", "buffer": 1}, {}),
    "hyperx-paper as iq": ({"preset": "hyperx-paper", "architecture": "iq"}, {}),
    "booksim, spread": ({"preset": "booksim", "vc_policy": "spread"}, {}),
    "age, vct, cioq, separate, speculative": ({"arbitration": "age", "flow_control": "vct", "architecture": "cioq",
                                               "speedup": 2, "va_sa": "separate", "speculative": True}, {}),
}


def key_values(key, rule):
    """The values of one [router] key, from its rule in the schema."""
    if hasattr(rule, "choices"):
        return rule.choices
    if rule is bool_rule:
        return (False, True)
    bounds = {k["name"]: k["lo"] for k in _core.config_keys() if k["section"] == "router" and k["type"] == "int"}
    # A key of another type has no values here: test_the_matrix_covers_every_kind_and_router_key fails.
    return (bounds[key], bounds[key] + 1) if key in bounds else ()


def cases():
    """{name: (router keys, traffic keys)}: each value of each key, alone and with its companions."""
    out = {}
    for key, rule in SCHEMA["router"].items():
        for v in key_values(key, rule):
            out[f"{key}={v}"] = ({key: v}, {})
            if key in COMPANIONS:
                c = COMPANIONS[key]
                out[f"{key}={v} with {c}"] = ({**c.get("router", {}), key: v}, dict(c.get("traffic", {})))
    return {**out, **EXTRA}


CASES = cases()


def router_of(keys):
    """The base router with `keys`; a preset's own keys, a size given in bytes and the stage
    delays (which state router.latency) replace the base's, so that each runs as it is defined."""
    stages = any(k in keys for k in PIPELINE_DELAY_KEYS)
    base = {k: v for k, v in BASE_ROUTER.items()
            if k not in ROUTER_PRESETS.get(keys.get("preset"), {}) and f"{k}_bytes" not in keys
            and not (stages and k == "latency")}
    return {**base, **keys}


def config(kind, algorithm, router_keys, traffic_keys, routing_keys=None):
    return {"topology": dict(TOPOLOGIES[kind]), "router": router_of(router_keys),
            "routing": {"algorithm": algorithm, **(routing_keys or {})}, "traffic": {**TRAFFIC, **traffic_keys},
            "sim": dict(SIM)}


def routings(kind):
    """{routing: its deadlock-avoidance VC classes} for every routing of `kind` (the engine's
    registry says which; with as many VCs as they need, each must be accepted)."""
    out = {}
    for alg in ALGORITHMS:
        cfg = config(kind, alg, {"vcs": 63}, {})
        try:
            out[alg] = _core.routing_setup(normalize(cfg))["vc_classes"]
        except REFUSED as e:
            assert f'"{alg}" is not supported on {kind}' in str(e), f"{kind} instance too small? {e}"
    return out


@contextmanager
def step_order(order):
    old = os.environ.get("FLITSIM_STEP_ORDER")
    os.environ["FLITSIM_STEP_ORDER"] = order  # read by the CPU executor at each run
    try:
        yield
    finally:
        if old is None:
            del os.environ["FLITSIM_STEP_ORDER"]
        else:
            os.environ["FLITSIM_STEP_ORDER"] = old


STATISTICS = [s["name"] for s in ENGINE_STATISTICS] + ["cycles", "saturated", "drained"]


def differences(a, b):
    return [k for k in STATISTICS if not np.array_equal(getattr(a, k), getattr(b, k))]


def named_keys(router_keys, traffic_keys, routing_keys=None):
    return ([f"router.{k}" for k in router_keys] + [f"traffic.{k}" for k in traffic_keys]
            + [f"routing.{k}" for k in routing_keys or {}])


def outcome(kind, algorithm, router_keys, traffic_keys, routing_keys=None):
    """"ran", "refused", or a description of what went wrong."""
    cfg = config(kind, algorithm, router_keys, traffic_keys, routing_keys)
    try:
        r = flitsim.run(cfg, backend="cpu", threads=1)
    except REFUSED as e:
        msg = str(e)
        named = named_keys(router_keys, traffic_keys, routing_keys)
        if not any(k in msg for k in named):
            return f"refused without naming {named}: {msg}"
        try:
            _core.routing_setup(normalize(cfg))
        except REFUSED as e2:
            return "refused" if str(e2) == msg else f"refused differently without simulating: {e2}"
        return f"refused only while simulating: {msg}"
    except Exception as e:  # a deadlock, a broken invariant, a crash: all bugs here
        return f"{type(e).__name__}: {str(e)[:300]}"
    # A saturated replica (accepted < offered over this short window, e.g. Valiant at this load
    # or a 50-cycle router) stops at the window's end; any other delivers every measured packet.
    if r.drained != (r.packets_measured == r.packets_tagged) or not (r.drained or r.saturated):
        return (f"measured packets: {r.packets_measured} of {r.packets_tagged} delivered, drained "
                f"{r.drained}, saturated {r.saturated}")
    if r.node_ejected_flits.sum() != r.ejected_flits:
        return "per-node ejected flits do not add up"
    with step_order("shuffled:7"):
        s = flitsim.run(cfg, backend="cpu", threads=1)
    diff = differences(r, s)
    return f"shuffled step order changes {diff}" if diff else "ran"


@pytest.mark.parametrize("kind", sorted(TOPOLOGIES))
def test_every_router_key_runs_or_refuses_clearly_on_every_routing(kind):
    algs = routings(kind)
    assert algs, f"no routing runs on {kind}"
    bad = []
    for alg, classes in algs.items():
        for name, keys in CASES.items():
            got = outcome(kind, alg, *keys)
            # Each case runs exactly when no rule refuses it (the message was checked above).
            if got not in ("ran", "refused"):
                bad.append(f"{kind}/{alg} [{name}]: {got}")
            elif (got == "refused") != must_refuse(*keys, classes):
                bad.append(f"{kind}/{alg} [{name}]: {got}, but must_refuse says {not (got == 'refused')}")
    assert not bad, f"{len(bad)} failures:\n" + "\n".join(bad[:30])


def random_cases(seed, n):
    """n combinations of many keys at once (interactions the one-key cases miss): each key set
    with probability 0.6 to a random value of key_values; a cioq-only key usually with "cioq", a
    size in bytes with traffic.flit_bytes, speculation with "separate"."""
    rng = random.Random(seed)
    values = {k: key_values(k, rule) for k, rule in SCHEMA["router"].items()}
    out = {}
    for i in range(n):
        keys = {k: rng.choice(v) for k, v in values.items() if rng.random() < 0.6}
        if any(k in keys for k in ("speedup", "output_buffer", "output_buffer_bytes")) and rng.random() < 0.7:
            keys["architecture"] = "cioq"
        if keys.get("speculative"):
            keys["va_sa"] = "separate"
        if any(k in keys for k in PIPELINE_DELAY_KEYS):
            keys.pop("latency", None), keys.pop("va_sa", None)  # the stage delays state them
        for flits in ("buffer", "output_buffer"):
            if f"{flits}_bytes" in keys:
                keys.pop(flits, None)  # both given is refused: one-key cases test that
        out[f"random {i}: {keys}"] = (keys, {"flit_bytes": 1} if any(k.endswith("_bytes") for k in keys) else {})
    return out


@pytest.mark.parametrize("kind", sorted(TOPOLOGIES))
def test_random_combinations_of_router_keys_run_or_refuse_clearly(kind):
    bad = []
    for alg, classes in routings(kind).items():
        for name, keys in random_cases(seed=sorted(TOPOLOGIES).index(kind), n=10).items():
            got = outcome(kind, alg, *keys)
            if got not in ("ran", "refused") or (got == "refused") != must_refuse(*keys, classes):
                bad.append(f"{kind}/{alg} [{name}]: {got}")
    assert not bad, f"{len(bad)} failures:\n" + "\n".join(bad[:30])


def must_refuse(router_keys, traffic_keys, classes):
    """Whether a rule refuses a case (docs/configuration.md): fewer VCs than the routing's
    deadlock-avoidance classes, a cioq-only key set with the iq architecture, a size in bytes
    without traffic.flit_bytes, speculation without va_sa = "separate", VCT with a packet
    larger than a VC buffer, a stage delay flitsim does not model, an allocator iteration count
    above 1 for a non-iSLIP allocator under the booksim preset, speculation at the lowest
    priority with a wavefront switch allocator (it has no priorities)."""
    def value(key, default=None):  # as the engine sees it: given, else the preset's, else default
        return router_of(router_keys).get(key, ROUTER_PRESETS.get(router_keys.get("preset"), {}).get(key, default))
    iq = value("architecture", "iq") == "iq"
    if any(k in router_keys for k in PIPELINE_DELAY_KEYS):  # they state va_sa (unset allocation delays: 1)
        one_each = router_keys.get("vc_alloc_delay", 1) >= 1 and router_keys.get("sw_alloc_delay", 1) >= 1
        va_sa = "separate" if one_each else "same-cycle"
    else:
        va_sa = value("va_sa")
    in_bytes = [k for k in router_keys if k.endswith("_bytes")]
    if in_bytes and "flit_bytes" not in traffic_keys:
        return True
    buffer = router_keys["buffer_bytes"] // traffic_keys["flit_bytes"] if "buffer_bytes" in router_keys else value("buffer")
    return (value("vcs") < classes
            or iq and (router_keys.get("speedup", 1) != 1 or "output_buffer" in router_keys
                       or "output_buffer_bytes" in router_keys)
            or router_keys.get("speculative") is True and va_sa != "separate"
            or value("flow_control") == "vct" and buffer < TRAFFIC["packet_size"]
            # stage delays flitsim does not model (a VC turnaround of more than 2 cycles)
            or router_keys.get("routing_delay", 0) > 0
            or router_keys.get("vc_alloc_delay", 0) > 1 or router_keys.get("sw_alloc_delay", 0) > 1
            or router_keys.get("speculative") is True and value("speculation") == "lowest-priority"
            and value("sw_allocator") == "wavefront"
            # under the booksim preset only iSLIP iterates (BookSim2 ignores alloc_iters elsewhere)
            or router_keys.get("preset") == "booksim" and (
                value("alloc_iterations", 1) > 1 and value("vc_allocator") != "islip"
                or value("sa_iterations", value("alloc_iterations", 1)) > 1 and value("sw_allocator") != "islip"))


def test_the_matrix_covers_every_kind_and_router_key():
    assert set(TOPOLOGIES) == set(TOPOLOGY_KEYS), "add a small instance of the new kind to TOPOLOGIES"
    for key, rule in SCHEMA["router"].items():
        assert key_values(key, rule), f"router.{key}: no way to enumerate its values (a choice, true/false or an engine integer)"
        assert any(key in keys for keys, _ in CASES.values()), key


def test_router_keys_are_bit_identical_on_one_and_two_threads():
    # 16 routers x 8 replicas: the CPU executor gives each of 2 threads 64 (router, replica)
    # items (host/run/cpu_backend.cpp, kMinRoutersPerThread), so 2 threads really run.
    loads = [0.1 * (i + 1) for i in range(8)]
    bad = []
    for name, (router_keys, traffic_keys) in CASES.items():
        cfg = config("hyperx", "dor", router_keys, traffic_keys)
        cfg["topology"] = {"kind": "hyperx", "widths": [4, 4], "terminals": 1}
        try:
            one = flitsim.run_replicas(cfg, loads, backend="cpu", threads=1)
        except REFUSED:
            continue
        two = flitsim.run_replicas(cfg, loads, backend="cpu", threads=2)
        diff = [(i, differences(a, b)) for i, (a, b) in enumerate(zip(one, two)) if differences(a, b)]
        if diff:
            bad.append(f"[{name}]: {diff}")
    assert not bad, "\n".join(bad)


def test_every_router_key_runs_a_closed_loop_workload_or_refuses_clearly():
    # The same cases in a [workload] run (its own driver: runs until every message arrives):
    # an all-to-all of 64-byte messages among 9 ranks on a 3 x 3 HyperX (DOR). A case's
    # traffic.flit_bytes becomes workload.flit_bytes (a workload has one flit size: config.py).
    bad = []
    for name, (router_keys, traffic_keys) in CASES.items():
        fb = traffic_keys.get("flit_bytes", 16)
        cfg = {"topology": {"kind": "hyperx", "widths": [3, 3], "terminals": 1}, "router": router_of(router_keys),
               "routing": {"algorithm": "dor"}, "sim": {"watchdog": 2000},
               "workload": {"packet_size": TRAFFIC["packet_size"], "flit_bytes": fb,
                            "jobs": [{"motif": "alltoall", "bytes": 64, "ranks": 9}]}}
        try:
            r = flitsim.run(cfg, backend="cpu", threads=1)
        except REFUSED as e:
            if not must_refuse(router_keys, traffic_keys, classes=1):
                bad.append(f"[{name}]: refused: {e}")
            continue
        except Exception as e:  # a deadlock, a broken invariant, a crash
            bad.append(f"[{name}]: {type(e).__name__}: {str(e)[:300]}")
            continue
        if must_refuse(router_keys, traffic_keys, classes=1):
            bad.append(f"[{name}]: ran, but a rule refuses it")
        if r.ejected_flits != 9 * 8 * -(-64 // fb):  # every message's flits arrived
            bad.append(f"[{name}]: {r.ejected_flits} flits delivered")
        with step_order("shuffled:7"):
            diff = differences(r, flitsim.run(cfg, backend="cpu", threads=1))
        if diff:
            bad.append(f"[{name}]: shuffled step order changes {diff}")
    assert not bad, "\n".join(bad)


def test_every_router_key_gives_the_cpu_results_on_the_gpu():
    # Backends: every runnable case on one topology per routing family, CUDA against CPU field
    # by field (skipped, with the reason, without a usable GPU; tests/test_gpu.py has the rest).
    from conftest import cuda_usable
    ok, why = cuda_usable()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")
    bad = []
    for kind, alg in (("dragonfly", "ugal"), ("hyperx", "omniwar"), ("fattree", "updown"), ("slimfly", "valiant")):
        for name, keys in CASES.items():
            cfg = config(kind, alg, *keys)
            try:
                cpu = flitsim.run(cfg, backend="cpu", threads=1)
            except REFUSED:
                continue
            diff = differences(cpu, flitsim.run(cfg, backend="cuda"))
            if diff:
                bad.append(f"{kind}/{alg} [{name}]: {diff}")
    assert not bad, "\n".join(bad)


def routing_and_traffic_cases():
    """Issue 12's BookSim2 conventions outside [router], as cases: every value of every choice
    and true/false [routing] key (the engine's key table: Valiant intermediates, UGAL cost,
    selection, ...), uniform traffic that may pick the source, and the bad-dragon pattern."""
    out = {}
    for k in (k for k in _core.config_keys() if k["section"] == "routing"):
        values = k.get("choices") if k["type"] == "choice" else (False, True) if k["type"] == "bool" else ()
        if k["name"] != "algorithm":
            out.update({f"routing.{k['name']}={v}": ({}, {k["name"]: v}) for v in values})
    out["traffic.self=true"] = ({"self": True}, {})
    out["traffic.pattern=bad-dragon"] = ({"pattern": "bad-dragon"}, {})
    return out


@pytest.mark.parametrize("kind", sorted(TOPOLOGIES))
def test_routing_and_traffic_options_run_or_refuse_clearly_on_every_routing(kind):
    # Runs as the router cases do (invariants, delivery, order independence) or is refused
    # before simulating, naming the key (or router.vcs, when an option needs more VC classes:
    # Valiant "any" on the dragonfly's PAR).
    bad = []
    for alg in routings(kind):
        for name, (traffic_keys, routing_keys) in routing_and_traffic_cases().items():
            got = outcome(kind, alg, {}, traffic_keys, routing_keys)
            if got.startswith("refused without naming") and "router.vcs: " in got:
                continue
            if got not in ("ran", "refused"):
                bad.append(f"{kind}/{alg} [{name}]: {got}")
    assert not bad, f"{len(bad)} failures:\n" + "\n".join(bad[:30])
