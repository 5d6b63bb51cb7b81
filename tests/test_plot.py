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
