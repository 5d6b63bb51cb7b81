"""Reading result files as tables: ``flitsim.open(path)`` on a file from ``flitsim run -o`` or
``flitsim sweep -o`` gives pandas DataFrames (pandas is optional: ``pip install pandas``).

    >>> f = flitsim.open("sweep.h5")
    >>> f.summary()[["traffic.load", "routing.algorithm", "accepted", "latency_mean"]]
    >>> f.histogram("latency_hist")      # one row per result, one column per cycle
    >>> f.channels()                      # one row per (result, output port)
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import hdf5
from .results import SUMMARY_KEYS, Result

# Derived values added to the summary table beside Result.summary()'s keys.
EXTRA_COLUMNS = ("latency_p90", "accepted_ci95", "fairness")


def _pandas():
    try:
        import pandas
    except ImportError:  # pragma: no cover - exercised only without pandas
        raise ImportError("flitsim.open needs pandas: pip install pandas") from None
    return pandas


class ResultsFile:
    """The results of one file, with the parameters that distinguish them."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        if hdf5.is_sweep(path):
            sweep = hdf5.read_sweep(path)
            self.config = sweep["config"]
            self.keys: list[str] = list(sweep["keys"])
            done = [i for i, r in enumerate(sweep["results"]) if r is not None]
            self.results: list[Result] = [sweep["results"][i] for i in done]
            self.points: list[dict[str, Any]] = [dict(sweep["points"][i]) for i in done]
        else:
            self.config = hdf5.read_config(path)
            self.keys = []
            self.results = hdf5.read_results(path)
            self.points = [{} for _ in self.results]
        # Every key the run read, with the engine's value (the router model included).
        self.resolved_config = hdf5.read_resolved_config(path)

    def __len__(self) -> int:
        return len(self.results)

    def summary(self):
        """One row per result: swept parameters, then the summary values."""
        rows = []
        for point, r in zip(self.points, self.results):
            row = dict(point)
            row.update(r.summary())
            for k in EXTRA_COLUMNS:
                v = getattr(r, k, None)
                if v is not None and not callable(v):
                    row[k] = v
            rows.append(row)
        return _pandas().DataFrame(rows, columns=self.keys + [k for k in rows[0] if k not in self.keys]
                                   if rows else self.keys + list(SUMMARY_KEYS))

    def histogram(self, name: str = "latency_hist"):
        """Counts per bin (columns: bin value) of a histogram array, one row per result,
        trimmed after the last non-empty bin of any result."""
        hists = [np.asarray(getattr(r, name)) for r in self.results]
        last = max((int(np.nonzero(h)[0][-1]) for h in hists if h.any()), default=0)
        return _pandas().DataFrame([h[: last + 1] for h in hists], columns=range(last + 1))

    def channels(self):
        """One row per (result, output port): router, peer router, class, flits sent in the
        window and utilisation (flits per cycle)."""
        pd = _pandas()
        frames = []
        for i, r in enumerate(self.results):
            peer = np.asarray(r.peer_port)
            frames.append(pd.DataFrame({
                "result": i, "port": np.arange(peer.size), "router": r.port_router,
                "peer_router": np.where(peer >= 0, np.asarray(r.port_router)[np.maximum(peer, 0)], -1),
                "class": np.asarray(r.class_names, dtype=object)[np.asarray(r.port_class, dtype=int)],
                "flits": r.channel_flits, "utilisation": np.asarray(r.channel_flits) / r.measure}))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def nodes(self):
        """One row per (result, node): flits created and ejected in the window."""
        pd = _pandas()
        return pd.concat([pd.DataFrame({"result": i, "node": np.arange(r.nodes),
                                        "created_flits": r.node_created_flits,
                                        "ejected_flits": r.node_ejected_flits})
                          for i, r in enumerate(self.results)], ignore_index=True)


def open_results(path: str | os.PathLike) -> ResultsFile:
    """Open a results or sweep file written by flitsim (see docs/hdf5.md)."""
    return ResultsFile(path)
