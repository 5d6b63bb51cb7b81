"""The configurations that ship with flitsim: ``configs/`` of the source tree, installed as
package data (``flitsim/configs``, by CMakeLists.txt's ``install(DIRECTORY configs/ ...)``).

``find(rel)`` answers a path such as ``configs/papers/iso-n-em.toml`` from any working
directory: the file there when it exists (a user's own copy wins), else the installed
package data, else the source tree an editable install runs from. So the documented
commands (``flitsim run configs/dragonfly-1k.toml``, ``flitsim reproduce NAME``) work from an
installed package in any folder.
"""
from __future__ import annotations

import os
import pathlib
from importlib import resources

__all__ = ["roots", "find", "shipped_name"]

PREFIX = "configs"


def roots() -> list[pathlib.Path]:
    """Folders that hold the shipped ``configs`` tree, in lookup order: the package data of
    this installation, then the source tree (an editable install or a clone)."""
    out = []
    try:
        pkg = resources.files("flitsim")
        for base in getattr(pkg, "_paths", None) or [pkg]:   # a namespace-like MultiplexedPath
            out.append(pathlib.Path(str(base)) / PREFIX)
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - flitsim is importable here
        pass
    out.append(pathlib.Path(__file__).resolve().parents[2] / PREFIX)
    return [r for i, r in enumerate(out) if r.is_dir() and r not in out[:i]]


def shipped_name(path: str | os.PathLike) -> str | None:
    """'papers/x.toml' for 'configs/papers/x.toml' (or './configs/...'); None for any path
    that does not name a shipped configuration (absolute, or outside configs/)."""
    p = pathlib.PurePosixPath(pathlib.Path(path).as_posix())
    if p.is_absolute() or ".." in p.parts:
        return None
    parts = [x for x in p.parts if x != "."]
    if len(parts) < 2 or parts[0] != PREFIX:
        return None
    return "/".join(parts[1:])


def find(path: str | os.PathLike, search: list[pathlib.Path] | None = None) -> pathlib.Path | None:
    """The file `path` names: as given when it exists, else the shipped copy of a
    ``configs/...`` path (in `search`, default roots()); None when there is neither."""
    if os.path.exists(path):
        return pathlib.Path(path)
    name = shipped_name(path)
    if name is None:
        return None
    for root in (roots() if search is None else search):
        if (root / name).is_file():
            return root / name
    return None
