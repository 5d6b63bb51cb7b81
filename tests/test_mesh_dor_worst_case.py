"""The worst case for DOR on a k × k mesh (docs/traffic.md): transpose. Under DOR (x first) the
busiest links — one at each end of the diagonal's two corner rows and columns — carry the
flows of k − 1 sources each, so DOR saturates at 1/(k − 1) flits per node per cycle (1/7 on
8 × 8, against uniform's 4/k = 0.5); no permutation puts more than k − 1 flows
on one link under DOR (a row link is crossed only by sources of its row on one side of it, a
column link only by flows to destinations of its column on one side of it)."""
import numpy as np

from flitsim import topology as T
from test_torus_mesh import cube, run


def test_transpose_puts_k_minus_1_flows_on_the_busiest_mesh_links_under_dor():
    k, load, measure = 8, 0.1, 8000  # below the bound 1/7 ≈ 0.143: every flow is carried
    topo = cube("mesh", [k, k])
    r = run(topo, "dor", vcs=2, traffic={"pattern": "transpose", "load": load, "packet_size": 1, "self": False},
            sim={"warmup": 1000, "measure": measure})
    t = T.build(topo)
    per_cycle = np.asarray(r.channel_flits, float) / measure
    ring = np.asarray(t.peer_port) >= 0
    busiest = np.flatnonzero(ring & (per_cycle > (k - 1.5) * load))  # between k − 2 and k − 1 flows
    # Exactly the four predicted links, each at (k − 1)·load within sampling noise (5 %): node
    # (x, y) goes to (y, x), x first along row y, then along column y. Row k − 1's link from
    # x = k − 2 toward k − 1 carries all sources of that row, as row 0's link from x = 1 toward
    # 0 does; column 0's link from y = 0 toward 1 and column k − 1's from y = k − 1 toward
    # k − 2 carry all flows that turn there.
    cp = t.tables["cube_port"].reshape(-1, 4)  # per router: +x, −x, +y, −y
    rid = lambda x, y: x + k * y
    predicted = [cp[rid(k - 2, k - 1), 0], cp[rid(1, 0), 1], cp[rid(0, 0), 2], cp[rid(k - 1, k - 1), 3]]
    assert sorted(busiest.tolist()) == sorted(int(p) for p in predicted)
    assert np.allclose(per_cycle[busiest], (k - 1) * load, rtol=0.05)
    assert per_cycle[ring].max() <= (k - 1) * load * 1.05  # no link above it
