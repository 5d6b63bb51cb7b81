"""HDF5 results: exact round trip, the documented layout, and refusal of bad input."""
from __future__ import annotations

import math
import pathlib
from datetime import datetime

import h5py
import numpy as np
import pytest

import flitsim
from flitsim.config import normalize
from flitsim.hdf5 import SCHEMA_VERSION, read_attrs, read_config, read_results, write_results
from flitsim.results import SUMMARY_KEYS, Result
from results_factory import build_result  # tests/ helper

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "hdf5.md"


def assert_same(a: Result, b: Result) -> None:
    for name in Result.SCALAR_FIELDS:
        va, vb = getattr(a, name), getattr(b, name)
        assert va == vb and type(va) is type(vb), name
    for name in Result.ARRAY_FIELDS + ("port_router", "peer_port", "port_class"):
        va, vb = getattr(a, name), getattr(b, name)
        assert va.dtype == vb.dtype and va.shape == vb.shape, name
        assert va.tobytes() == vb.tobytes(), name  # bit-identical
    assert a.class_names == b.class_names and a.config == b.config


def _restamp(path) -> None:
    """Record the file's SHA-256 again after editing it (docs/hdf5.md, the user block)."""
    import hashlib
    from flitsim.hdf5 import STAMP, USERBLOCK
    data = bytearray(pathlib.Path(path).read_bytes())
    data[:USERBLOCK] = (STAMP + hashlib.sha256(data[USERBLOCK:]).hexdigest().encode() + b"\n").ljust(USERBLOCK, b"\0")
    pathlib.Path(path).write_bytes(bytes(data))


def test_round_trip_is_exact(tmp_path):
    cfg = normalize({"topology": {"kind": "hyperx", "widths": [4, 4]}, "channels": {"global": 3}})
    results = [build_result(load=0.1, seed=1),
               build_result(load=0.35, seed=7, saturated=True, backend="cuda",
                           wall_seconds=1 / 3, nodes=1000, latency_sum=2**40 + 1)]
    path = tmp_path / "r.h5"
    write_results(path, results, cfg)
    back = read_results(path)
    assert len(back) == 2
    for a, b in zip(results, back):
        assert_same(a, b)
    assert back[1].saturated is True and back[1].backend == "cuda"
    assert read_config(path) == cfg
    # Derived values come out the same as well.
    assert back[0].summary() == pytest.approx(results[0].summary(), nan_ok=True)


def test_layout_matches_the_schema(tmp_path):
    cfg = normalize({})
    results = [build_result(nodes=1000), build_result(seed=2)]
    path = tmp_path / "r.h5"
    write_results(path, results, cfg, extra_attrs={"sweep_key": "traffic.load",
                                                   "sweep_values": [0.1, 0.2],
                                                   "meta": {"host": "x"}})
    with h5py.File(path, "r") as f:
        assert f.attrs["schema_version"] == SCHEMA_VERSION == 1
        assert f.attrs["flitsim_version"] == flitsim.__version__
        assert datetime.fromisoformat(f.attrs["created"]).tzinfo is not None
        assert f.attrs["sweep_key"] == "traffic.load"
        assert list(f.attrs["sweep_values"]) == [0.1, 0.2]
        assert f.attrs["meta"] == '{"host": "x"}'
        # Browsable per-section copies of the config.
        assert f["config/router"].attrs["vcs"] == 4
        assert f["config/topology"].attrs["kind"] == "dragonfly"
        assert set(f["config"]) == set(cfg)
        t = f["topology"]
        assert list(t.attrs["class_names"]) == ["terminal", "local"]
        assert t["port_router"].dtype == np.int32 and t["port_class"].dtype == np.int8
        assert f["replicas"].attrs["count"] == 2 and set(f["replicas"]) == {"0", "1"}
        r0 = f["replicas/0"]
        assert set(Result.SCALAR_FIELDS) <= set(r0.attrs)
        assert set(Result.ARRAY_FIELDS) <= set(r0)
        assert r0.attrs["saturated"].dtype == np.uint8
        assert r0.attrs["latency_sum"].dtype == np.int64
        # Large arrays are compressed, small ones are not.
        assert r0["node_created_flits"].compression == "gzip"
        assert r0["hop_hist"].compression is None
        summary = r0["summary"].attrs
        assert set(summary) == set(SUMMARY_KEYS)
        expected = results[0].summary()
        for k in SUMMARY_KEYS:
            if isinstance(expected[k], float):
                assert math.isclose(summary[k], expected[k]) or (
                    math.isnan(summary[k]) and math.isnan(expected[k])), k
            else:
                assert summary[k] == expected[k], k
    attrs = read_attrs(path)
    assert attrs["schema_version"] == 1 and attrs["sweep_key"] == "traffic.load"


def test_replica_order_survives_more_than_ten(tmp_path):
    results = [build_result(seed=s, load=s / 100) for s in range(12)]
    path = tmp_path / "many.h5"
    write_results(path, results, normalize({}))
    assert [r.seed for r in read_results(path)] == list(range(12))


def test_topology_is_shared_and_read_only(tmp_path):
    path = tmp_path / "r.h5"
    write_results(path, [build_result(seed=1), build_result(seed=2)], normalize({}))
    a, b = read_results(path)
    assert a.port_router is b.port_router
    with pytest.raises(ValueError):
        a.peer_port[0] = 5


def test_nan_summary_values_are_stored(tmp_path):
    r = build_result(packets_measured=0, latency_hist=np.zeros(64, np.int64))
    path = tmp_path / "r.h5"
    write_results(path, [r], normalize({}))
    with h5py.File(path, "r") as f:
        assert math.isnan(f["replicas/0/summary"].attrs["latency_mean"])
    assert_same(read_results(path)[0], r)


def test_bad_input_is_refused(tmp_path):
    cfg = normalize({})
    path = tmp_path / "r.h5"
    with pytest.raises(ValueError, match="at least one Result"):
        write_results(path, [], cfg)
    other = build_result(port_class=np.zeros(12, np.int8))
    with pytest.raises(ValueError, match=r"results\[1\]: topology differs"):
        write_results(path, [build_result(), other], cfg)
    with pytest.raises(ValueError, match="reserved"):
        write_results(path, [build_result()], cfg, extra_attrs={"created": "now"})
    with pytest.raises(TypeError):  # fails half-way through writing: config is not JSON
        write_results(path, [build_result()], {"sim": {"odd": {1, 2}}})
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_existing_file_is_replaced_and_version_checked(tmp_path):
    path = tmp_path / "r.h5"
    write_results(path, [build_result(seed=1), build_result(seed=2)], normalize({}))
    write_results(path, [build_result(seed=3)], normalize({}))
    assert [r.seed for r in read_results(path)] == [3]
    plain = tmp_path / "plain"
    plain.write_text("")
    assert path.stat().st_mode == plain.stat().st_mode  # permissions follow the umask
    with h5py.File(path, "a") as f:
        f.attrs["schema_version"] = 99
    _restamp(path)  # as a later flitsim writing schema 99 would
    with pytest.raises(ValueError, match="unsupported flitsim schema_version 99"):
        read_results(path)
    with h5py.File(path, "a") as f:
        del f.attrs["schema_version"]
    _restamp(path)
    with pytest.raises(ValueError, match="not a flitsim results file"):
        read_config(path)


def test_docs_describe_every_field():
    text = DOCS.read_text()
    names = (list(Result.SCALAR_FIELDS) + list(Result.ARRAY_FIELDS) + list(SUMMARY_KEYS)
             + ["port_router", "peer_port", "port_class", "class_names", "config_json",
                "schema_version", "flitsim_version", "created"])
    missing = [n for n in names if f"`{n}`" not in text]
    assert not missing, f"docs/hdf5.md lacks {missing}"
