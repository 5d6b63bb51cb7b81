"""A sweep through `--cluster slurm` on a real single-node Slurm: the fixture starts munged,
slurmctld and slurmd (Debian's slurm-wlm and munge) on loopback in a temporary directory,
dask-jobqueue submits the Dask worker as a Slurm job, and the results must equal the same
sweep run in-process, field by field.

Skips, saying why, where Slurm, munge or dask-jobqueue is not installed (install them with
`apt-get install slurm-wlm munge` and `pip install 'flitsim[cluster]'`) or the daemons do not
come up within their time limit. Everything it starts, it stops."""
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

import flitsim
from conftest import small_dragonfly

NEEDED = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
START_TIMEOUT = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: pathlib.Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    missing = [b for b in NEEDED if shutil.which(b) is None]
    if missing:
        pytest.skip(f"Slurm/munge not installed ({', '.join(missing)} missing): "
                    "apt-get install slurm-wlm munge to run this test")
    pytest.importorskip("dask_jobqueue", reason="dask-jobqueue not installed: "
                                                "pip install 'flitsim[cluster]'")
    if os.geteuid() != 0:
        pytest.skip("a private slurmd needs root (it runs jobs as their submitting user)")
    d = tmp_path_factory.mktemp("slurm")
    host = socket.gethostname().split(".")[0]
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    sock = d / "munge.socket"
    conf = d / "slurm.conf"
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    conf.write_text(f"""ClusterName=flitsimtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    env = dict(os.environ, SLURM_CONF=str(conf))
    procs = []
    try:
        procs.append(subprocess.Popen(
            ["munged", "-F", "-f", f"--key-file={key}", f"--socket={sock}",
             f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log",
             f"--seed-file={d}/munged.seed"], stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT))
        for daemon in ("slurmctld", "slurmd"):
            time.sleep(0.5)
            procs.append(subprocess.Popen([daemon, "-D", "-f", str(conf)], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + START_TIMEOUT
        state = ""
        while time.monotonic() < deadline:
            out = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=env, text=True,
                                 capture_output=True)
            state = (out.stdout or out.stderr).strip()
            if out.returncode == 0 and state.startswith(("idle", "mixed")):
                break
            if any(p.poll() is not None for p in procs):
                break
            time.sleep(0.5)
        else:
            state += " (timeout)"
        if not state.startswith(("idle", "mixed")):
            pytest.skip(f"single-node Slurm did not come up (node state {state!r}); "
                        f"slurmctld log:\n{_tail(d / 'slurmctld.log')}\nslurmd log:\n"
                        f"{_tail(d / 'slurmd.log')}")
        yield env
    finally:
        subprocess.run(["scancel", "--user", str(os.geteuid())], env=env, capture_output=True)
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()


def test_sweep_on_real_slurm_equals_in_process(slurm, monkeypatch, tmp_path):
    for k, v in slurm.items():
        if k == "SLURM_CONF":
            monkeypatch.setenv(k, v)
    cfg = small_dragonfly(sim={"warmup": 100, "measure": 300})
    over = {"traffic.load": [0.1, 0.3], "topology.p": [1, 2]}
    local = flitsim.sweep(cfg, over, backend="cpu", progress=False)
    remote = flitsim.sweep(
        cfg, over, output=tmp_path / "s.h5", backend="cpu", progress=False, cluster="slurm",
        cluster_workers=1,
        slurm_options={"cores": 1, "memory": "500MB", "processes": 1, "walltime": "00:05:00",
                       "python": sys.executable, "job_directives_skip": ["--mem"],
                       "log_directory": str(tmp_path / "logs")})
    assert remote.engine_runs == len(local.points) // 2
    # The worker ran as a Slurm job: its job wrote its output file into log_directory.
    assert list((tmp_path / "logs").glob("*.out")) or list((tmp_path / "logs").glob("*.err"))
    for a, b in zip(local.results, remote.results):
        sa, sb = a.summary(), b.summary()
        sa.pop("wall_seconds"), sb.pop("wall_seconds")
        assert sa == sb
        assert (a.latency_hist == b.latency_hist).all()
        assert (a.channel_flits == b.channel_flits).all()
