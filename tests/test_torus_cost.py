"""Cost of tori and meshes (src/flitsim/cost.py): every router-to-router link is copper, the
neighbour links and, with the folded layout, a torus's wrap-around links alike."""
import pytest

from flitsim import topology as T


@pytest.mark.parametrize("topo,links,dim0", [
    ({"kind": "torus", "widths": [8, 8], "terminals": 1}, 2 * 64, 64),         # D·R links
    ({"kind": "mesh", "widths": [8, 8], "terminals": 1}, 2 * 8 * 7, 8 * 7),    # Σ_d R·(W_d − 1)/W_d
    ({"kind": "torus", "widths": [4, 3, 2], "terminals": 2, "wrap": [True, True, False]}, 24 + 24 + 12, 24),
])
def test_torus_and_mesh_links_are_copper(topo, links, dim0):
    d = T.describe(topo, paths=False)
    assert (d["links_copper"], d["links_optical"]) == (links, 0)
    assert d["cost"] == pytest.approx(0.16 * links + 20 * d["routers"])
    # copper_classes replaces the rule: only dimension 0's links stay copper.
    d = T.describe(topo, cost={"copper_classes": ["dim0"]}, paths=False)
    assert (d["links_copper"], d["links_optical"]) == (dim0, links - dim0)
