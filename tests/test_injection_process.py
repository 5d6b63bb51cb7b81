"""The Bernoulli injection process (cuda/traffic/injection.cuh) draws the gaps between a node's
packets instead of a draw per node and cycle. It must still be the Bernoulli process: a packet
in each cycle independently with probability p = load / packet_size, i.e. gaps with the
geometric law P(gap = g) = p (1 - p)^(g - 1). Checked on the sampler's gaps against that
formula, and on the engine's creations against the sampler and against the binomial law of
per-cycle counts."""
import math

import numpy as np
import pytest

import flitsim
from flitsim import _core
from conftest import small_dragonfly


def chi2_upper(df, z=4.0):
    """Chi-square quantile z standard deviations above the mean (Wilson-Hilferty); z = 4 is
    about a 3e-5 false-alarm rate."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def geometric_chi2(gaps, p):
    """Pearson's statistic of `gaps` against P(g) = p (1 - p)^(g - 1): one bin per gap while
    each bin and the rest expect >= 20, then one tail bin. Returns (statistic, degrees of freedom)."""
    n, counts = len(gaps), np.bincount(gaps)
    stat, g = 0.0, 1
    while n * p * (1 - p) ** (g - 1) >= 20 and n * (1 - p) ** g >= 20:
        e = n * p * (1 - p) ** (g - 1)
        o = counts[g] if g < len(counts) else 0
        stat += (o - e) ** 2 / e
        g += 1
    e_tail = n * (1 - p) ** (g - 1)  # P(gap >= g)
    stat += ((gaps >= g).sum() - e_tail) ** 2 / e_tail
    return stat, g - 1  # g bins, one constraint (they sum to n)


def bernoulli_config(load, packet_size, **sim):
    return small_dragonfly(traffic={"load": load, "packet_size": packet_size}, sim=sim)


@pytest.mark.parametrize("load,packet_size", [
    (0.3, 1),    # p = 0.3: short gaps
    (0.08, 4),   # p = 0.02
    (0.004, 2),  # p = 0.002: 60 % of the gaps exceed the 256-cycle table (redrawn, memoryless)
])
def test_gaps_are_geometric(load, packet_size):
    p, n = load / packet_size, 200_000
    gaps = _core.creation_gaps(bernoulli_config(load, packet_size), 5, n)
    assert gaps.min() >= 1
    # Mean 1/p, standard deviation sqrt(1 - p) / p per gap; 4 standard errors.
    assert abs(gaps.mean() - 1 / p) < 4 * math.sqrt(1 - p) / p / math.sqrt(n), gaps.mean()
    stat, df = geometric_chi2(gaps, p)
    assert df >= 10
    assert stat < chi2_upper(df), (stat, df)


def test_certain_creation_is_every_cycle():
    assert (_core.creation_gaps(bernoulli_config(1.0, 1), 0, 1000) == 1).all()


def test_nodes_draw_independent_gaps():
    cfg = bernoulli_config(0.1, 1)
    a, b = _core.creation_gaps(cfg, 0, 50_000), _core.creation_gaps(cfg, 1, 50_000)
    assert not np.array_equal(a, b)
    assert abs(np.corrcoef(a, b)[0, 1]) < 4 / math.sqrt(50_000)


def test_engine_creates_exactly_the_sampled_packets():
    # Packet k of node n is created at cycle sum(gaps[:k + 1]) - 1; the engine must count exactly
    # those inside the window, node by node.
    warmup, measure = 300, 2000
    cfg = bernoulli_config(0.2, 2, warmup=warmup, measure=measure, drain_limit=3000)
    r = flitsim.run(cfg, backend="cpu", threads=1, progress=False)
    created = np.asarray(r.node_created_flits) // 2
    for n in range(len(created)):
        cycles = np.cumsum(_core.creation_gaps(cfg, n, 2000)) - 1
        assert cycles[-1] >= warmup + measure  # drew past the window
        assert created[n] == ((cycles >= warmup) & (cycles < warmup + measure)).sum(), n


def test_per_cycle_creations_are_independent_binomial():
    # X_t, the packets all N nodes create in cycle t (sim.batches = sim.measure: one batch a
    # cycle), must be Binomial(N, p) and independent across cycles. For one node's renewal
    # process Cov(X_t, X_t+k) = N p (u_k - p), u_k the chance of a packet k cycles after one;
    # u_k = p for k = 1..L holds exactly when the gaps are geometric up to L.
    T, p = 20_000, 0.3
    cfg = bernoulli_config(p, 1, warmup=0, measure=T, batches=T, drain_limit=2000)
    r = flitsim.run(cfg, backend="cpu", threads=1, progress=False)
    x = np.asarray(r.batch_created, dtype=float)
    N = len(r.node_created_flits)
    assert len(x) == T
    var = N * p * (1 - p)
    assert abs(x.mean() - N * p) < 4 * math.sqrt(var / T), x.mean()
    # Sample variance: relative standard error sqrt((2 + excess kurtosis) / T) for a binomial.
    kurt = (1 - 6 * p * (1 - p)) / var
    assert abs(x.var() / var - 1) < 4 * math.sqrt((2 + kurt) / T), x.var() / var
    d = x - x.mean()
    lags = np.array([(d[:-k] * d[k:]).mean() / d.var() for k in range(1, 31)])
    assert np.abs(lags).max() < 4.5 / math.sqrt(T), lags  # each ~ N(0, 1/T) when independent
