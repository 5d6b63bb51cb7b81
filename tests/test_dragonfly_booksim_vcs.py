"""routing.vc_scheme = "booksim": dragonfly UGAL-L on BookSim2's ugal_dragonflynew VCs (class 0
for every hop toward the intermediate, class 1 for the hops of the minimal route or of the
phase after the intermediate before its global hop, class 2 for that global hop and all after
it, and for packets that stay in their group; cuda/routing/dragonfly_ugal.cuh). Checked on the
engine's own candidate enumeration; the scheme is not deadlock-free and the checker says so."""
import numpy as np
import pytest

import flitsim
from conftest import small_dragonfly
from flitsim import topology
from flitsim.deadlock import check_deadlock, route_candidates

ROUTING = {"algorithm": "ugal", "valiant": "node", "vc_scheme": "booksim"}


@pytest.fixture(scope="module")
def routes():
    cfg = small_dragonfly(routing=ROUTING, router={"vcs": 3})
    t = topology.build(cfg)
    cand = route_candidates(cfg, t.num_routers)
    peer, owner = np.asarray(t.peer_port), np.asarray(t.port_router)
    out, inp = cand["out_port"], cand["in_port"]
    network = peer[out] >= 0
    group = lambda r: r // 4  # noqa: E731  (a = 4 routers per group)
    return dict(cand=cand, network=network, from_terminal=peer[inp] < 0,
                global_out=network & (group(owner[out]) != group(owner[np.maximum(peer[out], 0)])),
                same_group=group(cand["router"]) == group(cand["dst_router"]))


def test_each_hop_takes_one_of_three_single_vcs(routes):
    c, net = routes["cand"], routes["network"]
    assert set(zip(c["out_vc_lo"][net], c["out_vc_hi"][net])) == {(0, 1), (1, 2), (2, 3)}


def test_global_hops_are_on_vc_0_toward_the_intermediate_or_vc_2(routes):
    c, g = routes["cand"], routes["global_out"]
    assert g.sum() > 0 and set(c["out_vc_lo"][g]) == {0, 2}


def test_packets_for_their_own_group_stay_on_vc_2(routes):
    c = routes["cand"]
    src = routes["from_terminal"] & routes["network"] & routes["same_group"]
    assert src.sum() > 0 and set(c["out_vc_lo"][src]) == {2}


def test_the_vc_never_goes_down_along_a_route(routes):
    # 0 (toward the intermediate) -> 1 (after it, before the global hop) -> 2 (from the
    # global hop on): a head arriving on VC v leaves on a VC >= v.
    c = routes["cand"]
    hop = routes["network"] & ~routes["from_terminal"]
    assert (c["out_vc_lo"][hop] >= c["in_vc_lo"][hop]).all()
    assert (c["in_vc_lo"][hop] == 0).any() and (c["out_vc_lo"][hop][c["in_vc_lo"][hop] == 0] > 0).any()


def test_the_scheme_is_not_deadlock_free_and_the_checker_finds_the_cycle_on_vc_0():
    rep = check_deadlock(small_dragonfly(routing=ROUTING, router={"vcs": 3}))
    assert not rep.acyclic and rep.classes == 3
    assert {vc for _, _, _, vc in rep.cycle} == {0}, rep.summary()


def test_it_runs_on_three_vcs_and_delivers_at_low_load():
    # (offset 0: misroute on the flits in flight, so both kinds of route carry traffic)
    r = flitsim.run(small_dragonfly(routing={**ROUTING, "offset": 0}, router={"vcs": 3, "buffer": 16},
                                    traffic={"pattern": "bad-dragon", "load": 0.05},
                                    sim={"warmup": 0, "measure": 2000, "drain_limit": 5000}), backend="cpu")
    assert r.packets_measured == r.packets_tagged > 1000 and r.nonminimal_packets > 0


@pytest.mark.parametrize("routing,topo", [
    ({"algorithm": "valiant", "vc_scheme": "booksim"}, None),
    ({"algorithm": "ugal-g", "vc_scheme": "booksim"}, None),
    ({"algorithm": "ugal", "vc_scheme": "booksim"}, {"kind": "hyperx", "widths": [4, 4], "terminals": 2}),
])
def test_it_refuses_other_routings_and_topologies(routing, topo):
    cfg = small_dragonfly(routing=routing, router={"vcs": 4})
    if topo:
        cfg["topology"] = topo
        cfg["router"]["vcs"] = 8
    with pytest.raises(ValueError, match="routing.vc_scheme"):
        flitsim.run(cfg, backend="cpu")
