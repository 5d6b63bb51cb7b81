"""flitsim against SuperSim's committed measurements (docs/validation.md, "Side by side with
SuperSim (HyperX)"; validation/supersim/results-2026-11-29.json): with router.preset =
"supersim" and the routing overrides of analysis/supersim_side_by_side.py, zero-load latency
within 10 % of SuperSim's (the comparison's goal) and DOR's saturation within ±0.02. The
runs are shorter than the table's (zero-load window 5,000 cycles, saturation window 3,000), so
the tolerances hold with room for the shorter windows' noise."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "analysis"))
import supersim_side_by_side as side  # noqa: E402

RESULTS = json.loads((ROOT / "validation" / "supersim" / "results-2026-11-29.json").read_text())
REF = RESULTS["cases"]
ZERO = [c for c in REF if REF[c].get("zero_load") is not None and "+" not in c]


@pytest.mark.parametrize("case", ZERO)
def test_zero_load_latency_is_within_ten_percent_of_supersim(case):
    got = side.run(case, 0.01, 5000).latency_mean
    assert got == pytest.approx(REF[case]["zero_load"], rel=0.10)


def test_dor_saturation_under_uniform_traffic_is_within_002_of_supersim():
    got = side.run("dor-ur", 1.0, 3000).accepted
    assert got == pytest.approx(REF["dor-ur"]["accepted_at_1"], abs=0.02)


def test_the_preset_keeps_the_zero_load_pipeline_of_supersim():
    # SuperSim's minimum latency is 4 + 6·h cycles for a packet through h routers (its message
    # log by minimal hop count: 10, 16, 22, 28); flitsim's preset gives the same per packet.
    r = side.run("dor-ur", 0.01, 5000)
    lat = r.latency_hist
    nonzero = [i for i, n in enumerate(lat) if n]
    assert nonzero[0] == 10
    for h in range(1, 5):
        assert lat[4 + 6 * h] > 0


# SuperSim's WARs with its input-output-queued router (docs/validation.md): SuperSim-only
# measurements, committed with their bisection probes; the docs' table is the script's.
IOQ = RESULTS["ioq_war_saturation"]


def test_the_docs_ioq_table_is_the_scripts_reading_of_the_results_file():
    import supersim_ioq_table
    text = (ROOT / "docs" / "validation.md").read_text()
    body = text.split("<!-- generated:supersim-ioq -->\n", 1)[1].split("<!-- /generated:supersim-ioq -->", 1)[0]
    assert body == supersim_ioq_table.table(RESULTS)


@pytest.mark.parametrize("mode", sorted(IOQ["results"]))
def test_each_ioq_bracket_is_what_its_probes_found(mode):
    # A bracket is [highest sustained probe, lowest saturated probe], 1/32 wide at most.
    for case, (lo, hi) in IOQ["results"][mode].items():
        probes = IOQ["probes"][mode][case]
        assert lo == max([p["load"] for p in probes if p["sustained"]], default=0.0), case
        assert hi == min([p["load"] for p in probes if not p["sustained"]], default=1.0), case
        assert 0 < hi - lo <= 0.0313 + 1e-9, case
