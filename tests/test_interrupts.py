"""Interrupts and output files lose nothing: Ctrl-C is honoured in quiet mode, a finished
batch reaches the file before the exit, a sweep's file is locked, stale temporaries go."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("flitsim._core")
from conftest import small_dragonfly  # noqa: E402
from flitsim import sweep  # noqa: E402
from flitsim.config import ConfigError  # noqa: E402
from flitsim.hdf5 import read_sweep  # noqa: E402
from flitsim.outputs import (check_output, deferred_interrupt, remove_stale_temporaries,  # noqa: E402
                             sweep_lock)

OVER = {"traffic.load": [0.1, 0.2]}
TINY = dict(sim={"warmup": 50, "measure": 100})


@pytest.mark.parametrize("chunk", [128, 2**20])
def test_quiet_run_stops_within_a_second_of_ctrl_c(tmp_path, chunk):
    # A run far too long to finish: --quiet gives the engine no progress display, yet it must
    # still see SIGINT between chunks and exit 130 promptly (it used to run to the end). A
    # chunk of 2^20 cycles takes ~30 s here: the engine runs it in short pieces and checks
    # for Ctrl-C between them.
    cfg = tmp_path / "long.toml"
    cfg.write_text(textwrap.dedent("""\
        [topology]
        kind = "dragonfly"
        p = 2
        a = 4
        h = 2
        [traffic]
        load = 0.3
        [sim]
        warmup = 100000000
        measure = 1000
        chunk = CHUNK
        """).replace("CHUNK", str(chunk)))
    script = ("import sys, flitsim.engine, flitsim._core; from flitsim.cli import main; "
              "print('ready', flush=True); sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen([sys.executable, "-c", script, "run", str(cfg), "--quiet", "--json",
                          "--backend", "cpu"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    try:
        for line in p.stdout:  # (an editable install may print its rebuild first)
            if line.strip() == "ready":
                break
        time.sleep(1.0)  # inside the engine by now
        assert p.poll() is None
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
        waited = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert rc == 130, p.stderr.read()
    assert "interrupted" in p.stderr.read()
    assert waited < 3.0  # one chunk of 128 cycles takes milliseconds; slack for a busy CI


def test_deferred_interrupt_raises_after_the_block():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            done.append("finished the write")
    assert done == ["finished the write"]


def test_batch_finished_at_ctrl_c_is_written(tmp_path, monkeypatch):
    # Ctrl-C arriving while a finished batch is being written: the batch is on disk first.
    from flitsim import hdf5
    real = hdf5.append_sweep

    def append_then_interrupted(*a, **kw):
        os.kill(os.getpid(), signal.SIGINT)  # as if the user pressed Ctrl-C right now
        time.sleep(0.05)
        return real(*a, **kw)

    monkeypatch.setattr(hdf5, "append_sweep", append_then_interrupted)
    out = tmp_path / "s.h5"
    with pytest.raises(KeyboardInterrupt):
        sweep(small_dragonfly(**TINY), {"routing.algorithm": ["min", "valiant"]}, output=out,
              backend="cpu")
    assert read_sweep(out)["done"].tolist() == [True, False]


def test_second_writer_refused_while_a_sweep_holds_the_file(tmp_path):
    out = tmp_path / "s.h5"
    sweep(small_dragonfly(**TINY), OVER, output=out, backend="cpu")
    with sweep_lock(out):
        with pytest.raises(ConfigError, match="another flitsim sweep is writing"):
            sweep(small_dragonfly(**TINY), OVER, output=out, backend="cpu")
        with pytest.raises(ConfigError, match="another flitsim sweep is writing"):
            check_output(out)  # what `flitsim run -o` checks before and after simulating
    check_output(out)  # released
    assert not os.path.exists(tmp_path / ".s.h5.lock")


def test_stale_temporaries_removed_on_resume(tmp_path):
    out = tmp_path / "s.h5"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that no longer exists
    stale = tmp_path / f"s.h5.{dead.pid}.tmp"
    live = tmp_path / f"s.h5.{os.getppid()}.tmp"  # a writer that is still alive: kept
    stale.write_bytes(b"half")
    live.write_bytes(b"busy")
    res = sweep(small_dragonfly(**TINY), OVER, output=out, backend="cpu")
    assert res.engine_runs == 1
    assert not stale.exists() and live.exists()
    assert remove_stale_temporaries(out) == []


def test_sweep_product_is_bounded():
    over = {"traffic.load": [0.1] * 1000, "sim.seed": list(range(1000))}
    with pytest.raises(ConfigError, match=r"sweep.over: 1000 \(traffic.load\) x 1000 \(sim.seed\) "
                                          r"= 1000000 points; at most 100000"):
        sweep(small_dragonfly(**TINY), over)


def test_sweep_output_checked_before_running(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    with pytest.raises(ConfigError, match="is not an HDF5 file"):
        sweep(small_dragonfly(**TINY), OVER, output=notes, backend="cpu")
    assert notes.read_text() == "keep me"
    with pytest.raises(ConfigError, match="is a directory"):
        sweep(small_dragonfly(**TINY), OVER, output=tmp_path, backend="cpu")
