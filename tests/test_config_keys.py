"""One declaration per key (host/config/keys_<section>.cpp): the engine reads every key through it
into its parameter structs, Python's rules and defaults, `flitsim config`, the results files and
the key tables of docs/configuration.md all derive from it."""
import json
import pathlib

import pytest

import flitsim
from conftest import small_dragonfly
from flitsim import _core, hdf5
from flitsim.config import DEFAULTS, ROUTER_PRESET_RULES, ROUTER_PRESETS, SCHEMA, ConfigError, normalize
from flitsim.config_keys import KEYS, resolve, unset_keys, update_doc

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Keys whose other values need a companion key (the rules between keys, engine_config.cpp).
COMPANIONS = {("router", "speedup"): {"architecture": "cioq"}, ("router", "output_buffer"): {"architecture": "cioq"},
              ("router", "speculative"): {"va_sa": "separate"}, ("sim", "measure"): {"batches": 1},
              ("sim", "saturation"): {"latency_threshold": 500}}


def other_value(k):
    """A legal value of key k other than its default."""
    if k["type"] == "choice":
        return next(c for c in k["choices"] if c != k["default"])
    if k["type"] == "bool":
        return not k["default"]
    if k["type"] == "int":
        return k["lo"] + 1 if k["default"] == k["lo"] else k["lo"]
    if k["type"] == "float":
        return (k["lo"] + k["hi"]) / 2 if k["default"] != (k["lo"] + k["hi"]) / 2 else k["lo"]
    return [k["lo"] + 1]


def test_doc_key_tables_are_the_declaration():
    text = (ROOT / "docs" / "configuration.md").read_text()
    assert "<!-- keys:router" in text and "<!-- keys:sim" in text
    assert update_doc(text) == text, "run: python -m flitsim.config_keys --update docs/configuration.md"


def test_booksim_doc_maps_every_declared_booksim_name():
    # docs/booksim.md's table comes from the declarations' BookSim2 names, and its preset
    # table from router_presets.cpp: regenerated, they equal what the doc shows.
    text = (ROOT / "docs" / "booksim.md").read_text()
    assert "<!-- keys:booksim " in text and "<!-- keys:booksim-preset " in text
    assert update_doc(text) == text, "run: python -m flitsim.config_keys --update docs/booksim.md"
    for k in KEYS:
        if k.get("booksim"):
            assert f"| `{k['booksim']}` | `{k['section']}.{k['name']}` |" in text
    from flitsim.config import ROUTER_PRESETS
    for key in ROUTER_PRESETS["booksim"]:
        assert f"| `router.{key}` |" in text


def test_python_rules_and_defaults_come_from_the_declaration():
    for k in KEYS:
        assert k["name"] in SCHEMA[k["section"]]
        if k["filled"]:
            assert DEFAULTS[k["section"]][k["name"]] == k["default"]
        else:
            assert k["name"] not in DEFAULTS.get(k["section"], {})


# Keys whose value follows another's when not given (rules between keys, engine_config.cpp;
# router.preset: the keys the preset sets, router_presets.cpp).
FOLLOWERS = {("router", "alloc_iterations"): {("router", "sa_iterations")},
             ("router", "architecture"): {("router", "output_buffer")},
             ("router", "preset"): {("router", name) for preset in ROUTER_PRESETS.values() for name in preset}
             | {("router", r["key"]) for r in ROUTER_PRESET_RULES}   # the per-topology keys too
             | {("router", "sa_iterations")}}


def engine_values(sections):
    return {(sec, name): v for sec, keys in _core.engine_values(normalize(small_dragonfly(**sections))).items()
            for name, v in keys.items()}


@pytest.mark.parametrize("k", [k for k in KEYS if k["section"] != "channels"],
                         ids=lambda k: f"{k['section']}.{k['name']}")
def test_the_engine_reads_every_key_into_its_own_field(k):
    """Each declared key that fills a field: a value other than the default, given, is the value
    the engine holds, and no other key's value moves (a key declared with another key's field
    fails here). Routing keys are given with an algorithm that reads them."""
    me = (k["section"], k["name"])
    if me not in engine_values({}):
        pytest.skip("read by its section's own rules (sizes in bytes, stage delays, packet_sizes)")
    base = {k["section"]: dict(COMPANIONS.get(me, {}))}
    if k["section"] == "routing" and k["name"] != "algorithm" and k["read_by"] != "all":
        base["routing"]["algorithm"] = k["read_by"].split()[0]
    v = other_value(k)
    before = engine_values(base)
    after = engine_values({sec: {**keys, **({k["name"]: v} if sec == k["section"] else {})} for sec, keys in base.items()})
    assert after[me] == v
    moved = {key for key in before if before[key] != after[key]} - {me} - FOLLOWERS.get(me, set())
    assert not moved, f"setting {me} also moved {moved}"


def test_flitsim_config_prints_every_router_key_and_reads_back_the_same(capsys):
    from flitsim.cli import main
    assert main(["config", str(ROOT / "configs" / "dragonfly-1k.toml"), "--set", "router.preset=booksim"]) == 0
    out = capsys.readouterr().out
    import tomllib
    printed = tomllib.loads(out)
    skipped = {"buffer_bytes", "output_buffer_bytes", "output_buffer", "routing_delay", "vc_alloc_delay",
               "sw_alloc_delay", "st_delay"}  # sizes in bytes, cioq only, the stage-delay spelling of latency
    assert set(printed["router"]) == {k["name"] for k in KEYS if k["section"] == "router"} - skipped
    assert printed["router"]["vc_policy"] == "by-hop" and printed["router"]["injection_delay"] == 1
    assert resolve(normalize(printed)) == printed  # the printed config is complete and valid
    assert "# routing.selection" in out  # unset: the engine picks per routing (a comment)


def test_a_resolved_config_runs_the_same_simulation():
    cfg = normalize(small_dragonfly(router={"preset": "booksim", "vcs": 4}, routing={"algorithm": "ugal"},
                                    traffic={"load": 0.4}, sim={"warmup": 100, "measure": 300}))
    a = flitsim.run(cfg, backend="cpu", progress=False)
    b = flitsim.run(resolve(cfg), backend="cpu", progress=False)
    drop = ("wall_seconds",)
    assert {k: v for k, v in a.summary().items() if k not in drop} == \
        {k: v for k, v in b.summary().items() if k not in drop}
    assert (a.latency_hist == b.latency_hist).all() and (a.channel_flits == b.channel_flits).all()


def test_rules_between_keys_are_refused_by_resolve():
    with pytest.raises(ConfigError, match=r'^router\.speedup: needs router\.architecture = "cioq"'):
        resolve(normalize(small_dragonfly(router={"speedup": 2})))


def test_unset_keys_are_the_ones_the_engine_picks():
    names = {(k["section"], k["name"]) for k in unset_keys(normalize(small_dragonfly(routing={"algorithm": "ugal"})))}
    assert ("routing", "n_indirect") in names and ("routing", "offset") in names
    assert ("routing", "deroutes") not in names  # omniwar's alone


def test_a_results_file_records_the_router_model(tmp_path):
    cfg = normalize(small_dragonfly(router={"preset": "hyperx-paper"}, sim={"warmup": 50, "measure": 100},
                                    traffic={"packet_size": 4}))
    res = flitsim.run(cfg, backend="cpu", progress=False)
    path = tmp_path / "run.h5"
    hdf5.write_results(path, [res], cfg)
    opened = flitsim.open(path)
    assert opened.config == cfg  # the normalised config as given
    assert opened.resolved_config == resolve(cfg)
    router = opened.resolved_config["router"]
    assert (router["architecture"], router["speedup"], router["arbitration"]) == ("cioq", 2, "age")
    assert json.loads(json.dumps(opened.resolved_config)) == opened.resolved_config


def test_sim_latency_threshold_adds_bookSim2s_criterion():
    """sim.latency_threshold, added as docs/contributing.md's worked example of a new key (its
    declaration in keys_sim.cpp, its field in RunKeys, its reader in replica_stats.cpp): a replica
    whose measured mean packet latency exceeds it is saturated, whatever it accepted."""
    base = small_dragonfly(traffic={"load": 0.1}, sim={"warmup": 100, "measure": 400})
    free = flitsim.run(base, backend="cpu", progress=False)
    assert not free.saturated and 5 < free.latency_mean < 40
    below = int(free.latency_mean)  # the mean is above this
    over = flitsim.run(small_dragonfly(traffic={"load": 0.1}, sim={"warmup": 100, "measure": 400,
                                                                     "latency_threshold": below}),
                       backend="cpu", progress=False)
    assert over.saturated and over.latency_mean == free.latency_mean  # only the verdict changes
    fine = flitsim.run(small_dragonfly(traffic={"load": 0.1}, sim={"warmup": 100, "measure": 400,
                                                                     "latency_threshold": below + 1}),
                       backend="cpu", progress=False)
    assert not fine.saturated
    with pytest.raises(ConfigError, match=r"^sim\.latency_threshold: must be an integer in \[1, 2\^44\], got 0"):
        normalize(small_dragonfly(sim={"latency_threshold": 0}))


@pytest.mark.parametrize("raw,hint", [
    ({"router": {"num_vcs": 4}}, r'^router: unknown key "num_vcs" \(BookSim2\'s num_vcs is router\.vcs\)'),
    ({"traffic": {"injection_rate": 0.3}}, r"BookSim2's injection_rate is traffic\.load"),
    ({"routing": {"routing_function": "min"}}, r"BookSim2's routing_function is routing\.algorithm"),
    ({"sim": {"latency_thres": 500}}, r"BookSim2's latency_thres is sim\.latency_threshold"),
    ({"num_vcs": 4}, r"^num_vcs: unknown section \(BookSim2's num_vcs is router\.vcs\)"),
    ({"sim": {"vcs": 4}}, r'^sim: unknown key "vcs" \(did you mean router\.vcs\?\)'),
])
def test_an_unknown_key_names_the_key_it_most_likely_means(raw, hint):
    """BookSim2's names come from each key's declaration (booksim_name in keys_<section>.cpp)."""
    with pytest.raises(ConfigError, match=hint):
        normalize(raw)


def test_an_unknown_key_without_a_likely_meaning_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r'^router: unknown key "bogus" \(known: vcs, buffer'):
        normalize({"router": {"bogus": 1}})
