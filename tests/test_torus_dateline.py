"""routing.dateline for dor on a torus (cuda/routing/torus_dor.cuh): the class of every hop of
a route under the three rules, read from the engine's own route enumeration, and all three
acyclic in check_deadlock."""
import pytest

from flitsim import _core
from flitsim import topology as T
from flitsim.config import normalize
from flitsim.deadlock import check_deadlock
from test_torus_mesh import config, cube


def hop_classes(dateline, src, dst, W=8):
    """(router, direction, class) of each hop from router src to router dst on a W-ring
    (2 VCs: VC = class); direction 0 = + (toward x + 1), 1 = −."""
    topo = cube("torus", [W])
    cfg = config(topo, "dor", vcs=2)
    if dateline:
        cfg["routing"]["dateline"] = dateline
    t = T.build(topo)
    cp = t.tables["cube_port"].reshape(-1, 2)
    c = _core.route_candidates(normalize(cfg), [src])  # routes from router src only
    rows = sorted({(int(r), int(p), int(lo), int(hi)) for r, p, lo, hi, d in zip(
        c["router"], c["out_port"], c["out_vc_lo"], c["out_vc_hi"], c["dst_router"]) if d == dst and t.peer_port[p] >= 0})
    hops, r = [], src
    while r != dst:  # follow the route from src (one output per router: no tie on these pairs)
        (p, lo, hi), = [(p, lo, hi) for rr, p, lo, hi in rows if rr == r]
        assert hi - lo == 1
        direction = 0 if p == cp[r, 0] else 1
        hops.append((r, direction, lo))
        r = (r + (1 if direction == 0 else -1)) % W
    return hops


# (src, dst): right and crossing, left and crossing, left and not crossing, right and not crossing.
CASES = {
    None:      {(6, 1): [1, 1, 0], (1, 6): [1, 1, 0], (5, 3): [0, 0], (2, 4): [0, 0]},
    "sticky":  {(6, 1): [1, 1, 1], (1, 6): [1, 1, 1], (5, 3): [0, 0], (2, 4): [0, 0]},
    "booksim": {(6, 1): [1, 1, 1], (1, 6): [0, 0, 0], (5, 3): [1, 1], (2, 4): [0, 0]},
}


@pytest.mark.parametrize("dateline", list(CASES), ids=lambda d: d or "crossing")
def test_each_rule_gives_the_stated_class_per_hop(dateline):
    for (src, dst), classes in CASES[dateline].items():
        hops = hop_classes(dateline, src, dst)
        assert [cls for _, _, cls in hops] == classes, (src, dst, hops)
    # "crossing" is the default
    if dateline is None:
        assert hop_classes("crossing", 6, 1) == hop_classes(None, 6, 1)


@pytest.mark.parametrize("dateline", ["crossing", "sticky", "booksim"])
@pytest.mark.parametrize("topo", [cube("torus", [8, 8]), cube("torus", [5, 4], wrap=[True, False]), cube("torus", [3, 6])],
                         ids=lambda t: f'{t["widths"]}')
def test_every_rule_is_acyclic_on_two_vcs(dateline, topo):
    cfg = config(topo, "dor", vcs=2)
    cfg["routing"]["dateline"] = dateline
    assert check_deadlock(cfg).acyclic


def test_dateline_is_refused_where_unread():
    cfg = config(cube("torus", [4, 4]), "valiant-dor", vcs=4)
    cfg["routing"]["dateline"] = "sticky"
    with pytest.raises(ValueError, match=r'routing\.dateline: "sticky" applies to .*"dor"'):
        check_deadlock(cfg)
