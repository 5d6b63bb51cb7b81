"""No output is ever lost or silently replaced (issue 34): the whole -o path is checked before
simulating, an existing file is replaced only when it is a flitsim file of the same kind, a
failed write leaves the results in a fallback file, and a damaged results file is refused
naming it (per-dataset Fletcher32 checksums and a CRC-32 of every object's attributes)."""
from __future__ import annotations

import errno
import os

import h5py
import numpy as np
import pytest

from flitsim import hdf5
from flitsim.config import ConfigError, normalize
from flitsim.hdf5 import DamagedFile, FileError, read_results, write_results
from flitsim.outputs import OutputLost, check_output, write_or_rescue
from results_factory import build_result  # tests/ helper


def _results_file(path):
    write_results(path, [build_result(seed=1), build_result(seed=2, nodes=1000)], normalize({}))
    return path


def _sweep_file(path):
    hdf5.create_sweep(path, normalize({}), ["traffic.load"], [{"traffic.load": 0.1}, {"traffic.load": 0.2}])
    hdf5.append_sweep(path, [0], [build_result(load=0.1)])
    return path


# --- what an existing file may be replaced by ---------------------------------------------------

def test_existing_files_replaced_only_by_their_own_kind(tmp_path):
    results, sweep = _results_file(tmp_path / "r.h5"), _sweep_file(tmp_path / "s.h5")
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["data"] = np.arange(4)
    block = tmp_path / "userblock.h5"
    with h5py.File(block, "w", userblock_size=512) as f:
        f["data"] = np.arange(4)
    check_output(results, kind="results")   # run -o onto a results file: replaced
    check_output(sweep, kind="sweep")       # sweep -o onto a sweep: resumed
    cases = [(sweep, "results", "is a flitsim sweep file, not a results file"),
             (results, "sweep", "is a flitsim results file, not a sweep file"),
             (other, "results", "not a readable flitsim results file"),
             (other, "sweep", "not a readable flitsim results file"),
             (block, "sweep", "not a readable flitsim results file")]
    for path, kind, why in cases:
        before = path.read_bytes()
        with pytest.raises(ConfigError, match=why) as e:
            check_output(path, kind=kind)
        assert str(path) in str(e.value) and "--force" in str(e.value)
        check_output(path, kind=kind, force=True)  # --force: the user said so
        assert path.read_bytes() == before


def test_names_too_long_for_the_temporary_file_refused_before_running(tmp_path):
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    # The temporary name is NAME.<pid>.tmp: its extra length is what the check reserves.
    extra = len(".tmp") + 1 + len(open("/proc/sys/kernel/pid_max").read().strip())
    fits = tmp_path / ("x" * (name_max - extra))
    check_output(fits, kind="results")
    too_long = tmp_path / ("x" * (name_max - extra + 1))
    with pytest.raises(ConfigError, match=rf"the file name is {name_max - extra + 1} bytes; .* at "
                                          rf"most {name_max - extra} bytes here \(NAME_MAX {name_max}\)"):
        check_output(too_long, kind="results")
    # The name check is right: the longest accepted name takes the temporary file.
    write_results(fits, [build_result()], normalize({}))
    assert read_results(fits)[0].seed == 1


def test_no_room_for_the_output_refused(tmp_path):
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    check_output(tmp_path / "r.h5", kind="results", expected_bytes=1)
    with pytest.raises(ConfigError, match=r"has .* free; the output needs about"):
        check_output(tmp_path / "r.h5", kind="results", expected_bytes=free + (1 << 40))


def test_expected_size_bounds_the_written_file(tmp_path):
    from flitsim.config import loads_config
    cfg = loads_config('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n[sim]\nlatency_bins = 4096')
    out = tmp_path / "r.h5"
    import flitsim
    res = flitsim.run_replicas(cfg, [0.1, 0.2], backend="cpu", progress=False)
    write_results(out, res, cfg)
    assert out.stat().st_size <= hdf5.estimate_bytes(cfg, 2)


# --- failed writes keep the results ------------------------------------------------------------

def test_failed_write_goes_to_a_fallback_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "sub" / "r.h5"
    target.parent.mkdir()
    result = [build_result(seed=5)]

    def write(path):
        if path == str(target):
            raise OSError(errno.ENOSPC, "No space left on device")
        write_results(path, result, normalize({}))
    with pytest.raises(OutputLost, match=r"No space left on device\); the results were written to "
                                         r".*flitsim-rescued-.*\.h5 instead") as e:
        write_or_rescue(write, target)
    assert os.path.dirname(e.value.rescued) == str(tmp_path)
    assert read_results(e.value.rescued)[0].seed == 5
    assert not target.exists()


def test_failed_write_with_nowhere_to_go_says_so(tmp_path, monkeypatch):
    def write(path):
        raise OSError(errno.EIO, "Input/output error")
    with pytest.raises(OutputLost, match="nor a fallback file in .*; the results were not saved") as e:
        write_or_rescue(write, tmp_path / "r.h5")
    assert e.value.rescued is None


# --- damaged files are refused, naming the file ------------------------------------------------

def test_flipped_dataset_byte_refused_naming_the_file(tmp_path):
    path = _results_file(tmp_path / "r.h5")
    with h5py.File(path, "r") as f:
        ds = f["replicas/1/node_created_flits"]   # 1000 nodes: a compressed chunk
        assert ds.fletcher32 and ds.compression == "gzip"
        offset = ds.id.get_chunk_info(0).byte_offset
    data = bytearray(path.read_bytes())
    data[offset + 3] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFile, match=rf"^{path}: damaged: its SHA-256 no longer matches"):
        read_results(path)
    with h5py.File(path, "r") as f:   # any HDF5 reader refuses the chunk too (Fletcher32)
        with pytest.raises(OSError):
            f["replicas/1/node_created_flits"][()]


def test_changed_attribute_refused(tmp_path):
    path = _results_file(tmp_path / "r.h5")
    with h5py.File(path, "r+") as f:   # HDF5 checksums no attributes: the file's SHA-256 does
        f["replicas/0"].attrs["latency_sum"] = f["replicas/0"].attrs["latency_sum"] + 1
    with pytest.raises(DamagedFile, match=rf"^{path}: damaged: its SHA-256 no longer matches"):
        read_results(path)


def test_lost_stamp_refused(tmp_path):
    path = _results_file(tmp_path / "r.h5")
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF   # the stamp's first byte: HDF5 still reads the file, flitsim refuses it
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFile, match=rf"^{path}: damaged: the SHA-256 flitsim recorded .* is gone"):
        read_results(path)


def test_every_flipped_byte_is_read_back_unchanged_or_refused(tmp_path):
    """Flip one byte at a time across a whole sweep file: each read gives exactly the
    original results (the byte was unused) or refuses the file by name; never other values,
    never another exception."""
    path = _sweep_file(tmp_path / "s.h5")
    reference = hdf5.read_sweep(path)
    data = path.read_bytes()
    damaged, refused = tmp_path / "d.h5", 0
    for pos in range(0, len(data), 61):
        flipped = bytearray(data)
        flipped[pos] ^= 0xA5
        damaged.write_bytes(bytes(flipped))
        try:
            back = hdf5.read_sweep(damaged)
        except FileError as e:
            assert str(e).startswith(str(damaged)), e
            refused += 1
            continue
        assert back["points"] == reference["points"] and back["config"] == reference["config"]
        assert back["done"].tolist() == reference["done"].tolist()
        for a, b in zip(back["results"], reference["results"]):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.summary() == pytest.approx(b.summary(), nan_ok=True)
                for name in a.ARRAY_FIELDS:
                    assert np.array_equal(getattr(a, name), getattr(b, name)), (pos, name)
    assert refused > 10


def test_special_and_foreign_files_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match=rf"^{fifo}: is a FIFO, not a results file"):
        read_results(fifo)   # opening would block until a writer came
    with pytest.raises(FileError, match=rf"^{tmp_path}: is a directory"):
        read_results(tmp_path)
    with pytest.raises(FileError, match=r"missing.h5: cannot read: No such file"):
        read_results(tmp_path / "missing.h5")
    text = tmp_path / "t.h5"
    text.write_text("hello")
    with pytest.raises(DamagedFile, match=rf"^{text}: not a readable HDF5 file"):
        read_results(text)
    path = _results_file(tmp_path / "r.h5")
    with h5py.File(path, "r+") as f:
        del f["topology"]
    with pytest.raises(DamagedFile, match=rf"^{path}: damaged"):
        read_results(path)


# --- a full disk, emulated by a file-size limit (writes past it fail with EFBIG) --------------

SMALL_TOML = ('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n[router]\nvcs = 4\nbuffer = 8\n'
              '[traffic]\nload = 0.2\n[sim]\nwarmup = 20\nmeasure = 40\ndrain_limit = 400\n')


# The limit is set after the engine is imported (an editable install may rebuild it on import).
_LIMITED = ("import sys, resource, signal, flitsim._core\n"
            "limit = int(sys.argv.pop(1))\n"
            "if limit:\n"
            "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
            "from flitsim.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")


def _flitsim(tmp_path, *args, limit=0):
    import subprocess
    import sys
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", _LIMITED, str(limit), *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)


def _own_lines(stderr):
    """flitsim's lines, without an editable install's rebuild chatter."""
    return [line for line in stderr.strip().splitlines() if line.startswith("flitsim:")]


def test_sweep_onto_a_full_disk_stops_cleanly_and_resumes(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(SMALL_TOML)
    out = tmp_path / "out" / "s.h5"
    out.parent.mkdir()
    args = ["sweep", str(config), "--over", "traffic.load=0.1:0.9:0.1", "--max-replicas", "1",
            "-o", str(out), "--quiet", "--backend", "cpu"]
    p = _flitsim(tmp_path, *args, limit=150_000)
    assert p.returncode == 1, p.stderr[-2000:]
    assert "Traceback" not in p.stderr and "Exception" not in p.stderr
    lines = _own_lines(p.stderr)
    assert len(lines) == 1 and lines[0].startswith(f'flitsim: error: cannot write "{out}"'), p.stderr[-2000:]
    assert f"{out} still holds the points finished before" in lines[0]
    done = hdf5.read_sweep(out)["done"]
    assert 0 < done.sum() < 9
    if "instead" in lines[0]:   # the batch that did not fit went to a fallback file
        rescued = lines[0].split(" were written to ")[1].split(" instead")[0]
        assert len(read_results(rescued)) == 1
    p = _flitsim(tmp_path, *args)   # room again: the same command resumes
    assert p.returncode == 0, p.stderr[-2000:]
    assert hdf5.read_sweep(out)["done"].all()


def test_run_onto_a_full_disk_keeps_the_result(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(SMALL_TOML)
    out = tmp_path / "out" / "r.h5"
    out.parent.mkdir()
    # Room for neither the output nor a fallback: the summary is printed, status 1, no crash.
    p = _flitsim(tmp_path, "run", str(config), "-o", str(out), "--quiet", "--json", limit=4096)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    lines = _own_lines(p.stderr)
    assert len(lines) == 1 and lines[0].endswith("the results were not saved"), p.stderr[-2000:]
    import json
    assert json.loads(p.stdout.strip().splitlines()[-1])["cycles"] > 0   # the summary still reaches stdout
    assert not out.exists()
