"""A small TOML writer for flitsim configurations (``flitsim config``): tables of scalars,
lists and inline tables, which is all a normalised configuration holds. The output reads
back with ``tomllib`` to the same dict (tests check the round trip)."""
from __future__ import annotations

import json
import math
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def toml_value(v: Any) -> str:
    """One TOML value (NaN and infinities as TOML writes them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def dumps(cfg: dict[str, Any]) -> str:
    """TOML text of a dict of sections (each a dict of keys); nested dicts become
    sub-tables, everything else one line."""
    out: list[str] = []

    def table(name: str, sec: dict[str, Any]) -> None:
        scalars = {k: v for k, v in sec.items() if not isinstance(v, dict)}
        subs = {k: v for k, v in sec.items() if isinstance(v, dict)}
        if scalars or not subs:
            out.append(f"[{name}]")
            out.extend(f"{_key(k)} = {toml_value(v)}" for k, v in scalars.items())
            out.append("")
        for k, v in subs.items():
            table(f"{name}.{_key(k)}", v)

    for name, sec in cfg.items():
        if isinstance(sec, dict):
            table(_key(name), sec)
        else:
            out.insert(0, f"{_key(name)} = {toml_value(sec)}")
    return "\n".join(out).rstrip() + "\n"
