"""The help texts: examples stay on their own lines (a missing backslash once joined the
Slurm example into one 170-character line) and name only files that exist."""
import pathlib
import re

import pytest

from flitsim.cli import build_parser

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return [("flitsim", parser)] + list(action.choices.items())


@pytest.mark.parametrize("name,parser", _subparsers(), ids=[n for n, _ in _subparsers()])
def test_help_lines_are_short_and_name_existing_files(name, parser):
    text = parser.format_help()
    long = [line for line in text.splitlines() if len(line) > 110]
    assert not long, long
    for path in re.findall(r"configs/[\w./*-]+\.toml", text):
        if "*" in path or "NAME" in path:
            assert list(ROOT.glob(path)) or "NAME" in path, path
        else:
            assert (ROOT / path).exists(), path


def test_reproduce_help_names_the_iso_cost_files():
    text = dict(_subparsers())["reproduce"].format_help()
    assert "configs/papers/iso-*.toml" in text and "iso-cost.toml" not in text
    assert len(list(ROOT.glob("configs/papers/iso-*.toml"))) == 20
