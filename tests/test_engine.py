"""The cycle engine against exact formulas and invariants (issue 2's test list)."""
import subprocess
import sys

import numpy as np
import pytest

import flitsim
from flitsim import _core
from conftest import small_dragonfly

ARRAYS = ("latency_hist", "network_latency_hist", "hop_hist", "channel_flits",
          "node_created_flits", "node_ejected_flits", "batch_ejected", "batch_created",
          "batch_latency", "batch_packets")
SCALARS = ("created_flits", "ejected_flits", "packets_measured", "packets_tagged", "latency_sum",
           "network_latency_sum", "hops_sum", "slot_stalls", "cycles", "saturated")


def assert_identical(a, b):
    for k in ARRAYS:
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    for k in SCALARS:
        assert getattr(a, k) == getattr(b, k), k


@pytest.mark.parametrize("allocators", [{}, {"sw_allocator": "wavefront"}, {"sw_allocator": "separable-output-first"},
                                        {"vc_allocator": "wavefront"}, {"vc_allocator": "separable-output-first"}])
def test_zero_load_latency_equals_formula(allocators):
    # Without contention a packet of S flits over H router-to-router hops takes
    # (S-1) + 2*Lt + (H+1)*Lr + H*Lc cycles from creation to tail arrival (terminal latency
    # Lt both ways, router pipeline Lr at every router, channel latency Lc per hop), whichever
    # allocators the router uses (the wavefront switch allocator once let an idle input's
    # match of an earlier cycle hold its output: 5 cycles more at load 0.1).
    S, Lt, Lr, Lc = 3, 2, 1, 3
    cfg = small_dragonfly(router={"latency": Lr, **allocators}, channels={"terminal": Lt, "local": Lc, "global": Lc},
                          traffic={"load": 0.0015, "packet_size": S}, sim={"warmup": 0, "measure": 4000})
    r = flitsim.run(cfg, backend="cpu")
    assert r.packets_measured >= 100
    per_packet = (S - 1) + 2 * Lt + Lr
    assert r.latency_sum == r.packets_measured * per_packet + r.hops_sum * (Lr + Lc)
    assert r.network_latency_sum == r.latency_sum  # no source queueing at zero load


def test_hop_counts_are_minimal_and_match_topology():
    cfg = small_dragonfly(traffic={"load": 0.2}, sim={"measure": 3000})
    r = flitsim.run(cfg, backend="cpu")
    h = r.hop_hist
    assert h[4:].sum() == 0 and h[1] > 0 and h[2] > 0 and h[3] > 0  # dragonfly MIN: 1..3 hops
    # Expected mean hops of MIN (local, global, local) paths under uniform traffic, from the
    # topology's gateway tables (BFS distances can be shorter: global-global detours).
    t = _core.build_topology(cfg["topology"])
    a_, G, p = t["attrs"]["a"], t["attrs"]["groups"], t["attrs"]["p"]
    gw, gp = t["tables"]["gateway_router"], t["tables"]["gateway_port"]
    far = t["port_router"][t["peer_port"][gp[gp >= 0]]]
    far_end = np.full(G * G, -1)
    far_end[gp >= 0] = far
    R = t["num_routers"]
    hops = np.zeros((R, R))
    for s_ in range(R):
        for d in range(R):
            gs, gd = s_ // a_, d // a_
            if s_ == d:
                continue
            if gs == gd:
                hops[s_, d] = 1
            else:
                hops[s_, d] = (gw[gs * G + gd] != s_) + 1 + (far_end[gs * G + gd] != d)
    n = R * p
    expected = hops.sum() * p * p / (n * (n - 1))
    per_packet = np.repeat(np.arange(h.size), h)
    sem = per_packet.std() / np.sqrt(per_packet.size)
    assert abs(r.hops_mean - expected) < 4 * sem


def test_accepted_equals_offered_at_low_load():
    cfg = small_dragonfly(topology={"p": 3, "a": 6, "h": 3}, router={"vcs": 2},
                          traffic={"load": 0.1, "packet_size": 2}, sim={"measure": 2000})
    r = flitsim.run(cfg, backend="cpu")
    flits = r.nodes * r.measure
    sigma = np.sqrt(0.05 * 0.95 / flits) * 2  # packets are Bernoulli(0.05), 2 flits each
    assert abs(r.offered - 0.1) < 4 * sigma
    assert abs(r.accepted - r.offered) < 0.02 * r.offered
    assert not r.saturated and r.drained


def test_saturated_run_conserves_and_reports_saturation():
    cfg = small_dragonfly(router={"buffer": 4}, traffic={"load": 1.0, "packet_size": 4},
                          sim={"drain_limit": 200})
    r = flitsim.run(cfg, backend="cpu")  # conservation is checked by the engine at the end
    assert r.saturated
    assert r.accepted < r.offered


def test_results_identical_across_thread_counts():
    cfg = small_dragonfly(router={"buffer": 4}, traffic={"load": 0.6, "packet_size": 3})
    assert_identical(flitsim.run(cfg, backend="cpu", threads=1), flitsim.run(cfg, backend="cpu", threads=2))


def test_same_seed_same_result_other_seed_differs():
    cfg = small_dragonfly(traffic={"load": 0.4})
    a, b = flitsim.run(cfg, backend="cpu"), flitsim.run(cfg, backend="cpu")
    assert_identical(a, b)
    cfg["sim"]["seed"] = 2
    c = flitsim.run(cfg, backend="cpu")
    assert not np.array_equal(a.latency_hist, c.latency_hist)


def test_replicas_in_one_run_equal_separate_runs():
    cfg = small_dragonfly(traffic={"load": 0.3})
    batch = flitsim.run_replicas(cfg, loads=[0.3, 0.7], seeds=[1, 5], backend="cpu")
    for res, (load, seed) in zip(batch, [(0.3, 1), (0.7, 5)]):
        single = small_dragonfly(traffic={"load": load}, sim={"seed": seed})
        alone = flitsim.run(single, backend="cpu")
        for k in ARRAYS:
            np.testing.assert_array_equal(getattr(res, k), getattr(alone, k), err_msg=k)
        assert res.latency_sum == alone.latency_sum and res.created_flits == alone.created_flits


# One config per feature with its own replicated arrays: the CPU executor runs each replica of a
# batch in a view whose arrays start at that replica's slice (host/run/cpu_backend.cpp,
# replica_views); a wrong slice stride would make a later replica differ from its run alone.
REPLICA_FEATURES = {
    # Adversarial traffic, so that the adaptive choices depend on the congestion they sense.
    "ugal-g snapshot": dict(routing={"algorithm": "ugal-g", "snapshot_period": 3}, router={"vcs": 3},
                            traffic={"pattern": "group-shift", "shift": 1}),
    "ugal demand": dict(routing={"algorithm": "ugal"}, router={"vcs": 3},
                        traffic={"pattern": "group-shift", "shift": 1}),
    "on/off sources, sizes": dict(traffic={"injection": "onoff", "burst_on": 5, "burst_off": 8,
                                           "packet_sizes": [1, 4]}),
    "cioq output queues": dict(router={"architecture": "cioq", "speedup": 2, "output_buffer": 8}),
    "randperm table": dict(traffic={"pattern": "randperm", "packet_size": 2}),
}


@pytest.mark.parametrize("feature", list(REPLICA_FEATURES))
def test_every_replica_of_a_batch_equals_its_run_alone(feature):
    keys = REPLICA_FEATURES[feature]
    loads, seeds = [0.06, 0.12, 0.09], [3, 1, 7]  # below saturation: a saturated replica stops at once alone
    batch = flitsim.run_replicas(small_dragonfly(**keys), loads=loads, seeds=seeds, backend="cpu", threads=1)
    for i, (res, load, seed) in enumerate(zip(batch, loads, seeds)):
        cfg = small_dragonfly(**keys)
        cfg["traffic"]["load"], cfg["sim"]["seed"] = load, seed
        alone = flitsim.run(cfg, backend="cpu", threads=1)
        for k in ARRAYS:
            np.testing.assert_array_equal(getattr(res, k), getattr(alone, k), err_msg=f"replica {i}: {k}")
        for k in SCALARS:  # a batch runs until its last replica is done: cycles may differ
            assert k == "cycles" or getattr(res, k) == getattr(alone, k), f"replica {i}: {k}"


def test_watchdog_reports_deadlock_with_blocked_vcs():
    # One VC class on a dragonfly allows cyclic channel dependencies; at full load it locks up.
    cfg = small_dragonfly(router={"vcs": 1, "buffer": 2}, routing={"deadlock_avoidance": False},
                          traffic={"load": 1.0, "packet_size": 8}, sim={"watchdog": 300})
    with pytest.raises(RuntimeError, match=r"(?s)deadlock: no flit moved .*router \d+ input port \d+ VC 0"):
        flitsim.run(cfg, backend="cpu")
    # The same traffic with the 2-class scheme runs to completion.
    cfg = small_dragonfly(router={"vcs": 2, "buffer": 2}, traffic={"load": 1.0, "packet_size": 8},
                          sim={"watchdog": 300, "drain_limit": 2000})
    flitsim.run(cfg, backend="cpu")


def test_deadlock_before_the_window_ends_is_not_disguised_as_saturation():
    # The same lock-up forms at cycle ~305; the window ends at 350, long before the watchdog
    # (1000) expires. The replica then looks saturated (accepted << offered), but nothing moves:
    # the run must go on until the watchdog reports the deadlock, not stop as "saturated".
    cfg = small_dragonfly(router={"vcs": 1, "buffer": 2}, routing={"deadlock_avoidance": False},
                          traffic={"load": 1.0, "packet_size": 8},
                          sim={"warmup": 100, "measure": 250, "drain_limit": 100, "watchdog": 1000})
    with pytest.raises(RuntimeError, match=r"deadlock: no flit moved for 10\d\d cycles \(watchdog 1000\)"):
        flitsim.run(cfg, backend="cpu")
    # A saturated network that keeps moving still stops at the window's end.
    sat = flitsim.run(small_dragonfly(traffic={"load": 1.0}, sim={"warmup": 100, "measure": 250,
                                                                 "drain_limit": 100}), backend="cpu")
    assert sat.saturated and sat.cycles <= 350 + 128


def test_credit_bound_saturated_network_stops(tmp_path):
    # Two routers, one VC of 2 flits, router latency 2: the credit round trip (6 cycles) is
    # longer than the buffer, so flits move in bursts and pause. At seed 3 every chunk boundary
    # fell in a pause, and the driver, taking each pause for a lock-up that may have just
    # formed, ran this saturated replica forever. It must stop as saturated within a chunk or
    # two of the drain limit. Run in a child process so a regression fails instead of hanging.
    script = tmp_path / "run.py"
    script.write_text(
        "import flitsim\n"
        "c = {'topology': {'kind': 'hyperx', 'widths': [2], 'terminals': 1},\n"
        "     'router': {'vcs': 1, 'buffer': 2, 'latency': 2}, 'routing': {'algorithm': 'dor'},\n"
        "     'traffic': {'pattern': 'uniform', 'load': 1.0, 'packet_size': 1},\n"
        "     'sim': {'warmup': 100, 'measure': 400, 'seed': 3, 'drain_limit': 1000}}\n"
        "r = flitsim.run(c, backend='cpu', threads=1, progress=False)\n"
        "print(r.saturated, r.cycles)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True)
    saturated, cycles = out.stdout.splitlines()[-1].split()  # last line: an editable install may print its rebuild
    assert saturated == "True" and int(cycles) <= 100 + 400 + 2 * 128


@pytest.mark.parametrize("section,key,value,message", [
    ("router", "vcs", 1, r"router\.vcs: routing \"min\" on dragonfly needs at least 2 VCs"),
    ("channels", "optical", 5, r"channels\.optical: no channel class \"optical\""),
    ("topology", "kind", "moebius", r"topology\.kind: unknown topology \"moebius\""),
    ("topology", "groups", 20, r"topology\.groups"),  # more than a*h+1 = 9
    ("routing", "algorithm", "bogus", r"routing\.algorithm"),
    ("traffic", "pattern", "bogus", r"traffic\.pattern"),
    ("sim", "batches", 5000, r"sim\.batches: must be <= sim\.measure = 1000"),
])
def test_engine_rejects_bad_values_before_running(section, key, value, message):
    cfg = small_dragonfly(**{section: {key: value}})
    with pytest.raises(ValueError, match=message):
        _core.simulate(cfg, "cpu")  # the engine's own checks, without the Python front end


def test_engine_config_errors_are_the_front_ends_config_error():
    # A rule the engine checks (not the front end) is still a flitsim.ConfigError, so one
    # `except flitsim.ConfigError` catches every refused configuration.
    assert issubclass(_core.ConfigError, flitsim.ConfigError)
    with pytest.raises(flitsim.ConfigError, match=r"router\.vcs: routing \"min\" on dragonfly needs at least 2 VCs"):
        _core.simulate(small_dragonfly(router={"vcs": 1}), "cpu")


def test_explicit_cuda_backend_without_gpu_is_a_clear_error():
    ok, why = _core.cuda_usable()
    if ok:
        pytest.skip("a GPU is usable here")
    with pytest.raises(ValueError, match="backend: cuda was requested but"):
        _core.simulate(small_dragonfly(), "cuda")
