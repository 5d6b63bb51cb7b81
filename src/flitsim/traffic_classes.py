"""Traffic classes (docs/traffic.md "Traffic classes"): ``[[traffic.class]]`` tables, each a
subset of the [traffic] keys (the engine declares which: host/config/traffic_classes.cpp) over
the [traffic] table's own values, plus the addressing of a class's key from ``--set`` and sweeps
(``traffic.class.1.load``).

A class's ``load`` is its offered load in flits per cycle per node of its source set
(``sources``); a class without one takes ``traffic.load``, so sweeping ``traffic.load`` (or a
saturation search) moves exactly the classes that do not state their own.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _core
from .config_keys import SCHEMA, key
from .validation import ConfigError, show

# The [traffic] keys a class table may hold, and the most classes a run may have (the engine's).
CLASS_KEYS: tuple[str, ...] = tuple(_core.traffic_class_keys())
MAX_CLASSES: int = int(_core.max_traffic_classes())
# The engine's per-class sums, in the order of Result.class_sums (cuda/state.cuh, FLITSIM_CLASS_SUMS).
CLASS_SUM_NAMES: tuple[str, ...] = tuple(_core.class_sum_names())

__all__ = ["CLASS_KEYS", "MAX_CLASSES", "normalize_classes", "split_class_key", "set_key", "get_key"]


def normalize_classes(tables: Any, traffic: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The class tables checked key by key (the [traffic] rules, each error naming
    traffic.class.<i>.<key>); only the keys given are kept (the others are [traffic]'s)."""
    if (not isinstance(tables, (list, tuple)) or not tables
            or not all(isinstance(t, Mapping) for t in tables)):
        raise ConfigError(f"traffic.class: must be an array of tables ([[traffic.class]] sections), "
                          f"got {show(tables)}")
    if len(tables) > MAX_CLASSES:
        raise ConfigError(f"traffic.class: at most {MAX_CLASSES} traffic classes, got {len(tables)}")
    for k in ("injection", "reply_size"):
        if k in traffic and traffic[k] != key("traffic", k)["default"]:
            raise ConfigError(f"traffic.{k}: {show(traffic[k])} does not combine with traffic classes "
                              f"([[traffic.class]] runs Bernoulli sources without replies)")
    out = []
    for i, table in enumerate(tables):
        d: dict[str, Any] = {}
        for name, v in table.items():
            if name not in CLASS_KEYS:
                raise ConfigError(f'traffic.class.{i}: unknown key "{name}" (a class takes: '
                                  f'{", ".join(CLASS_KEYS)})')
            d[name] = SCHEMA["traffic"][name](f"traffic.class.{i}.{name}", v)
        if "packet_size" in d and "packet_sizes" in d:
            raise ConfigError(f"traffic.class.{i}.packet_size: has no effect with traffic.class.{i}.packet_sizes "
                              f"(sizes are drawn from that range): give one of them")
        if "sources" in d and (len(d["sources"]) != 2 or d["sources"][0] >= d["sources"][1]):
            raise ConfigError(f"traffic.class.{i}.sources: must be [lo, hi] with lo < hi (the nodes lo .. hi-1 "
                              f"create the class's packets), got {show(d['sources'])}")
        _refuse_unread(i, d, traffic)
        out.append(d)
    return out


def _refuse_unread(i: int, d: Mapping[str, Any], traffic: Mapping[str, Any]) -> None:
    """A pattern key given in a class whose pattern does not read it (config_keys.unread_keys'
    rule, per class)."""
    pattern = d.get("pattern", traffic.get("pattern"))
    for name in d:
        k = key("traffic", name)
        if k.get("refuse_unread") and k["read_by"] != "all" and pattern not in k["read_by"].split():
            raise ConfigError(f"traffic.class.{i}.{name}: is only used by the pattern(s) "
                              f"{', '.join(k['read_by'].split())}, not \"{pattern}\" (it would have no effect)")


def split_class_key(name: str) -> tuple[int, str] | None:
    """(i, key) of "traffic.class.<i>.<key>", None for any other name; ConfigError for a malformed one."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "traffic" or parts[1] != "class":
        return None
    if len(parts) != 4 or not parts[2].isdigit():
        raise ConfigError(f'{name}: a traffic class key is traffic.class.<index>.<key> (e.g. traffic.class.1.load)')
    if parts[3] not in CLASS_KEYS:
        raise ConfigError(f'{name}: unknown key "{parts[3]}" for a traffic class (a class takes: {", ".join(CLASS_KEYS)})')
    return int(parts[2]), parts[3]


def _class_table(cfg: dict, name: str, i: int) -> dict:
    tables = cfg.get("traffic", {}).get("class")
    if not isinstance(tables, list) or i >= len(tables):
        have = len(tables) if isinstance(tables, list) else 0
        raise ConfigError(f"{name}: the config has {have} traffic class(es) ([[traffic.class]] tables), "
                          f"no class {i}")
    return tables[i]


def set_key(cfg: dict, name: str, value: Any) -> None:
    """cfg[section][key] = value, or the key of traffic class i for traffic.class.<i>.<key>."""
    split = split_class_key(name)
    if split is not None:
        _class_table(cfg, name, split[0])[split[1]] = value
        return
    section, _, k = name.partition(".")
    cfg.setdefault(section, {})[k] = value


def get_key(cfg: dict, name: str) -> Any:
    split = split_class_key(name)
    if split is not None:
        table = _class_table(cfg, name, split[0])
        return table.get(split[1], cfg["traffic"].get(split[1]))
    section, _, k = name.partition(".")
    return cfg[section][k]
