"""Numbers in the docs that come from runs agree with a rerun within stated tolerances
(analysis/doc_claims.py lists them; `python analysis/regenerate_docs.py claims` rewrites
them), and the generated study table of docs/reproductions.md shows the bounds its text
states (DOR's 1/T, 1/(W·T) and 2/T on the quick 4x4x4 HyperX, T = W = 4)."""
from flitsim import _core  # noqa: F401  (built before any test captures output)
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "analysis"))
from doc_claims import CLAIMS  # noqa: E402
from regenerate_docs import claim_pattern, measure, replace_region  # noqa: E402

_CACHE: dict = {}


@pytest.mark.parametrize("claim", CLAIMS, ids=[f"{c.doc}:{c.field}:{i}" for i, c in enumerate(CLAIMS)])
def test_a_quoted_number_matches_a_rerun(claim):
    text = (ROOT / "docs" / claim.doc).read_text()
    found = claim_pattern(claim).findall(text)
    assert len(found) == 1, f"{claim.doc}: {claim.text!r} appears {len(found)} times"
    quoted = float(found[0])
    assert len(found[0].split(".")[-1]) == claim.digits or claim.digits == 0
    value = measure(claim.command, _CACHE)[claim.field]
    assert quoted == pytest.approx(value, abs=claim.tolerance), \
        f"{claim.doc}: {claim.text.format(found[0])} but a rerun gives {value:.4f}: " \
        "run python analysis/regenerate_docs.py claims"


def _generated_table(name: str) -> dict[str, dict[str, float]]:
    text = (ROOT / "docs" / "reproductions.md").read_text()
    body = text.split(f"<!-- generated:{name} -->\n", 1)[1].split(f"<!-- /generated:{name} -->", 1)[0]
    lines = [ln for ln in body.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    out = {}
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        # a cell is "mean%" or "mean ± half%", then maybe the paper's statement: the mean
        out[cells[0]] = {h: float(c.split("%")[0].split("±")[0]) for h, c in zip(head[1:], cells[1:])}
    return out


def test_generated_hyperx_table_shows_dors_bounds():
    t = _generated_table("hyperx-dimwar")
    assert set(t) == {"UR", "BC", "URBx", "URBy", "S2", "DCR"}
    # DOR at its bounds (docs/reproductions.md: 1/T = 25 %, 1/(W·T) = 6.25 %, 2/T = 50 %),
    # within a point: the window's statistical noise.
    for pattern, bound in (("BC", 25.0), ("URBx", 25.0), ("URBy", 25.0), ("DCR", 6.25), ("S2", 50.0)):
        assert t[pattern]["DOR"] == pytest.approx(bound, abs=1.0), pattern
    # VAL under its 50 % bound everywhere.
    assert all(row["VAL"] <= 50.5 for row in t.values())


def test_replace_region_rewrites_only_between_markers():
    text = "a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb\n"
    assert replace_region(text, "x", "new\n") == "a\n<!-- generated:x -->\nnew\n<!-- /generated:x -->\nb\n"
    assert replace_region(text, "y", "new\n") == text
