"""CUDA backend equals the CPU backend field by field (skipped, with the reason, without a GPU)."""
import numpy as np
import pytest

import flitsim
from conftest import cuda_usable, small_dragonfly

ok, why = cuda_usable()
pytestmark = pytest.mark.skipif(not ok, reason=f"no usable GPU: {why}")

FIELDS = ("latency_hist", "network_latency_hist", "hop_hist", "channel_flits", "node_created_flits",
          "batch_ejected", "batch_created", "batch_latency", "batch_packets",
          "node_ejected_flits", "created_flits", "ejected_flits", "packets_measured", "latency_sum",
          "network_latency_sum", "hops_sum", "slot_stalls", "cycles", "saturated")


SCHEDULES = ("router", "block", "graph", "persistent")


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("load,size", [(0.1, 1), (0.6, 4), (1.0, 3)])
def test_cuda_results_identical_to_cpu(load, size, schedule):
    cfg = small_dragonfly(router={"buffer": 4}, traffic={"load": load, "packet_size": size},
                          sim={"drain_limit": 3000, "schedule": schedule})
    cpu, gpu = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cuda")
    assert gpu.backend == "cuda"
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(cpu, k), getattr(gpu, k), err_msg=k)


@pytest.mark.parametrize("router", [{"preset": "booksim"}, {"vc_policy": "random"}, {"arbitration": "age"},
                                    {"flow_control": "vct"}])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cuda_router_model_identical_to_cpu(router, schedule):
    cfg = small_dragonfly(router={"vcs": 3, "buffer": 4, **router}, traffic={"load": 0.6, "packet_size": 3},
                          sim={"drain_limit": 3000, "schedule": schedule})
    cpu, gpu = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cuda")
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(cpu, k), getattr(gpu, k), err_msg=k)


@pytest.mark.parametrize("topology,routing", [
    ({"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, {"algorithm": "valiant", "valiant": "any"}),
    ({"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, {"algorithm": "ugal"}),
    ({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "groups": 5}, {"algorithm": "min", "selection": "adaptive"}),
    ({"kind": "hyperx", "widths": [4, 4], "terminals": 2}, {"algorithm": "dimwar"}),
    ({"kind": "hyperx", "widths": [4, 4], "terminals": 2}, {"algorithm": "omniwar"}),
    ({"kind": "hyperx", "widths": [4, 4], "terminals": 2}, {"algorithm": "clos-ad"}),
    ({"kind": "hyperx", "widths": [4, 4], "terminals": 2}, {"algorithm": "dal"}),
    ({"kind": "fattree", "k": 4, "n": 2}, {"algorithm": "updown"}),
    ({"kind": "slimfly", "q": 5}, {"algorithm": "ugal"}),
])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cuda_routings_identical_to_cpu(topology, routing, schedule):
    cfg = small_dragonfly(topology=topology, routing=routing, router={"vcs": 8, "buffer": 4},
                          traffic={"load": 0.7, "packet_size": 2},
                          sim={"drain_limit": 3000, "schedule": schedule})
    cfg["topology"] = topology
    cpu, gpu = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cuda")
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(cpu, k), getattr(gpu, k), err_msg=k)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cuda_workload_identical_to_cpu(schedule):
    cfg = small_dragonfly(sim={"schedule": schedule})
    cfg["workload"] = {"jobs": [{"motif": "alltoall", "ranks": 32, "bytes": 2048}]}
    cpu, gpu = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cuda")
    for k in ("channel_flits", "cycles", "latency_sum", "node_ejected_flits"):
        np.testing.assert_array_equal(getattr(cpu, k), getattr(gpu, k), err_msg=k)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cuda_replicas_identical_to_cpu(schedule):
    cfg = small_dragonfly(topology={"p": 3, "a": 6, "h": 3}, sim={"schedule": schedule})
    loads, seeds = [0.2, 0.5, 0.8], [1, 2, 3]
    cpu = flitsim.run_replicas(cfg, loads, seeds, backend="cpu")
    gpu = flitsim.run_replicas(cfg, loads, seeds, backend="cuda")
    for a, b in zip(cpu, gpu):
        for k in FIELDS:
            np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cuda_corpus_identical_to_cpu(schedule):
    """The whole regression corpus (every routing and topology kind) on each schedule."""
    import json
    import corpus
    expected = json.loads(corpus.EXPECTED.read_text())
    diffs = [d for name in corpus.CASES
             for d in corpus.compare(name, corpus.run_case(name, sim={"schedule": schedule}, backend="cuda"),
                                     expected[name])]
    assert not diffs, "\n".join(diffs[:20])
