"""The state's memory is known before allocating: the estimate equals the real layout, a run
that cannot fit is refused with the size and the available memory, and info shows it."""
import json

import pytest

pytest.importorskip("flitsim._core")
import flitsim  # noqa: E402
from conftest import small_dragonfly  # noqa: E402
from flitsim import _core  # noqa: E402
from flitsim.cli import main  # noqa: E402
from flitsim.config import normalize  # noqa: E402
from flitsim.memory import estimate  # noqa: E402


@pytest.mark.parametrize("replicas", [1, 3])
def test_estimate_is_the_allocated_layout(replicas):
    cfg = normalize(small_dragonfly(router={"vcs": 3, "buffer": 5}, sim={"latency_bins": 777}))
    est = estimate(cfg, replicas)
    real = _core.state_layout(cfg, replicas)  # allocates the state and counts its arrays
    assert est["bytes"] == real["bytes"]
    assert est["replica_bytes"] == real["replica_bytes"]
    assert est["replicas"] == replicas


def test_run_that_does_not_fit_is_refused_before_allocating(monkeypatch):
    cfg = small_dragonfly(router={"vcs": 8, "buffer": 256})
    need = estimate(normalize(cfg))["bytes"]
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", str(need - 1))
    with pytest.raises(ValueError, match=r"^sim: the simulation state needs [\d.]+ MiB .* but only "
                                         r"[\d.]+ MiB of host memory are available; reduce router\.vcs"):
        flitsim.run(cfg, backend="cpu")
    monkeypatch.setenv("FLITSIM_MEMORY_LIMIT", str(need))
    assert flitsim.run(small_dragonfly(router={"vcs": 8, "buffer": 256}, sim={"warmup": 10, "measure": 10}),
                       backend="cpu").cycles > 0


def test_info_shows_the_estimate(tmp_path, capsys):
    path = tmp_path / "df.toml"
    path.write_text('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n')
    assert main(["info", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["state_bytes"] == estimate(normalize({"topology": {"kind": "dragonfly", "p": 2, "a": 4,
                                                                   "h": 2}}))["bytes"]
    assert info["host_memory_available"] >= 0
    gpu = info["gpu"]
    if "name" in gpu:  # with a GPU: its memory, free at most total
        assert 0 < gpu["free_bytes"] <= gpu["total_bytes"]
    else:
        from flitsim import _core
        assert gpu["why_not"] == (_core.cuda_usable()[1] if _core.cuda_compiled()
                                  else "this build of flitsim has no CUDA backend")
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "state memory" in out
    gpu_line = next(line for line in out.splitlines() if line.startswith("gpu"))
    assert ("free of" in gpu_line and "room for" in gpu_line) if "name" in gpu else "runs use the CPU backend" in gpu_line
