"""Per-class results of a run with traffic classes (docs/traffic.md "Traffic classes"):
`Result.classes`, one ClassResult per [[traffic.class]] table, with the totals' fields. The
engine counts each class's flits, packets, latency sums and histograms in integers
(Result.class_sums, class_latency_hist, class_network_latency_hist); the classes sum to the
totals exactly. A run with one class reports that class as the totals.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .histograms import MeasuredPackets

# Keys of ClassResult.summary(): the `classes` objects of `flitsim run --json`.
CLASS_SUMMARY_KEYS = (
    "index", "priority", "load", "offered", "accepted", "latency_mean", "latency_p50", "latency_p99",
    "latency_max", "network_latency_mean", "network_latency_p99", "hops_mean", "packets_measured",
    "created_flits", "ejected_flits",
)


@dataclass
class ClassResult(MeasuredPackets):
    """One traffic class's statistics; loads and throughputs in flits/node/cycle over all the
    network's nodes (so the classes' add up to the totals)."""
    index: int
    priority: int
    load: float                 # its configured load per node of its source set
    nodes: int
    measure: int
    created_flits: int
    ejected_flits: int
    packets_measured: int
    latency_sum: int
    network_latency_sum: int
    hops_sum: int
    latency_hist: np.ndarray
    network_latency_hist: np.ndarray

    def summary(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in CLASS_SUMMARY_KEYS}
        return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in d.items()}


def class_results(r: Any) -> list[ClassResult]:
    """The classes of Result r: from the engine's per-class arrays, or the totals as one class."""
    from .traffic_classes import CLASS_SUM_NAMES
    traffic = (r.config or {}).get("traffic", {})
    tables = traffic.get("class") or [{}]
    def own(i: int, name: str, default: Any) -> Any:
        return tables[i].get(name, traffic.get(name, default)) if i < len(tables) else default
    out = []
    if r.class_sums.size:
        k = len(CLASS_SUM_NAMES)
        sums = np.asarray(r.class_sums, np.int64).reshape(-1, k)
        K = sums.shape[0]
        lat = np.asarray(r.class_latency_hist).reshape(K, -1)
        nlat = np.asarray(r.class_network_latency_hist).reshape(K, -1)
        for c in range(K):
            s = dict(zip(CLASS_SUM_NAMES, (int(x) for x in sums[c])))
            out.append(ClassResult(index=c, priority=int(own(c, "priority", 0)), load=float(own(c, "load", r.load)),
                                   nodes=r.nodes, measure=r.measure, latency_hist=lat[c],
                                   network_latency_hist=nlat[c], **s))
        return out
    load = tables[0].get("load", r.load)
    return [ClassResult(index=0, priority=int(own(0, "priority", 0)), load=float(load), nodes=r.nodes,
                        measure=r.measure, created_flits=int(r.created_flits), ejected_flits=int(r.ejected_flits),
                        packets_measured=int(r.packets_measured), latency_sum=int(r.latency_sum),
                        network_latency_sum=int(r.network_latency_sum), hops_sum=int(r.hops_sum),
                        latency_hist=r.latency_hist, network_latency_hist=r.network_latency_hist)]


class ClassView:
    """A Result seen through its traffic class k (what `flitsim plot --class K` draws): the
    class's own statistics where ClassResult has them (offered, accepted, latencies, hops,
    its configured load), the run's otherwise (saturated, seed, config). Intervals
    (`*_ci95`) are not computed per class: NaN, so no error bar is drawn."""

    _RUN_FIELDS = frozenset(("index", "priority", "nodes", "measure"))

    def __init__(self, r: Any, k: int):
        classes = r.classes
        if not 0 <= k < len(classes):
            raise ValueError(f"class: {k} is not a traffic class of this run (it has {len(classes)})")
        self._r, self._c = r, classes[k]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name.endswith("_ci95"):
            return float("nan")
        if name not in self._RUN_FIELDS and hasattr(self._c, name):
            return getattr(self._c, name)
        return getattr(self._r, name)
