"""Every `flitsim ...` command and every Python block of README.md and docs/ runs, so that no
documented example drifts from the code (tests/test_docs_commands.py only parses them).

Commands run in document order, one fresh folder per document (so a `plot` or `show` reads
what an earlier command of its document wrote; a results file that no command of the
document writes is made first, from a 72-node run or sweep), with configs/... found the way
an installed flitsim finds them (package data: the folder has no configs/). Simulations get
short settings: run, sweep and saturate add SHORT to their options; each document marks
this where it shows a simulating command. Commands that cannot run here are left out and
named in SKIPPED with the reason; a command whose comment says it fails ("error", "a cycle")
must fail with the documented status.
"""
from flitsim import _core  # noqa: F401  (built before any test captures output)
import os
import pathlib
import re
import shlex

import pytest

from test_docs_commands import DOCS, PLACEHOLDER, shell_blocks
from flitsim.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Short settings for the simulating commands: a window of 300 cycles, a drain of at most
# 600, and for saturate a coarse tolerance: seconds per command on one core.
SHORT = {"run": ["--set", "sim.warmup=100", "--set", "sim.measure=200", "--set",
                 "sim.drain_limit=600", "--threads", "1"],
         "sweep": ["--set", "sim.warmup=100", "--set", "sim.measure=200", "--set",
                   "sim.drain_limit=600", "--threads", "1"],
         "saturate": ["--set", "sim.warmup=100", "--set", "sim.measure=200", "--set",
                      "sim.drain_limit=600", "--threads", "1", "--tolerance", "0.05"]}
WORKLOAD_SHORT = ["--threads", "1"]   # a [workload] run: the programs set its length
SKIPPED = {
    "--cluster slurm": "needs Slurm (tests/test_cluster.py runs it against a stand-in)",
    "--cluster tcp://": "needs a running Dask scheduler (tests/test_cluster.py)",
    "--cluster local": "a Dask cluster per command: the experiments.md script runs one",
    "reproduce dragonfly-valiant": "minutes (tests/test_studies.py runs the fast studies)",
    "reproduce hyperx-dimwar": "minutes to hours (tests/test_studies.py runs the fast studies)",
    "reproduce network-noise": "tests/test_studies.py runs it and checks its trends",
    "--backend cuda": "needs a GPU (tests/test_gpu.py)",
    "--full": "the papers' sizes: hours",
}


def _doc_commands(doc: pathlib.Path):
    """(command, comment, shown) of each runnable `flitsim` line, in document order. A command
    written after a `$ ` prompt is followed by the output the document shows for it, up to the
    next prompt: `shown` holds those lines, which the command must print word for word (a line
    ending in "..." as a prefix of one it prints)."""
    text = doc.read_text()
    for block in shell_blocks(text):
        raw = [line.strip() for line in re.sub(r"\\\n\s*", " ", block).splitlines()]
        for i, line in enumerate(raw):
            shown = []
            if line.startswith("$ "):
                for after in raw[i + 1:]:
                    if after.startswith("$ "):
                        break
                    if after:
                        shown.append(after)
            code, _, comment = line.lstrip("$ ").partition("#")
            for part in re.split(r"\s*(?:&&|\|)\s*", code):
                part = part.strip()
                if part.startswith("flitsim ") and not PLACEHOLDER.search(part):
                    yield part, comment, shown


def _printed(shown: str, printed: list[str]) -> bool:
    if shown.endswith("..."):
        return any(p.startswith(shown[:-3].rstrip()) for p in printed)
    return shown in printed


def _documents():
    out = []
    for doc in DOCS:
        cmds = list(_doc_commands(doc))
        if cmds:
            out.append((doc.name, cmds))
    return out


DOCUMENTS = _documents()


def _expected_status(comment: str) -> int:
    if re.search(r"\berror\b", comment):
        return 2
    if "a cycle" in comment:
        return 1
    return 0


def _skip_reason(command: str) -> str | None:
    for pattern, why in SKIPPED.items():
        if pattern in command:
            return why
    return None


def _is_workload(argv: list[str]) -> bool:
    cfg = next((a for a in argv[1:] if a.endswith(".toml")), None)
    if cfg is None:
        return False
    from flitsim.shipped import find
    path = find(cfg)
    return path is not None and "[workload]" in path.read_text()


def _make_missing_input(argv: list[str], folder: pathlib.Path) -> None:
    """A plot or show of a file that no earlier command of the document wrote: write a small
    one (a sweep for plots of curves, a run for everything else)."""
    if argv[0] not in ("plot", "show"):
        return
    path = folder / argv[1]
    if path.exists():
        return
    small = ["configs/dragonfly-1k.toml", "--set", "topology.p=2", "--set", "topology.a=4",
             "--set", "topology.h=2", "--quiet"] + SHORT["run"]
    if argv[0] == "plot" and "--links" not in argv:
        assert main(["sweep", *small, "--over", "traffic.load=0.1,0.3",
                     "--over", "routing.algorithm=min,ugal", "-o", str(path)]) == 0
    else:
        assert main(["run", *small, "-o", str(path)]) == 0


@pytest.mark.parametrize("doc,commands", DOCUMENTS, ids=[d for d, _ in DOCUMENTS])
def test_documented_commands_run(doc, commands, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command, comment, shown in commands:
        if _skip_reason(command):
            continue
        argv = shlex.split(command)[1:]
        if argv and argv[0] in SHORT and "--help" not in argv:
            argv += WORKLOAD_SHORT if _is_workload(argv) else SHORT[argv[0]]
        _make_missing_input(argv, tmp_path)
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == _expected_status(comment), f"{doc}: {command} -> {status}\n{err[-2000:]}"
        printed = [line.strip() for line in (out + err).splitlines()]
        for line in shown:
            assert _printed(line, printed), f"{doc}: {command} printed\n{(out + err)[-2000:]}\nnot\n{line}"
        ran += 1
    assert ran > 0 or all(_skip_reason(c) for c, _, _ in commands)   # e.g. only cluster commands


PY_BLOCKS = [(doc.name, i, code) for doc in DOCS
             for i, code in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S))]
# Python blocks that need a cluster (compiled, not run) and the README's block (run by
# tests/test_docs_commands.py, on the 72-node dragonfly).
PY_COMPILE_ONLY = {("experiments.md", 3), ("README.md", 0)}


@pytest.mark.parametrize("doc,index,code", PY_BLOCKS, ids=[f"{d}-{i}" for d, i, _ in PY_BLOCKS])
def test_documented_python_runs(doc, index, code, tmp_path, monkeypatch):
    """Each block runs in a fresh folder, with what the docs' prose gives it: `flitsim`
    imported, `config` (a 72-node dragonfly with a short window), `over`, and the files out.h5
    (a results file) and sweep.h5 (a sweep)."""
    compiled = compile(code, f"{doc}[{index}]", "exec")
    if (doc, index) in PY_COMPILE_ONLY:
        return
    import flitsim
    monkeypatch.chdir(tmp_path)
    if "__main__" in code:       # a script: run as one, in its own process
        import subprocess
        import sys
        (tmp_path / "script.py").write_text(code.replace(
            'flitsim.load_config("configs/dragonfly-1k.toml")',
            'flitsim.load_config("configs/dragonfly-1k.toml", ["topology.p=2", "topology.a=4", '
            '"topology.h=2", "sim.warmup=100", "sim.measure=200"])'))
        proc = subprocess.run([sys.executable, "script.py"], capture_output=True, text=True,
                              timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "3 points" in proc.stdout
        return
    config = flitsim.load_config("configs/dragonfly-1k.toml",
                                 ["topology.p=2", "topology.a=4", "topology.h=2",
                                  "sim.warmup=100", "sim.measure=200", "sim.drain_limit=600"])
    over = {"traffic.load": [0.1, 0.3]}
    r = flitsim.run(config, backend="cpu", progress=False)
    flitsim.hdf5.write_results("out.h5", [r], config)
    flitsim.sweep(config, over, output="sweep.h5", backend="cpu", progress=False)
    env = {"flitsim": flitsim, "config": config, "over": over}
    exec(compiled, env)
