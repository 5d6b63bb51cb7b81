"""Batching invariance (issue 34 item 1): a replica's results are those of a run of its own,
field by field, however many replicas share its engine run and whenever they finish.

Each replica stops at the chunk boundary where a run of its own would have ended (drained,
saturated, or at the drain limit), decided from its own counters, and stays frozen while its
batch-mates go on (host/run/driver.cpp, rep_stop_at in cuda/state.cuh). The loads below mix
replicas that drain quickly, replicas saturated at the window's end and replicas that need the
drain, so batch-mates finish at different cycles; every Result field but the wall time is
compared (the corpus fingerprint, tests/corpus.py)."""
import copy

import pytest

import corpus
import flitsim
from flitsim.sweep import sweep

# Saturated (0.85, 0.95, 1.0) and unsaturated (0.1, 0.3, 0.5) loads, interleaved.
LOADS = [0.1, 0.95, 0.3, 0.85, 0.5, 1.0, 0.6]
CASES = ["df-ugal-booksim", "df-min-onoff-sizes", "hx-closad-urb", "fattree-updown-adaptive"]


def _config(name):
    cfg, _ = corpus.CASES[name]
    return copy.deepcopy(cfg)


def _alone(cfg, load, seed=None, **kw):
    c = copy.deepcopy(cfg)
    c["traffic"]["load"] = load
    if seed is not None:
        c["sim"]["seed"] = seed
    return corpus.fingerprint(flitsim.run(c, backend="cpu", progress=False, **kw))


def _batched(cfg, loads, per_run, seeds=None, **kw):
    """Fingerprints of `loads` run `per_run` replicas at a time."""
    out = []
    for s in range(0, len(loads), per_run):
        part_seeds = None if seeds is None else seeds[s:s + per_run]
        out += [corpus.fingerprint(r) for r in flitsim.run_replicas(
            copy.deepcopy(cfg), loads[s:s + per_run], part_seeds, backend="cpu", progress=False, **kw)]
    return out


@pytest.fixture(scope="module")
def alone():
    return {name: [_alone(_config(name), x, threads=1) for x in LOADS] for name in CASES}


def test_the_loads_mix_saturated_and_sustained_replicas_that_end_at_different_cycles(alone):
    # Without this mix the comparison below could not fail: batch-mates that all end together
    # never run past one another.
    for name, fps in alone.items():
        assert {fp["saturated"] for fp in fps} == {False, True}, name
        assert len({fp["cycles"] for fp in fps}) >= 2, name


@pytest.mark.parametrize("per_run", [1, 2, 7])
@pytest.mark.parametrize("name", CASES)
def test_replicas_equal_separate_runs_field_by_field(alone, name, per_run):
    got = _batched(_config(name), LOADS, per_run, threads=1)
    diffs = corpus.compare(f"{name} x{per_run}", got, alone[name])
    assert not diffs, "\n".join(diffs[:20])


def test_replicas_equal_separate_runs_on_two_threads(alone):
    got = _batched(_config("df-ugal-booksim"), LOADS, 7, threads=2)
    diffs = corpus.compare("df-ugal-booksim x7 threads=2", got, alone["df-ugal-booksim"])
    assert not diffs, "\n".join(diffs[:20])


def test_seeds_as_replicas_equal_separate_runs():
    cfg = _config("df-ugalg")
    seeds = [1, 2, 3, 4]
    loads = [0.95, 0.2, 0.9, 0.4]
    want = [_alone(cfg, x, s, threads=1) for x, s in zip(loads, seeds)]
    got = _batched(cfg, loads, 4, seeds=seeds, threads=1)
    diffs = corpus.compare("df-ugalg seeds", got, want)
    assert not diffs, "\n".join(diffs[:20])


def test_workload_replicas_equal_separate_runs():
    # Closed loop: each replica's programs finish at their own cycle (random placement), and
    # its rates are per cycle of its own run.
    from flitsim.workload import run_replicas
    cfg = _config("df-workload-alltoall")
    cfg["sim"]["chunk"] = 8  # replicas then end at cycles that differ (ends are chunk boundaries)
    cfg["workload"]["jobs"][0]["placement"] = "random"
    seeds = [3, 4, 5]
    want = []
    for s in seeds:
        c = copy.deepcopy(cfg)
        c["sim"]["seed"] = s
        want.append(corpus.fingerprint(flitsim.run(c, backend="cpu", progress=False, threads=1)))
    got = [corpus.fingerprint(r) for r in run_replicas(copy.deepcopy(cfg), seeds, "cpu", False, 1)]
    assert len({fp["cycles"] for fp in want}) > 1  # they end at different cycles
    diffs = corpus.compare("df-workload-alltoall seeds", got, want)
    assert not diffs, "\n".join(diffs[:20])


def test_sweeps_with_other_max_replicas_and_resumed_ones_give_the_same_numbers(tmp_path):
    cfg = _config("df-ugal-booksim")
    over = {"traffic.load": LOADS}

    def table(res):
        return [corpus.fingerprint(r) for r in res.results]

    one = sweep(cfg, over, backend="cpu", max_replicas=1, progress=False, threads=1)
    seven = sweep(cfg, over, backend="cpu", max_replicas=7, progress=False, threads=1)
    assert not corpus.compare("sweep 7 vs 1", table(seven), table(one))
    # A sweep interrupted after its first batch of 2 and resumed with 3 per run.
    out = tmp_path / "resumed.h5"

    def stop(status):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(cfg, over, output=out, backend="cpu", max_replicas=2, progress=stop, threads=1)
    resumed = sweep(cfg, over, output=out, backend="cpu", max_replicas=3, progress=False, threads=1)
    assert 0 < resumed.resumed < len(LOADS)
    assert not corpus.compare("sweep resumed 2 -> 3 vs 1", table(resumed), table(one))
