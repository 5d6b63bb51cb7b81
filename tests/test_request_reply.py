"""Request-reply traffic (traffic.reply_size, docs/traffic.md): each delivered request makes a
reply back to its source in a message class of its own VCs. Checked against exact identities
of the statistics (the totals are the sums of the classes, a round trip is a request plus its
reply), the VC ranges of the two classes, the deadlock checker, the refusals and the off path."""
import copy
import json

import numpy as np
import pytest

import flitsim
from flitsim import _core
from flitsim.cli import main
from flitsim.deadlock import check_deadlock, route_candidates

BASE = {
    "topology": {"kind": "hyperx", "widths": [4, 4], "terminals": 2},
    "routing": {"algorithm": "dor"},
    "router": {"vcs": 4, "buffer": 4},
    "traffic": {"pattern": "uniform", "load": 0.15, "packet_size": 2, "reply_size": 3},
    "sim": {"warmup": 200, "measure": 600, "seed": 5, "drain_limit": 4000, "latency_bins": 1024},
}


def _cfg(**sections):
    cfg = copy.deepcopy(BASE)
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return cfg


@pytest.fixture(scope="module")
def result():
    return flitsim.run(_cfg(), threads=1)


def test_every_measured_request_gets_its_reply(result):
    r = result
    assert r.has_replies and r.drained and not r.saturated
    assert r.requests_measured > 1000
    assert r.replies_measured == r.requests_measured          # one reply per measured request
    assert r.packets_measured == r.requests_measured + r.replies_measured
    assert r.packets_tagged == r.packets_measured              # drained: every one arrived


def test_totals_are_the_sums_of_the_message_classes(result):
    r = result
    assert r.latency_sum == r.request_latency_sum + r.reply_latency_sum
    np.testing.assert_array_equal(r.latency_hist, r.request_latency_hist + r.reply_latency_hist)
    assert int(r.request_latency_hist.sum()) == r.requests_measured
    assert int(r.round_trip_hist.sum()) == r.replies_measured


def test_a_round_trip_is_its_request_plus_its_reply(result):
    r = result
    # Every measured reply belongs to a measured request (the same set), so the sums add up.
    assert r.round_trip_sum == r.request_latency_sum + r.reply_latency_sum
    assert r.round_trip_latency_mean == pytest.approx(r.request_latency_mean + r.reply_latency_mean)
    assert r.round_trip_latency_p99 >= max(r.request_latency_p99, r.reply_latency_p99)
    # A reply of 3 flits takes at least its serialisation after its request's 2.
    assert r.reply_latency_mean > r.request_latency_mean


def test_accepted_load_per_message_class(result):
    r = result
    assert r.accepted == pytest.approx(r.accepted_request + r.accepted_reply)
    assert r.accepted_request == pytest.approx(r.offered, rel=0.05)        # below saturation
    # Every request flit pair makes three reply flits: replies carry 3/2 of the request flits
    # (window edges: a few percent).
    assert r.accepted_reply == pytest.approx(r.accepted_request * 3 / 2, rel=0.05)
    # Replies created in the window (3 flits per arriving request) match those accepted.
    assert r.reply_created_flits % 3 == 0
    assert r.reply_created_flits == pytest.approx(r.reply_ejected_flits, rel=0.05)
    s = r.summary()
    for k in ("request_latency_mean", "reply_latency_mean", "round_trip_latency_mean",
              "request_latency_p99", "reply_latency_p99", "round_trip_latency_p99",
              "accepted_request", "accepted_reply"):
        assert s[k] == getattr(r, k)


def test_without_replies_nothing_changes_shape():
    cfg = _cfg()
    del cfg["traffic"]["reply_size"]
    r = flitsim.run(cfg, threads=1)
    assert not r.has_replies
    assert r.request_latency_hist.size == 0 and r.reply_ejected_flits == 0 and r.requests_measured == 0
    assert "round_trip_latency_mean" not in r.summary()


def test_bit_identical_on_two_threads_and_in_a_replica_batch():
    one = flitsim.run(_cfg(), threads=1)
    two = flitsim.run(_cfg(), threads=2)
    for f in ("latency_hist", "round_trip_hist", "request_latency_hist", "channel_flits"):
        np.testing.assert_array_equal(getattr(one, f), getattr(two, f))
    batch = flitsim.run_replicas(_cfg(), [0.05, 0.15], threads=1)
    np.testing.assert_array_equal(batch[1].round_trip_hist, one.round_trip_hist)
    assert batch[1].round_trip_sum == one.round_trip_sum


TORUS_MIN_ADAPT = {"topology": {"kind": "torus", "widths": [4, 4], "terminals": 1},
                   "routing": {"algorithm": "min-adapt"}}


@pytest.mark.parametrize("sections, vcs", [
    ({"routing": {"algorithm": "valiant-dor"}}, 4),
    (TORUS_MIN_ADAPT, 6),      # Duato: 2 dateline escape classes + adaptive VCs per message class
])
def test_message_classes_use_disjoint_vc_halves(sections, vcs):
    cfg = flitsim.config.normalize(_cfg(**sections, router={"vcs": vcs}))
    half = vcs // 2
    setup = _core.routing_setup(cfg)
    assert setup["message_classes"] == 2 and setup["class_vcs"] == half
    cand = route_candidates(cfg, 16)
    lo, hi = cand["out_vc_lo"], cand["out_vc_hi"]
    # every allowed range lies in the requests' VCs [0, half) or the replies' [half, vcs), never both
    assert np.all((hi <= half) | (lo >= half)) and np.all(hi <= vcs)
    assert np.any(hi <= half) and np.any(lo >= half)
    rep = check_deadlock(cfg)
    assert rep.acyclic and rep.message_classes == 2
    assert "2 message classes" in rep.summary()


def test_duato_adaptive_vcs_stay_in_their_message_class():
    # min-adapt picks a free adaptive VC at run time (not in the enumeration above): replies
    # must take theirs among the replies' VCs. Near saturation, so that adaptive VCs fill.
    r = flitsim.run(_cfg(**TORUS_MIN_ADAPT, router={"vcs": 6},
                         traffic={"load": 0.35, "packet_size": 2, "reply_size": 2}), threads=1)
    assert r.drained and r.replies_measured == r.requests_measured > 0
    assert r.nonminimal_fraction == 0.0   # minimal adaptive: never a longer path


def test_odd_vc_count_leaves_one_vc_unused():
    r = flitsim.run(_cfg(router={"vcs": 3}, sim={"measure": 200}), threads=1)
    assert r.replies_measured == r.requests_measured > 0


@pytest.mark.parametrize("change, key", [
    ({"routing": {"algorithm": "valiant-dor"}, "router": {"vcs": 3}}, "router.vcs"),   # 2 classes x 2
    ({"traffic": {"reply_size": -1}}, "traffic.reply_size"),
    ({"traffic": {"reply_size": "4"}}, "traffic.reply_size"),
    ({"router": {"flow_control": "vct", "buffer": 2}}, "router.flow_control"),        # a 3-flit reply
])
def test_bad_input_is_refused_naming_the_key(change, key):
    cfg = _cfg()
    for sec, keys in change.items():
        cfg[sec].update(keys)
    with pytest.raises(ValueError) as e:  # flitsim.ConfigError or the engine's, both ValueErrors
        flitsim.run(cfg, threads=1)
    assert key in str(e.value)


def test_a_workload_refuses_replies():
    cfg = {"topology": BASE["topology"], "routing": {"algorithm": "dor"}, "router": {"vcs": 4},
           "traffic": {"reply_size": 2},
           "workload": {"packet_size": 2, "jobs": [{"motif": "alltoall", "ranks": 8, "bytes": 64}]}}
    with pytest.raises(Exception) as e:
        flitsim.run(cfg, threads=1)
    assert "reply_size" in str(e.value)


def test_saturated_request_reply_runs_without_protocol_deadlock():
    # Far past saturation the reply queues and the slots fill; separate VCs keep replies moving.
    r = flitsim.run(_cfg(traffic={"load": 1.0}, sim={"measure": 400, "drain_limit": 600}), threads=1)
    assert r.saturated
    assert r.replies_measured > 0 and r.accepted_reply > 0


def test_a_reply_backlog_is_saturation_though_requests_flow():
    # Every request goes to node 0, which must send all replies: 32 nodes x 0.02 one-flit
    # requests reach it at 0.64 flits/cycle (its sink takes 1), but their 4-flit replies need
    # 2.56 flits/cycle of its interface (it sends 1). The replies back up at node 0 while the
    # requests are still accepted at the offered rate; the throughput rule counts both classes
    # and calls the run saturated at the window's end, without waiting for the drain limit.
    r = flitsim.run(_cfg(traffic={"load": 0.02, "packet_size": 1, "reply_size": 4, "pattern": "hotspot",
                                  "hotspots": [0]}, sim={"drain_limit": 50000}), threads=1)
    assert r.accepted_request == pytest.approx(r.offered, rel=0.05)
    assert r.reply_ejected_flits == pytest.approx(r.measure, rel=0.02)   # node 0 sends 1 flit/cycle
    assert r.reply_created_flits > 2 * r.reply_ejected_flits
    assert r.saturated and r.cycles < 2 * (r.warmup + r.measure)


def test_cli_json_and_hdf5(tmp_path, capsys):
    path = tmp_path / "rr.toml"
    path.write_text(
        '[topology]\nkind = "hyperx"\nwidths = [4, 4]\nterminals = 2\n[routing]\nalgorithm = "dor"\n'
        '[traffic]\nload = 0.1\npacket_size = 2\nreply_size = 3\n'
        '[sim]\nwarmup = 100\nmeasure = 300\nseed = 2\n')
    out = tmp_path / "rr.h5"
    assert main(["run", str(path), "--json", "--threads", "1", "-o", str(out)]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["round_trip_latency_mean"] == pytest.approx(js["request_latency_mean"] + js["reply_latency_mean"])
    for k in ("request_latency_p99", "reply_latency_p99", "round_trip_latency_p99", "accepted_reply"):
        assert k in js
    (back,) = flitsim.hdf5.read_results(out)
    assert back.round_trip_latency_mean == js["round_trip_latency_mean"]
    np.testing.assert_array_equal(back.round_trip_hist.sum(), back.replies_measured)
    assert main(["run", str(path), "--threads", "1"]) == 0
    text = capsys.readouterr().out
    assert "round-trip latency" in text and "accepted by class" in text and "3-flit replies" in text
    assert main(["show", str(out)]) == 0
    assert "round_trip_latency_mean" in capsys.readouterr().out


def test_files_written_before_request_reply_still_read(tmp_path):
    # Files from before traffic.reply_size lack its fields: read as a run without replies.
    import h5py
    from test_hdf5 import _restamp
    from results_factory import build_result
    path = tmp_path / "old.h5"
    flitsim.hdf5.write_results(path, [build_result()], {"traffic": {"load": 0.1}})
    with h5py.File(path, "a") as f:
        rg = f["replicas"]["0"]
        for name in ("request_latency_sum", "round_trip_sum", "replies_measured", "reply_ejected_flits"):
            del rg.attrs[name]
        for name in ("request_latency_hist", "round_trip_hist"):
            del rg[name]
    _restamp(path)
    (r,) = flitsim.hdf5.read_results(path)
    assert not r.has_replies and r.round_trip_sum == 0 and r.round_trip_hist.size == 0
