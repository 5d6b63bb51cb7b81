"""Order independence, checked on the CPU (the stand-in for compute-sanitizer's racecheck):
running every step's ports and every cycle's routers in reversed or seeded-shuffled order
(FLITSIM_STEP_ORDER, host/run/step_order.hpp) gives results bit-identical to the recorded corpus.
A step that read what another port of the same step writes, or a router that read another
router's state of the same cycle, would fail here. `warp` runs every router's cycle on an
emulated 32-lane warp (host/run/warp_emulator.hpp): the executor of the block, graph and persistent
CUDA schedules (cuda/lane_ports.cuh), its ballots and reductions included, lanes shuffled
between collectives.

Likewise the channels' two ring layouts (cuda/rings.cuh): the corpus runs with the arrival
calendar, and FLITSIM_CALENDAR=off runs it without (each ring its own slots, every port
received every cycle), which otherwise only delays of 256 cycles or more would reach."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import corpus

EXPECTED = json.loads(corpus.EXPECTED.read_text())
HERE = Path(__file__).parent

# The order is read when a backend is made, from the environment of the process: run each
# order in a subprocess so the test process keeps the natural order.
SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
import corpus
out = {{name: corpus.run_case(name, threads=1) for name in corpus.CASES}}
print(json.dumps(out))
"""


@pytest.mark.parametrize("setting", ["FLITSIM_STEP_ORDER=reversed", "FLITSIM_STEP_ORDER=shuffled:1",
                                     "FLITSIM_STEP_ORDER=shuffled:7", "FLITSIM_STEP_ORDER=warp:3",
                                     "FLITSIM_CALENDAR=off"])
def test_corpus_identical_in_any_step_and_router_order_and_ring_layout(setting):
    key, value = setting.split("=")
    env = dict(__import__("os").environ, OMP_NUM_THREADS="1", **{key: value})
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(here=str(HERE))], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    diffs = [d for name in corpus.CASES for d in corpus.compare(name, got[name], EXPECTED[name])]
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.parametrize("order", ["sideways", "warp:x", "shuffled:"])
def test_unknown_step_order_is_an_error(order):
    env = dict(__import__("os").environ, FLITSIM_STEP_ORDER=order)
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(here=str(HERE))], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "FLITSIM_STEP_ORDER" in proc.stderr
