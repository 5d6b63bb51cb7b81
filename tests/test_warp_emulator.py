"""The warp executor of the block-type CUDA schedules (cuda/lane_ports.cuh), checked on the CPU
through the emulated warp (host/run/warp_emulator.hpp): its collectives give the warp intrinsics'
results, it runs lanes in a seeded order, it reports lanes that part ways, and every Ports
operation of the warp executor equals the serial executor's for radices 1 to 64 (one and two
rounds of 32 lanes). tests/test_step_order.py runs the whole corpus on it."""
import re
from pathlib import Path

import pytest

from conftest import build_cpp_harness, run_engine_script


@pytest.fixture(scope="module")
def lanes(tmp_path_factory):
    import subprocess
    exe = build_cpp_harness(tmp_path_factory, "warp_lanes_harness", "host/run/warp_emulator.cpp")

    def run(*args, ok=True):
        proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=300)
        assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
        return proc.stdout.strip()
    return run


def test_collectives_give_the_warp_intrinsics_results(lanes):
    # ballot of lane % 3 == 0: bits 0, 3, ..., 30; OR of 1 << (lane % 8): 0xff; sum of 0..31: 496
    assert lanes("collectives") == "ballot 49249249 or ff add 496 collectives 3"


def test_lanes_run_in_a_seeded_order(lanes):
    first, again, other = lanes("order", 1), lanes("order", 1), lanes("order", 2)
    assert sorted(map(int, first.split())) == list(range(32))
    assert first == again and first != other


@pytest.mark.parametrize("radix", [1, 2, 7, 15, 31, 32, 33, 40, 63, 64])
def test_warp_executor_matches_the_serial_one(lanes, radix):
    assert lanes("ports", radix, 11, 300) == "ok 300 trials"


@pytest.mark.parametrize("how, message", [
    ("diverge-kind", r"lane 16 is at a ballot \(\S*warp_lanes_harness.cpp:\d+\) while lane 0 is at a sync "
                     r"\(\S*warp_lanes_harness.cpp:\d+\)"),
    ("diverge-site", r"lane 7 is at a ballot \(\S*warp_lanes_harness.cpp:(\d+)\) while lane 0 is at a ballot "
                     r"\(\S*warp_lanes_harness.cpp:(?!\1)\d+\)"),
    ("diverge-exit", r"lane 5 finished while lane 0 waits at a sync \(\S*warp_lanes_harness.cpp:\d+\)"),
])
def test_lanes_that_part_ways_are_reported(lanes, how, message):
    out = lanes(how)
    assert re.fullmatch("warp divergence: " + message, out), out


# A router of radix 34 (a 1-D HyperX of 34 routers, one node each): two rounds of 32 lanes in
# every step, which no corpus case (radix <= 16) reaches. The whole run on the emulated warp
# must equal the serial executor's, field by field.
RADIX_34 = """
import json, sys
sys.path.insert(0, {here!r})
import corpus, flitsim
cfg = {{"topology": {{"kind": "hyperx", "widths": [34], "terminals": 1}},
        "router": {{"vcs": 2, "buffer": 4}}, "routing": {{"algorithm": "{routing}"}},
        "traffic": {{"pattern": "uniform", "load": 0.7, "packet_size": 3}},
        "sim": {{"warmup": 50, "measure": 150, "seed": 2}}}}
print(json.dumps(corpus.fingerprint(flitsim.run(cfg, threads=1))))
"""


@pytest.mark.parametrize("routing", ["dor", "dimwar"])
def test_radix_above_32_identical_on_the_emulated_warp(routing):
    script = RADIX_34.format(here=str(Path(__file__).parent), routing=routing)
    natural = run_engine_script(script)
    assert natural["packets_measured"] > 100
    assert run_engine_script(script, order="warp:5") == natural


# The router models the corpus leaves out or runs once (its routers are mostly input-queued,
# round-robin): the output queues' drain step (a gather over every port; cioq's FIFO and ioq's
# per-VC queues) and speedup passes, virtual cut-through,
# age arbitration, speculation and the wavefront and output-first allocators.
ROUTER_MODELS = """
import json, sys
sys.path.insert(0, {here!r})
import corpus, flitsim
from conftest import small_dragonfly
out = []
for router in ({{"architecture": "cioq", "speedup": 2, "output_buffer": 6, "flow_control": "vct", "arbitration": "age"}},
               {{"architecture": "ioq", "speedup": 2, "output_buffer": 4, "vc_allocator": "separable-output-first"}},
               {{"va_sa": "separate", "speculative": True, "sw_allocator": "wavefront",
                 "vc_allocator": "separable-output-first", "alloc_iterations": 2}}):
    cfg = small_dragonfly(router={{"vcs": 3, "buffer": 8, **router}}, routing={{"algorithm": "ugal"}},
                          traffic={{"load": 0.6, "packet_size": 3}}, sim={{"warmup": 100, "measure": 200}})
    out.append(corpus.fingerprint(flitsim.run(cfg, threads=1)))
print(json.dumps(out))
"""


def test_router_models_identical_on_the_emulated_warp():
    script = ROUTER_MODELS.format(here=str(Path(__file__).parent))
    natural = run_engine_script(script)
    assert all(r["packets_measured"] > 100 for r in natural)
    assert run_engine_script(script, order="warp:4") == natural
