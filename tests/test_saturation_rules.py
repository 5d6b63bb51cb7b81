"""sim.saturation (issue 35 item 4): the rule that calls a replica saturated, selectable among
flitsim's accepted-rate rule (the default), BookSim2's latency threshold and latency/throughput
stabilisation, each checked against its documented formula on the Result's own counters; the
latency rule's early stop never changes a verdict and keeps batching invariance."""
import copy

import pytest

import corpus
import flitsim
from flitsim.config import ConfigError, normalize

LOADS = [0.1, 0.4, 0.6, 0.75, 0.9, 1.0]


def _cfg(**sim):
    cfg, _ = corpus.CASES["df-ugal-booksim"]
    cfg = copy.deepcopy(cfg)
    cfg["sim"].update(sim)
    return cfg


def _runs(cfg, loads=LOADS):
    return flitsim.run_replicas(copy.deepcopy(cfg), loads, backend="cpu", progress=False, threads=1)


def _over(r, threshold):
    return r.latency_sum > threshold * r.packets_measured


def _drifting(r, tolerance, measure):
    """The "stable" rule as docs/configuration.md states it, from the per-batch counters."""
    B = len(r.batch_ejected)
    h = B // 2
    c1 = (h * measure + B - 1) // B
    c2 = measure - c1
    lat = [sum(r.batch_latency[:h]), sum(r.batch_latency[h:])]
    pk = [sum(r.batch_packets[:h]), sum(r.batch_packets[h:])]
    ej = [sum(r.batch_ejected[:h]), sum(r.batch_ejected[h:])]
    if pk[0] and pk[1] and lat[1] / pk[1] > (1 + tolerance) * (lat[0] / pk[0]):
        return True
    return ej[1] / c2 < (1 - tolerance) * (ej[0] / c1)


def test_the_default_is_todays_accepted_rule():
    from flitsim import _core
    assert "saturation" not in normalize(_cfg())["sim"]  # configs made before the key stay the same
    assert _core.engine_values(normalize(_cfg()))["sim"]["saturation"] == "accepted"
    for r in _runs(_cfg()):
        below = r.ejected_flits < (1 - 0.05) * r.created_flits
        assert r.saturated == (not r.drained or below)


def test_latency_rule_needs_a_threshold_and_stable_two_batches():
    # Refused before simulating (the engine's rules between keys), naming the key and the rule.
    with pytest.raises(ValueError, match=r'^sim\.saturation: "latency" \(BookSim2\'s criterion\) needs '
                                         r'sim\.latency_threshold'):
        flitsim.run(_cfg(saturation="latency"), backend="cpu", progress=False)
    with pytest.raises(ValueError, match=r'^sim\.saturation: "stable" .* needs sim\.batches >= 2, got 1'):
        flitsim.run(_cfg(saturation="stable", batches=1), backend="cpu", progress=False)
    with pytest.raises(ConfigError, match=r"^sim\.saturation: unknown value \"booksim\" \(known: accepted, latency, stable\)"):
        normalize(_cfg(saturation="booksim"))


@pytest.fixture(scope="module")
def full_runs():
    """Every load run until its measured packets arrived (or the drain limit): the latency rule
    with a threshold no mean reaches stops nothing early."""
    return _runs(_cfg(saturation="latency", latency_threshold=10**9))


@pytest.mark.parametrize("threshold", [20, 60, 150])
def test_latency_rule_is_bookSim2s_threshold_and_its_early_stop_keeps_the_verdict(full_runs, threshold):
    got = _runs(_cfg(saturation="latency", latency_threshold=threshold))
    verdicts = []
    for g, full in zip(got, full_runs):
        # The verdict of a run that waited for every measured packet: the early stop changes none.
        want = not full.drained or _over(full, threshold)
        assert g.saturated == want, (g.load, threshold)
        verdicts.append(want)
        if g.cycles == full.cycles:  # not stopped early: the same run
            assert corpus.fingerprint(g) == corpus.fingerprint(full) | {"saturated": g.saturated}
        else:  # stopped before its drain, once the verdict was certain
            assert g.saturated and not g.drained and g.cycles < full.cycles
            missing = g.packets_tagged - g.packets_measured
            least = g.cycles - (g.warmup + g.measure) + 1
            assert g.latency_sum + missing * least > threshold * g.packets_tagged
    assert True in verdicts and False in verdicts  # the loads straddle the threshold
    # and the early stop happened: every saturated replica here ended before its full run did
    assert all(g.cycles < f.cycles for g, f in zip(got, full_runs) if g.saturated)


def test_latency_rule_ignores_the_accepted_rate(full_runs):
    # A threshold no mean reaches: only undrained replicas are saturated, even where accepted <
    # 0.95 x offered (the default rule's verdict).
    assert any(r.drained and r.ejected_flits < 0.95 * r.created_flits for r in full_runs)
    for r in full_runs:
        assert r.saturated == (not r.drained)


def test_stable_rule_is_the_drift_between_the_window_halves():
    cfg = _cfg(saturation="stable", batches=4)
    got = _runs(cfg)
    for r in got:
        assert r.saturated == (not r.drained or _drifting(r, 0.05, cfg["sim"]["measure"])), r.load
    assert {r.saturated for r in got} == {False, True}


@pytest.mark.parametrize("rule", [dict(saturation="latency", latency_threshold=60),
                                  dict(saturation="stable")])
def test_every_rule_keeps_batching_invariance(rule):
    cfg = _cfg(**rule)
    batch = [corpus.fingerprint(r) for r in _runs(cfg)]
    alone = []
    for x in LOADS:
        c = copy.deepcopy(cfg)
        c["traffic"]["load"] = x
        alone.append(corpus.fingerprint(flitsim.run(c, backend="cpu", progress=False, threads=1)))
    diffs = corpus.compare(str(rule), batch, alone)
    assert not diffs, "\n".join(diffs[:20])


def test_saturate_reports_the_rule_it_ran_with():
    cfg = _cfg(saturation="latency", latency_threshold=60)
    res = flitsim.saturate(cfg, tolerance=0.05, probes=4, backend="cpu", progress=False, threads=1)
    assert 'sim.saturation = "latency"' in res.criterion and "sim.latency_threshold" in res.criterion
    for p in res.probes:
        if not p.saturated:
            assert p.latency <= 60
    assert all(p.saturated for p in res.probes if p.load >= res.upper)
