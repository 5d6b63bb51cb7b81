"""Configuration: defaults, validation rules and their messages, overrides, TOML loading."""
from __future__ import annotations

import copy
import math
import pathlib
import re

import pytest

from flitsim.config import (
    ALGORITHMS, DEFAULTS, PATTERNS, SCHEMA, SECTIONS, TOPOLOGY_KEYS, ConfigError, apply_override,
    load_config, loads_config, normalize,
)

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


# --- defaults and normalisation ---------------------------------------------------------------

def test_empty_config_gets_every_default():
    cfg = normalize({})
    assert list(cfg) == list(SECTIONS)
    for section, keys in DEFAULTS.items():
        for key, value in keys.items():
            assert cfg[section][key] == value, f"{section}.{key}"
    assert cfg["topology"] == {"kind": "dragonfly", "p": 4, "a": 8, "h": 4}
    assert cfg["router"] == {"vcs": 4, "buffer": 32, "latency": 2, "alloc_iterations": 1}
    assert cfg["channels"] == {"latency": 1}
    assert cfg["traffic"]["load"] == 0.1 and cfg["traffic"]["pattern"] == "uniform"
    assert cfg["sim"] == {"warmup": 1000, "measure": 2000, "seed": 1, "drain_limit": 50000,
                          "watchdog": 5000, "packet_slots": 0, "latency_bins": 16384,
                          "chunk": 128, "saturation_tolerance": 0.05, "batches": 10,
                          "schedule": "auto"}
    assert cfg["routing"] == {"algorithm": "min", "deadlock_avoidance": True}


def test_optional_keys_stay_absent_until_set():
    cfg = normalize({})
    assert set(cfg["routing"]) == {"algorithm", "deadlock_avoidance"}
    assert "shift" not in cfg["traffic"]
    cfg = normalize({"routing": {"algorithm": "ugal", "n_indirect": 2, "penalty": 1,
                                 "threshold": 50, "deroutes": 0, "valiant": "any",
                                 "selection": "adaptive"}})
    assert cfg["routing"]["penalty"] == 1.0 and isinstance(cfg["routing"]["penalty"], float)
    assert cfg["routing"]["threshold"] == 50.0 and cfg["routing"]["n_indirect"] == 2


def test_dragonfly_defaults_are_not_given_to_other_kinds():
    assert normalize({"topology": {"kind": "hyperx"}})["topology"] == {"kind": "hyperx"}
    # Explicit dragonfly keys override the defaults, the others are kept.
    topo = normalize({"topology": {"p": 2, "groups": 17}})["topology"]
    assert topo == {"kind": "dragonfly", "p": 2, "a": 8, "h": 4, "groups": 17}


def test_topology_values_pass_through():
    topo = normalize({"topology": {"kind": "hyperx", "widths": (4, 4), "terminals": 2,
                                   "trunking": 1}})["topology"]
    assert topo == {"kind": "hyperx", "widths": [4, 4], "terminals": 2, "trunking": 1}
    topo = normalize({"topology": {"kind": "fattree", "taper": 0.5}})["topology"]
    assert topo["taper"] == 0.5
    topo = normalize({"topology": {"kind": "graph", "file": "net.edges"}})["topology"]
    assert topo["file"] == "net.edges"


def test_channel_classes_are_free_keys():
    ch = normalize({"channels": {"global": 10, "latency": 2, "terminal": 1}})["channels"]
    assert ch == {"latency": 2, "global": 10, "terminal": 1}
    assert list(ch)[0] == "latency"


def test_loads_accept_integer_bounds_as_floats():
    for v in (0, 1):
        load = normalize({"traffic": {"load": v}})["traffic"]["load"]
        assert load == float(v) and isinstance(load, float)


def test_boundary_values_are_accepted():
    cfg = normalize({"router": {"latency": 0}, "sim": {"warmup": 0, "packet_slots": 0,
                     "latency_bins": 16, "seed": 0}, "traffic": {"shift": -3},
                     "routing": {"threshold": 100, "deroutes": 0, "penalty": 0}})
    assert cfg["router"]["latency"] == 0 and cfg["traffic"]["shift"] == -3
    assert cfg["sim"]["latency_bins"] == 16 and cfg["routing"]["threshold"] == 100.0


@pytest.mark.parametrize("raw", [
    {},
    {"topology": {"kind": "hyperx", "widths": [4, 4]}, "traffic": {"load": 1}},
    {"channels": {"global": 10}, "routing": {"algorithm": "par", "threshold": 3}},
    {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "arrangement": "consecutive"}},
])
def test_normalize_is_idempotent(raw):
    once = normalize(raw)
    assert normalize(once) == once
    assert normalize(copy.deepcopy(once)) == once


def test_normalize_returns_a_new_dict_and_leaves_input_alone():
    raw = {"topology": {"kind": "hyperx", "widths": [4, 4]}, "router": {"vcs": 2}}
    before = copy.deepcopy(raw)
    cfg = normalize(raw)
    assert raw == before
    cfg["topology"]["widths"].append(9)
    cfg["router"]["vcs"] = 7
    assert raw == before
    again = normalize(cfg)
    again["topology"]["widths"].append(1)
    assert cfg["topology"]["widths"] == [4, 4, 9]


# --- rules and their messages -----------------------------------------------------------------

BAD = [
    # unknown section / key
    ({"foo": {}}, r"^foo: unknown section \(known: topology, router"),
    ({"sim": {"warmpu": 3}}, r'^sim: unknown key "warmpu" \(known: warmup, measure'),
    ({"router": {"vc": 3}}, r'^router: unknown key "vc"'),
    ({"routing": {"algo": "min"}}, r'^routing: unknown key "algo"'),
    ({"traffic": {"rate": 0.1}}, r'^traffic: unknown key "rate"'),
    ({"topology": {"kind": "hyperx", "p": 4}}, r'^topology: unknown key "p" \(known: kind, widths'),
    ({"topology": {"q": 5}}, r'^topology: unknown key "q"'),
    ({"topology": {"kind": "moebius"}}, r'^topology.kind: unknown topology "moebius" \(known: dragonfly'),
    ({"topology": {"kind": 3}}, r"^topology.kind: unknown topology 3"),
    ({"sim": 3}, r"^sim: must be a table"),
    # wrong types (bool is not an int; floats are not ints)
    ({"router": {"vcs": "4"}}, r'^router\.vcs: must be an integer in \[1, 63\], got "4"$'),
    ({"router": {"vcs": True}}, r"^router\.vcs: must be an integer in \[1, 63\], got true$"),
    ({"router": {"vcs": 4.0}}, r"^router\.vcs: must be an integer in \[1, 63\], got 4\.0$"),
    ({"sim": {"seed": 1.5}}, r"^sim\.seed: must be an integer in \[0, 2\^63-1\]"),
    ({"traffic": {"shift": "1"}}, r"^traffic\.shift: must be an integer"),
    ({"traffic": {"load": "0.5"}}, r'^traffic\.load: must be in \[0, 1\], got "0.5"$'),
    ({"traffic": {"load": True}}, r"^traffic\.load: must be in \[0, 1\], got true$"),
    ({"routing": {"penalty": "1"}}, r"^routing\.penalty: must be in \[0, 1e\+06\]"),
    ({"topology": {"p": {"x": 1}}}, r"^topology\.p: must be a string, number, boolean or a list of integers"),
    ({"topology": {"kind": "hyperx", "widths": []}}, r"^topology\.widths: must be"),
    ({"topology": {"kind": "hyperx", "widths": [4, "4"]}}, r"^topology\.widths: must be"),
    ({"topology": {"kind": "hyperx", "widths": [4, 4.5]}}, r"^topology\.widths: .* list of integers"),
    ({"topology": {"kind": "hyperx", "widths": [4, True]}}, r"^topology\.widths: must be"),
    ({"topology": {"p": math.nan}}, r"^topology\.p: must be"),
    ({"channels": {"global": "10"}}, r"^channels\.global: must be an integer in \[1, 2\^20\]"),
    # zero / negative sizes
    ({"router": {"vcs": 0}}, r"^router\.vcs: must be an integer in \[1, 63\], got 0$"),
    ({"router": {"buffer": 0}}, r"^router\.buffer: must be an integer in \[1, 2\^16\], got 0$"),
    ({"router": {"latency": -1}}, r"^router\.latency: must be an integer in \[0, 2\^20\], got -1$"),
    ({"channels": {"latency": 0}}, r"^channels\.latency: must be an integer in \[1, 2\^20\], got 0$"),
    ({"channels": {"global": 0}}, r"^channels\.global: must be an integer in \[1, 2\^20\], got 0$"),
    ({"traffic": {"packet_size": 0}}, r"^traffic\.packet_size: must be an integer in \[1, 2\^20\]"),
    ({"sim": {"warmup": -1}}, r"^sim\.warmup: must be an integer in \[0, 2\^44\]"),
    ({"sim": {"measure": 0}}, r"^sim\.measure: must be an integer in \[1, 2\^44\]"),
    ({"sim": {"seed": -1}}, r"^sim\.seed: must be an integer in \[0, 2\^63-1\]"),
    ({"sim": {"seed": 2**63}}, r"^sim\.seed: must be an integer in \[0, 2\^63-1\]"),
    ({"sim": {"drain_limit": 0}}, r"^sim\.drain_limit: must be an integer in \[1, 2\^44\]"),
    ({"sim": {"watchdog": 0}}, r"^sim\.watchdog: must be an integer in \[1, 2\^44\]"),
    ({"sim": {"packet_slots": -1}}, r"^sim\.packet_slots: must be an integer in \[0, 2\^16\]"),
    ({"sim": {"latency_bins": 15}}, r"^sim\.latency_bins: must be an integer in \[16, 2\^24\], got 15$"),
    ({"routing": {"n_indirect": 0}}, r"^routing\.n_indirect: must be an integer in \[1, 64\], got 0"),
    ({"routing": {"deroutes": -1}}, r"^routing\.deroutes: must be an integer in \[0, 62\], got -1"),
    ({"sim": {"chunk": 0}}, r"^sim\.chunk: must be an integer in \[1, 2\^20\], got 0$"),
    ({"routing": {"deadlock_avoidance": 1}}, r"^routing\.deadlock_avoidance: must be true or false, got 1$"),
    ({"routing": {"deadlock_avoidance": "no"}}, r'^routing\.deadlock_avoidance: must be true or false, got "no"$'),
    # ranges of floats
    ({"traffic": {"load": 1.5}}, r"^traffic\.load: must be in \[0, 1\], got 1\.5$"),
    ({"traffic": {"load": -0.1}}, r"^traffic\.load: must be in \[0, 1\], got -0\.1$"),
    ({"traffic": {"load": 2}}, r"^traffic\.load: must be in \[0, 1\], got 2$"),
    ({"traffic": {"load": math.nan}}, r"^traffic\.load: must be in \[0, 1\]"),
    ({"routing": {"penalty": -1}}, r"^routing\.penalty: must be in \[0, 1e\+06\], got -1$"),
    ({"routing": {"penalty": math.inf}}, r"^routing\.penalty: must be in \[0, 1e\+06\]"),
    ({"routing": {"threshold": 100.5}}, r"^routing\.threshold: must be in \[0, 100\]"),
    ({"routing": {"threshold": -1}}, r"^routing\.threshold: must be in \[0, 100\]"),
    # names
    ({"routing": {"algorithm": "ugal-l"}}, r'^routing\.algorithm: unknown algorithm "ugal-l" \(known: min, valiant'),
    ({"traffic": {"pattern": "unifrom"}}, r'^traffic\.pattern: unknown pattern "unifrom" \(known: uniform'),
    ({"traffic": {"placement": "linear"}}, r'^traffic\.placement: unknown value "linear" \(known: contiguous, random, booksim-flatfly\)'),
    ({"routing": {"valiant": "some"}}, r'^routing\.valiant: unknown value "some" \(known: restricted, any, node, differing-dims\)'),
    ({"routing": {"selection": "random"}}, r'^routing\.selection: unknown value "random"'),
]


@pytest.mark.parametrize("raw,message", BAD, ids=[m.split(":")[0].strip("^\\") for _, m in BAD])
def test_bad_values_are_rejected_naming_the_key(raw, message):
    with pytest.raises(ConfigError, match=message):
        normalize(raw)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


def test_every_allowed_name_is_accepted():
    for a in ALGORITHMS:
        assert normalize({"routing": {"algorithm": a}})["routing"]["algorithm"] == a
    for p in PATTERNS:
        assert normalize({"traffic": {"pattern": p}})["traffic"]["pattern"] == p
    for kind, keys in TOPOLOGY_KEYS.items():
        topo = normalize({"topology": {"kind": kind, **{k: 1 for k in keys}}})["topology"]
        assert set(topo) == {"kind", *keys}


# --- TOML files and strings -------------------------------------------------------------------

GOOD_TOML = """
[topology]
kind = "hyperx"
widths = [4, 4]
terminals = 2

[routing]
algorithm = "dimwar"

[traffic]
load = 0.25
pattern = "bitcomp"
"""


def test_load_config_reads_a_file(tmp_path):
    path = tmp_path / "hx.toml"
    path.write_text(GOOD_TOML)
    cfg = load_config(path)
    assert cfg == loads_config(GOOD_TOML)
    assert cfg["topology"] == {"kind": "hyperx", "widths": [4, 4], "terminals": 2}
    assert cfg["traffic"]["load"] == 0.25 and cfg["routing"]["algorithm"] == "dimwar"
    assert cfg["router"] == DEFAULTS["router"]


def test_malformed_toml_names_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[router]\nvcs = = 4\n")
    with pytest.raises(ConfigError, match=r"^.*config\.toml: malformed TOML: .*line 2"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"^<string>: malformed TOML: "):
        loads_config("[router\n")


def test_non_utf8_and_missing_files(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[traffic]\npattern = "\xe9"\n')
    with pytest.raises(ConfigError, match=r"latin1\.toml: malformed TOML: not UTF-8"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"nope\.toml: cannot read config"):
        load_config(tmp_path / "nope.toml")


def test_file_errors_name_the_key(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[sim]\nwarmup = -5\n")
    with pytest.raises(ConfigError, match=r"^sim\.warmup: must be an integer in \[0, 2\^44\], got -5$"):
        load_config(path)


# --- overrides --------------------------------------------------------------------------------

@pytest.mark.parametrize("override,section,key,value", [
    ("router.vcs=4", "router", "vcs", 4),
    ("traffic.load=0.5", "traffic", "load", 0.5),
    ('traffic.pattern="uniform"', "traffic", "pattern", "uniform"),
    ("traffic.pattern=uniform", "traffic", "pattern", "uniform"),
    ("routing.algorithm=ugal-g", "routing", "algorithm", "ugal-g"),
    ("topology.widths=[4,4]", "topology", "widths", [4, 4]),
    ("topology.relabel=true", "topology", "relabel", True),
    (" router.vcs = 4 ", "router", "vcs", 4),
    ("topology.file=a=b.txt", "topology", "file", "a=b.txt"),  # only the first "=" splits
    ("router.vcs=1\nx = 2", "router", "vcs", "1\nx = 2"),      # two TOML keys: not one value
])
def test_override_parses_toml_values_and_falls_back_to_strings(override, section, key, value):
    cfg: dict = {}
    assert apply_override(cfg, override) is cfg
    assert cfg == {section: {key: value}}
    assert type(cfg[section][key]) is type(value)


def test_overrides_apply_in_order_on_top_of_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[router]\nvcs = 2\n[traffic]\nload = 0.2\n")
    cfg = load_config(path, ["router.vcs=3", "router.vcs=5", "sim.seed=9"])
    assert cfg["router"]["vcs"] == 5 and cfg["sim"]["seed"] == 9
    assert cfg["traffic"]["load"] == 0.2


def test_override_can_switch_topology_kind():
    cfg = loads_config("", ["topology.kind=hyperx", "topology.widths=[3, 3]"])
    assert cfg["topology"] == {"kind": "hyperx", "widths": [3, 3]}


@pytest.mark.parametrize("override,message", [
    ("novalue", r'^override "novalue": must be section\.key=value'),
    ("router.vcs", r'^override "router\.vcs": must be section\.key=value'),
    ("=4", r'^override "=4": must be section\.key=value'),
    ("router=4", r'^override "router=4": must be section\.key=value'),
    ("router.=4", r'^override "router\.=4": must be section\.key=value'),
    ("router.vcs.x=4", r'^override "router\.vcs\.x=4": must be section\.key=value'),
    ("foo.bar=1", r'^foo: unknown section in override "foo\.bar=1" \(known: topology'),
])
def test_malformed_override_is_named(override, message):
    with pytest.raises(ConfigError, match=message):
        apply_override({}, override)


def test_override_values_are_validated_by_normalize():
    with pytest.raises(ConfigError, match=r'^router: unknown key "vc"'):
        loads_config("", ["router.vc=4"])
    with pytest.raises(ConfigError, match=r'^router\.vcs: must be an integer in \[1, 63\], got "four"$'):
        loads_config("", ["router.vcs=four"])
    with pytest.raises(ConfigError, match=r"^sim: must be a table"):
        apply_override({"sim": 3}, "sim.seed=1")


# --- documentation ----------------------------------------------------------------------------

def test_docs_list_every_key_and_name():
    text = DOCS.read_text()
    names = [f"## `[{s}]`" for s in SECTIONS]
    names += [f"`{k}`" for sec in SCHEMA.values() for k in sec]
    names += [f"`{k}`" for keys in TOPOLOGY_KEYS.values() for k in keys]
    names += [f"`{k}`" for k in list(TOPOLOGY_KEYS) + list(ALGORITHMS) + list(PATTERNS)]
    missing = [n for n in names if n not in text]
    assert not missing, f"docs/configuration.md lacks {missing}"
    for section, keys in DEFAULTS.items():
        for key, value in keys.items():
            shown = (f'"{value}"' if isinstance(value, str) else
                     str(value).lower() if isinstance(value, bool) else str(value))
            row = re.search(rf"^\| `{key}` \|.*$", text[text.index(f"## `[{section}]`"):], re.M)
            assert row and f"`{shown}`" in row.group(0), f"{section}.{key} default not documented"


def test_graph_file_is_relative_to_the_toml_file(tmp_path, monkeypatch):
    (tmp_path / "ring.txt").write_text("0 1\n1 2\n2 0\n")
    (tmp_path / "cfg.toml").write_text('[topology]\nkind = "graph"\nfile = "ring.txt"\n')
    monkeypatch.chdir("/")
    cfg = load_config(tmp_path / "cfg.toml")
    assert cfg["topology"]["file"] == str(tmp_path / "ring.txt")
    cfg = load_config(tmp_path / "cfg.toml", ["topology.file=/abs/g.txt"])  # --set wins as given
    assert cfg["topology"]["file"] == "/abs/g.txt"


def test_row_column_dragonfly_gets_no_default_a():
    cfg = loads_config('[topology]\nkind = "dragonfly"\nintra = "row-column"\nrows = 2\ncols = 3\n')
    assert "a" not in cfg["topology"] and cfg["topology"]["p"] == 4


def test_cost_section_is_validated_and_kept():
    cfg = loads_config("[cost]\ncopper = 0.2\n")
    assert cfg["cost"] == {"copper": 0.2}
    with pytest.raises(ConfigError, match=r"cost\.router: must be a finite number >= 0"):
        loads_config("[cost]\nrouter = -1\n")


def test_registries_come_from_the_engine():
    """Routing, pattern and topology-key lists are the engine's registries, not restatements."""
    from flitsim import _core
    assert ALGORITHMS == tuple(dict.fromkeys(r["algorithm"] for r in _core.routings()))
    assert PATTERNS == tuple(_core.patterns())
    assert TOPOLOGY_KEYS == {k: tuple(v) for k, v in _core.topology_keys().items()}
    assert set(TOPOLOGY_KEYS) == set(_core.topology_kinds())
    with pytest.raises(ValueError, match=r'topology\.grups: unknown key for topology kind "dragonfly"'):
        _core.build_topology({"kind": "dragonfly", "p": 1, "a": 2, "h": 1, "grups": 3})


def test_routing_keys_take_defaults_and_bounds_from_the_engine_table():
    from flitsim import _core
    keys = {k["name"]: k for k in _core.config_keys() if k["section"] == "routing"}
    assert tuple(SCHEMA["routing"]) == tuple(keys)
    assert DEFAULTS["routing"] == {n: k["default"] for n, k in keys.items() if k["filled"]}
    hi = keys["n_indirect"]["hi"]
    assert normalize({"routing": {"n_indirect": hi}})["routing"]["n_indirect"] == hi
    with pytest.raises(ConfigError, match=rf"^routing\.n_indirect: must be an integer in \[1, {hi}\], got {hi + 1}$"):
        normalize({"routing": {"n_indirect": hi + 1}})
    # The engine applies the same bound when called without the Python front end.
    with pytest.raises(ValueError, match=rf"routing\.n_indirect: must be an integer in \[1, {hi}\]"):
        _core.state_layout({"topology": {"kind": "dragonfly", "p": 1, "a": 2, "h": 1},
                            "routing": {"algorithm": "ugal", "n_indirect": hi + 1}}, 1)
