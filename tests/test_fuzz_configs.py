"""Configurations drawn from the key schema (tests/fuzz_schema.py: valid, out-of-range,
wrong-type and unknown values of the declared keys, combined at random with a fixed seed, on
small networks and a few dozen cycles) end in a result or a clear refusal: exit status 0 or
2, never a signal, a hang or a traceback, and every refusal names a key (or the unknown key
or section drawn)."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flitsim._core")

KEY = re.compile(r"\b(topology|router|channels|routing|traffic|sim|cost|workload)\.[a-z_]+\b")
UNKNOWN = re.compile(r'(\b(router|routing|traffic|sim): unknown key "[a-z_]+_x"|sectionx: unknown section)')


def _named(err: str) -> bool:
    return bool(KEY.search(err) or UNKNOWN.search(err))


def test_schema_drawn_configurations_end_in_a_result_or_a_clear_refusal():
    script = Path(__file__).with_name("fuzz_schema.py")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(rows) >= 200
    bad = [r for r in rows
           if r["rc"] not in (0, 2) or r["traceback"] or (r["rc"] == 2 and not _named(r["err"]))]
    shown = "\n".join(f'{r["case"]} [{r["command"]}] -> {r["rc"]}: '
                      f'{(r["err"] or r["traceback"]).strip()[-300:]}' for r in bad[:30])
    assert not bad, f"{len(bad)} of {len(rows)} cases ended badly:\n{shown}"
    # The draw exercises both outcomes: many configurations really simulate, many are refused.
    assert sum(r["rc"] == 0 and r["command"] == "run" for r in rows) >= 30
    assert sum(r["rc"] == 2 for r in rows) >= 40
