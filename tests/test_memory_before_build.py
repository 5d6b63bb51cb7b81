"""Memory estimated before anything large is built (issue 34 item 3): the topology as its
builder lays it out, the routing's distance table and every replica's state, from the
configuration alone, checked against the available memory (FLITSIM_MEMORY_LIMIT parsed strictly)
on run, info, sweep and the Python API; the refusal names the keys that drive the size. Small
FLITSIM_MEMORY_LIMIT values make every refusal here allocate nothing large."""
import json
import os
import resource
import subprocess
import sys

import pytest

import flitsim
from conftest import small_dragonfly
from flitsim import _core
from flitsim.config import normalize
from flitsim.memory import check_run, estimate, estimate_run

HUGE_HYPERX = {"kind": "hyperx", "widths": [128, 128, 128], "terminals": 1}


def _flitsim(tmp_path, args, topology, limit="1G"):
    """`flitsim ARGS` on a config with `topology`, in a fresh process under FLITSIM_MEMORY_LIMIT;
    returns (exit status, stderr, the child's peak resident memory in bytes)."""
    path = tmp_path / "big.toml"
    path.write_text("[topology]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in topology.items()))
    script = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
              "print(p.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
              "sys.stdout.write(p.stderr)")
    env = dict(os.environ, FLITSIM_MEMORY_LIMIT=limit)
    proc = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "flitsim", *args, str(path)],
                          capture_output=True, text=True, env=env, timeout=300)
    code, rss_kib, err = proc.stdout.split("\n", 2)
    return int(code), err, int(rss_kib) * 1024


@pytest.mark.parametrize("command", [["info"], ["run", "--quiet"]])
@pytest.mark.parametrize("widths", [[128, 128, 128], [64, 64, 64, 4]])
def test_huge_hyperx_is_refused_before_building_it(tmp_path, command, widths):
    code, err, rss = _flitsim(tmp_path, command, {**HUGE_HYPERX, "widths": widths})
    assert code == 2, err
    assert "topology: building this hyperx needs about" in err or "topology: this run needs about" in err
    assert "topology.widths, topology.terminals" in err and "refused before building anything" in err
    assert "Traceback" not in err
    assert rss < 1 << 30  # the old path passed 6 GiB before any refusal


def test_hyperx_beyond_32_bit_port_numbers_is_refused_not_bad_alloc(tmp_path):
    code, err, _ = _flitsim(tmp_path, ["info"], {**HUGE_HYPERX, "widths": [256, 256, 256]}, limit="1T")
    assert code == 2 and "bad_alloc" not in err, err
    assert "topology.widths: this network has" in err and "32-bit integers" in err


@pytest.mark.parametrize("value", ["abc", "0x10", "0", "-1", "1.5G", "12Q", "1KB", " 5", ""])
def test_memory_limit_is_parsed_strictly(monkeypatch, value):
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", value)
    with pytest.raises(ValueError, match=r"^FLITSIM_MEMORY_LIMIT: must be a whole number of bytes > 0, "
                                          r"optionally with a unit K, M, G or T"):
        flitsim.run(small_dragonfly(), backend="cpu", progress=False)


@pytest.mark.parametrize("value, bytes_", [("1K", 1 << 10), ("3M", 3 << 20), ("2g", 2 << 30), ("1T", 1 << 40),
                                           ("123456", 123456)])
def test_memory_limit_units(monkeypatch, value, bytes_):
    cfg = normalize(small_dragonfly())
    free = estimate_run(cfg)["host_available"]  # MemAvailable and the cgroup's limit
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", value)
    got = estimate_run(cfg)["host_available"]
    assert got == bytes_ if bytes_ < free // 2 else got <= bytes_


def test_a_limit_of_1K_refuses_a_small_run(monkeypatch):
    # "1K" used to be ignored (the limit turned off): now 1,024 bytes, which nothing fits in.
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", "1K")
    with pytest.raises(ValueError, match=r"^topology: this run needs about .* but only 1024 bytes are available"):
        flitsim.run(small_dragonfly(), backend="cpu", progress=False)


def test_replica_count_drives_the_refusal(monkeypatch):
    cfg = normalize(small_dragonfly())
    one, many = estimate_run(cfg, 1), estimate_run(cfg, 100)
    assert one["known"] and many["state"] == pytest.approx(100 * one["state"])
    assert many["topology"] == one["topology"]
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", str(int(one["total"] * 2)))
    check_run(cfg, 1)
    with pytest.raises(ValueError, match=r"and the replicas \(100\)"):
        check_run(cfg, 100)
    with pytest.raises(ValueError, match=r"and the replicas \(100\)"):
        flitsim.run_replicas(cfg, [0.1] * 100, backend="cpu", progress=False)
    with pytest.raises(ValueError, match=r"and the replicas \(100\)"):
        flitsim.sweep(cfg, {"traffic.load": [0.1 + i * 0.001 for i in range(100)]}, backend="cpu",
                      max_replicas=100, progress=False)


def test_replica_lists_are_bounded_before_they_are_built():
    cfg = small_dragonfly()
    with pytest.raises(ValueError, match=r"^loads: at most 4096 replicas per engine run, got 2147483648"):
        flitsim.run_replicas(cfg, range(2**31), backend="cpu")
    with pytest.raises(ValueError, match=r"^loads: at most 4096 replicas per engine run, got more"):
        flitsim.run_replicas(cfg, (0.1 for _ in range(2**31)), backend="cpu")
    with pytest.raises(ValueError, match=r"^seeds: at most 4096"):
        flitsim.run_replicas(cfg, [0.1], seeds=range(2**40), backend="cpu")


@pytest.mark.parametrize("topology", [
    {"kind": "hyperx", "widths": [4, 4], "terminals": 2},
    {"kind": "hyperx", "widths": [3, 5, 2], "terminals": 1, "trunking": [1, 2, 3]},
    {"kind": "hyperx", "widths": [9], "terminals": 2, "gap": 3},
    {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
    {"kind": "dragonfly", "p": 1, "intra": "row-column", "rows": 2, "cols": 3, "h": 1, "trunking": 2},
    {"kind": "dragonfly", "p": 2, "a": 5, "h": 2, "local_ports": 8},
    {"kind": "slimfly", "q": 5},
    {"kind": "slimfly", "q": 7, "p": 3},
])
def test_the_size_from_the_keys_is_the_built_topology(topology):
    est = estimate_run(normalize({"topology": topology}))
    built = _core.build_topology(topology)
    assert est["known"]
    routers, nodes = built["num_routers"], built["num_nodes"]
    assert (est["routers"], est["ports"], est["nodes"]) == (routers, len(built["peer_port"]), nodes)
    assert est["routing"] == (0 if topology["kind"] == "dragonfly" else 2 * routers * routers)


def test_the_state_part_is_at_most_the_exact_layout():
    # A lower bound (shortest channel rings): never a refusal the exact check would not make.
    hyperx = small_dragonfly()
    hyperx["topology"] = {"kind": "hyperx", "widths": [4, 4], "terminals": 2}
    for cfg in (small_dragonfly(router={"vcs": 3, "buffer": 5}), hyperx):
        cfg = normalize(cfg)
        exact = estimate(cfg, 3)["bytes"]
        est = estimate_run(cfg, 3)["state"]
        assert 0.5 * exact <= est <= exact


def test_kinds_without_a_size_function_still_run():
    cfg = small_dragonfly(routing={"algorithm": "updown"})
    cfg["topology"] = {"kind": "fattree", "k": 4, "n": 2}
    cfg = normalize(cfg)
    assert not estimate_run(cfg)["known"]
    assert flitsim.run(cfg, backend="cpu", progress=False).cycles > 0
