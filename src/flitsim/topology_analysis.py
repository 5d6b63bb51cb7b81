"""Graph analysis of topology tables with numpy only: distances, minimal-path counts and a
bisection estimate. Everything works on the router graph; "terminal routers" are the routers
with at least one node, the only possible sources and destinations of traffic.
"""
from __future__ import annotations

import numpy as np


def adjacency(num_routers: int, u: np.ndarray, v: np.ndarray, binary: bool = True) -> np.ndarray:
    """Dense R×R adjacency (float64) of the links u[i]–v[i]; binary ignores parallel links."""
    a = np.zeros((num_routers, num_routers))
    np.add.at(a, (u, v), 1.0)
    np.add.at(a, (v, u), 1.0)
    if binary:
        a = np.minimum(a, 1.0)
    return a


def distances(adj: np.ndarray, block: int = 1024) -> np.ndarray:
    """All-pairs hop distances (uint8, 255 = unreachable) by frontier expansion with BLAS."""
    n = adj.shape[0]
    out = np.full((n, n), 255, dtype=np.uint8)
    a32 = adj.astype(np.float32)
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        rows = np.arange(lo, hi)
        seen = np.zeros((hi - lo, n), dtype=bool)
        seen[rows - lo, rows] = True
        out[rows, rows] = 0
        frontier = seen.astype(np.float32)
        d = 0
        while frontier.any() and d < 254:
            d += 1
            reach = (frontier @ a32) > 0
            new = reach & ~seen
            out[lo:hi][new] = d
            seen |= new
            frontier = new.astype(np.float32)
    return out


def minimal_path_counts(adj: np.ndarray, dist: np.ndarray, sources: np.ndarray,
                        block: int = 512) -> np.ndarray:
    """Number of minimal router paths from each source to every router (float64 rows).

    Router-level paths: parallel links between the same routers count once (the diameter-two
    paper's "path diversity" counts distinct intermediate routers, P3:L207)."""
    n = adj.shape[0]
    out = np.zeros((len(sources), n))
    maxd = int(dist[dist < 255].max()) if (dist < 255).any() else 0
    for lo in range(0, len(sources), block):
        src = sources[lo:lo + block]
        dblk = dist[src]
        sigma = np.zeros((len(src), n))
        sigma[np.arange(len(src)), src] = 1.0
        for d in range(1, maxd + 1):
            prev = np.where(dblk == d - 1, sigma, 0.0)
            sigma += np.where(dblk == d, prev @ adj, 0.0)
        out[lo:lo + len(src)] = sigma
    return out


def spectral_bisection(adj_multi: np.ndarray, weights: np.ndarray, passes: int = 4,
                       candidates: int = 64) -> tuple[np.ndarray, int]:
    """Split routers into two sets of (nearly) equal node weight with few cut links.

    Partitioner: the Fiedler vector of the graph Laplacian orders the routers and the split
    point halves the node weight; then Kernighan–Lin style passes swap pairs of routers of
    equal weight across the cut while that lowers the cut (the `candidates` routers with the
    largest external-minus-internal degree on each side are tried). A heuristic, like the
    METIS estimate of P3:L201; it gives an upper bound on the minimum bisection.
    Returns (side: bool array, cut link count)."""
    n = adj_multi.shape[0]
    lap = np.diag(adj_multi.sum(axis=1)) - adj_multi
    _, vecs = np.linalg.eigh(lap)
    order = np.argsort(vecs[:, 1], kind="stable")
    half = weights.sum() / 2.0
    side = np.zeros(n, dtype=bool)
    side[order[np.searchsorted(np.cumsum(weights[order]), half, side="right"):]] = True
    deg = adj_multi.sum(axis=1)

    def external(side):
        return np.where(side[None, :] != side[:, None], adj_multi, 0.0).sum(axis=1)

    ext = external(side)
    for _ in range(passes * n):
        gain1 = 2 * ext - deg  # D = external − internal degree
        a_idx = np.flatnonzero(~side)[np.argsort(-gain1[~side])[:candidates]]
        b_idx = np.flatnonzero(side)[np.argsort(-gain1[side])[:candidates]]
        if len(a_idx) == 0 or len(b_idx) == 0:
            break
        g = gain1[a_idx][:, None] + gain1[b_idx][None, :] - 2 * adj_multi[np.ix_(a_idx, b_idx)]
        g = np.where(weights[a_idx][:, None] == weights[b_idx][None, :], g, -np.inf)
        i, j = np.unravel_index(np.argmax(g), g.shape)
        if not g[i, j] > 0:
            break
        for x in (a_idx[i], b_idx[j]):
            # x changes side: its links to the old side become external, to the new internal.
            same = side == side[x]
            ext += np.where(same, adj_multi[x], -adj_multi[x])
            side[x] = not side[x]
            ext[x] = adj_multi[x][side != side[x]].sum()
    cut = int(np.where(side[None, :] != side[:, None], adj_multi, 0.0).sum() // 2)
    return side, cut
