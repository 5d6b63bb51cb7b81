"""Sweeps on Dask (`--cluster`): same results as in-process, single writer, resume, Slurm
options. Small on purpose: CI has 2 cores; one shared 2-worker LocalCluster."""
import dataclasses
import json
import os
import pathlib
import sys
import types

import numpy as np
import pytest

from flitsim.cli import main
from flitsim.hdf5 import read_sweep
from flitsim.sweep import sweep
from conftest import small_dragonfly

distributed = pytest.importorskip("distributed")
from flitsim import cluster as fcluster  # noqa: E402

OVER = ["traffic.load=0.1,0.4", "topology.p=1,2", "sim.seed=1:2:1"]
TIMEOUT = 60


def cfg(**kw):
    kw["sim"] = {"warmup": 100, "measure": 400, **kw.get("sim", {})}
    return small_dragonfly(**kw)


def identical(a, b):
    """Every field of two Results equal (arrays element-wise), except the wall time."""
    for f in dataclasses.fields(a):
        if f.name == "wall_seconds":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as lc, \
            distributed.Client(lc, timeout=TIMEOUT) as c:
        c.wait_for_workers(2, timeout=TIMEOUT)
        yield c


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.h5"
    return out, sweep(cfg(), OVER, output=out, backend="cpu")


def test_cluster_results_identical_to_in_process(tmp_path, client, reference):
    out = tmp_path / "c.h5"
    res = sweep(cfg(), OVER, output=out, backend="cpu", cluster=client)
    ref = reference[1]
    assert res.engine_runs == 2 and res.points == ref.points
    for a, b in zip(res.results, ref.results):
        identical(a, b)
    back, ref_back = read_sweep(out), read_sweep(reference[0])
    assert back["done"].all() and back["points"] == ref_back["points"]
    assert back["config"] == ref_back["config"]
    for a, b in zip(back["results"], ref_back["results"]):
        identical(a, b)


def test_interrupted_cluster_sweep_resumes(tmp_path, client, reference):
    out = tmp_path / "part.h5"
    seen = []

    def stop(status):
        seen.append(status.done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(cfg(), OVER, output=out, backend="cpu", cluster=client, progress=stop)
    assert seen == [4]
    done = read_sweep(out)["done"].tolist()
    assert sum(done) == 4 and done in ([1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0, 1, 1])
    res = sweep(cfg(), OVER, output=out, backend="cpu", cluster=client)
    assert res.resumed == 4 and res.engine_runs == 1
    for a, b in zip(res.results, reference[1].results):
        identical(a, b)
    again = sweep(cfg(), OVER, output=out, backend="cpu", cluster=client)
    assert again.engine_runs == 0 and again.resumed == 8
    # Mixing: a sweep resumed in-process from a cluster-written file (and vice versa) is fine.
    assert sweep(cfg(), OVER, output=out, backend="cpu").resumed == 8


def test_local_cluster_from_cli(tmp_path, capsys):
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n[router]\nvcs = 3\nbuffer = 8\n"
                    "[sim]\nwarmup = 100\nmeasure = 300\n")
    out = tmp_path / "s.h5"
    argv = ["sweep", str(toml), "--over", "traffic.load=0.1,0.3", "--over",
            "routing.algorithm=min,ugal", "-o", str(out), "--json", "--backend", "cpu",
            "--cluster", "local", "--cluster-workers", "2"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["engine_runs"] == 2 and len(doc["points"]) == 4 and read_sweep(out)["done"].all()
    assert main(argv) == 0                                   # complete: nothing runs
    assert json.loads(capsys.readouterr().out)["resumed"] == 4


def test_local_cluster_workers_and_threads():
    with fcluster.open_client("local", 2) as (c, kw):
        c.wait_for_workers(2, timeout=TIMEOUT)
        info = c.scheduler_info()["workers"]
        assert len(info) == 2 and all(w["nthreads"] == 1 for w in info.values())
        omp = c.run(lambda: os.environ.get("OMP_NUM_THREADS"))
        assert set(omp.values()) == {str(max(1, (os.cpu_count() or 1) // 2))}
        assert kw == {}


def test_missing_dask_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)    # import distributed fails
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n[sim]\nwarmup = 50\nmeasure = 100\n")
    out = tmp_path / "s.h5"
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1", "-o", str(out),
                 "--cluster", "local"]) == 2
    assert "flitsim: error: --cluster needs dask: pip install 'flitsim[cluster]'" in \
        capsys.readouterr().err
    assert not out.exists()                                  # refused before any output
    with pytest.raises(ImportError, match=r"flitsim\[cluster\]"):
        sweep(cfg(), ["traffic.load=0.1"], cluster="local")
    # The default executor needs no Dask.
    assert sweep(cfg(), ["traffic.load=0.1"], backend="cpu").engine_runs == 1


@pytest.mark.parametrize("argv, message", [
    (["--cluster", "nowhere"], "must be local, slurm or a scheduler address"),
    (["--cluster", "local", "--slurm-option", "cores=4"], "--slurm-option needs --cluster slurm"),
    (["--cluster", "tcp://127.0.0.1:1", "--cluster-workers", "2"], "not to an existing scheduler"),
    (["--cluster-workers", "2"], "need --cluster"),
    (["--cluster", "slurm", "--slurm-option", "cores"], "must be KEY=VALUE"),
    (["--cluster", "slurm", "--slurm-option", "cores=4", "--slurm-option", "cores=8"],
     "cores given twice"),
])
def test_bad_cluster_options(tmp_path, capsys, argv, message):
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n")
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1", "-o",
                 str(tmp_path / "s.h5")] + argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "s.h5").exists()


def test_slurm_options_parsed():
    opts = fcluster.parse_slurm_options(
        ["cores=16", "memory=64GB", "queue=normal", "walltime=01:00:00", "account=proj1",
         "job_extra_directives=--gres=gpu:1", "job-extra-directives=--exclusive",
         "processes=2", "interface=ib0", "job_script_prologue=['module load cuda', 'cd x']"])
    assert opts == {"cores": 16, "memory": "64GB", "queue": "normal", "walltime": "01:00:00",
                    "account": "proj1", "processes": 2, "interface": "ib0",
                    "job_extra_directives": ["--gres=gpu:1", "--exclusive"],
                    "job_script_prologue": ["module load cuda", "cd x"]}


class FakeSLURMCluster:
    """Records what flitsim asks of dask_jobqueue; runs the tasks on a 1-worker local
    cluster that has the "flitsim" resource, as a Slurm worker started by flitsim would."""
    made = []

    def __init__(self, **kwargs):
        self.kwargs, self.scaled, self.closed = kwargs, [], False
        self._lc = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                            dashboard_address=":0", resources={"flitsim": 1})
        FakeSLURMCluster.made.append(self)

    def __getattr__(self, name):      # scheduler_address, status, ...: the local cluster's
        if name == "_lc":
            raise AttributeError(name)
        return getattr(self._lc, name)

    def scale(self, n=None, jobs=0, **kw):
        self.scaled.append(jobs)

    def close(self, *a, **kw):
        self.closed = True
        self._lc.close()


def test_slurm_cluster_construction(tmp_path, monkeypatch, capsys, reference):
    monkeypatch.setitem(sys.modules, "dask_jobqueue",
                        types.SimpleNamespace(SLURMCluster=FakeSLURMCluster))
    FakeSLURMCluster.made.clear()
    fake_bin = tmp_path / "bin"        # flitsim refuses --cluster slurm where sbatch is missing
    fake_bin.mkdir()
    (fake_bin / "sbatch").write_text("#!/bin/sh\nexit 1\n")
    (fake_bin / "sbatch").chmod(0o755)
    (fake_bin / "sinfo").write_text("#!/bin/sh\necho normal\n")   # a Slurm that answers
    (fake_bin / "sinfo").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n[router]\nvcs = 2\nbuffer = 8\n"
                    "[sim]\nwarmup = 100\nmeasure = 300\n")
    out = tmp_path / "s.h5"
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1,0.2", "-o", str(out),
                 "--json", "--backend", "cpu", "--cluster", "slurm", "--cluster-workers", "3",
                 "--slurm-option", "cores=8", "--slurm-option", "memory=16GB",
                 "--slurm-option", "queue=short", "--slurm-option", "walltime=00:30:00",
                 "--slurm-option", "account=abc",
                 "--slurm-option", "job_extra_directives=--exclusive"]) == 0
    assert json.loads(capsys.readouterr().out)["engine_runs"] == 1
    (sc,) = FakeSLURMCluster.made
    assert sc.scaled == [3] and sc.closed
    assert sc.kwargs == {"cores": 8, "memory": "16GB", "queue": "short",
                         "walltime": "00:30:00", "account": "abc", "processes": 1,
                         "job_extra_directives": ["--exclusive"],
                         "job_script_prologue": ["export OMP_NUM_THREADS=8"],
                         "worker_extra_args": ["--resources", "flitsim=1"]}
    assert read_sweep(out)["done"].all()


def test_slurm_without_sbatch_fails_fast(tmp_path, monkeypatch, capsys):
    # No sbatch on PATH: one clear line and exit status 2 before any output or Dask cluster,
    # instead of Dask's tracebacks and a wait for workers that never start.
    monkeypatch.setenv("PATH", str(tmp_path))
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n")
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1", "-o", str(tmp_path / "s.h5"),
                 "--cluster", "slurm"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "flitsim: error: --cluster slurm: sbatch is not on PATH (run the sweep where Slurm "
        "jobs can be submitted, e.g. a login node)"]
    assert not (tmp_path / "s.h5").exists()


def _fake_slurm(tmp_path, monkeypatch, sinfo: str) -> pathlib.Path:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for name, body in (("sbatch", "exit 1"), ("sinfo", sinfo)):
        (fake_bin / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake_bin / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}/usr/bin{os.pathsep}/bin")
    toml = tmp_path / "df.toml"
    toml.write_text("[topology]\np = 2\na = 4\nh = 2\n")
    return toml


def test_slurm_that_does_not_answer_fails_fast(tmp_path, monkeypatch, capsys):
    # sbatch present but no Slurm configuration or controller (a workstation with the Slurm
    # client installed): Dask's submissions would fail in its event loop while the sweep
    # waited for workers for ever. One line from sinfo's own words, exit status 2.
    toml = _fake_slurm(tmp_path, monkeypatch,
                       'echo "sinfo: fatal: Could not establish a configuration source" >&2; exit 1')
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1", "-o", str(tmp_path / "s.h5"),
                 "--cluster", "slurm", "--slurm-option", "cores=4", "--slurm-option", "memory=8GB"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "flitsim: error: --cluster slurm: Slurm does not answer here (sinfo: fatal: Could not "
        "establish a configuration source)"]
    assert not (tmp_path / "s.h5").exists()


def test_slurm_job_size_is_asked_for_by_its_option(tmp_path, monkeypatch, capsys):
    # dask-jobqueue's own message for a missing job size shows its Python API; the command
    # line says which --slurm-option to add.
    pytest.importorskip("dask")
    toml = _fake_slurm(tmp_path, monkeypatch, "echo normal")
    assert main(["sweep", str(toml), "--over", "traffic.load=0.1", "-o", str(tmp_path / "s.h5"),
                 "--cluster", "slurm", "--slurm-option", "cores=4"]) == 2
    err = capsys.readouterr().err
    assert "--cluster slurm: each Slurm job needs its size: --slurm-option memory=" in err
    assert "cores" not in err.split("size:")[1].split("(")[0]


def test_cluster_is_documented():
    import pathlib
    docs = pathlib.Path(__file__).resolve().parents[1] / "docs" / "experiments.md"
    text = docs.read_text()
    for s in ("--cluster local", "--cluster tcp://", "--cluster slurm", "--slurm-option",
              "flitsim[cluster]"):
        assert s in text, s
