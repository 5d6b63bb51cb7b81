"""Shared pieces of the command line: exit codes, argument types, common options, output formatting."""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the hand-wrapped descriptions and examples as written."""


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return v


def _threads(text: str) -> int:
    from ..limits import MAX_THREADS
    v = _positive_int(text)
    if v > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, {MAX_THREADS}], got {text!r}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return v


def _add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto (default) uses the GPU when one is usable")
    p.add_argument("--threads", type=_threads, metavar="N",
                   help="CPU threads (default: measured while running, up to all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG", help="TOML configuration file")
    p.add_argument("--set", dest="overrides", action="append", default=[],
                   metavar="SECTION.KEY=VALUE",
                   help="override one config key (value parsed as TOML, else a string); "
                        "repeatable, applied in order")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on stdout and nothing else")


def _jsonable(v: Any) -> Any:
    """NaN and infinities become null (JSON has neither); numpy scalars become Python."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "item") and callable(v.item) and getattr(v, "ndim", None) == 0:
        v = v.item()  # numpy scalar
    elif hasattr(v, "tolist"):
        return _jsonable(v.tolist())  # numpy array
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _print_json(obj: dict) -> None:
    print(json.dumps(_jsonable(obj), allow_nan=False))


# Columns the points tables of sweep and show add for request-reply runs (traffic.reply_size).
REPLY_COLUMNS = ("request_latency_mean", "reply_latency_mean", "round_trip_latency_mean")


def class_columns(rows: list[dict]) -> list[str]:
    """Traffic classes ([[traffic.class]]): each row's `classes` list as flat columns
    accepted_c<i> and latency_mean_c<i> (added to the rows in place); the column names."""
    cols: list[str] = []
    for row in rows:
        for c in row.get("classes") or []:
            for name in ("accepted", "latency_mean"):
                col = f"{name}_c{c['index']}"
                row[col] = c[name]
                if col not in cols:
                    cols.append(col)
    return cols


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v)
    return str(v)


def _table(rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _error(msg: Any) -> None:
    print(f"flitsim: error: {msg}", file=sys.stderr)

