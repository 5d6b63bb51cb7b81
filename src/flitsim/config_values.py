"""Values written as text: command-line overrides (``section.key=value``) and the swept values
of a sweep (``"0.1:0.9:0.1"`` ranges, ``"2,3,4"`` lists). A leaf module: config.py and the
sweep code read values through it; which keys may be set or swept is config.py's concern.
"""
from __future__ import annotations

import math
import sys
from typing import Any

from .validation import ConfigError
from .validation import is_int as _is_int
from .validation import is_number as _is_number
from .validation import show as _show

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["parse_value", "sweep_values", "RELATIVE_TO_SATURATION", "saturation_fraction"]

# A swept traffic.load written "saturation*F" is the fraction F of the point's own saturation
# load, found by a saturation search before the sweep runs (docs/experiments.md).
RELATIVE_TO_SATURATION = "saturation*"


def saturation_fraction(value: Any) -> float | None:
    """F of a load written "saturation*F", None for any other value."""
    if isinstance(value, str) and value.startswith(RELATIVE_TO_SATURATION):
        return float(value[len(RELATIVE_TO_SATURATION):])
    return None


def parse_value(text: str) -> Any:
    """A TOML value (4, 0.5, "x", [4, 4], true), or the text itself when it is not one."""
    try:
        doc = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise ConfigError(f"value {text[:40]}...: arrays nested too deeply") from None
    # "1\nw = 2" parses as two keys: that is not one value, so keep the raw text.
    return doc["v"] if list(doc) == ["v"] else text


def _range_values(spec: str, text: str) -> list[Any]:
    """``start:stop:step``, stop included when the last step lands within 1e-9 of it.
    Integers when all three are integers, floats otherwise (rounded to 12 digits so that
    0.05:0.95:0.05 gives 0.15, not 0.15000000000000002)."""
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 3:
        raise ConfigError(f'sweep "{spec}": a range is start:stop:step, got "{text}"')
    vals = [parse_value(p) for p in parts]
    if not all(_is_number(v) and math.isfinite(v) for v in vals):
        raise ConfigError(f'sweep "{spec}": range start, stop and step must be numbers, '
                          f'got "{text}"')
    start, stop, step = vals
    if step <= 0:
        raise ConfigError(f'sweep "{spec}": range step must be > 0, got {_show(step)}')
    if stop < start - 1e-9:
        raise ConfigError(f'sweep "{spec}": empty range (stop {_show(stop)} < start '
                          f'{_show(start)})')
    n = int(math.floor((stop - start) / step + 1e-9)) + 1
    if n > 1_000_000:
        raise ConfigError(f'sweep "{spec}": range has {n} values (at most 1000000)')
    if all(_is_int(v) for v in vals):
        return [start + i * step for i in range(n)]
    return [round(start + i * step, 12) for i in range(n)]


def sweep_values(spec: str, value: Any) -> list[Any]:
    """The values of one swept key: a list (TOML array), a range string
    ``"start:stop:step"``, or a comma-separated string of TOML values ``"2,3,4"``.
    Raises ConfigError naming ``spec`` for an empty or malformed one."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ConfigError(f'sweep "{spec}": no values')
        if text.startswith(RELATIVE_TO_SATURATION):
            return _fractions_of_saturation(spec, text[len(RELATIVE_TO_SATURATION):])
        if ":" in text and not text.startswith(("[", '"', "'")):
            return _range_values(spec, text)
        items = [t.strip() for t in _split_top_level(text)]
        if any(not t for t in items):
            raise ConfigError(f'sweep "{spec}": empty item in list "{text}"')
        return [parse_value(t) for t in items]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ConfigError(f'sweep "{spec}": no values (empty list)')
        return list(value)
    raise ConfigError(f'sweep "{spec}": values must be a list or a "start:stop:step" range, '
                      f'got {_show(value)}')


def _fractions_of_saturation(spec: str, text: str) -> list[str]:
    """"saturation*0.1:1.1:0.1" or "saturation*0.5,0.9,1" -> ["saturation*0.1", ...]."""
    fractions = sweep_values(spec, text) if text.strip() else []
    if not fractions or not all(_is_number(f) and math.isfinite(f) and f > 0 for f in fractions):
        raise ConfigError(f'sweep "{spec}": {RELATIVE_TO_SATURATION}F needs fractions F > 0 '
                          f'(a range or a list, e.g. {RELATIVE_TO_SATURATION}0.1:1.1:0.1), '
                          f'got "{text}"')
    return [f"{RELATIVE_TO_SATURATION}{float(f)!r}" for f in fractions]


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside brackets and quotes, so "[4,4],[8,8]" is two values."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return out
