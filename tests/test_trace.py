"""MPI trace replay from OTF2 (issue 32 parts 3-4): traces written with the OTF2 library
(flitsim.workload.trace_gen) replay as the same program written as a flitsim workload —
identical messages and bytes, identical times when compute is skipped (and when it converts
to whole cycles) — and bad traces are refused with errors that name the key or the event."""
import json
import pathlib
import sys

import numpy as np
import pytest

otf2 = pytest.importorskip("otf2")

import flitsim  # noqa: E402
from flitsim.cli import main  # noqa: E402
from flitsim.config import ConfigError, normalize  # noqa: E402
from flitsim.workload import trace as T, trace_gen as G  # noqa: E402
from flitsim.workload.program import WorkloadError  # noqa: E402
from flitsim.workload.trace_replay import replay  # noqa: E402
from conftest import small_dragonfly  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
CALL_NS = 100   # each traced MPI call lasts 100 ns (trace_gen's default)


def dragonfly(jobs, **workload):
    """The 72-node test dragonfly running `jobs` (256-byte packets of 16-byte flits)."""
    return small_dragonfly(workload={"jobs": jobs, "packet_size": 16, **workload})


def run(cfg):
    return flitsim.run(cfg, backend="cpu", progress=False, threads=1)


def same_job(a, b, ja=0, jb=0):
    """Job ja of result a and job jb of result b sent the same messages and took the same time."""
    wa, wb = a.workload, b.workload
    for k in ("job_messages", "job_delivered", "job_bytes", "job_flits", "job_packets"):
        assert getattr(wa, k)[ja] == getattr(wb, k)[jb], k
    assert wa.completion_cycles[ja] == wb.completion_cycles[jb]
    assert wa.execution_cycles[ja] == wb.execution_cycles[jb]


# --- conversion --------------------------------------------------------------------------------

def test_ring_converts_to_one_step_per_exchange_with_compute_in_cycles(tmp_path):
    path = G.write_trace(tmp_path / "ring", G.ring_ops(4, 1000, iterations=2, compute_ns=640))
    tp = T.convert(path, "keep", cycle_ns=1.28)
    assert tp.program.ranks == 4 and tp.p2p_messages == 8 and tp.p2p_bytes == 8000
    # 640 ns of compute before each exchange: 500 cycles of 1.28 ns, placed after the wait
    # that precedes it (the first in a compute-only step).
    for r in range(4):
        steps = tp.program.to_json()["programs"][r]
        assert steps == [{"compute": 500},
                         {"send": [[(r + 1) % 4, 1000]], "recv": [(r - 1) % 4], "compute": 500},
                         {"send": [[(r + 1) % 4, 1000]], "recv": [(r - 1) % 4]}]
    # scale: compute_cycle_ns per cycle, rounded to the nearest cycle; skip: none.
    scaled = T.convert(path, "scale", cycle_ns=3.0).program.to_json()["programs"][0]
    assert scaled[0] == {"compute": round(640 / 3.0)}
    skipped = T.convert(path, "skip").program.to_json()["programs"][0]
    assert skipped == [{"send": [[1, 1000]], "recv": [3]}, {"send": [[1, 1000]], "recv": [3]}]


def test_time_inside_mpi_calls_is_not_compute(tmp_path):
    # A blocking receive that waits 100 ns inside MPI_Recv: not compute. Only the 250 ns
    # between the calls are.
    ops = [[("send", 1, 0, 64), ("compute", 250), ("recv", 1, 0, 64)],
           [("recv", 0, 0, 64), ("send", 0, 0, 64)]]
    prog = T.convert(G.write_trace(tmp_path / "pp", ops), "scale", cycle_ns=1.0).program.to_json()
    assert prog["programs"][0] == [{"send": [[1, 64]], "compute": 250}, {"recv": [1]}]
    assert prog["programs"][1] == [{"recv": [0]}, {"send": [[0, 64]]}]


def test_without_mpi_regions_the_time_between_mpi_events_is_compute(tmp_path):
    # The send is recorded at t = 0, the receive when it returns at 100 + 250 + 100 ns: with no
    # MPI_* regions to tell calls from compute, the 450 ns between the two events are compute.
    ops = [[("send", 1, 0, 64), ("compute", 250), ("recv", 1, 0, 64)],
           [("recv", 0, 0, 64), ("send", 0, 0, 64)]]
    path = G.write_trace(tmp_path / "bare", ops, mpi_regions=False)
    prog = T.convert(path, "scale", cycle_ns=1.0).program.to_json()
    assert prog["programs"][0] == [{"send": [[1, 64]], "compute": 2 * CALL_NS + 250}, {"recv": [1]}]


def test_collectives_expand_with_flitsims_algorithms(tmp_path):
    alg = T.collective_algorithms()
    assert alg["ALLREDUCE"].startswith("recursive doubling") and alg["BCAST"] == "binomial tree"
    ops = [[("coll", "BCAST", 2, 4096 if r == 2 else 0, 0 if r == 2 else 4096),
            ("coll", "ALLREDUCE", 0, 64, 64), ("coll", "BARRIER", 0, 0, 0)] for r in range(6)]
    tp = T.convert(G.write_trace(tmp_path / "coll", ops), "skip")
    expect = flitsim.workload.Program(6)
    expect.append(flitsim.workload.bcast(6, 4096, 2))
    expect.append(flitsim.workload.allreduce_recursive_doubling(6, 64))
    expect.append(flitsim.workload.allreduce_dissemination(6, 8))
    assert tp.program.to_json() == expect.to_json()
    assert tp.collectives == {"BCAST": 1, "ALLREDUCE": 1, "BARRIER": 1}


def test_sub_communicators_map_their_ranks_to_world_ranks(tmp_path):
    # Even ranks: an allreduce on EVEN, then EVEN's rank 0 sends to its rank 1 (world 2); odd
    # ranks: a broadcast from ODD's rank 1 (world 3). A barrier on MPI_COMM_SELF sends nothing.
    comms = {"EVEN": [0, 2, 4], "ODD": [1, 3, 5], "MPI_COMM_SELF": []}
    ops = []
    for r in range(6):
        mine = [("coll", "BARRIER", 0, 0, 0, "MPI_COMM_SELF")]
        if r % 2 == 0:
            mine.append(("coll", "ALLREDUCE", 0, 64, 64, "EVEN"))
            if r == 0:
                mine.append(("send", 1, 9, 300, "EVEN"))
            if r == 2:
                mine.append(("recv", 0, 9, 300, "EVEN"))
        else:
            mine.append(("coll", "BCAST", 1, 512, 512, "ODD"))
        ops.append(mine)
    tp = T.convert(G.write_trace(tmp_path / "sub", ops, comms=comms), "skip")
    expect = flitsim.workload.Program(6)
    expect.append(flitsim.workload.allreduce_recursive_doubling(3, 64), members=[0, 2, 4])
    expect.append(flitsim.workload.bcast(3, 512, 1), members=[1, 3, 5])
    expect.step(0, [2], 300)
    expect.step(2, src=[0])
    assert tp.program.to_json() == expect.to_json()
    assert tp.collectives == {"ALLREDUCE": 1, "BCAST": 1}


def test_tags_reorder_receives_from_one_source(tmp_path):
    # Rank 1 receives tag 7 before tag 3 although rank 0 sent tag 3 first (eager sends):
    # MPI matches by tag; the replay keeps both messages and their sizes, and finishes.
    ops = [[("send", 1, 3, 100), ("send", 1, 7, 5000)],
           [("recv", 0, 7, 5000), ("compute", 1000), ("recv", 0, 3, 100)]]
    path = G.write_trace(tmp_path / "tags", ops)
    r = run(dragonfly([{"motif": "trace", "trace": path}]))
    assert r.workload.job_messages[0] == r.workload.job_delivered[0] == 2
    assert r.workload.job_bytes[0] == 5100


# --- replay against the same program as a flitsim workload -------------------------------------

def test_ring_replays_as_its_program(tmp_path):
    N, B = 12, 3000
    trace = G.write_trace(tmp_path / "ring", G.ring_ops(N, B, iterations=3))
    program = {"programs": [[{"send": [[(r + 1) % N, B]], "recv": [(r - 1) % N]}] * 3
                            for r in range(N)]}
    (tmp_path / "ring.json").write_text(json.dumps(program))
    jobs = [{"motif": "trace", "trace": trace}, {"motif": "program", "file": str(tmp_path / "ring.json")}]
    a = run(dragonfly(jobs[:1], compute="skip"))
    b = run(dragonfly(jobs[1:]))
    same_job(a, b)
    assert a.workload.job_messages[0] == 3 * N and a.workload.job_bytes[0] == 3 * N * B


def test_alltoall_replays_as_the_alltoall_motif(tmp_path):
    N, B = 16, 1000
    trace = G.write_trace(tmp_path / "a2a", G.alltoall_ops(N, B, iterations=2))
    a = run(dragonfly([{"motif": "trace", "trace": trace}], compute="skip"))
    b = run(dragonfly([{"motif": "alltoall", "ranks": N, "bytes": B, "iterations": 2}]))
    same_job(a, b)
    assert a.workload.job_messages[0] == 2 * N * (N - 1)


@pytest.mark.parametrize("compute", ["skip", "keep"])
def test_stencil_with_compute_replays_as_nn3d(tmp_path, compute):
    # 20 us of compute at 1.28 ns per cycle is exactly 15625 cycles, so with compute kept
    # the replay equals nn3d with compute = 15625 before every iteration.
    dims, B, it = (3, 2, 2), 2048, 2
    trace = G.write_trace(tmp_path / "st", G.stencil_ops(dims, B, it, 20_000))
    a = run(dragonfly([{"motif": "trace", "trace": trace}], compute=compute))
    nn = {"motif": "nn3d", "ranks": 12, "dims": list(dims), "bytes": B, "iterations": it,
          "allreduce": "recursive-doubling", "allreduce_bytes": 8}
    if compute == "keep":
        nn["compute"] = 15625
    b = run(dragonfly([nn]))
    same_job(a, b)
    if compute == "keep":
        assert a.workload.execution_cycles[0] > 2 * 15625


def test_trace_shares_the_machine_and_slows_down(tmp_path):
    cfg = flitsim.load_config(str(ROOT / "configs/traces/stencil-trace.toml"))
    r = replay(cfg, threads=1)
    # The idle replica is the trace alone: exactly the trace's messages, none of the other job's.
    assert r.idle.workload.job_messages[1] == 0 and r.idle.workload.job_messages[0] == 216
    assert r.shared.workload.job_delivered.tolist() == r.shared.workload.job_messages.tolist()
    assert r.slowdown == r.execution_cycles / r.idle_execution_cycles
    assert r.slowdown > 1.0   # the all-to-all starts during the first exchange
    comm = r.comm_cycles()
    assert comm.shape == (8,) and (comm > 0).all() and (comm < r.execution_cycles).all()
    assert (comm >= r.comm_cycles("idle")).all()
    # The idle replica is the trace run on its own (same nodes: the other jobs' placement kept).
    alone = run(dict(cfg, workload=dict(cfg["workload"], jobs=cfg["workload"]["jobs"][:1])))
    assert r.idle.workload.job_messages[0] == alone.workload.job_messages[0]


# --- errors ------------------------------------------------------------------------------------

def test_a_file_that_is_not_otf2_is_refused_naming_the_key(tmp_path):
    bad = tmp_path / "traces.otf2"
    bad.write_text("not a trace\n")
    with pytest.raises(WorkloadError, match=r"workload\.jobs\[0\]\.trace: .* is not an OTF2 trace"):
        run(dragonfly([{"motif": "trace", "trace": str(bad)}]))
    with pytest.raises(WorkloadError, match=r"no such trace file"):
        run(dragonfly([{"motif": "trace", "trace": str(tmp_path / "missing.otf2")}]))


def test_more_ranks_than_nodes_is_refused(tmp_path):
    trace = G.write_trace(tmp_path / "big", G.alltoall_ops(80, 8))
    with pytest.raises(WorkloadError, match=r"80 ranks in all, but the topology has only 72 nodes.*"
                                            r"workload\.jobs\[0\]\.trace has 80 MPI ranks"):
        run(dragonfly([{"motif": "trace", "trace": trace}]))


def test_a_receive_that_never_matches_names_the_event(tmp_path):
    # Rank 1 waits for tag 5, rank 0 sends tag 4: MPI would hang; replay refuses it.
    ops = [[("send", 1, 4, 64)], [("recv", 0, 5, 64)]]
    trace = G.write_trace(tmp_path / "nomatch", ops)
    with pytest.raises(WorkloadError, match=r"rank 1 event \d+ \(MpiRecv at tick \d+\): receive "
                                            r"from rank 0 \(communicator 'MPI_COMM_WORLD', tag 5\) "
                                            r"never matches a send"):
        run(dragonfly([{"motif": "trace", "trace": trace}]))


def test_incomplete_traces_are_refused_naming_what_is_missing(tmp_path):
    sent = G.write_trace(tmp_path / "unreceived", [[("send", 1, 2, 64)], []])
    with pytest.raises(WorkloadError, match=r"rank 0 sends 1 more message\(s\) to rank 1 \(communicator "
                                            r"'MPI_COMM_WORLD', tag 2\) than rank 1 receives"):
        T.convert(sent, "skip")
    partial = G.write_trace(tmp_path / "partial", [[("coll", "ALLREDUCE", 0, 8, 8)]] * 3 + [[]])
    with pytest.raises(WorkloadError, match=r"rank 0 event \d+ \(MpiCollectiveEnd at tick \d+\): "
                                            r"collective ALLREDUCE is entered by 3 of the 4 ranks"):
        T.convert(partial, "skip")
    mixed = G.write_trace(tmp_path / "mixed", [[("coll", "ALLREDUCE", 0, 8, 8)], [("coll", "BCAST", 0, 8, 8)]])
    with pytest.raises(WorkloadError, match=r"rank \d event \d+ .*: (BCAST|ALLREDUCE) is collective #1 on "
                                            r"communicator 'MPI_COMM_WORLD', but rank \d .* has (ALLREDUCE|BCAST) there"):
        T.convert(mixed, "skip")


def test_a_trace_that_would_deadlock_is_refused_before_the_run(tmp_path):
    # Both ranks block in MPI_Recv before sending: reported by the program check, not a hang.
    ops = [[("recv", 1, 0, 64), ("send", 1, 0, 64)], [("recv", 0, 0, 64), ("send", 0, 0, 64)]]
    trace = G.write_trace(tmp_path / "dead", ops)
    with pytest.raises(ValueError, match=r"deadlock: rank \d step 0 waits"):
        run(dragonfly([{"motif": "trace", "trace": trace}]))


def test_compute_keys_are_checked():
    base = dragonfly([{"motif": "trace", "trace": "x.otf2"}])
    with pytest.raises(ConfigError, match=r"workload\.compute: unknown compute mode \"fast\" \(known: keep, scale, skip\)"):
        normalize(dict(base, workload=dict(base["workload"], compute="fast")))
    with pytest.raises(ConfigError, match=r"workload\.compute_cycle_ns: is required with compute = \"scale\""):
        normalize(dict(base, workload=dict(base["workload"], compute="scale")))
    with pytest.raises(ConfigError, match=r"workload\.compute_cycle_ns: only read with compute = \"scale\""):
        normalize(dict(base, workload=dict(base["workload"], compute_cycle_ns=2.0)))
    with pytest.raises(ConfigError, match=r"workload\.compute_cycle_ns: must be a number > 0"):
        normalize(dict(base, workload=dict(base["workload"], compute="scale", compute_cycle_ns=0)))
    with pytest.raises(ConfigError, match=r"workload\.jobs\[0\]\.trace: is required"):
        normalize(dragonfly([{"motif": "trace"}]))
    with pytest.raises(ConfigError, match=r"workload\.jobs\[0\]\.bytes: a \"trace\" job takes"):
        normalize(dragonfly([{"motif": "trace", "trace": "x.otf2", "bytes": 8}]))
    # Configs without trace keys normalise exactly as before (no new defaults stored), and
    # the keys are refused where no job reads them.
    a2a = dragonfly([{"motif": "alltoall", "ranks": 4, "bytes": 64}])
    assert "compute" not in normalize(a2a)["workload"]
    with pytest.raises(ConfigError, match=r"workload\.compute: only read by trace jobs"):
        normalize(dict(a2a, workload=dict(a2a["workload"], compute="skip")))


def test_without_the_otf2_library_import_works_and_traces_say_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "otf2", None)   # import otf2 now raises ImportError
    from flitsim.workload.trace_otf2 import require_otf2
    with pytest.raises(WorkloadError, match=r"pip install otf2"):
        require_otf2()
    assert main(["trace-info", str(ROOT / "configs/traces/stencil-8/traces.otf2")]) == 2
    assert "pip install otf2" in capsys.readouterr().err
    with pytest.raises(WorkloadError, match=r"MPI traces need .*pip install otf2"):
        run(dragonfly([{"motif": "trace", "trace": str(ROOT / "configs/traces/stencil-8/traces.otf2")}]))
    # flitsim itself imports without the library (a fresh interpreter that cannot import it).
    import subprocess
    code = ("import sys; sys.modules['otf2'] = None; import flitsim, flitsim.workload, flitsim.cli; "
            "print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-2000:]


# --- trace-info --------------------------------------------------------------------------------

def test_trace_info_counts_the_shipped_trace(capsys):
    path = str(ROOT / "configs/traces/stencil-8/traces.otf2")
    assert main(["trace-info", path, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    # 8 ranks x 3 iterations: 6 halo messages of 4 KiB, one allreduce; Enter/Leave of main
    # and of the 6 + 6 + 1 + 1 MPI calls of each iteration.
    assert info["ranks"] == 8
    assert info["p2p_messages"] == 8 * 3 * 6 and info["p2p_bytes"] == 8 * 3 * 6 * 4096
    assert info["collectives"] == {"ALLREDUCE": 8 * 3}
    assert info["events_by_kind"]["Enter"] == 8 * (1 + 3 * 14)
    assert info["events"] == sum(info["events_by_kind"].values())
    # Each iteration: 20 us compute and 14 MPI calls of 100 ns (6 Irecv, 6 Isend, Waitall,
    # Allreduce).
    assert info["time_span_ticks"] == 3 * (20_000 + 14 * CALL_NS)
    assert main(["trace-info", path]) == 0
    out = capsys.readouterr().out
    assert "ALLREDUCE x24 (recursive doubling (MPICH))" in out


def test_replay_cli_prints_times_and_slowdown(capsys):
    cfg = str(ROOT / "configs/traces/stencil-trace.toml")
    assert main(["replay", cfg, "--threads", "1", "--quiet", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["slowdown"] == pytest.approx(out["execution_cycles"] / out["idle_execution_cycles"])
    assert len(out["comm_cycles"]) == 8
    assert np.mean(out["comm_cycles"]) == pytest.approx(out["comm_cycles_mean"])


# --- determinism and the regression corpus ------------------------------------------------------

def test_corpus_trace_program_is_the_traces_conversion():
    import corpus
    want = T.convert(corpus.TRACE, "keep", 1.28).program.to_json()
    assert json.loads(corpus.TRACE_PROGRAM.read_text()) == want


def test_corpus_trace_case_is_the_same_without_the_library(monkeypatch):
    # Where otf2 is missing (the GPU session) the case runs the converted program: same results.
    import corpus
    with_lib = corpus.run_case("torus-trace-replay", threads=1)
    monkeypatch.setitem(sys.modules, "otf2", None)
    assert corpus.compare("torus-trace-replay", corpus.run_case("torus-trace-replay", threads=1), with_lib) == []


def test_replay_replicas_equal_separate_runs():
    # replay() runs the shared and idle networks as two replicas of one engine run; each equals
    # a run of its own (the idle one: the other jobs given no ranks, the trace alone).
    import corpus
    cfg = flitsim.load_config(str(ROOT / "configs/traces/stencil-trace.toml"))
    r = replay(cfg, threads=2)
    alone = corpus.fingerprint(flitsim.run(cfg, backend="cpu", progress=False, threads=1))
    assert corpus.compare("replay shared", [corpus.fingerprint(r.shared)], [alone]) == []


def test_compute_mode_can_be_swept(tmp_path):
    path = str(ROOT / "configs/traces/stencil-trace.toml")
    sw = flitsim.sweep(flitsim.load_config(path), {"workload.compute": ["keep", "skip"]},
                       output=str(tmp_path / "s.h5"), backend="cpu", progress=False, threads=1)
    for mode, got in zip(("keep", "skip"), sw.results):
        alone = run(flitsim.load_config(path, [f"workload.compute={mode}"]))
        assert got.workload.execution_cycles.tolist() == alone.workload.execution_cycles.tolist()
    # Kept, every rank computes 3 x 20 us = 3 x 15625 cycles on its critical path.
    keep, skip = (r.workload.execution_cycles[0] for r in sw.results)
    assert keep >= 3 * 15625 > skip


def test_shipped_trace_is_what_write_example_writes(tmp_path):
    # configs/traces/stencil-8 regenerates with python -m flitsim.workload.trace_gen PATH.
    fresh = T.convert(G.write_example(tmp_path / "stencil-8"), "keep", 1.28)
    shipped = T.convert(ROOT / "configs/traces/stencil-8/traces.otf2", "keep", 1.28)
    assert fresh.program.to_json() == shipped.program.to_json() and fresh.events == shipped.events
