"""Traffic classes ([[traffic.class]], docs/traffic.md "Traffic classes"): independent sources
sharing the network, each with its own pattern, load, packet size, source set and priority.
Checked against exact identities (one class is plain [traffic]; the classes sum to the totals;
thread counts and replica batches agree), against what strict priority must do under overload
(the high class keeps its offered load, the low one absorbs the loss) and equal priority (equal
shares within a stated tolerance), and the refusals, each naming the key."""
import copy
import json

import numpy as np
import pytest

import flitsim
from flitsim.cli import main
from flitsim.config import ConfigError, apply_override, loads_config, normalize

BASE = {
    "topology": {"kind": "hyperx", "widths": [4, 4], "terminals": 2},
    "routing": {"algorithm": "dor"},
    "router": {"vcs": 4, "buffer": 8},
    "traffic": {"pattern": "uniform", "load": 0.2, "packet_size": 2},
    "sim": {"warmup": 300, "measure": 1000, "seed": 3, "drain_limit": 6000, "latency_bins": 2048},
}


def _cfg(classes=None, **sections):
    cfg = copy.deepcopy(BASE)
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    if classes is not None:
        cfg["traffic"]["class"] = copy.deepcopy(classes)
    return cfg


TWO = [{"load": 0.15, "priority": 1, "pattern": "uniform", "packet_size": 2},
       {"load": 0.2, "priority": 0, "pattern": "bitcomp", "packet_size": 4}]


@pytest.fixture(scope="module")
def two():
    return flitsim.run(_cfg(TWO), threads=1)


def _fields(r):
    return {k: v for k, v in r.summary().items() if k not in ("wall_seconds", "classes")}


def test_one_class_table_is_plain_traffic():
    plain = flitsim.run(_cfg(), threads=1)
    one = flitsim.run(_cfg([{"load": 0.2, "pattern": "uniform"}]), threads=1)
    assert _fields(one) == _fields(plain)
    np.testing.assert_array_equal(one.latency_hist, plain.latency_hist)
    np.testing.assert_array_equal(one.channel_flits, plain.channel_flits)
    (c,) = one.classes
    assert c.accepted == plain.accepted and c.latency_mean == plain.latency_mean
    assert one.summary()["classes"][0]["packets_measured"] == plain.packets_measured


def test_classes_sum_to_the_totals(two):
    r = two
    assert r.drained and len(r.classes) == 2
    for name in ("created_flits", "ejected_flits", "packets_measured", "latency_sum", "network_latency_sum", "hops_sum"):
        assert sum(getattr(c, name) for c in r.classes) == getattr(r, name), name
    np.testing.assert_array_equal(sum(c.latency_hist for c in r.classes), r.latency_hist)
    np.testing.assert_array_equal(sum(c.network_latency_hist for c in r.classes), r.network_latency_hist)
    assert sum(c.accepted for c in r.classes) == pytest.approx(r.accepted, abs=1e-12)


def test_each_class_offers_its_own_load_and_pattern(two):
    r = two
    lo, hi = r.classes
    # Bernoulli sources: offered within 4 standard errors of the configured load (32 nodes x 1000 cycles).
    for c, load, size in ((lo, 0.15, 2), (hi, 0.2, 4)):
        packets = 32 * 1000 * load / size
        assert c.offered == pytest.approx(load, abs=4 * load / np.sqrt(packets))
    # bitcomp on a 4x4 HyperX with 2 terminals: every packet crosses both dimensions (2 hops);
    # uniform traffic takes fewer on average.
    assert hi.hops_mean == 2.0
    assert lo.hops_mean < 2.0


def test_threads_and_replica_batches_agree():
    cfg = _cfg(TWO)
    one = flitsim.run(cfg, threads=1)
    two_threads = flitsim.run(cfg, threads=2)
    assert _fields(one) == _fields(two_threads)
    assert one.summary()["classes"] == two_threads.summary()["classes"]
    np.testing.assert_array_equal(one.class_sums, two_threads.class_sums)
    batch = flitsim.run_replicas(normalize(cfg), loads=[0.2, 0.3], seeds=[3, 3], threads=1)
    assert batch[0].summary()["classes"] == one.summary()["classes"]
    np.testing.assert_array_equal(batch[0].class_latency_hist, one.class_latency_hist)


def test_strict_priority_keeps_the_high_class_under_overload():
    # 0.3 + 0.9 offered on a network that saturates well below 1.2: the high class gets through.
    classes = [{"load": 0.3, "priority": 5}, {"load": 0.9, "priority": 0}]
    r = flitsim.run(_cfg(classes, sim={"drain_limit": 3000}), threads=1)
    high, low = r.classes
    assert high.accepted == pytest.approx(high.offered, rel=0.05)
    assert low.accepted < 0.8 * low.offered
    assert high.latency_mean < low.latency_mean
    # The same loads at equal priority: no such protection, the first class loses too.
    eq = flitsim.run(_cfg([{"load": 0.3}, {"load": 0.9}], sim={"drain_limit": 3000}), threads=1)
    assert eq.classes[0].latency_mean > high.latency_mean


def test_equal_priority_and_equal_load_share_equally():
    r = flitsim.run(_cfg([{"load": 0.2}, {"load": 0.2}]), threads=1)
    a, b = r.classes
    # Independent streams of the same process: accepted within 5 % of each other.
    assert a.accepted == pytest.approx(b.accepted, rel=0.05)
    assert a.latency_mean == pytest.approx(b.latency_mean, rel=0.1)


def test_source_sets_limit_which_nodes_create():
    r = flitsim.run(_cfg([{"load": 0.2, "sources": [0, 8]}, {"load": 0.1, "sources": [8, 32]}]), threads=1)
    created = r.node_created_flits
    assert r.classes[0].created_flits == int(created[:8].sum())  # nodes 0..7 create only class 0
    assert created[8:].sum() == r.classes[1].created_flits
    # class 0's offered load per network node: its load times its share of the nodes (4 s.e.)
    assert r.classes[0].offered == pytest.approx(0.2 * 8 / 32, abs=4 * 0.2 * 8 / 32 / np.sqrt(8 * 1000 * 0.1))


def test_priorities_at_both_allocators_and_age():
    # Each allocator variant with priorities runs and keeps the high class ahead under overload.
    for router in ({"vc_allocator": "separable-output-first", "sw_allocator": "separable-input-first"},
                   {"sw_allocator": "separable-output-first"}, {"arbitration": "age"},
                   {"va_sa": "separate", "speculative": True}, {"sw_input_arbiter": "output"},
                   {"architecture": "cioq", "speedup": 2}):
        classes = [{"load": 0.3, "priority": 2}, {"load": 0.9, "priority": 1}]
        r = flitsim.run(_cfg(classes, router=router, sim={"drain_limit": 3000}), threads=1)
        high, low = r.classes
        assert high.accepted == pytest.approx(high.offered, rel=0.05), router
        assert low.accepted < 0.8 * low.offered, router


def test_json_and_sweep_tables_list_the_classes(tmp_path, capsys):
    path = tmp_path / "two.toml"
    path.write_text(
        '[topology]\nkind = "hyperx"\nwidths = [4, 4]\nterminals = 2\n[routing]\nalgorithm = "dor"\n'
        '[sim]\nwarmup = 200\nmeasure = 500\n'
        '[[traffic.class]]\nload = 0.1\npriority = 1\n[[traffic.class]]\nload = 0.2\npattern = "bitcomp"\n')
    assert main(["run", str(path), "--json", "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["index"] for c in out["classes"]] == [0, 1]
    assert set(out["classes"][0]) >= {"offered", "accepted", "latency_mean", "latency_p99", "packets_measured"}
    assert sum(c["packets_measured"] for c in out["classes"]) == out["packets_measured"]
    h5 = tmp_path / "two.h5"
    assert main(["run", str(path), "--threads", "1", "-o", str(h5)]) == 0
    text = capsys.readouterr().out
    assert "class 1 (priority 0)" in text
    from flitsim.hdf5 import read_results
    (back,) = read_results(h5)
    assert [c.packets_measured for c in back.classes] == [c["packets_measured"] for c in out["classes"]]
    assert main(["show", str(h5)]) == 0
    shown = capsys.readouterr().out
    assert "accepted_c1" in shown
    lines = [ln.split() for ln in shown.splitlines()]
    assert ["class", "1", "load=0.2,", "pattern=bitcomp"] in lines   # one line per class
    assert main(["sweep", str(path), "--over", "traffic.class.1.load=0.1,0.2", "--threads", "1"]) == 0
    table = capsys.readouterr().out
    assert "accepted_c1" in table and "latency_mean_c0" in table


def test_set_addresses_a_class_key():
    cfg = loads_config('[[traffic.class]]\nload = 0.1\n[[traffic.class]]\nload = 0.2\n',
                       overrides=["traffic.class.1.load=0.3", "traffic.class.0.priority=2"])
    assert cfg["traffic"]["class"] == [{"load": 0.1, "priority": 2}, {"load": 0.3}]
    with pytest.raises(ConfigError, match=r"traffic\.class\.2\.load: the config has 2 traffic class"):
        apply_override(copy.deepcopy(cfg), "traffic.class.2.load=0.3")


@pytest.mark.parametrize("classes, match", [
    ([{"load": 0.1, "colour": "red"}], r'traffic\.class\.0: unknown key "colour"'),
    ([{"priority": 1.5}], r"traffic\.class\.0\.priority: must be an integer"),
    ([{"priority": "high"}], r"traffic\.class\.0\.priority: must be an integer"),
    ([{}] * 5, r"traffic\.class: at most 4 traffic classes, got 5"),
    ([{"load": 1.5}], r"traffic\.class\.0\.load"),
    ([{"sources": [4, 2]}], r"traffic\.class\.0\.sources: must be \[lo, hi\]"),
    ([{"shift": 3}], r"traffic\.class\.0\.shift: is only used by"),
    ([{"packet_size": 2, "packet_sizes": [1, 4]}], r"traffic\.class\.0\.packet_size"),
    ({"load": 0.1}, r"traffic\.class: must be an array of tables"),
])
def test_bad_class_tables_are_refused_naming_the_key(classes, match):
    with pytest.raises(ConfigError, match=match):
        normalize(_cfg(classes))


def test_refusals_before_the_run():
    with pytest.raises(ValueError, match=r"traffic\.class\.1\.sources: must be \[lo, hi\] with 0 <= lo < hi <= 32"):
        flitsim.run(_cfg([{}, {"sources": [0, 40]}]), threads=1)
    with pytest.raises(ConfigError, match=r"traffic\.injection"):
        normalize(_cfg([{}], traffic={"injection": "onoff"}))
    with pytest.raises(ConfigError, match=r"traffic\.reply_size"):
        normalize(_cfg([{}], traffic={"reply_size": 2}))
    with pytest.raises(ValueError, match=r"router\.sw_allocator: \"wavefront\" arbitrates by position"):
        flitsim.run(_cfg([{"priority": 1}, {}], router={"sw_allocator": "wavefront"}), threads=1)
    with pytest.raises(ValueError, match=r"traffic\.class\.1: traffic\.shift: is required"):
        flitsim.run(_cfg([{}, {"pattern": "shift"}]), threads=1)


def test_saturation_search_per_class():
    from flitsim.saturate import saturate
    # The high class alone at 0.3: the low class's own saturation load is what the network
    # leaves it; without the high class (load 0) it sustains more.
    base = _cfg([{"load": 0.3, "priority": 1}, {"priority": 0}], sim={"warmup": 200, "measure": 600})
    with_high = saturate(base, tolerance=0.05, threads=1, progress=False, traffic_class=1)
    alone = saturate(_cfg([{"load": 0.0, "priority": 1}, {"priority": 0}], sim={"warmup": 200, "measure": 600}),
                     tolerance=0.05, threads=1, progress=False, traffic_class=1)
    assert 0 < with_high.saturation < alone.saturation
    assert with_high.upper - with_high.saturation <= 0.05 + 1e-9
    # At the found load the class accepts what it offers (within sim.saturation_tolerance).
    best = max((p for p in with_high.probes if not p.saturated), key=lambda p: p.load)
    assert best.accepted >= 0.95 * best.offered
    with pytest.raises(ConfigError, match=r"traffic\.class\.1\.load: searching class 0"):
        saturate(_cfg([{"load": 0.1}, {}]), tolerance=0.05, threads=1, progress=False, traffic_class=0)
    with pytest.raises(ConfigError, match=r"--class: 2 is not a traffic class"):
        saturate(base, tolerance=0.05, threads=1, progress=False, traffic_class=2)


def test_plot_draws_one_class(tmp_path):
    pytest.importorskip("matplotlib")
    from flitsim.class_results import ClassView
    from flitsim.plot import plot_file
    from flitsim.sweep import sweep
    h5 = tmp_path / "sweep.h5"
    res = sweep(_cfg([{"load": 0.1, "priority": 1}, {"priority": 0}]), over=["traffic.load=0.1,0.3"],
                output=h5, threads=1, progress=False)
    view = ClassView(res.results[1], 1)
    c = res.results[1].classes[1]
    assert (view.accepted, view.latency_mean, view.offered) == (c.accepted, c.latency_mean, c.offered)
    assert view.seed == res.results[1].seed and view.saturated == res.results[1].saturated
    out = plot_file(h5, tmp_path / "c1.png", traffic_class=1)
    assert (tmp_path / "c1.png").stat().st_size > 0 and out.endswith("c1.png")
    with pytest.raises(ValueError, match="class: 2 is not a traffic class"):
        ClassView(res.results[0], 2)


def test_plain_traffic_sources_and_resolved_config():
    r = flitsim.run(_cfg(traffic={"sources": [8, 16]}), threads=1)
    assert r.node_created_flits[8:16].sum() == r.created_flits > 0
    from flitsim.config_keys import resolve
    full = resolve(normalize(_cfg(TWO)))
    # The [traffic] table keeps its own values; the classes travel as given.
    assert full["traffic"]["packet_size"] == 2 and full["traffic"]["priority"] == 0
    assert full["traffic"]["class"] == TWO
    assert normalize(full)["traffic"]["class"] == TWO


def test_routers_alone_favour_the_high_class():
    # Disjoint source sets: no interface holds packets of both classes, so what the high class
    # gains comes from the routers' allocators alone (its latency drops, the low class's rises).
    for router in ({}, {"arbitration": "age"}):
        def run(priority):
            classes = [{"load": 0.6, "priority": priority, "sources": [0, 16]},
                       {"load": 0.95, "priority": 0, "sources": [16, 32]}]
            return flitsim.run(_cfg(classes, router=router, sim={"drain_limit": 3000}), threads=1).classes
        (hi, lo), (hi_eq, lo_eq) = run(1), run(0)
        assert hi.latency_mean < 0.85 * hi_eq.latency_mean, router
        assert lo.latency_mean > lo_eq.latency_mean, router
