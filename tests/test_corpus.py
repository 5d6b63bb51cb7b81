"""Results stay bit-identical to the recorded corpus (tests/corpus.py): every routing, every
topology kind, multi-flit and variable packets, bursty injection, replicas and a workload.
A refactor that changes any field fails here with the case and the field; an intended
change of results re-records the corpus (`python tests/corpus.py --record`) and says why in
its commit."""
import json

import pytest

import corpus

EXPECTED = json.loads(corpus.EXPECTED.read_text())


def test_corpus_covers_every_case():
    assert sorted(EXPECTED) == sorted(corpus.CASES)


@pytest.mark.parametrize("name", sorted(corpus.CASES))
def test_corpus_case_unchanged(name):
    diffs = corpus.compare(name, corpus.run_case(name, threads=1), EXPECTED[name])
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.parametrize("name", ["df-min-replicas", "df-ugalg", "hx-omniwar-dcr", "hx-omniwar-ioq", "df-workload-alltoall",
                                  "torus-trace-replay"])
def test_corpus_case_unchanged_on_two_threads(name):
    diffs = corpus.compare(name, corpus.run_case(name, threads=2), EXPECTED[name])
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.parametrize("schedule", ["block", "graph", "persistent"])
def test_cpu_backend_ignores_the_cuda_schedule(schedule):
    diffs = corpus.compare("df-ugal-queue", corpus.run_case("df-ugal-queue", sim={"schedule": schedule}, threads=1),
                           EXPECTED["df-ugal-queue"])
    assert not diffs, "\n".join(diffs[:20])
