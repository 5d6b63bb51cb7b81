"""Deroutes per packet (Result.extra_hops_mean): router hops beyond the minimal route."""
import pytest

import flitsim
from conftest import small_dragonfly

DF = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}
HX = {"kind": "hyperx", "widths": [4, 4], "terminals": 2}


def run(topology, routing, pattern="uniform", load=0.3):
    cfg = small_dragonfly(routing=routing, router={"vcs": 8}, traffic={"pattern": pattern, "load": load})
    cfg["topology"] = topology
    return flitsim.run(cfg, backend="cpu")


@pytest.mark.parametrize("topology,routing", [
    (DF, {"algorithm": "min"}), ({**DF, "groups": 5}, {"algorithm": "min"}),
    (HX, {"algorithm": "dor"}), ({"kind": "fattree", "k": 4, "n": 2}, {"algorithm": "updown"}),
    ({"kind": "slimfly", "q": 5}, {"algorithm": "min"}),
])
def test_minimal_routings_never_deroute(topology, routing):
    r = run(topology, routing)
    assert r.packets_measured > 0 and r.extra_hops == 0


def test_valiant_deroutes_and_hop_accounting_agrees():
    r = run(DF, {"algorithm": "valiant", "valiant": "any"})
    assert r.extra_hops_mean > 1.0          # LRL-LRL vs L-G-L: about two extra hops
    m = run(DF, {"algorithm": "min"})
    # Same traffic (same seed): the extra hops are exactly the difference in total hops.
    assert r.hops_sum - r.extra_hops == pytest.approx(m.hops_sum, rel=0.02)


def test_incremental_adaptive_deroutes_only_under_adversarial_traffic():
    quiet = run(HX, {"algorithm": "dimwar"}, load=0.1)
    hard = run(HX, {"algorithm": "dimwar"}, pattern="bitcomp", load=0.6)
    assert quiet.extra_hops_mean < 0.02 < hard.extra_hops_mean
