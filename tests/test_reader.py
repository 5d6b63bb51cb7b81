"""flitsim.open: result and sweep files as pandas tables."""
import numpy as np
import pytest

import flitsim
from flitsim.hdf5 import write_results
from conftest import small_dragonfly

pd = pytest.importorskip("pandas")


def test_open_results_file_gives_summary_histograms_and_channels(tmp_path):
    cfg = flitsim.normalize(small_dragonfly(traffic={"load": 0.3}))
    results = flitsim.run_replicas(cfg, loads=[0.2, 0.4], backend="cpu")
    path = tmp_path / "r.h5"
    write_results(path, results, cfg)
    f = flitsim.open(path)
    s = f.summary()
    assert len(s) == 2 and list(s["load"]) == [0.2, 0.4]
    assert np.allclose(s["accepted"], [r.accepted for r in results])
    h = f.histogram("hop_hist")
    assert (h.sum(axis=1).to_numpy() == [r.packets_measured for r in results]).all()
    ch = f.channels()
    assert len(ch) == 2 * results[0].channel_flits.size
    assert ch.groupby("result")["flits"].sum().tolist() == [int(r.channel_flits.sum()) for r in results]
    assert set(ch["class"]) == {"terminal", "local", "global"}
    assert f.nodes()["ejected_flits"].sum() == sum(r.ejected_flits for r in results)


def test_open_sweep_file_has_swept_columns(tmp_path):
    cfg = small_dragonfly(sim={"warmup": 100, "measure": 300})
    out = tmp_path / "s.h5"
    flitsim.sweep(cfg, over=["traffic.load=0.1,0.3", "router.vcs=2,4"], output=out)
    s = flitsim.open(out).summary()
    assert {"traffic.load", "router.vcs"} <= set(s.columns) and len(s) == 4
    assert sorted(zip(s["traffic.load"], s["router.vcs"])) == [(0.1, 2), (0.1, 4), (0.3, 2), (0.3, 4)]
