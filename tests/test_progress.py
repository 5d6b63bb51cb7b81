"""The progress system (flitsim.progress): log-friendly lines off a terminal, in-place redraws
on one, an ETA from the share of work done, and every long-running entry point using it."""
from flitsim import _core  # noqa: F401  (built before any test captures output: editable installs rebuild on import)
import io

import pytest

import flitsim
from flitsim import progress as prog
from conftest import small_dragonfly


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_eta_and_hms_follow_their_formulas():
    assert prog.eta(10.0, 0.25) == pytest.approx(30.0)   # a quarter took 10 s: 30 s left
    assert prog.eta(10.0, 1.0) == 0.0
    assert prog.eta(10.0, 0.0) != prog.eta(10.0, 0.0)     # unknown: NaN
    assert prog.hms(3725) == "1:02:05" and prog.hms(65) == "1:05"
    assert prog.hms(float("nan")) == "-"


def test_lines_in_a_log_end_in_newlines_and_carry_eta():
    out = io.StringIO()
    r = prog.Reporter("run", stream=out, interval=0.0)
    r.update("cycle 10", 0.5)
    r.update("cycle 20", None)
    r.close()
    lines = out.getvalue().split("\n")
    assert "\r" not in out.getvalue()
    assert lines[0].startswith("run: cycle 10") and "50.0%" in lines[0] and "ETA 0:0" in lines[0]
    assert lines[1].startswith("run: cycle 20") and lines[1].endswith("ETA -")
    assert lines[2] == ""


def test_terminal_line_is_redrawn_in_place_and_throttled():
    out = _Tty()
    r = prog.Reporter("sweep", stream=out, interval=3600.0)
    r.update("a", 0.1)                   # within the first interval: nothing
    assert out.getvalue() == ""
    r.update("long text here", 0.2, force=True)
    r.update("b", 0.3, force=True)       # shorter: padded over the previous line
    r.message("done round")
    r.close()
    text = out.getvalue()
    assert text.count("\r") >= 2 and "sweep: done round\n" in text
    first, second = text.split("\r")[1:3]
    assert len(second) == len(first)


def test_default_is_off_outside_an_interactive_session():
    assert prog.enabled(None) is False          # pytest is not a REPL
    assert prog.enabled(True) is True and prog.enabled(False) is False


def test_run_and_workload_report_fractions(monkeypatch):
    seen = []
    flitsim.run(small_dragonfly(sim={"warmup": 100, "measure": 300}), backend="cpu",
                progress=lambda *a: seen.append(a))
    assert seen and all(len(a) == 4 and a[1] == 400 and a[3] == -1.0 for a in seen)
    wl = []
    r = flitsim.run(small_dragonfly(workload={"jobs": [{"motif": "alltoall", "ranks": 72,
                                                         "bytes": 64}]}),
                    backend="cpu", progress=lambda *a: wl.append(a))
    fractions = [a[3] for a in wl]
    assert all(a[1] == 0 for a in wl) and fractions == sorted(fractions)
    assert fractions[-1] == 1.0 and r.workload.job_delivered[0] == 72 * 71


def test_engine_line_goes_to_stderr_with_eta(monkeypatch, capsys):
    monkeypatch.setattr(prog, "LOG_INTERVAL", 0.0)
    flitsim.run(small_dragonfly(sim={"warmup": 100, "measure": 300}), backend="cpu", progress=True)
    err = capsys.readouterr().err
    assert "run: cycle" in err and "(warm-up + window, then the drain)" in err and "ETA" in err


def test_sweep_fraction_reaches_one(monkeypatch, capsys):
    monkeypatch.setattr(prog, "LOG_INTERVAL", 0.0)
    statuses = []
    flitsim.sweep(small_dragonfly(sim={"warmup": 50, "measure": 100}, router={"vcs": 4}),
                  {"traffic.load": [0.1, 0.2], "routing.algorithm": ["min", "valiant"]},
                  backend="cpu", progress=statuses.append)
    # Two batches of two replicas: after the first, the second is expected to last as long
    # (its drain learnt from the first), so half the work is done.
    assert [s.fraction for s in statuses] == pytest.approx([0.5, 1.0], abs=1e-12)
    assert statuses[-1].eta == 0.0
    flitsim.sweep(small_dragonfly(sim={"warmup": 50, "measure": 100}),
                  {"traffic.load": [0.1, 0.2]}, backend="cpu", progress=True)
    err = capsys.readouterr().err
    assert "sweep: points 2/2" in err and "100.0%" in err


def test_saturate_and_check_deadlock_lines(monkeypatch, capsys):
    from flitsim.deadlock import check_deadlock
    from flitsim.saturate import _rounds_needed
    assert _rounds_needed(1.0, 0.005, 8) == 3     # 1/8, then /9, /9: 0.0015 <= 0.005
    assert _rounds_needed(1.0, 0.2, 8) == 1
    monkeypatch.setattr(prog, "LOG_INTERVAL", 0.0)
    flitsim.saturate(small_dragonfly(sim={"warmup": 50, "measure": 200}), tolerance=0.1,
                     probes=8, backend="cpu", progress=True)
    err = capsys.readouterr().err
    assert "saturate: round 1/~2" in err and "saturate: run 1:" in err
    check_deadlock(small_dragonfly(routing={"algorithm": "valiant"}, router={"vcs": 3}),
                   progress=True)
    err = capsys.readouterr().err
    assert "check-deadlock: routes: source router 0/" in err and "ETA" in err


def test_run_length_learns_the_drain_and_bounds_it():
    rl = prog.RunLength()
    # Before any run finished: the window plus DRAIN_PRIOR of it.
    assert rl.expected(1000) == pytest.approx(1000 * (1 + prog.RunLength.DRAIN_PRIOR))
    rl.observe(1000, 1500)                       # a run drained 500 cycles
    rl.observe(2000, 2000)                       # one drained none: ratio 3500/3000
    assert rl.ratio() == pytest.approx(3500 / 3000)
    assert rl.expected(600) == pytest.approx(700)
    # Draining past the expectation: as long again as drained so far, never past the limit.
    assert rl.expected(600, cycle=900) == 900 + 300
    assert rl.expected(600, drain_limit=400, cycle=900) == 1000
    assert rl.expected(600, drain_limit=50) == 650


def test_the_run_line_keeps_an_eta_while_draining(monkeypatch):
    # A run at cycle 1,500 of a 1,000-cycle window with a drain limit of 2,000: the line says
    # it drains, shows a share below 100 % and an ETA that is not 0:00.
    from flitsim.runner import _Progress
    buf = io.StringIO()
    p = _Progress(1, drain_limit=2000)
    p.line = prog.Reporter("run", stream=buf, interval=0.0, tty=False)
    p.line.start -= 10.0                          # 10 s elapsed
    p(1500, 1000, 0)
    line = buf.getvalue().splitlines()[-1]
    assert "draining measured packets, at most 1,500 more cycles" in line
    # expected end: 1500 + 500 = 2000 cycles -> 75 % done, 10 s * 0.25 / 0.75 = 3 s left
    assert "75.0%" in line and "ETA 0:03" in line
