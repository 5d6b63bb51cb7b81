"""Adversarial configurations (tests/fuzz_configs.py) end in a result or a clear refusal:
exit 0 or 2 only, never a signal, a hang, a runaway allocation or a traceback, and every
refusal names the key it is about."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flitsim._core")

KEY = re.compile(r"\b(topology|router|channels|routing|traffic|sim|cost|workload)\.[a-z_]+\b")


def test_hostile_configurations_are_refused_clearly_or_run():
    script = Path(__file__).with_name("fuzz_configs.py")
    env = dict(os.environ, OMP_NUM_THREADS="1", FLITSIM_FUZZ_CASE_SECONDS="5")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(rows) >= 500
    bad = []
    for r in rows:
        if r["rc"] not in (0, 2) or r["traceback"]:
            bad.append(r)
        elif r["rc"] == 2 and not KEY.search(r["err"]):
            bad.append(r)
    shown = "\n".join(f'{r["case"]} [{r["command"]}] -> {r["rc"]}: '
                      f'{(r["err"] or r["traceback"]).strip()[-300:]}' for r in bad[:40])
    assert not bad, f"{len(bad)} of {len(rows)} cases ended badly:\n{shown}"
    assert sum(r["rc"] == 0 and r["command"] == "run" for r in rows) >= 50  # many really simulate
