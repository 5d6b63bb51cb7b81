"""The CPU executor's thread tuner (host/run/thread_tuner.hpp): when the user does not fix the
thread count, each run takes the count measured fastest, and the others are re-measured every
kExploreEvery (16) runs, so a run never stays long on a count that a busy machine made slow.
The policy runs on synthetic timings in tests/cpp/thread_tuner_harness.cpp; that results do
not depend on the thread count is tests/test_corpus.py's and test_threads*'s job."""
import subprocess

import pytest

from conftest import build_cpp_harness

EXPLORE_EVERY = 16


@pytest.fixture(scope="module")
def tuner(tmp_path_factory):
    exe = build_cpp_harness(tmp_path_factory, "thread_tuner_harness")

    def run(max_threads, runs, costs):
        out = subprocess.run([str(exe), str(max_threads), str(runs), costs], check=True,
                             capture_output=True, text=True, timeout=60).stdout
        return [int(x) for x in out.split()]
    return run


def test_tries_every_candidate_first_most_threads_first(tuner):
    assert tuner(8, 4, "1=1,2=1,4=1,8=1") == [8, 4, 2, 1]
    assert tuner(6, 4, "1=1,2=1,4=1,6=1") == [6, 4, 2, 1]  # max itself is a candidate


def test_one_thread_means_no_choice(tuner):
    assert tuner(1, 20, "1=1") == [1] * 20


def test_keeps_the_fastest_and_explores_once_per_period(tuner):
    chosen = tuner(2, 2 + 10 * EXPLORE_EVERY, "1=2,2=1")  # two threads twice as fast
    steady = chosen[2:]
    assert steady.count(1) == 10  # one re-measurement per period, no more
    assert all(t == 2 for i, t in enumerate(chosen[2:], start=2) if i % EXPLORE_EVERY != EXPLORE_EVERY - 1)


def test_busy_machine_makes_it_drop_to_one_thread_within_two_periods(tuner):
    switch = 100
    chosen = tuner(2, 300, f"1=2,2=1;1=1,2=3@{switch}")
    after = chosen[switch:]
    first_steady = next(i for i in range(len(after)) if all(t == 1 for t in after[i:i + EXPLORE_EVERY - 1]))
    assert first_steady <= 2 * EXPLORE_EVERY
    # from then on two threads only as the periodic re-measurement
    assert after[first_steady:].count(2) <= len(after[first_steady:]) // EXPLORE_EVERY + 1


def test_four_candidates_settle_on_the_fastest_middle_one(tuner):
    chosen = tuner(8, 4 + 4 * EXPLORE_EVERY, "1=4,2=2,4=1,8=3")
    assert chosen[4:].count(4) >= 4 * EXPLORE_EVERY - 4


@pytest.mark.parametrize("user_env,expected", [
    ({}, ("PASSIVE", "1000")),                                        # import flitsim's defaults
    ({"OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": "5"}, ("ACTIVE", "5")),  # the user's win
])
def test_barrier_waiting_defaults_leave_the_users_settings(user_env, expected):
    """`import flitsim` bounds how long a thread spins at the per-cycle barrier before it sleeps
    (src/flitsim/__init__.py), unless the user set the OpenMP variables themselves."""
    import os
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(user_env)
    out = subprocess.run([sys.executable, "-c", "import os, flitsim; "
                          "print(os.environ['OMP_WAIT_POLICY'], os.environ['GOMP_SPINCOUNT'])"],
                         env=env, check=True, capture_output=True, text=True, timeout=60).stdout
    assert tuple(out.splitlines()[-1].split()) == expected  # last line: an editable build may report first
