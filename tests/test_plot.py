"""Plots of result and sweep files (matplotlib optional)."""
import sys

import pytest

import flitsim
from flitsim.cli import main
from flitsim.hdf5 import write_results
from conftest import small_dragonfly


def cfg():
    return small_dragonfly(sim={"warmup": 100, "measure": 400})


def test_missing_matplotlib_gives_a_clear_message(monkeypatch, tmp_path, capsys):
    from flitsim import plot
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    with pytest.raises(plot.PlotUnavailable, match=r"pip install 'flitsim\[plot\]'"):
        plot.plot_file(tmp_path / "nothing.h5")
    assert main(["plot", str(tmp_path / "nothing.h5")]) == 1
    assert "matplotlib" in capsys.readouterr().err


def test_plot_sweep_file(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "s.h5"
    flitsim.sweep(cfg(), ["traffic.load=0.2,0.5,0.8", "topology.p=1,2"], output=out,
                  backend="cpu")
    assert main(["plot", str(out)]) == 0
    png = tmp_path / "s.png"
    assert png.exists() and png.stat().st_size > 20_000
    assert "plot written to" in capsys.readouterr().out


def test_plot_results_file(tmp_path):
    pytest.importorskip("matplotlib")
    from flitsim.plot import plot_file
    rs = flitsim.run_replicas(cfg(), [0.1, 0.4, 0.9], backend="cpu")
    write_results(tmp_path / "r.h5", rs, rs[0].config)
    out = plot_file(tmp_path / "r.h5", tmp_path / "r.svg")
    assert out.endswith("r.svg") and (tmp_path / "r.svg").stat().st_size > 20_000


def _sweep(tmp_path):
    out = tmp_path / "s.h5"
    flitsim.sweep(cfg() | {"router": {"vcs": 3, "buffer": 8, "latency": 1}},
                  ["traffic.load=0.2,0.9", "routing.algorithm=min,valiant", "sim.seed=1,2"],
                  output=out, backend="cpu")
    return out


def test_series_are_named_in_words_with_seeds_grouped(tmp_path):
    from flitsim.plot import read_points, series, value_words
    points, results = read_points(_sweep(tmp_path))
    groups = series(points, results)
    assert list(groups) == ["MIN", "Valiant"]
    assert [xv for xv, _ in groups["MIN"]] == [0.2, 0.9]
    assert all(len(rs) == 2 for _, rs in groups["MIN"])          # two seeds per point
    assert value_words("topology.p", 4) == "p = 4"
    assert value_words("routing.algorithm", "ugal", {"ugal": "UGAL-L"}) == "UGAL-L"
    renamed = series(points, results, labels={"routing.algorithm=min": "minimal"})
    assert list(renamed) == ["minimal", "Valiant"]


def test_saturation_bar_rules():
    from flitsim.plot import _saturation

    class R:
        def __init__(self, load, sat):
            self.load, self.saturated = load, sat
    pts = lambda *sats: [(0.1 * (i + 1), [R(0.1 * (i + 1), s)]) for i, s in enumerate(sats)]  # noqa: E731
    assert _saturation(pts(False, False, True, True)) == (pytest.approx(0.2), "knee")
    assert _saturation(pts(False, False)) == (pytest.approx(0.2), "not reached")
    assert _saturation(pts(True, True))[1] == "below range"


def test_paper_style_pdf_and_options(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = _sweep(tmp_path)
    pdf = tmp_path / "fig.pdf"
    assert main(["plot", str(out), "--style", "paper", "--metric", "p99", "-o", str(pdf),
                 "--panels", "latency,throughput,saturation,utilisation", "--title", "T",
                 "--xlim", "0:1", "--ylim", "0:500", "--size", "7,2", "--saturated", "mark",
                 "--label", "routing.algorithm=Routing"]) == 0
    assert pdf.read_bytes()[:5] == b"%PDF-"
    svg = tmp_path / "s.svg"
    assert main(["plot", str(out), "--format", "svg", "--x", "routing.algorithm",
                 "--y", "hops_mean"]) == 0 and svg.exists()
    assert main(["plot", str(out), "--panels", "latency,bogus"]) == 2
    assert "panels: each must be one of" in capsys.readouterr().err
    assert main(["plot", str(out), "--x", "router.vcs"]) == 2
    assert "not a swept key" in capsys.readouterr().err
