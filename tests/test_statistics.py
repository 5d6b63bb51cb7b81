"""Derived statistics on Result: percentiles, batch-means intervals, Jain's fairness."""
import dataclasses

import numpy as np
import pytest

import flitsim
from flitsim.results import _t_quantile
from conftest import small_dragonfly


@pytest.fixture(scope="module")
def res():
    return flitsim.run(small_dragonfly(traffic={"load": 0.3}), backend="cpu")


def test_t_quantiles():
    assert _t_quantile(0.95, 19) == pytest.approx(2.093, abs=2e-3)
    assert _t_quantile(0.95, 4) == pytest.approx(2.776, abs=5e-3)
    assert _t_quantile(0.99, 1000) == pytest.approx(2.581, abs=2e-3)


def test_percentiles_are_ordered(res):
    assert res.latency_p50 <= res.latency_p90 <= res.latency_p99 <= res.latency_p999 \
        <= res.latency_max
    assert res.network_latency_p50 <= res.network_latency_p90 <= res.network_latency_p99 \
        <= res.network_latency_p999
    per_packet = np.repeat(np.arange(res.latency_hist.size), res.latency_hist)
    assert res.latency_std == pytest.approx(per_packet.std(ddof=1))
    assert res.latency_p90 == np.percentile(per_packet, 90, method="inverted_cdf")


def test_batch_means_interval(res):
    mean, half = res.batch_means_ci(res.node_ejected_flits)
    assert mean == pytest.approx(res.accepted, rel=0.02)   # batches of 3 or 4 nodes
    assert 0 < half < 0.05
    # With time batches (sim.batches = 10 by default) the intervals are over time.
    assert res.batch_ejected.size == 10 and 0 < res.accepted_ci95 < 0.05
    assert abs(res.offered - 0.3) < 3 * res.offered_ci95 + 1e-3
    assert 0 < res.latency_mean_ci95 < 1


def test_time_batches_sum_to_the_window_totals(res):
    assert res.batch_ejected.sum() == res.ejected_flits
    assert res.batch_created.sum() == res.created_flits
    assert res.batch_latency.sum() == res.latency_sum
    assert res.batch_packets.sum() == res.packets_measured
    assert res.batch_cycles.sum() == res.measure
    # The time series averages back to the totals (weighted by batch length).
    assert np.average(res.batch_accepted, weights=res.batch_cycles) == pytest.approx(res.accepted)


def test_jain_fairness(res):
    assert 0.95 < res.fairness <= 1.0 and 0.95 < res.injection_fairness <= 1.0
    n = res.nodes
    even = dataclasses.replace(res, node_ejected_flits=np.full(n, 7, np.int64))
    assert even.fairness == pytest.approx(1.0)
    one = np.zeros(n, np.int64)
    one[3] = 100
    assert dataclasses.replace(res, node_ejected_flits=one).fairness == pytest.approx(1 / n)


@pytest.mark.parametrize("tol", [0.0, 0.05, 1.0])
def test_saturated_is_the_engines_rule_with_the_configured_tolerance(tol):
    cfg = small_dragonfly(sim={"warmup": 100, "measure": 300, "drain_limit": 300,
                               "saturation_tolerance": tol})
    for r in flitsim.run_replicas(cfg, loads=[0.1, 0.9], backend="cpu"):
        assert r.saturated == ((not r.drained) or r.accepted < (1 - tol) * r.offered)


def test_result_fields_follow_the_engine_statistics_schema():
    from flitsim import _core
    from flitsim.results import Result
    stats = [s["name"] for s in _core.replica_stats()]
    names = [f.name for f in dataclasses.fields(Result)]
    assert names[names.index("drained") + 1:][:len(stats)] == stats
    assert set(Result.ARRAY_FIELDS) | set(Result.SCALAR_FIELDS) >= set(stats)
