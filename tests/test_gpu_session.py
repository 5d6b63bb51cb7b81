"""The GPU session scripts work before a GPU session spends device time on them: they parse,
their DRY mode (CPU backend) runs every stage's plumbing, and each benchmark row's byte floor
and floor fraction follow benchmarks/byte_model.py's formula."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_schedules  # noqa: E402
import byte_model  # noqa: E402


@pytest.mark.parametrize("script", ["gpu_session.sh", "gpu_wheel.sh", "source_hash.sh"])
def test_script_parses(script):
    subprocess.run(["bash", "-n", str(BENCH / script)], check=True)


def test_source_hash_names_the_tree():
    out = subprocess.run(["bash", str(BENCH / "source_hash.sh")], cwd=ROOT, capture_output=True, text=True, check=True)
    assert re.fullmatch(r"[0-9a-f]{16}\n", out.stdout), out.stdout


def test_coverage_order_puts_one_replica_at_load_half_first():
    pts = bench_schedules.ordered_points(["cuda"], ["router", "block"], ["df16k", "df1k"], [0.1, 0.5, 1.0],
                                         [1, 32], "coverage")
    assert len(pts) == 2 * 2 * 3 * 2
    assert pts[:4] == [("cuda", "router", "df16k", 0.5, 1), ("cuda", "block", "df16k", 0.5, 1),
                       ("cuda", "router", "df1k", 0.5, 1), ("cuda", "block", "df1k", 0.5, 1)]
    assert [p[3:] for p in pts[4:8]] == [(0.5, 32)] * 4
    assert {p[3] for p in pts[8:16]} == {0.1} and {p[3] for p in pts[16:]} == {1.0}


def test_bench_row_floor_is_the_byte_model(tmp_path):
    out = tmp_path / "b.jsonl"
    bench_schedules.main(["--backends", "cpu", "--networks", "df1k", "--loads", "0.3", "--reps", "2",
                          "--cycles", "160", "--threads", "1", "--bandwidth-gbs", "1000",
                          "--out", str(out), "--table", str(tmp_path / "b.md")])
    (row,) = [json.loads(x) for x in out.read_text().splitlines()]
    # 160 cycles and at most sim.drain_limit = 1 cycle of drain
    assert row["cycles"] in (160, 161) and row["replicas"] == 2 and row["routers"] == 264
    ports, nodes = 264 * 15, 1056
    # 52 B per flit-hop: 4-byte buffered flits (cuda/flit.cuh), 8 B of buffer traffic per hop
    bytes_per_cycle = ports * 20 + nodes * 12 + nodes * row["accepted"] * (row["hops_mean"] + 1) * (52 + 48 / 4)
    assert row["floor_cycles_per_s"] == pytest.approx(1e12 / bytes_per_cycle, rel=1e-3)  # rounded inputs
    assert row["replica_cycles_per_s"] == pytest.approx(2 * row["cycles_per_s"], rel=1e-3)
    assert row["floor_fraction"] == pytest.approx(row["replica_cycles_per_s"] / row["floor_cycles_per_s"], rel=1e-3)
    assert byte_model.floor_cycles_per_s(ports, nodes, 0.0, 0.0, 4, 1000) == pytest.approx(1e12 / (ports * 20 + nodes * 12))
    assert "| cpu | - | df1k | 0.3 | 2 |" in (tmp_path / "b.md").read_text()


def test_state_cap_skips_before_allocating(tmp_path):
    out = tmp_path / "b.jsonl"
    bench_schedules.main(["--backends", "cpu", "--networks", "hx1m", "--loads", "0.3", "--reps", "1",
                          "--max-state-gb", "1", "--out", str(out), "--table", str(tmp_path / "b.md")])
    (row,) = [json.loads(x) for x in out.read_text().splitlines()]
    # 8.8 GB since buffered flits are 4 bytes (cuda/flit.cuh; 9.x before)
    assert row["skipped"].startswith("state 8.") and "> --max-state-gb 1" in row["skipped"]


def test_dry_session_runs_every_stage(tmp_path):
    env = dict(os.environ, DRY="1", OUT=str(tmp_path), SESSION_SECONDS="200", STAGES="tests goals bench",
               BENCH_ARGS="--networks df1k --loads 0.5 --reps 1 --cycles 128 --threads 1")
    subprocess.run(["bash", str(BENCH / "gpu_session.sh")], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=300)
    log = (tmp_path / "session.txt").read_text()
    assert re.search(r"tests: exit 0 \| .*skipped", log), log
    assert re.search(r"goal saturate 1,056 nodes .*: exit 0, [\d.]+ s end to end .*\"throughput\"", log), log
    assert "goal 917,504-node HyperX: skipped (DRY)" in log
    rows = [json.loads(x) for x in (tmp_path / "bench.jsonl").read_text().splitlines()]
    assert [(r["network"], r["load"], r["replicas"]) for r in rows] == [("df1k", 0.5, 1)]
    assert rows[0]["cycles"] in (128, 129) and rows[0]["cycles_per_s"] > 0
    assert "| cpu | - | df1k | 0.5 | 1 |" in (tmp_path / "bench.md").read_text()
