"""Leaf validation helpers shared by the config front ends (config.py, workload/config.py):
the error type and the rule checkers. It imports nothing from flitsim, so every module that
validates input can use it without an import cycle."""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ConfigError", "Checker", "show", "is_int", "is_number", "int_rule", "float_rule",
           "int_list_rule", "bool_rule", "choice_rule"]


class ConfigError(ValueError):
    """Invalid configuration; the message starts with the full key and states the rule."""


_INT64_MAX = 2**63 - 1  # results and HDF5 attributes hold integers as int64


def show(v: Any) -> str:
    """A value as the user wrote it in TOML (strings quoted, booleans lower-case)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):  # a megabyte-long value is shown by its start and length
        return json.dumps(v) if len(v) <= 80 else json.dumps(v[:60])[:-1] + f'..." ({len(v)} characters)'

    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    return repr(v)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)  # bool is an int subclass


def is_number(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


Checker = Callable[[str, Any], Any]  # (full key, value) -> normalised value, or ConfigError


def int_rule(lo: int | None = None, hi: int | None = None) -> Checker:
    rule = "must be an integer" + (f" >= {lo}" if lo is not None else "")

    def check(key: str, v: Any) -> int:
        if not is_int(v) or (lo is not None and v < lo) or abs(v) > _INT64_MAX:
            raise ConfigError(f"{key}: {rule}, got {show(v)}")
        if hi is not None and v > hi:
            raise ConfigError(f"{key}: must be an integer <= {hi}, got {show(v)}")
        return v
    return check


def float_rule(lo: float, hi: float | None = None) -> Checker:
    rule = f"must be in [{lo:g}, {hi:g}]" if hi is not None else f"must be a number >= {lo:g}"

    def check(key: str, v: Any) -> float:
        # NaN fails both comparisons; infinity is no meaningful penalty or load either.
        if not is_number(v) or not math.isfinite(v) or v < lo or (hi is not None and v > hi):
            raise ConfigError(f"{key}: {rule}, got {show(v)}")
        return float(v)  # ints are accepted and stored as floats, so normalize is idempotent
    return check


def int_list_rule(lo: int = 0) -> Checker:
    def check(key: str, v: Any) -> list[int]:
        if not isinstance(v, (list, tuple)) or not v or not all(is_int(x) and lo <= x <= _INT64_MAX for x in v):
            raise ConfigError(f"{key}: must be a non-empty list of integers >= {lo}, got {show(v)}")
        return list(v)
    return check


def bool_rule(key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(f"{key}: must be true or false, got {show(v)}")
    return v


def choice_rule(names: Sequence[str], what: str = "value") -> Checker:
    def check(key: str, v: Any) -> str:
        if not isinstance(v, str) or v not in names:
            raise ConfigError(f"{key}: unknown {what} {show(v)} (known: {', '.join(names)})")
        return v
    check.choices = tuple(names)  # type: ignore[attr-defined]  # read by tests that enumerate a key's values
    return check


