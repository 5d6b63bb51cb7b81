"""Every script the docs tell a reader to run (`python analysis/X.py ...`, `python
benchmarks/X.py ...`, inline or in a code block) exists, answers --help without simulating,
and accepts each option the docs give it, so that no documented script call drifts. The
scripts themselves take minutes to hours; tests/test_docs_numbers.py checks the numbers
they produce."""
import pathlib
import re
import subprocess
import sys

import pytest

from test_docs_commands import DOCS

ROOT = pathlib.Path(__file__).resolve().parents[1]
CALL = re.compile(r"python ((?:analysis|benchmarks)/[\w/]+\.py)([^`\n#|]*)")


def _calls() -> dict[str, set[str]]:
    """script -> the options the docs pass it, over every document."""
    out: dict[str, set[str]] = {}
    for doc in DOCS:
        for script, args in CALL.findall(doc.read_text()):
            out.setdefault(script, set()).update(re.findall(r"(--[\w-]+)", args))
    return out


CALLS = _calls()


def test_the_docs_name_scripts():
    assert len(CALLS) >= 8


@pytest.mark.parametrize("script", sorted(CALLS))
def test_documented_script_answers_help_and_takes_its_options(script):
    assert (ROOT / script).is_file(), f"the docs run {script}, which does not exist"
    proc = subprocess.run([sys.executable, script, "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "usage:" in proc.stdout, proc.stderr[-2000:]
    for option in CALLS[script]:
        assert option in proc.stdout, f"the docs give {script} {option}, which it does not take"
