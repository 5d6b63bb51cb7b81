"""Closed-loop message workloads (issue 7): programs, motifs, matching, placement, per-job
metrics, determinism, noise. Small networks only (<= 80 nodes); the set runs in well under a
minute on one core."""
import json
import math
import pathlib

import numpy as np
import pytest

import flitsim
import flitsim.workload as wl
from flitsim.config import ConfigError, normalize
from flitsim.hdf5 import read_results, write_results
from conftest import small_dragonfly

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"


def dragonfly(jobs, **workload):
    """The 72-node test dragonfly running `jobs`."""
    return small_dragonfly(workload={"jobs": jobs, "packet_size": 4, **workload})


def run(cfg, **kw):
    return flitsim.run(cfg, backend="cpu", **kw)


# --- delivery and termination ----------------------------------------------------------------

def test_alltoall_delivers_every_message_exactly_once():
    N = 72
    r = run(dragonfly([{"motif": "alltoall", "ranks": N, "bytes": 100}]))  # 7 flits: 2 packets
    w = r.workload
    assert w.job_messages[0] == w.job_delivered[0] == N * (N - 1)
    assert w.job_packets[0] == 2 * N * (N - 1) == r.packets_measured == r.packets_tagged
    assert w.job_bytes[0] == 100 * N * (N - 1) and w.job_flits[0] == 7 * N * (N - 1)
    assert r.created_flits == r.ejected_flits == w.job_flits[0]  # nothing left in the network
    assert (w.node_finish >= 0).all() and w.job_unfinished[0] == 0
    assert w.foreground_end == w.job_finish[0] < r.cycles
    # Every step of every program finished after it started.
    st = w.steps
    assert (st["done"] >= st["start"]).all() and (st["start"] >= 0).all()
    assert not r.saturated and r.workload.jobs_table()[0]["delivered"] == N * (N - 1)


def test_alltoall_message_counts_per_size():
    # An all-to-all of N ranks sends N(N-1) messages whatever the job size and placement.
    for n in (2, 5, 17):
        r = run(dragonfly([{"motif": "alltoall", "ranks": n, "bytes": 16, "placement": "random"}]))
        assert r.workload.job_delivered[0] == r.workload.job_messages[0] == n * (n - 1)


def test_per_job_metrics_follow_their_definitions():
    r = run(dragonfly([{"motif": "alltoall", "ranks": 24, "bytes": 640},
                       {"motif": "allreduce", "ranks": 24, "bytes": 64, "start": 100}],
                      flit_bytes=32, link_gbps=200))
    w = r.workload
    assert w.cycle_seconds == pytest.approx(32 * 8 / 200e9)
    comp = w.job_last_delivery - w.job_first_inject + 1
    np.testing.assert_array_equal(w.completion_cycles, comp)
    np.testing.assert_allclose(w.effective_throughput, w.job_bytes / (comp * w.job_ranks * 32))
    assert w.job_first_inject[1] >= 100  # `start` delays the job
    np.testing.assert_array_equal(w.execution_cycles, w.job_finish + 1 - np.array([0, 100]))
    assert w.comm_rate == pytest.approx(sum(w.job_bytes / (w.execution_cycles * w.cycle_seconds)))
    links = r.channel_flits[r.peer_port >= 0] * 32
    assert r.link_bytes_max == links.max() and r.link_bytes_mean == pytest.approx(links.mean())
    s = r.summary()
    assert s["comm_rate"] == pytest.approx(w.comm_rate) and s["workload_cycles"] == w.foreground_end + 1


# --- collectives: rounds and dependency order ------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 16, 31, 33])
def test_collective_rounds(n):
    log = math.ceil(math.log2(n)) if n > 1 else 0
    pof2 = 1 << (n.bit_length() - 1)
    assert wl.program_rounds(wl.bcast(n, 8)) == log
    assert wl.program_rounds(wl.bcast(n, 8, root=n - 1)) == log
    assert wl.program_rounds(wl.reduce(n, 8)) == log
    dis = wl.allreduce_dissemination(n, 8)
    assert wl.program_rounds(dis) == log
    assert all(len(steps) == log for steps in dis.steps)  # one send + one receive per round
    rd = wl.allreduce_recursive_doubling(n, 8)
    assert wl.program_rounds(rd) == int(math.log2(pof2)) + (2 if n > pof2 else 0)
    assert wl.program_rounds(wl.allreduce_ring(n, 64)) == (2 * (n - 1) if n > 1 else 0)
    assert wl.bcast(n, 8).messages == wl.reduce(n, 8).messages == n - 1


def test_binomial_tree_of_the_noise_paper():
    # P1 Fig. 6: 8 processes, 3 rounds, round r: rank i < 2^(r-1) sends to i + 2^(r-1); the
    # critical path is 0-1-3-7.
    p = wl.bcast(8, 8)
    sends = {r: [int(d) for st in p.steps[r] for d in st[0]] for r in range(8)}
    assert sends == {0: [1, 2, 4], 1: [3, 5], 2: [6], 3: [7], 4: [], 5: [], 6: [], 7: []}


def test_bcast_dependency_order_in_the_simulation():
    n = 48
    r = run(dragonfly([{"motif": "bcast", "ranks": n, "bytes": 64, "placement": "random"}]))
    st = r.workload.steps
    start, done = {}, {}
    for rank, idx, s0, d0 in zip(st["rank"], st["index"], st["start"], st["done"]):
        start[(int(rank), int(idx))], done[(int(rank), int(idx))] = int(s0), int(d0)
    for v in range(1, n):
        parent = v - (1 << (v.bit_length() - 1))
        received = done[(v, 0)]                               # step 0 waits for the parent
        parent_sends = start[(parent, 1 if parent else 0)]    # the parent's sending step
        assert parent_sends >= (done[(parent, 0)] if parent else 0)
        assert received > parent_sends                        # after the parent forwarded
    # Each of the ceil(log2 n) rounds costs at least one packet's zero-load latency.
    rounds = math.ceil(math.log2(n))
    assert r.workload.completion_cycles[0] >= rounds * (64 // 16 + 2)


# --- throughput ------------------------------------------------------------------------------

def test_alltoall_reaches_the_uniform_saturation_throughput():
    # P3 (D2-R8/R9): one all-to-all with minimal routing runs at about the steady-state
    # uniform-random saturation throughput. Needs what the paper's adapters do: packets of
    # many messages interleaved (ni_queues) and destinations in random order; measured 0.59
    # vs a saturation of 0.62 on this 80-node MLFM (tolerance: within 10 %).
    base = small_dragonfly(router={"buffer": 32, "vcs": 2})
    base["topology"] = {"kind": "mlfm", "h": 4}
    sat = flitsim.saturate(dict(base, traffic={"packet_size": 16}), backend="cpu")
    cfg = dict(base, workload={"packet_size": 16, "ni_queues": 64, "jobs": [
        {"motif": "alltoall", "ranks": 80, "bytes": 7680, "order": "random"}]})
    eff = run(cfg).workload.effective_throughput[0]
    assert 0.9 * sat.saturation <= eff <= sat.saturation + 0.03


def test_perturbation_slows_a_binomial_reduce():
    # P1: a reduce on a random half of a fat tree, the other half exchanging large messages
    # in random permutations (background, re-drawn per round); same placements with and
    # without the perturbation. At cycle level a perturbation can in principle reorder an
    # arbitration in the reduce's favour; with this much noise it never does.
    cfg = {"topology": {"kind": "xgft", "m": [8, 8], "w": [1, 8]},
           "router": {"vcs": 2, "buffer": 16, "latency": 1}, "channels": {"latency": 2},
           "workload": {"packet_size": 8, "jobs": [
               {"motif": "reduce", "ranks": 32, "bytes": 8, "placement": "random", "start": 500},
               {"motif": "perturbation", "ranks": 32, "bytes": 4096, "placement": "random",
                "rounds": 20}]}}
    nr = wl.run_noise(cfg, seeds=[1, 2, 3, 4], backend="cpu")
    assert (nr.slowdown >= 1).all() and nr.slowdown.mean() > 1.2
    for q, p in zip(nr.quiet, nr.perturbed):  # same application nodes in both runs
        np.testing.assert_array_equal(q.workload.node_job == 0, p.workload.node_job == 0)
        assert q.workload.job_delivered[1] == 0 and p.workload.job_delivered[1] > 0
    np.testing.assert_allclose(nr.extra, nr.slowdown - 1)


# --- placement -------------------------------------------------------------------------------

def test_placement_maps_ranks_to_distinct_nodes():
    jobs = normalize({"workload": {"jobs": [
        {"motif": "alltoall", "ranks": 10, "bytes": 8},
        {"motif": "alltoall", "ranks": 20, "bytes": 8, "placement": "random"},
        {"motif": "alltoall", "ranks": 5, "bytes": 8, "nodes": [70, 71, 3, 4, 5]},
        {"motif": "alltoall", "ranks": 7, "bytes": 8}]}})["workload"]["jobs"]
    a = wl.place_jobs(jobs, 72, seed=1)
    allnodes = np.concatenate(a)
    assert len(set(allnodes.tolist())) == allnodes.size == 42
    np.testing.assert_array_equal(a[2], [70, 71, 3, 4, 5])        # explicit nodes kept
    np.testing.assert_array_equal(a[0], np.r_[0:3, 6:13])         # linear: lowest free nodes
    np.testing.assert_array_equal(a[3], np.r_[13:20])             # the next ones, in job order
    b = wl.place_jobs(jobs, 72, seed=2)
    np.testing.assert_array_equal(wl.place_jobs(jobs, 72, seed=1)[1], a[1])  # seeded
    assert not np.array_equal(a[1], b[1])
    # In the engine: node_job/node_rank say which rank runs where.
    r = run(dragonfly(jobs))
    for j, nodes in enumerate(a):
        np.testing.assert_array_equal(r.workload.node_job[nodes], j)
        np.testing.assert_array_equal(r.workload.node_rank[nodes], np.arange(len(nodes)))
    assert (r.workload.node_job >= 0).sum() == 42


def test_grids_and_neighbours():
    assert wl.most_cubic(3192) == (12, 14, 19) and wl.most_cubic(3600) == (15, 15, 16)
    assert wl.most_cubic(3042) == (13, 13, 18) and wl.most_cubic(3380) == (13, 13, 20)
    assert wl.most_cubic(64) == (4, 4, 4) and wl.most_cubic(7) == (1, 1, 7)
    st = wl.stencil27(27, 8)
    assert all(len(set(s[0][0].tolist())) == 26 for s in st.steps)
    nn = wl.nn3d(60, 8)  # 3 x 4 x 5
    for r, s in enumerate(nn.steps):
        x, y, z = r % 3, (r // 3) % 4, r // 12
        expect = {((x + 1) % 3) + 3 * y + 12 * z, ((x - 1) % 3) + 3 * y + 12 * z,
                  x + 3 * ((y + 1) % 4) + 12 * z, x + 3 * ((y - 1) % 4) + 12 * z,
                  x + 3 * y + 12 * ((z + 1) % 5), x + 3 * y + 12 * ((z - 1) % 5)}
        assert set(s[0][0].tolist()) == expect and len(s[0][0]) == 6
    assert wl.milc(16, 8).steps[0][0][0].size == 8
    job = {"motif": "stencil27", "ranks": 27, "bytes": 64, "iterations": 3,
           "allreduce": "dissemination", "compute": 10}
    p = wl.build_motif(normalize({"workload": {"jobs": [job]}})["workload"]["jobs"][0])
    assert len(p.steps[0]) == 3 * (1 + 1 + 5)  # compute, halo, 5 dissemination rounds


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("jobs, message", [
    ([{"motif": "alltoal", "ranks": 4, "bytes": 8}], 'workload.jobs[0].motif: unknown motif "alltoal"'),
    ([{"motif": "alltoall", "ranks": 4}], "workload.jobs[0].bytes: is required"),
    ([{"motif": "alltoall", "ranks": 4, "bytes": 0}], "workload.jobs[0].bytes: must be an integer in [1, "),
    ([{"motif": "bcast", "ranks": 0}], "workload.jobs[0].ranks: must be an integer >= 1"),
    ([{"motif": "bcast", "ranks": 4, "root": 4}], "workload.jobs[0].root: must be a rank below 4"),
    ([{"motif": "nn3d", "ranks": 8, "bytes": 8, "dims": [2, 2, 3]}], "workload.jobs[0].dims"),
    ([{"motif": "bcast", "ranks": 4, "rounds": 3}], 'workload.jobs[0]: unknown key "rounds"'),
    ([{"motif": "perturbation", "ranks": 4, "bytes": 8}], "at least one job must not be a background"),
    ([], "workload.jobs: must be a non-empty list"),
])
def test_bad_workloads_name_the_key(jobs, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        normalize({"workload": {"jobs": jobs}})


def test_bad_workload_keys():
    with pytest.raises(ConfigError, match='workload: unknown key "packetsize"'):
        normalize({"workload": {"jobs": [{"motif": "bcast", "ranks": 2}], "packetsize": 4}})
    with pytest.raises(ConfigError, match="workload.link_gbps: must be a number > 0"):
        normalize({"workload": {"jobs": [{"motif": "bcast", "ranks": 2}], "link_gbps": 0}})


def test_more_ranks_than_nodes():
    with pytest.raises(ValueError, match="73 ranks in all, but the topology has only 72 nodes"):
        run(dragonfly([{"motif": "alltoall", "ranks": 40, "bytes": 8},
                       {"motif": "bcast", "ranks": 33}]))


def program(steps_per_rank):
    return wl.program_from_json({"programs": steps_per_rank}, "prog.json")


@pytest.mark.parametrize("steps, message", [
    ([[{"send": [[1, 8]]}], [{}]], "rank 0 step 0: sends a message to rank 1 that is never received"),
    ([[{}], [{"recv": [0]}]], "rank 1 step 0: waits for a message from rank 0 that is never sent"),
    ([[{"recv": [1]}, {"send": [[1, 8]]}], [{"recv": [0]}, {"send": [[0, 8]]}]],
     "deadlock: rank 0 step 0 waits for the message rank 1 sends at its step 1"),
    ([[{"send": [[0, 8]]}]], "rank 0 step 0: sends a message to itself"),
    ([[{"send": [[5, 8]]}], [{}]], "rank 0 step 0: sends to rank 5, outside"),
])
def test_static_checks_name_rank_and_step(steps, message):
    with pytest.raises(ValueError, match=message):
        wl.match(program(steps))


def test_json_program_errors():
    with pytest.raises(ValueError, match="prog.json: rank 0 step 1: message size must be > 0"):
        program([[{}, {"send": [[1, 0]]}], [{}]])
    with pytest.raises(ValueError, match='prog.json: rank 1 step 0: unknown key "wait"'):
        program([[{}], [{"wait": [0]}]])


# --- user programs ---------------------------------------------------------------------------

def test_json_program_file_runs_and_round_trips(tmp_path):
    # A ring with a compute delay: rank r sends to r+1 after receiving from r-1.
    n = 6
    progs = [[{"send": [[1, 64]]}, {"recv": [n - 1], "compute": 50}]] + [
        [{"recv": [r - 1]}, {"send": [[(r + 1) % n, 64]]}] for r in range(1, n)]
    path = tmp_path / "ring.json"
    path.write_text(json.dumps({"ranks": n, "programs": progs}))
    p = wl.load_program(path)
    assert wl.program_from_json(p.to_json()).to_json() == p.to_json()
    assert wl.program_rounds(p) == n
    r = run(dragonfly([{"motif": "program", "file": str(path), "placement": "random"}]))
    w = r.workload
    assert w.job_ranks[0] == n and w.job_delivered[0] == n
    assert w.execution_cycles[0] >= w.completion_cycles[0] + 50  # the final compute delay


# --- determinism -----------------------------------------------------------------------------

def _mixed():
    return dragonfly([
        {"motif": "stencil27", "ranks": 27, "bytes": 96, "allreduce": "recursive-doubling",
         "iterations": 2, "placement": "random"},
        {"motif": "bcast", "ranks": 20, "bytes": 64, "placement": "random"},
        {"motif": "perturbation", "ranks": 20, "bytes": 512, "placement": "random"}],
        ni_queues=3)


def _same(a, b, cycles=True):
    for k in ("channel_flits", "latency_hist", "hop_hist", "node_created_flits"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    for k in wl_fields():
        np.testing.assert_array_equal(getattr(a.workload, k), getattr(b.workload, k), err_msg=k)
    for k in ("start", "done"):
        np.testing.assert_array_equal(a.workload.steps[k], b.workload.steps[k])
    assert a.latency_sum == b.latency_sum and (not cycles or a.cycles == b.cycles)


def wl_fields():
    from flitsim.workload.result import JOB_ARRAYS, NODE_ARRAYS
    return JOB_ARRAYS + NODE_ARRAYS


def test_results_identical_for_1_and_2_threads():
    one = wl.run_replicas(_mixed(), seeds=[1, 2], backend="cpu", threads=1)
    two = wl.run_replicas(_mixed(), seeds=[1, 2], backend="cpu", threads=2)
    for a, b in zip(one, two):
        _same(a, b)
    assert not np.array_equal(one[0].workload.node_job, one[1].workload.node_job)  # seeds differ


def test_background_job_stops_and_results_do_not_depend_on_the_chunk():
    # The perturbation is a background job: it stops starting packets once the foreground
    # jobs are done and the run ends when the network is empty, so everything (link bytes
    # included) is independent of where the host checks for the end.
    a = run(_mixed())
    cfg = _mixed()
    cfg["sim"]["chunk"] = 37
    b = run(cfg)
    _same(a, b, cycles=False)
    w = a.workload
    assert w.job_unfinished[2] > 0 and w.job_delivered[2] < w.job_messages[2]
    assert np.isnan(w.effective_throughput[2]) and np.isnan(w.execution_cycles[2])


def test_replicas_equal_separate_runs():
    both = wl.run_replicas(_mixed(), seeds=[3, 4], backend="cpu")
    cfg = _mixed()
    cfg["sim"]["seed"] = 4
    _same(both[1], run(cfg), cycles=False)


# --- files and docs --------------------------------------------------------------------------

def test_hdf5_round_trip(tmp_path):
    cfg = normalize(_mixed())
    r = run(cfg)
    write_results(tmp_path / "w.h5", [r], cfg)
    back = read_results(tmp_path / "w.h5")[0]
    for k in wl_fields() + ("job_ranks", "job_background", "job_start"):
        np.testing.assert_array_equal(getattr(back.workload, k), getattr(r.workload, k))
    assert back.workload.job_names == r.workload.job_names
    assert back.workload.comm_rate == r.workload.comm_rate
    assert back.config["workload"] == cfg["workload"]


def test_every_workload_key_and_motif_is_documented():
    from flitsim.workload.config import JOB_KEYS, MOTIF_KEYS, WORKLOAD_KEYS
    conf = (DOCS / "configuration.md").read_text()
    section = conf[conf.index("## `[workload]`"):]
    for key in WORKLOAD_KEYS + JOB_KEYS + tuple(k for ks in MOTIF_KEYS.values() for k in ks):
        assert f"`{key}`" in section, key
    guide = (DOCS / "workloads.md").read_text()
    for motif in MOTIF_KEYS:
        assert f"`{motif}`" in guide, motif


# --- proxy applications and the command line -------------------------------------------------

def test_proxy_applications():
    rng = np.random.default_rng(1)
    sp = wl.spread(40, 64, rng, partners=(4, 8))
    um = wl.umesh(40, 64, rng, partners=(3, 6))
    for p, window in ((sp, None), (um, 12)):
        for r, steps in enumerate(p.steps):
            dst, src = steps[0][0], steps[0][2]
            assert sorted(dst.tolist()) == sorted(src.tolist())  # symmetric exchanges
            assert len(dst) <= 2 * 8 and r not in dst.tolist()
            if window:
                assert np.abs(dst - r).max(initial=0) <= window
        wl.match(p)
    pa = wl.pairs(9, 64, rng)
    assert sum(len(s[0][0]) for s in pa.steps) == 8  # 4 pairs, one rank sits out
    pf = wl.pf3d(40, 64, dims=(4, 5, 2))
    assert pf.messages == 40 * 3 + 40 * 4  # all-to-alls along x (4 ranks) then y (5 ranks)
    assert pf.steps[0][1][1][0] == 32      # the y exchange uses half the size
    qb = wl.qbox(30, 64, dims=(10, 3))
    assert qb.messages == 30 * 9 + 10 * 2 + 10 * (2 + 2 * 1)  # a2a, bcast, rec. doubling of 3
    with pytest.raises(ValueError, match="pF3D needs a multiple of 200 ranks"):
        wl.pf3d(40, 64)
    jobs = [{"motif": m, "ranks": n, "bytes": 256, **extra} for m, n, extra in (
        ("pairs", 10, {}), ("spread", 12, {"partners": [2, 4]}), ("umesh", 12, {"partners": [2, 4]}),
        ("milc", 16, {}), ("pf3d", 12, {"dims": [3, 2, 2]}), ("qbox", 8, {"dims": [4, 2]}))]
    for placement in ("linear", "random"):
        r = run(dragonfly(jobs, placement=placement, ni_queues=4))
        w = r.workload
        np.testing.assert_array_equal(w.job_delivered, w.job_messages)
        assert (w.execution_cycles > 0).all() and r.summary()["comm_rate"] > 0


def test_cli_run_prints_the_job_table(tmp_path, capsys):
    from flitsim.cli import main
    cfg = tmp_path / "w.toml"
    cfg.write_text('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n'
                   '[workload]\npacket_size = 4\n'
                   'jobs = [{motif = "allreduce", ranks = 16, bytes = 64, name = "ar"},\n'
                   '        {motif = "perturbation", ranks = 8, bytes = 1024}]\n')
    assert main(["run", str(cfg), "--quiet", "--backend", "cpu", "--set", "workload.link_gbps=200"]) == 0
    out = capsys.readouterr().out
    assert "eff. throughput" in out and "perturbation (bg)" in out and "1 cycle = 0.64 ns" in out
    assert main(["run", str(cfg), "--json", "--backend", "cpu"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [j["name"] for j in summary["jobs"]] == ["ar", "perturbation"]
    assert summary["jobs"][0]["delivered"] == 16 * 4 and summary["comm_rate"] > 0


def test_documented_program_example_runs(tmp_path):
    text = (DOCS / "workloads.md").read_text()
    example = text[text.index('{\n  "ranks": 3'):]
    example = example[:example.index("```")]
    path = tmp_path / "ping.json"
    path.write_text(example)
    r = run(dragonfly([{"motif": "program", "file": str(path)}]))
    assert r.workload.job_delivered[0] == 4 and r.workload.job_bytes[0] == 4 * 4096


def test_sweep_over_workload_keys_and_seeds(tmp_path):
    cfg = dragonfly([{"motif": "alltoall", "ranks": 24, "bytes": 512, "placement": "random"}])
    res = flitsim.sweep(cfg, over={"workload.ni_queues": [1, 4], "sim.seed": [1, 2]},
                        output=str(tmp_path / "s.h5"), backend="cpu", progress=False)
    results = res["results"] if isinstance(res, dict) else res.results
    assert len(results) == 4
    for r in results:
        assert r.workload.job_delivered[0] == 24 * 23
    assert results[0].config["workload"]["ni_queues"] == 1 and results[2].config["workload"]["ni_queues"] == 4
    with pytest.raises(ConfigError, match='unknown key "workload.jobs"'):
        flitsim.sweep(cfg, over={"workload.jobs": [[]]}, output=str(tmp_path / "t.h5"))


def test_cuda_backend_equals_cpu():
    from conftest import cuda_usable
    ok, why = cuda_usable()
    if not ok:
        pytest.skip(why)
    cpu = wl.run_replicas(_mixed(), seeds=[1, 2], backend="cpu")
    gpu = wl.run_replicas(_mixed(), seeds=[1, 2], backend="cuda")
    for a, b in zip(cpu, gpu):
        assert b.backend == "cuda"
        _same(a, b)
