"""Figures a reviewer accepts: bars for a categorical x (no line joins categories), a
"saturated" legend entry only in a panel that draws saturated points, paper figures one
(3.5 in) or two (7.16 in) columns wide, and a note when intervals come from few seeds."""
import pytest

from results_factory import build_result

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg", force=True)
from flitsim import plot  # noqa: E402


def _points(xs, key, seeds=(1, 2, 3), saturated=()):
    points, results = [], []
    for x in xs:
        for s in seeds:
            points.append({key: x, "traffic.load": 0.5, "sim.seed": s})
            results.append(build_result(load=0.5, seed=s, saturated=x in saturated))
    return points, results


def _figure(monkeypatch, points, results, **kw):
    import matplotlib.pyplot as plt
    figs = []
    monkeypatch.setattr(plt.Figure, "savefig", lambda self, *a, **k: figs.append(self))
    monkeypatch.setattr(plt, "close", lambda *a: None)
    plot.plot_results(points, results, "x.png", **kw)
    return figs[0]


def test_categorical_x_draws_grouped_bars_with_t_intervals(monkeypatch):
    points, results = _points(["min", "ugal", "valiant"], "routing.algorithm")
    fig = _figure(monkeypatch, points, results, x="routing.algorithm", y="hops_mean")
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == 3                            # a bar per category, no joining line
    assert all(line.get_linestyle() in ("None", "") for line in ax.lines)
    from flitsim.plot.series import _ci
    expected = [sum(r.hops_mean for r in results[i:i + 3]) / 3 for i in (0, 3, 6)]
    assert [b.get_height() for b in bars] == pytest.approx(expected)
    # 95 % Student-t intervals over the three seeds as error bars
    seg = [s for c in ax.collections for s in c.get_segments()]
    assert [s[1][1] - s[0][1] for s in seg] == pytest.approx(
        [2 * _ci([r.hops_mean for r in results[i:i + 3]]) for i in (0, 3, 6)])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["MIN", "UGAL", "Valiant"]


def test_numeric_x_keeps_a_numeric_axis(monkeypatch):
    points, results = _points([2, 3, 4], "topology.p")
    fig = _figure(monkeypatch, points, results, x="topology.p", y="hops_mean")
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == [2, 3, 4] and not fig.axes[0].patches


@pytest.mark.parametrize("columns,width", [(1, 3.5), (2, 7.16)])
def test_paper_figures_are_one_or_two_columns_wide(monkeypatch, columns, width):
    points, results = _points([0.1, 0.3], "traffic.load", seeds=(1, 2, 3))
    points = [{"traffic.load": p["traffic.load"], "sim.seed": p["sim.seed"]} for p in points]
    results = [build_result(load=p["traffic.load"], seed=p["sim.seed"]) for p in points]
    fig = _figure(monkeypatch, points, results, style="paper", columns=columns,
                  panels=["latency", "throughput", "saturation"])
    assert tuple(fig.get_size_inches()) == pytest.approx((width, 2.0))


def test_saturated_legend_sits_where_saturated_points_are_drawn(monkeypatch):
    points = [{"traffic.load": x, "sim.seed": 1, "routing.algorithm": a}
              for a in ("min", "ugal") for x in (0.1, 0.9)]
    results = [build_result(load=p["traffic.load"], seed=1, saturated=p["traffic.load"] == 0.9)
               for p in points]
    fig = _figure(monkeypatch, points, results)       # latency (cut) then throughput (hollow)
    lat, thr = fig.axes[0], fig.axes[1]
    assert lat.get_legend() is None
    assert "saturated" in [t.get_text() for t in thr.get_legend().get_texts()]


@pytest.mark.parametrize("seeds,note", [((1, 2), "over 2 seeds"), ((1,), "one seed"),
                                        ((1, 2, 3), None)])
def test_few_seeds_are_noted_on_the_figure(monkeypatch, seeds, note):
    points, results = _points([0.1], "traffic.load", seeds=seeds)
    points = [{"traffic.load": 0.1, "sim.seed": p["sim.seed"]} for p in points]
    fig = _figure(monkeypatch, points, results)
    texts = [t.get_text() for t in fig.texts]
    assert (note is None and not texts) or any(note in t for t in texts)
