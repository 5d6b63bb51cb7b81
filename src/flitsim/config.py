"""Simulation configuration: TOML files, defaults, validation and command-line overrides.

A configuration is a nested dict ``{section: {key: value}}`` (the TOML tables). ``normalize``
checks every section and key against the rules below and fills the defaults, so the engine
receives a complete, valid dict and every user mistake is reported here, before a run
starts, with the full key and the rule it broke (docs/configuration.md lists them all).
Topology values are only type-checked: the C++ builder of each topology kind owns their
rules and raises ValueError naming the key.
"""
from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from . import _core
from .config_keys import DEFAULTS as KEY_DEFAULTS
from .config_keys import SCHEMA, key, where_else
from .validation import ConfigError
from .validation import choice_rule as _choice
from .validation import int_rule as _int
from .validation import is_int as _is_int
from .validation import is_number as _is_number
from .validation import show as _show
from .config_values import parse_value as _parse_value
from .config_values import sweep_values
from .traffic_classes import normalize_classes, split_class_key
from .workload.config import TRACE_WORKLOAD_KEYS, WORKLOAD_DEFAULTS, normalize_workload

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "ConfigError", "DEFAULTS", "TOPOLOGY_KEYS", "TOPOLOGY_DEFAULTS", "ALGORITHMS", "PATTERNS",
    "SECTIONS", "OPTIONAL_SECTIONS", "load_config", "loads_config", "normalize",
    "apply_override", "sweep_values", "check_sweep_key",
]


# Keys each topology kind accepts, as its C++ builder registered them (host/topologies/).
TOPOLOGY_KEYS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _core.topology_keys().items()}
# Only the default topology gets Python-side defaults; other kinds' builders decide theirs.
TOPOLOGY_DEFAULTS: dict[str, dict[str, Any]] = {"dragonfly": {"p": 4, "a": 8, "h": 4}}

# routing.algorithm and traffic.pattern names, from the engine's registries
# (cuda/routing/registry.h, cuda/traffic/registry.h).
ALGORITHMS = tuple(dict.fromkeys(r["algorithm"] for r in _core.routings()))
PATTERNS = tuple(_core.patterns())

# Every router.preset and its [router] keys (host/config/router_presets.cpp) whose value is the same
# on every topology and routing; ROUTER_PRESET_RULES lists every entry, the per-topology ones
# included (the booksim preset's vc_policy and eject_vc follow BookSim2's routing functions). A
# key the preset sets replaces that key's default here (_router_defaults).
ROUTER_PRESETS: dict[str, dict[str, Any]] = dict(_core.router_presets())
ROUTER_PRESET_RULES: tuple[dict[str, Any], ...] = tuple(_core.router_preset_rules())
# The [router] stage-delay keys (host/config/router_stage_delays.cpp): BookSim2's pipeline stages, the
# four that state router.latency and va_sa first, then credit_delay. Any of the four replaces
# router.latency's default (the engine derives it; _router_defaults).
STAGE_DELAY_KEYS: tuple[str, ...] = tuple(_core.router_stage_delay_keys())
PIPELINE_DELAY_KEYS = STAGE_DELAY_KEYS[:-1]

# Defaults of every key that has one (host/config/keys_*.cpp, through config_keys.py). Keys of a
# section without a default are optional: they appear in the normalised dict only when set, and
# the engine picks per-algorithm (or per-pattern) values otherwise.
DEFAULTS: dict[str, dict[str, Any]] = {
    "topology": {"kind": "dragonfly"},
    "router": KEY_DEFAULTS["router"],
    "channels": KEY_DEFAULTS["channels"],
    "routing": KEY_DEFAULTS["routing"],
    "traffic": KEY_DEFAULTS["traffic"],
    "sim": KEY_DEFAULTS["sim"],
}
SECTIONS = tuple(DEFAULTS)
# router.sw_allocator / vc_allocator choices, in the order of the engine's Allocator enum.
ALLOCATORS = tuple(key("router", "sw_allocator")["choices"])
# Tables that are allowed but not filled in by default: they appear in the normalised dict
# only when given. [sweep] describes an experiment over many configs (flitsim sweep), not
# one simulation; the engine never reads it.
OPTIONAL_SECTIONS = ("sweep", "cost", "workload")
SWEEP_KEYS = ("over", "max_replicas")

_INT64_MAX = 2**63 - 1  # results and HDF5 attributes hold integers as int64
# [channels] is open: every key is a class latency, with channels.latency's bounds.
_channel_latency = SCHEMA["channels"]["latency"]


# Builder keys that take true/false (docs/topologies.md); any other boolean is a mistake.
TOPOLOGY_BOOLEAN_KEYS = ("relabel", "wrap")


def _topology_value(key: str, v: Any) -> Any:
    """Builder parameters: a string, number, boolean or a non-empty list of integers (the
    only list type the builders read)."""
    if isinstance(v, bool) and key.partition(".")[2] not in TOPOLOGY_BOOLEAN_KEYS:
        # true would reach the builder as 1 (k = true: a 1-ary tree) without a word.
        raise ConfigError(f"{key}: must be a number or a string, got {_show(v)} (only "
                          f"{', '.join(TOPOLOGY_BOOLEAN_KEYS)} takes true/false)")
    if _is_int(v) and abs(v) > _INT64_MAX:
        raise ConfigError(f"{key}: must be an integer in [-2^63+1, 2^63-1], got {_show(v)}")
    if isinstance(v, (str, bool)) or (_is_number(v) and math.isfinite(v)):
        return v
    if isinstance(v, (list, tuple)) and v and all(_is_int(x) and abs(x) <= _INT64_MAX for x in v):
        return list(v)
    if (isinstance(v, (list, tuple)) and v and all(isinstance(x, bool) for x in v)
            and key.partition(".")[2] in TOPOLOGY_BOOLEAN_KEYS):  # wrap = [true, false]
        return list(v)
    raise ConfigError(f"{key}: must be a string, number, boolean or a list of integers, "
                      f"got {_show(v)}")


def _unknown_key(section: str, key: str, known: Sequence[str]) -> ConfigError:
    shown = f'"{key}"' if len(key) <= 60 else f'"{key[:40]}..." ({len(key)} characters)'
    return ConfigError(f'{section}: unknown key {shown}{where_else(section, key)} (known: {", ".join(known)})')


def _section_dict(cfg: Mapping[str, Any], name: str) -> dict[str, Any]:
    sec = cfg.get(name, {})
    if not isinstance(sec, Mapping):
        raise ConfigError(f"{name}: must be a table ([{name}]), got {_show(sec)}")
    return dict(sec)


def _normalize_topology(sec: dict[str, Any]) -> dict[str, Any]:
    kind = sec.pop("kind", DEFAULTS["topology"]["kind"])
    kind = _choice(tuple(TOPOLOGY_KEYS), "topology")("topology.kind", kind)
    allowed = TOPOLOGY_KEYS[kind]
    defaults = dict(TOPOLOGY_DEFAULTS.get(kind, {}))
    if kind == "dragonfly" and ("rows" in sec or "cols" in sec):
        defaults.pop("a", None)  # a row-column group has rows x cols routers
    out: dict[str, Any] = {"kind": kind, **defaults}
    for key, v in sec.items():
        if key not in allowed:
            raise _unknown_key("topology", key, ("kind",) + allowed)
        out[key] = _topology_value(f"topology.{key}", v)
    return out


def _normalize_channels(sec: dict[str, Any]) -> dict[str, Any]:
    # Any key besides `latency` names a channel class; the topology defines which exist.
    out = dict(DEFAULTS["channels"])
    for key, v in sec.items():
        out[key] = _channel_latency(f"channels.{key}", v)
    return {"latency": out.pop("latency"), **dict(sorted(out.items()))}


def _router_defaults(sec: dict[str, Any], kind: Any, algorithm: Any) -> dict[str, Any]:
    """[router] defaults: a preset's value replaces a key's default (explicit keys still win;
    `kind` and `algorithm`, topology.kind and routing.algorithm, pick its per-topology values),
    a size given in bytes (buffer_bytes) replaces the default size in flits (buffer), and the
    stage delays replace router.latency; the engine refuses both given together (unless they
    agree, for the stage delays)."""
    out = dict(DEFAULTS["router"])
    name = sec.get("preset")  # checked below with the other keys; a list or table is not a name
    preset = (_core.router_preset_keys(name, str(kind), str(algorithm))
              if isinstance(name, str) and name in ROUTER_PRESETS else {})
    out.update({k: v for k, v in preset.items() if k in out})
    for key in list(out):
        if f"{key}_bytes" in sec and key not in sec:
            del out[key]
    if any(k in sec for k in PIPELINE_DELAY_KEYS) and "latency" not in sec:
        del out["latency"]  # the stage delays state it
    return out


def _normalize_section(name: str, sec: dict[str, Any], kind: Any = None, algorithm: Any = None) -> dict[str, Any]:
    rules = SCHEMA[name]
    out = _router_defaults(sec, kind, algorithm) if name == "router" else dict(DEFAULTS[name])
    for key, v in sec.items():
        if key not in rules:
            raise _unknown_key(name, key, tuple(rules))
        out[key] = rules[key](f"{name}.{key}", v)
    return {k: out[k] for k in rules if k in out}  # fixed key order: stable files and diffs


def normalize(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """A new, complete and validated config: every section present, defaults filled.

    Idempotent: ``normalize(normalize(c)) == normalize(c)``. Raises ConfigError.
    """
    if not isinstance(cfg, Mapping):
        raise ConfigError(f"config: must be a table of sections, got {_show(cfg)}")
    for name in cfg:
        if name not in DEFAULTS and name not in OPTIONAL_SECTIONS:
            raise ConfigError(f'{name}: unknown section{where_else("", name)} '
                              f'(known: {", ".join(SECTIONS + OPTIONAL_SECTIONS)})')
    # Every table and list below is rebuilt, so the result shares nothing with `cfg`.
    out: dict[str, Any] = {}
    for name in SECTIONS:
        sec = _section_dict(cfg, name)
        if name == "topology":
            out[name] = _normalize_topology(sec)
        elif name == "channels":
            out[name] = _normalize_channels(sec)
        elif name == "traffic" and "class" in sec:  # [[traffic.class]] tables (traffic_classes.py)
            tables = sec.pop("class")
            out[name] = _normalize_section(name, sec)
            out[name]["class"] = normalize_classes(tables, out[name])
        elif name == "router":  # a preset's keys may depend on the topology and the routing
            algorithm = _section_dict(cfg, "routing").get("algorithm", DEFAULTS["routing"]["algorithm"])
            out[name] = _normalize_section(name, sec, out["topology"]["kind"], algorithm)
        else:
            out[name] = _normalize_section(name, sec)
    traffic = out["traffic"]
    if "packet_sizes" in traffic and traffic["packet_size"] != DEFAULTS["traffic"]["packet_size"]:
        # sizes are drawn from packet_sizes: a packet_size set beside it would change nothing
        raise ConfigError(f"traffic.packet_size: {traffic['packet_size']} has no effect with "
                          f"traffic.packet_sizes = {_show(traffic['packet_sizes'])} (sizes are drawn "
                          f"from that range): give one of them")
    if "sweep" in cfg:
        out["sweep"] = _normalize_sweep(_section_dict(cfg, "sweep"))
    if "cost" in cfg:
        out["cost"] = _normalize_cost(_section_dict(cfg, "cost"))
    if "workload" in cfg:  # closed-loop message programs (docs/workloads.md)
        out["workload"] = normalize_workload(_section_dict(cfg, "workload"))
        _workload_flit_bytes(out)
    return out


def _workload_flit_bytes(out: dict[str, Any]) -> None:
    """A [workload] run's flit is workload.flit_bytes bytes; router sizes in bytes
    (router.buffer_bytes, output_buffer_bytes) convert with traffic.flit_bytes. One flit size:
    traffic.flit_bytes, if given, must equal it, and is derived from it when a size is in bytes."""
    wfb, traffic = out["workload"]["flit_bytes"], out["traffic"]
    if "flit_bytes" in traffic and traffic["flit_bytes"] != wfb:
        raise ConfigError(f"traffic.flit_bytes: {traffic['flit_bytes']} disagrees with workload.flit_bytes = "
                          f"{wfb} (a [workload] run has one flit size: drop traffic.flit_bytes, or give both "
                          f"the same value)")
    if any(k.endswith("_bytes") for k in out["router"]):
        traffic["flit_bytes"] = wfb


# --- [cost] ----------------------------------------------------------------------------------

def _normalize_cost(sec: dict[str, Any]) -> dict[str, Any]:
    """The cost model's overrides (flitsim.cost checks names and values); only the keys given
    are kept, so the model's defaults stay in one place."""
    from .cost import cost_params
    try:
        cost_params(sec)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in sec.items()}


# --- [sweep] ---------------------------------------------------------------------------------

def check_sweep_key(spec: str, key: str) -> tuple[str, str]:
    """Split a swept key "section.key" and check that it names a config key (the value is
    checked per point, by `normalize`). Errors name ``spec``, the sweep spec as written."""
    try:
        if split_class_key(key) is not None:  # traffic.class.<i>.<key>: the class's own key
            return "traffic", key.partition(".")[2]
    except ConfigError as e:
        raise ConfigError(f'sweep "{spec}": {e}') from None
    section, dot, name = key.partition(".")
    if not dot or not section or not name or "." in name:
        raise ConfigError(f'sweep "{spec}": key must be section.key (e.g. traffic.load)')
    if section == "workload":  # its scalar keys (jobs are a list: not swept one by one)
        known = tuple(WORKLOAD_DEFAULTS) + TRACE_WORKLOAD_KEYS
        if name not in known:
            raise ConfigError(f'sweep "{spec}": unknown key "{key}" (known: {", ".join(known)})')
        return section, name
    if section not in DEFAULTS:
        raise ConfigError(f'sweep "{spec}": unknown section "{section}" '
                          f'(known: {", ".join(SECTIONS)})')
    if section in SCHEMA and section != "channels" and name not in SCHEMA[section]:
        raise ConfigError(f'sweep "{spec}": unknown key "{key}" '
                          f'(known: {", ".join(SCHEMA[section])})')
    if section == "topology":
        known = ("kind",) + tuple(dict.fromkeys(k for ks in TOPOLOGY_KEYS.values() for k in ks))
        if name not in known:
            raise ConfigError(f'sweep "{spec}": unknown key "{key}" (known: {", ".join(known)})')
    return section, name


def _flatten_over(over: Mapping[str, Any]) -> dict[str, Any]:
    """``{"traffic.load": v}`` as written inline, or ``{"traffic": {"load": v}}`` from a
    ``[sweep.over]`` table with bare dotted keys: both give ``{"traffic.load": v}``."""
    out: dict[str, Any] = {}
    for key, value in over.items():
        if isinstance(value, Mapping):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = v
        else:
            out[key] = value
    return out


def _normalize_sweep(sec: dict[str, Any]) -> dict[str, Any]:
    for key in sec:
        if key not in SWEEP_KEYS:
            raise _unknown_key("sweep", key, SWEEP_KEYS)
    over = sec.get("over", {})
    if not isinstance(over, Mapping) or not over:
        raise ConfigError('sweep.over: must be a non-empty table of "section.key" = values, '
                          f'e.g. over = {{"traffic.load" = "0.1:0.9:0.1"}}, got {_show(over)}')
    out: dict[str, Any] = {"over": {}}
    for key, value in _flatten_over(over).items():
        spec = f"sweep.over.{key}"
        check_sweep_key(spec, key)
        out["over"][key] = sweep_values(spec, value)
    if "max_replicas" in sec:
        out["max_replicas"] = _int(1)("sweep.max_replicas", sec["max_replicas"])
    return out


def apply_override(cfg: dict[str, Any], override: str) -> dict[str, Any]:
    """Apply ``"section.key=value"`` to ``cfg`` in place (and return it).

    The value is parsed as a TOML value, falling back to a bare string, so
    ``traffic.pattern=uniform`` and ``traffic.pattern="uniform"`` are the same. Keys are
    checked later by ``normalize`` (a later override may change ``topology.kind``).
    """
    name, eq, text = override.partition("=")
    if eq and split_class_key(name.strip()) is not None:  # traffic.class.<i>.<key>=value
        from .traffic_classes import set_key
        try:
            value = _parse_value(text.strip())
        except ConfigError as e:
            raise ConfigError(f"{name.strip()}: {e}") from None
        set_key(cfg, name.strip(), value)
        return cfg
    section, dot, key = name.strip().partition(".")
    if not eq or not dot or not section or not key or "." in key:
        raise ConfigError(f'override "{override}": must be section.key=value '
                          f'(e.g. router.vcs=4)')
    if section not in DEFAULTS and section != "workload":
        raise ConfigError(f'{section}: unknown section in override "{override}" '
                          f'(known: {", ".join(SECTIONS + ("workload",))})')
    sec = cfg.setdefault(section, {})
    if not isinstance(sec, dict):
        raise ConfigError(f"{section}: must be a table ([{section}]), got {_show(sec)}")
    try:
        sec[key] = _parse_value(text.strip())
    except ConfigError as e:  # a value nested too deeply: name the key it was for
        raise ConfigError(f"{section}.{key}: {e}") from None
    return cfg


def _parse_toml(text: str, source: str) -> dict:
    # A byte-order mark (Windows editors write one) is not TOML: tomllib would report an
    # "Invalid statement" at column 1 of a file that is otherwise fine.
    text = text.removeprefix("\ufeff")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: malformed TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{source}: malformed TOML: arrays or tables nested too deeply") from None


def loads_config(text: str, overrides: Sequence[str] = (), source: str = "<string>") -> dict:
    """Parse TOML text, apply overrides in order, and normalise. ``source`` names the text
    in error messages."""
    raw = _parse_toml(text, source)
    for o in overrides:
        apply_override(raw, o)
    return normalize(raw)


def load_config(path: str | Any, overrides: Sequence[str] = ()) -> dict:
    """Read a TOML file, apply overrides in order, and normalise. Raises ConfigError (also
    for an unreadable file, so the CLI reports it as bad input)."""
    from .limits import MAX_CONFIG_BYTES, read_input_file
    from .shipped import find
    # configs/... names a shipped configuration from any folder (an installed package's data)
    # unless the working directory has its own file by that name.
    path = find(path) or path
    try:
        text = read_input_file(path, "the config", MAX_CONFIG_BYTES).decode("utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: malformed TOML: not UTF-8 ({e.reason} at byte {e.start})") \
            from None
    raw = _parse_toml(text, str(path))
    # A graph file named in the TOML is relative to the TOML file's folder, so configs can
    # ship beside their graphs; a path given by --set stays relative to the working directory.
    topo = raw.get("topology")
    if isinstance(topo, dict) and isinstance(topo.get("file"), str) and not os.path.isabs(topo["file"]):
        topo["file"] = os.path.join(os.path.dirname(os.path.abspath(str(path))), topo["file"])
    # Program files and traces of workload jobs likewise.
    wl = raw.get("workload")
    for job in (wl.get("jobs") if isinstance(wl, dict) else None) or []:
        for key in ("file", "trace"):
            if isinstance(job, dict) and isinstance(job.get(key), str) and not os.path.isabs(job[key]):
                job[key] = os.path.join(os.path.dirname(os.path.abspath(str(path))), job[key])
    for o in overrides:
        apply_override(raw, o)
    return normalize(raw)
