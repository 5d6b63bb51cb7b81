"""The keys of the [router], [routing], [traffic] and [sim] sections, as the engine declares them
(host/config/keys_<section>.cpp): type, default, bounds, choices, which routings read them and a
doc line. Everything on the Python side derives from this one declaration: the rules and
defaults of config.py, the sweep axes, `flitsim config` and the key tables of
docs/configuration.md (`python -m flitsim.config_keys --markdown` regenerates them; a test
fails when they drift).
"""
from __future__ import annotations

import sys
from typing import Any

from . import _core
from .validation import Checker, ConfigError
from .validation import bool_rule, choice_rule, float_rule, int_list_rule, int_rule, is_int, show

__all__ = ["KEYS", "SCHEMA", "DEFAULTS", "key", "markdown_tables"]

# One dict per key, in declaration order (section by section).
KEYS: tuple[dict[str, Any], ...] = tuple(_core.config_keys())

_INT64_MIN = -(2**63) + 1


def key(section: str, name: str) -> dict[str, Any]:
    """The declaration of ``section.name`` (KeyError when there is none)."""
    for k in KEYS:
        if k["section"] == section and k["name"] == name:
            return k
    raise KeyError(f"{section}.{name}")


def _engine_int(k: dict[str, Any]) -> Checker:
    """An integer within the bounds that keep it inside the type that stores it (the rule as the
    engine states it)."""
    if k["lo"] <= _INT64_MIN:
        return int_rule()
    lo, hi, rule = k["lo"], k["hi"], k["rule"]

    def check(name: str, v: Any) -> int:
        if not is_int(v) or not lo <= v <= hi:
            raise ConfigError(f"{name}: {rule}, got {show(v)}")
        return v
    return check


def _output_queue_depth(k: dict[str, Any]) -> Checker:
    """router.output_buffer(_bytes): one depth, of the one queue per output port that its VCs
    share (cuda/phases/output_queue.cuh). A list (a depth per VC) is refused with the reason:
    per-VC output queues are not modelled, and not needed for deadlock freedom (a queued flit
    already owns its downstream credit, so no VC waits behind another)."""
    depth = _engine_int(k)

    def check(name: str, v: Any) -> int:
        if isinstance(v, (list, tuple)):
            raise ConfigError(f"{name}: one depth per output port, got a list {show(v)}: the VCs of a port "
                              f"share its output queue (per-VC output queues are not modelled; "
                              f"docs/configuration.md)")
        return depth(name, v)
    return check


def _checker(k: dict[str, Any]) -> Checker:
    """The rule of one key, from its declaration."""
    if k["section"] == "router" and k["name"] in ("output_buffer", "output_buffer_bytes"):
        return _output_queue_depth(k)
    kind = k["type"]
    if kind == "int":
        return _engine_int(k)
    if kind == "float":
        return float_rule(k["lo"], k["hi"])
    if kind == "bool":
        return bool_rule
    if kind == "int_list":
        return int_list_rule(k["lo"])
    noun = k["name"] if k["name"] in ("algorithm", "pattern") else "value"
    return choice_rule(tuple(k["choices"]), noun)


def _sections() -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for k in KEYS:
        out.setdefault(k["section"], {})[k["name"]] = k
    return out


_BY_SECTION = _sections()
# Rules of every key of the fixed sections ([topology] and [channels] are open: config.py).
SCHEMA: dict[str, dict[str, Checker]] = {
    sec: {name: _checker(k) for name, k in keys.items()} for sec, keys in _BY_SECTION.items()}
# The defaults a normalised config always holds: the keys the engine marks as filled (the
# others appear only when given; their defaults depend on other keys, or the engine picks them
# per routing and topology).
DEFAULTS: dict[str, dict[str, Any]] = {
    sec: {name: k["default"] for name, k in keys.items() if k["filled"]} for sec, keys in _BY_SECTION.items()}


def _shown(v: Any) -> str:
    if v is None:
        return "unset"
    return f"`{show(v)}`"


def _rule(k: dict[str, Any]) -> str:
    kind = k["type"]
    if kind == "int":
        return "any integer" if k["lo"] <= _INT64_MIN else k["rule"].removeprefix("must be ")
    if kind == "float":
        return f"a number in [{k['lo']:g}, {k['hi']:g}]"
    if kind == "bool":
        return "true or false"
    if kind == "int_list":
        return f"a list of integers >= {k['lo']}"
    return " \\| ".join(f"`{c}`" for c in k["choices"]) if len(k["choices"]) <= 6 else \
        f"one of {len(k['choices'])} names (below)"


def markdown_tables() -> str:
    """The key tables of docs/configuration.md, one per section, generated from the declaration."""
    parts = []
    for sec, keys in _BY_SECTION.items():
        rows = [f"### [{sec}] keys", "", "| key | default | values | read by | meaning |", "|---|---|---|---|---|"]
        for name, k in keys.items():
            doc = k["doc"].replace("|", "\\|")
            reader = "" if k["read_by"] == "all" else k["read_by"].replace(" ", ", ")
            rows.append(f"| `{sec}.{name}` | {_shown(k['default'])} | {_rule(k)} | {reader} | {doc} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":  # python -m flitsim.config_keys --markdown
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m flitsim.config_keys --markdown")
    sys.stdout.write(markdown_tables())
