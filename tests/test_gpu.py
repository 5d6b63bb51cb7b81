"""CUDA backend equals the CPU backend field by field (skipped, with the reason, without a GPU)."""
import numpy as np
import pytest

import flitsim
from conftest import cuda_usable, small_dragonfly

ok, why = cuda_usable()
pytestmark = pytest.mark.skipif(not ok, reason=f"no usable GPU: {why}")

FIELDS = ("latency_hist", "network_latency_hist", "hop_hist", "channel_flits", "node_created_flits",
          "node_ejected_flits", "created_flits", "ejected_flits", "packets_measured", "latency_sum",
          "network_latency_sum", "hops_sum", "slot_stalls", "cycles", "saturated")


@pytest.mark.parametrize("load,size", [(0.1, 1), (0.6, 4), (1.0, 3)])
def test_cuda_results_identical_to_cpu(load, size):
    cfg = small_dragonfly(router={"buffer": 4}, traffic={"load": load, "packet_size": size},
                          sim={"drain_limit": 3000})
    cpu, gpu = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cuda")
    assert gpu.backend == "cuda"
    for k in FIELDS:
        np.testing.assert_array_equal(getattr(cpu, k), getattr(gpu, k), err_msg=k)


def test_cuda_replicas_identical_to_cpu():
    cfg = small_dragonfly(topology={"p": 3, "a": 6, "h": 3})
    loads, seeds = [0.2, 0.5, 0.8], [1, 2, 3]
    cpu = flitsim.run_replicas(cfg, loads, seeds, backend="cpu")
    gpu = flitsim.run_replicas(cfg, loads, seeds, backend="cuda")
    for a, b in zip(cpu, gpu):
        for k in FIELDS:
            np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
