"""`flitsim plot RUN.h5 --links`: per-channel utilisation pictures. The plotted values are the
recorded per-port flit counts over the window, checked port by port."""
import json

import numpy as np
import pytest

from conftest import small_dragonfly
from flitsim import engine
from flitsim.cli import main
from flitsim.config import normalize
from flitsim.hdf5 import write_results

pytest.importorskip("matplotlib")
from flitsim.plot.links import class_matrix, hottest, links_figure  # noqa: E402


def _run(cfg, tmp_path, name="run.h5"):
    cfg = normalize(cfg)
    r = engine.run(cfg, backend="cpu", progress=False)
    path = tmp_path / name
    write_results(path, [r], cfg)
    return r, cfg, path


def _expected(r, cls):
    """The heat map of a class built port by port from channel_flits (independently of
    class_matrix's vectorised version)."""
    u = r.channel_flits / r.measure
    net = [p for p in range(len(u)) if r.port_class[p] == cls]
    if all(r.peer_port[p] >= 0 for p in net):
        m = np.zeros((r.routers, r.routers))
        for p in net:
            m[r.port_router[p], r.port_router[r.peer_port[p]]] += u[p]
        return m
    rows = {}
    for p in net:
        rows.setdefault(int(r.port_router[p]), []).append(u[p])
    m = np.full((r.routers, max(len(v) for v in rows.values())), np.nan)
    for rr, vals in rows.items():
        m[rr, :len(vals)] = vals
    return m


@pytest.mark.parametrize("topo", [
    {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
    {"kind": "fattree", "k": 2, "n": 3},
    {"kind": "torus", "widths": [4, 3]},
    {"kind": "mesh", "widths": [3, 3], "terminals": 2},
])
def test_heat_maps_show_the_recorded_counts(tmp_path, topo):
    cfg = small_dragonfly(traffic={"load": 0.3}, router={"vcs": 4})
    cfg["topology"] = dict(topo)
    r, cfg, path = _run(cfg, tmp_path)
    fig = links_figure(r, cfg)
    classes = [c for c in range(len(r.class_names)) if (r.port_class == c).any()]
    layout = True     # every kind here has a layout drawing
    assert len(fig.axes) == len(classes) + layout + 1          # + the colour bar
    for ax, c in zip(fig.axes, classes):
        shown = np.asarray(ax.images[0].get_array().filled(np.nan), dtype=float)
        np.testing.assert_array_equal(shown, _expected(r, c))
        assert np.array_equal(class_matrix(r, c), _expected(r, c), equal_nan=True)
    # Every recorded flit is in one heat map: the sums agree with the counts.
    total = sum(np.nansum(_expected(r, c)) for c in classes)
    assert total == pytest.approx(r.channel_flits.sum() / r.measure, rel=1e-12)
    if layout:   # one line per router-to-router link, coloured by its busier direction
        lines = fig.axes[len(classes)].collections[0]
        links = int((r.peer_port >= 0).sum()) // 2
        assert len(lines.get_array()) == links
        u = r.channel_flits / r.measure
        busier = sorted(max(u[p], u[r.peer_port[p]]) for p in range(len(u))
                        if r.peer_port[p] > p)
        np.testing.assert_array_equal(np.sort(lines.get_array()), busier)


def test_cli_links_and_hottest_channels(tmp_path, capsys):
    r, cfg, path = _run(small_dragonfly(traffic={"load": 0.3}), tmp_path)
    assert main(["plot", str(path), "--links"]) == 0
    out = tmp_path / "run-links.png"
    assert out.exists() and out.stat().st_size > 0
    assert f"plot written to {out}" in capsys.readouterr().out
    assert main(["show", str(path)]) == 0
    text = capsys.readouterr().out
    top = hottest(r, 5)
    u = r.channel_flits / r.measure
    net = [p for p in range(len(u)) if r.peer_port[p] >= 0]
    assert [h["port"] for h in top] == sorted(net, key=lambda p: (-u[p], p))[:5]
    for h in top:
        assert (f"router {h['router']} port {h['port']} ({h['class']}) -> router "
                f"{h['to_router']}: {h['utilisation']:.3f}") in text
    assert main(["show", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hottest"] == top


def test_links_refuses_a_sweep_file(tmp_path, capsys):
    from flitsim.sweep import sweep
    sweep(small_dragonfly(), {"traffic.load": [0.1]}, output=tmp_path / "s.h5", backend="cpu",
          progress=False)
    assert main(["plot", str(tmp_path / "s.h5"), "--links"]) == 2
    assert "--links draws one run's channels" in capsys.readouterr().err


def test_layout_positions_follow_the_topology(tmp_path):
    # Torus/mesh routers sit on their grid (dimension 0 across, 1 down); fat-tree levels are
    # rows, the lowest at the bottom.
    from flitsim.plot.links import _layout
    import flitsim.topology as topology
    for topo in ({"kind": "torus", "widths": [4, 3]}, {"kind": "fattree", "k": 2, "n": 3}):
        cfg = normalize(small_dragonfly(router={"vcs": 4}) | {"topology": dict(topo)})
        kind, pos = _layout(None, cfg)
        coords = np.asarray(topology.build(cfg).router_coords)
        if topo["kind"] == "torus":
            assert kind == "torus"
            np.testing.assert_array_equal(pos[:, 0], coords[:, 0])
            np.testing.assert_array_equal(pos[:, 1], -coords[:, 1])
        else:
            assert kind == "levels"
            np.testing.assert_array_equal(pos[:, 1], 3.0 * coords[:, 0])
            for lv in np.unique(coords[:, 0]):   # a row's routers in index order, evenly spaced
                xs = pos[coords[:, 0] == lv, 0][np.argsort(coords[coords[:, 0] == lv, 1])]
                assert np.all(np.diff(xs) > 0) and np.allclose(np.diff(xs), np.diff(xs)[0])
