"""Per-channel pictures (``flitsim plot RUN.h5 --links``): the utilisation of every channel
of one replica, from the per-port flit counts the engine records (``channel_flits``, flits
sent out of each output port during the window; docs/hdf5.md).

One heat map per channel class, for any topology: a router-by-router matrix for the
router-to-router classes (entry [r, s]: flits/cycle from r to s, parallel links summed) and a
router-by-terminal-port matrix for the terminal class (flits/cycle ejected to each node).
For the topologies with a natural layout a drawing is added: dragonfly groups on a circle
with their global links, HyperX, torus and mesh routers on their grid (a torus's wrap-around
links bowed), fat-tree and OFT levels as rows; each link coloured by the busier of its two
directions.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

__all__ = ["utilisation", "class_matrix", "hottest", "links_figure", "plot_links"]


def utilisation(r: Any) -> np.ndarray:
    """Flits per cycle out of each output port over the window (channel_flits / measure)."""
    return np.asarray(r.channel_flits, dtype=np.float64) / max(int(r.measure), 1)


def class_matrix(r: Any, cls: int) -> np.ndarray:
    """The heat map of channel class `cls`: routers x routers (router-to-router classes:
    [r, s] is the utilisation from r to s, parallel links summed), or routers x terminal
    ports (the terminal class: [r, j] is the j-th terminal port of router r)."""
    u = utilisation(r)
    port_router = np.asarray(r.port_router)
    peer = np.asarray(r.peer_port)
    mask = np.asarray(r.port_class) == cls
    R = int(r.routers)
    if not mask.any():
        return np.zeros((R, 0))
    if (peer[mask] >= 0).all():
        m = np.zeros((R, R))
        np.add.at(m, (port_router[mask], port_router[peer[mask]]), u[mask])
        return m
    ports = np.flatnonzero(mask)
    counts = np.bincount(port_router[ports], minlength=R)
    m = np.full((R, int(counts.max())), np.nan)   # routers without terminals stay blank
    slot = np.zeros(R, dtype=np.int64)
    for p in ports:                                 # ports of a router in port order
        rr = port_router[p]
        m[rr, slot[rr]] = u[p]
        slot[rr] += 1
    return m


def hottest(r: Any, n: int = 5) -> list[dict]:
    """The `n` busiest router-to-router channels: router, port, class, the router at the
    other end and the utilisation (flits/cycle), busiest first (ties: lower port first)."""
    u = utilisation(r)
    peer = np.asarray(r.peer_port)
    port_router = np.asarray(r.port_router)
    cand = np.flatnonzero(peer >= 0)
    order = cand[np.lexsort((cand, -u[cand]))][:n]
    return [{"router": int(port_router[p]), "port": int(p),
             "class": r.class_names[int(r.port_class[p])], "to_router": int(port_router[peer[p]]),
             "utilisation": float(u[p])} for p in order]


def _layout(r: Any, config: dict) -> tuple[str, np.ndarray] | None:
    """(kind, x-y position of each router) for the topologies with a natural drawing."""
    from .. import topology
    kind = config.get("topology", {}).get("kind")
    if kind not in ("dragonfly", "hyperx", "torus", "mesh", "fattree", "oft"):
        return None
    t = topology.build(config)
    coords = np.asarray(t.router_coords)
    names = list(t.coord_names)
    R = t.num_routers
    pos = np.zeros((R, 2))
    if names == ["level", "index"]:
        # Levels as rows, lowest at the bottom; each row spread over the same width.
        level, index = coords[:, 0], coords[:, 1]
        for lv in np.unique(level):
            at = level == lv
            n = int(index[at].max()) + 1
            pos[at, 0] = (index[at] + 0.5) / n * 8.0
            pos[at, 1] = 3.0 * lv      # rows 3 apart: the links between them stay readable
        return "levels", pos
    if kind == "dragonfly":
        gi = names.index("group") if "group" in names else 0
        g = coords[:, gi]
        G = int(g.max()) + 1
        local = np.zeros(R, dtype=np.int64)
        per = np.zeros(G, dtype=np.int64)
        for rr in range(R):            # index of the router inside its group
            local[rr] = per[g[rr]]
            per[g[rr]] += 1
        a = int(per.max())
        big = 1.0
        small = min(0.8 * math.pi / max(G, 1), 0.25)
        for rr in range(R):
            th = 2 * math.pi * g[rr] / G
            ph = th + 2 * math.pi * local[rr] / a
            pos[rr] = (big * math.cos(th) + small * math.cos(ph),
                       big * math.sin(th) + small * math.sin(ph))
        return kind, pos
    # HyperX, torus, mesh: dimension 0 across, dimension 1 down, further dimensions as tiles
    # of that grid laid out in a square-ish arrangement of their own.
    w = [int(coords[:, i].max()) + 1 for i in range(coords.shape[1])]
    tiles = int(np.prod(w[2:])) if len(w) > 2 else 1
    cols = int(math.ceil(math.sqrt(tiles)))
    h = w[1] if len(w) > 1 else 1
    for rr in range(R):
        x = coords[rr, 0]
        y = coords[rr, 1] if len(w) > 1 else 0
        tile = 0
        for i in range(len(w) - 1, 1, -1):
            tile = tile * w[i] + coords[rr, i]
        pos[rr] = (x + (tile % cols) * (w[0] + 1), -(y + (tile // cols) * (h + 1)))
    return kind, pos


def _draw_layout(ax, r: Any, kind: str, pos: np.ndarray, cmap, norm) -> None:
    """Each router-to-router link as a line (an arc for HyperX, whose rows are all-to-all),
    coloured by the busier direction; routers as dots."""
    from matplotlib.collections import LineCollection
    u = utilisation(r)
    peer = np.asarray(r.peer_port)
    port_router = np.asarray(r.port_router)
    segs, vals = [], []
    for p in np.flatnonzero(peer >= 0):
        q = peer[p]
        if q < p:
            continue                   # one line per link
        a, b = pos[port_router[p]], pos[port_router[q]]
        # Bow HyperX lines so that the links along a row stay apart, and a torus's wrap-around
        # links so that they do not run over the row's neighbour links.
        bow = kind == "hyperx" or (kind == "torus" and np.abs(b - a).max() > 1.5)
        if bow:
            mid = (a + b) / 2 + 0.15 * np.array([-(b - a)[1], (b - a)[0]])
            t = np.linspace(0, 1, 9)[:, None]
            pts = (1 - t) ** 2 * a + 2 * (1 - t) * t * mid + t ** 2 * b
        else:
            pts = np.array([a, b])
        segs.append(pts)
        vals.append(max(u[p], u[q]))
    order = np.argsort(vals)           # busiest on top
    lc = LineCollection([segs[i] for i in order], cmap=cmap, norm=norm, linewidths=0.8)
    lc.set_array(np.asarray(vals)[order])
    ax.add_collection(lc)
    ax.scatter(pos[:, 0], pos[:, 1], s=6, color="black", zorder=3)
    ax.set_aspect("equal")
    ax.autoscale()
    ax.axis("off")
    titles = {"dragonfly": "dragonfly: groups on a circle",
              "levels": "levels as rows (lowest at the bottom)"}
    grid = {"hyperx": "HyperX", "torus": "torus", "mesh": "mesh"}.get(kind, kind)
    ax.set_title(titles.get(kind, f"{grid} grid (dimension 0 across, 1 down; tiles: dimension 2+)"),
                 fontsize=9)


def links_figure(r: Any, config: dict, style: str = "default"):
    """The figure of one replica (matplotlib Figure, left open): a heat map per channel class
    (in class order), then the layout drawing where the topology has one."""
    from matplotlib.colors import Normalize
    from .style import PlotOptions, _pyplot, _style
    plt = _pyplot()
    classes = [c for c in range(len(r.class_names)) if (np.asarray(r.port_class) == c).any()]
    mats = {c: class_matrix(r, c) for c in classes}
    layout = _layout(r, config)
    _style(plt, PlotOptions(style=style))
    n = len(classes) + (layout is not None)
    w, h = (2.4, 2.2) if style == "paper" else (3.6, 3.2)
    fig, axes = plt.subplots(1, n, figsize=(w * n, h), squeeze=False, layout="constrained")
    cmap = plt.get_cmap("viridis")
    vmax = max([float(np.nanmax(m)) for m in mats.values() if m.size and np.isfinite(m).any()]
               + [1e-9])
    norm = Normalize(0.0, vmax)   # one scale for every panel: classes compare directly
    for ax, c in zip(axes[0], classes):
        ax.imshow(mats[c], cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        name = r.class_names[c]
        ax.set_title(f"{name} channels", fontsize=9)
        ax.set_xlabel("terminal port" if name == "terminal" else "to router")
        from matplotlib.ticker import MaxNLocator
        if mats[c].shape[1] <= 8:     # few columns: one tick each (the locator would add halves)
            ax.set_xticks(range(mats[c].shape[1]))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("router")
    if layout is not None:
        _draw_layout(axes[0][-1], r, layout[0], layout[1], cmap, norm)
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=list(axes[0]),
                 label="utilisation (flits/cycle)", shrink=0.9)
    return fig


def plot_links(path: str | os.PathLike, output: str | os.PathLike | None = None,
               replica: int = 0, style: str = "default", fmt: str | None = None) -> str:
    """Draw the per-channel utilisation of replica `replica` of a results file into `output`
    (default: the input path with ``-links.png``). Returns the output path."""
    from .. import hdf5
    from .style import _pyplot
    plt = _pyplot()
    path = os.fspath(path)
    if hdf5.is_sweep(path):
        raise ValueError(f"{path}: --links draws one run's channels: give a file written by "
                         "`flitsim run -o` (a sweep holds many runs)")
    results = hdf5.read_results(path)
    if not 0 <= replica < len(results):
        raise ValueError(f"replica: {path} holds replicas 0..{len(results) - 1}, got {replica}")
    if output is None:
        output = os.path.splitext(path)[0] + "-links." + (fmt or "png")
    output = os.fspath(output)
    with plt.rc_context():
        fig = links_figure(results[replica], hdf5.read_config(path), style)
        fig.savefig(output, dpi=300 if style == "paper" else 130, format=fmt)
        plt.close(fig)
    return output
