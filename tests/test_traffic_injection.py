"""Injection processes and packet sizes (docs/traffic.md): the on/off source and random packet
sizes keep the offered load at traffic.load, conserve packets, and leave the default path
unchanged."""
import numpy as np
import pytest

import flitsim
from flitsim import _core
from conftest import small_dragonfly
from test_engine import assert_identical

LONG = {"warmup": 0, "measure": 20000, "drain_limit": 20000}


def run(traffic, **sim):
    return flitsim.run(small_dragonfly(traffic=traffic, sim={**LONG, **sim}), backend="cpu")


@pytest.mark.parametrize("traffic", [
    {"injection": "onoff", "burst_on": 10, "burst_off": 30, "load": 0.2},
    {"injection": "onoff", "burst_on": 50, "burst_off": 50, "load": 0.4, "packet_size": 4},
    {"packet_sizes": [1, 16], "load": 0.3},
    {"packet_sizes": [1, 16], "load": 0.3, "injection": "onoff", "burst_on": 20, "burst_off": 20},
])
def test_offered_load_equals_the_configured_load(traffic):
    r = run(traffic)
    # Batch-means 95 % interval over nodes; 2x of it is about 4 sigma.
    assert abs(r.offered - traffic["load"]) < 2 * r.offered_ci95, (r.offered, r.offered_ci95)
    assert r.offered_ci95 < 0.05 * traffic["load"]
    # Conservation: every packet created in the window is delivered after the drain, with
    # all its flits.
    assert r.packets_measured == r.packets_tagged
    assert abs(r.accepted - r.offered) < 0.01 * r.offered


def test_random_packet_sizes_have_the_uniform_mean():
    r = run({"packet_sizes": [1, 16], "load": 0.3})
    mean = r.created_flits / r.packets_tagged
    sd = np.sqrt((16 ** 2 - 1) / 12 / r.packets_tagged)  # uniform on 1..16: variance (n^2-1)/12
    assert abs(mean - 8.5) < 4 * sd, mean
    r = run({"packet_sizes": [3, 5], "load": 0.3})
    assert abs(r.created_flits / r.packets_tagged - 4.0) < 0.02


def test_a_one_value_size_range_is_the_fixed_size():
    fixed = run({"packet_size": 4, "load": 0.3}, measure=3000)
    assert_identical(fixed, run({"packet_sizes": [4, 4], "load": 0.3}, measure=3000))


def test_onoff_is_burstier_than_bernoulli():
    # Per-node created flits over the window: Bernoulli counts are binomial; an on/off source
    # with long periods adds the variance of its on time.
    bern = run({"load": 0.2}).node_created_flits
    burst = run({"load": 0.2, "injection": "onoff", "burst_on": 100, "burst_off": 100}).node_created_flits
    assert abs(burst.mean() - bern.mean()) < 0.03 * bern.mean()
    assert burst.var() > 4 * bern.var()


def test_onoff_waiting_for_packet_slots_loses_nothing():
    # Two packet slots per node: sources wait (the scan pointer and its chain state stop at the
    # waiting packet) and the queue is re-derived later; nothing is lost or duplicated.
    r = run({"injection": "onoff", "burst_on": 20, "burst_off": 20, "load": 0.4, "packet_sizes": [2, 6]},
            packet_slots=2)
    assert r.slot_stalls > 0
    assert r.packets_measured == r.packets_tagged
    assert abs(r.offered - 0.4) < 2 * r.offered_ci95


def test_onoff_is_thread_count_independent():
    cfg = small_dragonfly(traffic={"injection": "onoff", "burst_on": 8, "burst_off": 24, "load": 0.15,
                                   "packet_sizes": [1, 8], "pattern": "bitcomp"}, sim={"warmup": 100, "measure": 300})
    assert_identical(flitsim.run(cfg, backend="cpu", threads=1), flitsim.run(cfg, backend="cpu", threads=2))


@pytest.mark.parametrize("traffic,message", [
    ({"injection": "onoff", "burst_on": 10, "burst_off": 30, "load": 0.5},
     r"traffic\.load: 0\.5.* on/off bursts \(on 0\.25.*needs 2\.0+ packets/cycle while on"),
    ({"packet_sizes": [4, 2]}, r"traffic\.packet_sizes: must be \[min, max\] with 1 <= min <= max"),
    ({"packet_sizes": [1, 2, 3]}, r"traffic\.packet_sizes: must be \[min, max\]"),
    ({"injection": "poisson"}, r'traffic\.injection: unknown value "poisson"'),
    ({"burst_on": 0.5}, r"traffic\.burst_on: must be in \[1, 1e\+09\], got 0\.5"),
])
def test_injection_errors(traffic, message):
    with pytest.raises(ValueError, match=message):
        flitsim.run(small_dragonfly(traffic=traffic), backend="cpu")
