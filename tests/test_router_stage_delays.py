"""BookSim2-style stage delays (issue 12's "Pipeline"): router.routing_delay, vc_alloc_delay,
sw_alloc_delay and st_delay state router.latency and router.va_sa (host/config/router_stage_delays.cpp),
and router.credit_delay delays the credits between routers (host/init/initial_state.cpp). Checked
against BookSim2's per-router time (routing + allocation + switch traversal, allocation
being vc_alloc + sw_alloc, or their maximum when speculative) and the credit round trip."""
import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim.config import PIPELINE_DELAY_KEYS, STAGE_DELAY_KEYS, ConfigError, normalize
from flitsim.results import ENGINE_STATISTICS
from conftest import small_dragonfly

REFUSED = (ConfigError, _core.ConfigError)
STATISTICS = [s["name"] for s in ENGINE_STATISTICS] + ["cycles", "saturated", "drained"]


def booksim_cycles_per_router(routing_delay=0, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1, speculative=False):
    """Cycles a head spends in BookSim2's iq router at zero load, stage by stage (a stage of d
    cycles that starts in cycle t hands over in t + d); unset keys take the documented defaults."""
    alloc = max(vc_alloc_delay, sw_alloc_delay) if speculative else vc_alloc_delay + sw_alloc_delay
    return routing_delay + alloc + st_delay


def dragonfly_with(router):
    cfg = small_dragonfly(router=router, channels={"terminal": 2, "local": 3, "global": 3},
                          traffic={"load": 0.0008, "packet_size": 3}, sim={"warmup": 0, "measure": 8000})
    if "latency" not in router:
        del cfg["router"]["latency"]  # the stage delays state it
    return cfg


@pytest.mark.parametrize("delays", [
    {"vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_delay": 1},  # the booksim preset's pipeline
    {"st_delay": 4},
    {"st_delay": 0},
    {"vc_alloc_delay": 0, "st_delay": 1},                       # flitsim's default pipeline
    {"sw_alloc_delay": 0, "st_delay": 3},
    {"vc_alloc_delay": 0, "sw_alloc_delay": 0, "st_delay": 0},
    {"st_delay": 2, "speculative": True},
])
def test_zero_load_latency_is_booksim2s_time_per_router(delays):
    # The zero-load formula of test_engine, (S-1) + 2*Lt + (H+1)*D + H*Lc, with BookSim2's
    # per-router time D in place of flitsim's router latency.
    S, Lt, Lc = 3, 2, 3
    r = flitsim.run(dragonfly_with({"routing_delay": 0, **delays}), backend="cpu", threads=1)
    assert r.packets_measured >= 100
    D = booksim_cycles_per_router(**delays)
    assert r.latency_sum == r.packets_measured * ((S - 1) + 2 * Lt + D) + r.hops_sum * (D + Lc)
    assert r.hops_sum > r.packets_measured  # multi-hop paths: the per-router time counts per hop


@pytest.mark.parametrize("delays,explicit", [
    ({"vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_delay": 1}, {"latency": 2, "va_sa": "separate"}),
    ({"st_delay": 3}, {"latency": 4, "va_sa": "separate"}),
    ({"vc_alloc_delay": 0, "st_delay": 1}, {"latency": 2, "va_sa": "same-cycle"}),
    ({"sw_alloc_delay": 0, "st_delay": 0}, {"latency": 1, "va_sa": "same-cycle"}),
    ({"st_delay": 2, "speculative": True}, {"latency": 3, "va_sa": "separate", "speculative": True}),
])
def test_stage_delays_equal_their_latency_and_va_sa_bit_for_bit(delays, explicit):
    # At a load with contention, so that va_sa's turnaround and speculation matter too.
    def run(router):
        cfg = small_dragonfly(router=router, traffic={"load": 0.5, "packet_size": 2})
        if "latency" not in router:
            del cfg["router"]["latency"]
        return flitsim.run(cfg, backend="cpu", threads=1)
    a, b = run(delays), run(explicit)
    assert a.packets_measured > 0
    assert [k for k in STATISTICS if not np.array_equal(getattr(a, k), getattr(b, k))] == []
    # Giving both, when they agree, is the same run again.
    c = run({**delays, **explicit})
    assert [k for k in STATISTICS if not np.array_equal(getattr(a, k), getattr(c, k))] == []


def test_booksim_preset_is_the_default_stage_delays():
    # The booksim preset states latency 2 and va_sa = "separate": BookSim2's iq router with
    # routing_delay 0 and vc_alloc_delay = sw_alloc_delay = st_delay = 1 (docs/configuration.md).
    def run(router):
        cfg = small_dragonfly(router={"preset": "booksim", **router}, traffic={"load": 0.4})
        del cfg["router"]["latency"]
        return flitsim.run(cfg, backend="cpu", threads=1)
    a = run({})
    b = run({"routing_delay": 0, "vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_delay": 1})
    assert [k for k in STATISTICS if not np.array_equal(getattr(a, k), getattr(b, k))] == []


def two_routers(router, buffer, measure=4000):
    """Two routers, one node each, one link, one VC: each node's packets take the same path."""
    return {"topology": {"kind": "hyperx", "widths": [2], "terminals": 1},
            "router": {"vcs": 1, "buffer": buffer, **router}, "channels": {"latency": 1},
            "routing": {"algorithm": "dor"}, "traffic": {"pattern": "uniform", "load": 1.0, "packet_size": 1},
            "sim": {"warmup": 500, "measure": measure, "seed": 3}}


@pytest.mark.parametrize("pipeline,B,credit_delay", [
    ({"vc_alloc_delay": 0, "st_delay": 1}, 3, 0),
    ({"vc_alloc_delay": 0, "st_delay": 1}, 4, 0),
    ({"vc_alloc_delay": 0, "st_delay": 1}, 4, 2),
    ({"vc_alloc_delay": 0, "st_delay": 1}, 4, 4),
    ({"vc_alloc_delay": 0, "st_delay": 1}, 3, 5),
    ({"st_delay": 0}, 3, 3),
    ({"st_delay": 0}, 4, 0),
])
def test_credit_delay_lengthens_the_credit_round_trip(pipeline, B, credit_delay):
    # A flit that crosses router A's switch in cycle t reaches router B in t + Lr + Lc, leaves
    # B's buffer in that cycle (one more with va_sa = "separate"), and its credit reaches A
    # Lc + credit_delay cycles later, usable at once: a round trip of T = Lr + sep + 2*Lc +
    # credit_delay. One VC of B flits then carries min(B / T, its VC turnaround) flits per
    # cycle: 1, or 1/2 with separate allocation (one 1-flit packet every 2 cycles).
    Lc = 1
    same_cycle = pipeline.get("vc_alloc_delay", 1) == 0
    Lr = booksim_cycles_per_router(**pipeline) - (0 if same_cycle else 1)
    T = Lr + (0 if same_cycle else 1) + 2 * Lc + credit_delay
    cfg = two_routers({**pipeline, "credit_delay": credit_delay}, B)
    r = flitsim.run(cfg, backend="cpu", threads=1)
    rate = r.ejected_flits / (2 * cfg["sim"]["measure"])
    assert rate == pytest.approx(min(1.0 if same_cycle else 0.5, B / T), abs=0.003)


def test_credit_delay_works_with_router_latency_and_zero_changes_nothing():
    def run(router):
        return flitsim.run(two_routers({"latency": 1, **router}, 3, measure=1000), backend="cpu", threads=1)
    a, b = run({}), run({"credit_delay": 0})
    assert [k for k in STATISTICS if not np.array_equal(getattr(a, k), getattr(b, k))] == []
    # latency 1, same-cycle: T = 1 + 2 + 3 = 6 with 3 flits of buffer: a flit every 2 cycles.
    assert run({"credit_delay": 3}).ejected_flits / 2000 == pytest.approx(0.5, abs=0.005)


@pytest.mark.parametrize("router,names", [
    ({"routing_delay": 1}, ["router.routing_delay", "must be 0"]),
    ({"vc_alloc_delay": 2}, ["router.vc_alloc_delay", "must be 0 or 1"]),
    ({"sw_alloc_delay": 3, "st_delay": 1}, ["router.sw_alloc_delay", "must be 0 or 1"]),
    ({"st_delay": 1, "latency": 3}, ["router.latency", "router.st_delay", "latency = 2", "give one or the other"]),
    ({"st_delay": 1, "va_sa": "same-cycle"}, ["router.va_sa", "router.st_delay", '"separate"']),
    ({"vc_alloc_delay": 0, "speculative": True}, ["router.speculative", "router.vc_alloc_delay"]),
    ({"st_delay": 2**20}, ["router.st_delay", "[0, 1048575]"]),
    ({"credit_delay": -1}, ["router.credit_delay"]),
])
def test_refusals_name_the_keys_and_the_rule(router, names):
    cfg = small_dragonfly(router=router)
    if "latency" not in router:
        del cfg["router"]["latency"]
    with pytest.raises(REFUSED) as e:
        flitsim.run(cfg, backend="cpu")
    for n in names:
        assert n in str(e.value)
    try:
        checked = normalize(cfg)
    except ConfigError:
        return  # the schema's bounds: refused in Python
    # The engine's configuration check alone refuses it the same way, before anything simulates.
    with pytest.raises(REFUSED) as e2:
        _core.routing_setup(checked)
    assert str(e2.value) == str(e.value)


def test_stage_delay_keys_are_declared_once():
    # The schema's keys are the engine's list; any pipeline key replaces router.latency's default.
    assert PIPELINE_DELAY_KEYS + ("credit_delay",) == STAGE_DELAY_KEYS
    for k in STAGE_DELAY_KEYS:
        assert k in normalize({"router": {k: 0}})["router"]
    assert "latency" not in normalize({"router": {"st_delay": 0}})["router"]
    assert normalize({"router": {"credit_delay": 2}})["router"]["latency"] == 2
    assert "latency" not in normalize({"router": {"preset": "hyperx-paper", "st_delay": 0}})["router"]
