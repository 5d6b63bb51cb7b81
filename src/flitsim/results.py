"""The result of one simulated replica: summary scalars, integer histograms and counters.

The engine accumulates everything in integers (DESIGN.md §2); floats are derived here, once,
so every backend and thread count gives bit-identical results.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _core
from .histograms import MeasuredPackets, hist_percentile
from .workload.result import WorkloadResult

# Keys of `Result.summary()`, the object `flitsim run --json` prints.
SUMMARY_KEYS = (
    "offered", "accepted", "latency_mean", "latency_p50", "latency_p99", "latency_max",
    "network_latency_mean", "network_latency_p99", "hops_mean", "saturated", "cycles",
    "wall_seconds", "backend", "nodes", "routers", "load", "seed", "packets_measured",
    "slot_stalls", "nonminimal_fraction", "extra_hops_mean",
)
# Added to the summary of a request-reply run (traffic.reply_size > 0; docs/traffic.md).
REPLY_SUMMARY_KEYS = (
    "request_latency_mean", "request_latency_p99", "reply_latency_mean", "reply_latency_p99",
    "round_trip_latency_mean", "round_trip_latency_p99", "accepted_request", "accepted_reply",
    "requests_measured", "replies_measured",
)


def _t_quantile(confidence: float, dof: int) -> float:
    """Two-sided Student-t quantile (scipy when present, else a Cornish-Fisher expansion
    of the normal quantile, accurate to ~1e-3 for dof >= 3)."""
    p = 0.5 + confidence / 2
    try:
        from scipy.stats import t
        return float(t.ppf(p, dof))
    except ImportError:
        pass
    from statistics import NormalDist
    z = NormalDist().inv_cdf(p)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / dof + g2 / dof ** 2 + g3 / dof ** 3 + g4 / dof ** 4


# The engine's statistics schema (host/run/replica_stats.hpp, _core.replica_stats()): name, kind
# ("scalar": an int; "array": int64, per bin, port, node or window batch) and what it counts.
ENGINE_STATISTICS: tuple[dict[str, str], ...] = tuple(_core.replica_stats())


def _with_engine_statistics(cls):
    """Makes cls a dataclass with one field per engine statistic inserted after `drained`, so
    a statistic is declared once (in C++) and every front end (engine, HDF5, reader) follows."""
    ann: dict[str, Any] = {}
    for name, typ in cls.__annotations__.items():
        ann[name] = typ
        if name == "drained":
            for stat in ENGINE_STATISTICS:
                ann[stat["name"]] = "int" if stat["kind"] == "scalar" else "np.ndarray"
    cls.__annotations__ = ann
    return dataclass(cls)


@_with_engine_statistics
class Result(MeasuredPackets):
    """One replica's statistics. Loads and throughputs are in flits/node/cycle."""

    backend: str
    nodes: int
    routers: int
    load: float                 # configured offered load
    seed: int
    cycles: int                 # cycles simulated in total (warm-up + window + drain)
    wall_seconds: float         # host wall time of the whole engine run (all replicas)
    warmup: int
    measure: int                # measurement window length in cycles
    saturated: bool             # computed by the engine, see engine.SATURATION_RULE
    drained: bool               # every measured packet arrived before the drain limit
    # One field per engine statistic (created_flits, latency_sum, latency_hist, batch_*, ...)
    # goes here, from the engine's statistics schema (ENGINE_STATISTICS above).
    port_router: np.ndarray             # int32[ports] owning router of each port
    peer_port: np.ndarray               # int32[ports] other end (−1: terminal port)
    port_class: np.ndarray              # int8[ports] index into class_names
    class_names: list[str]
    config: dict[str, Any] = field(default_factory=dict)
    # Closed-loop runs ([workload]): per-job table (flitsim.workload.result); None otherwise.
    workload: "WorkloadResult | None" = None

    def __repr__(self) -> str:
        # Short: the dataclass repr would print every histogram and per-port array.
        kind = "workload, " if self.workload is not None else ""
        return (f"<Result {kind}load={self.load:g} seed={self.seed} offered={self.offered:.4g} "
                f"accepted={self.accepted:.4g} latency_mean={self.latency_mean:.4g} "
                f"latency_p99={self.latency_p99:.4g} saturated={bool(self.saturated)} "
                f"nodes={self.nodes} cycles={self.cycles} backend={self.backend}>")

    # Derived values -----------------------------------------------------------------
    @property
    def nonminimal_fraction(self) -> float:
        return self._mean(self.nonminimal_packets)

    @property
    def extra_hops_mean(self) -> float:
        """Deroutes per packet: mean router hops beyond the topology's minimal route."""
        return self._mean(self.extra_hops)

    # Request-reply (traffic.reply_size > 0): the two message classes and the round trip. The
    # latency_* fields above cover every measured packet of both classes.
    @property
    def has_replies(self) -> bool:
        """True for a request-reply run (the engine sized its per-class histograms)."""
        return self.request_latency_hist.size > 0

    @property
    def request_latency_mean(self) -> float:
        return self.request_latency_sum / self.requests_measured if self.requests_measured else float("nan")

    @property
    def reply_latency_mean(self) -> float:
        """From the request's arrival (the reply's creation) to the reply's tail arrival."""
        return self.reply_latency_sum / self.replies_measured if self.replies_measured else float("nan")

    @property
    def round_trip_latency_mean(self) -> float:
        """From the request's creation to its reply's tail arrival at the request's source."""
        return self.round_trip_sum / self.replies_measured if self.replies_measured else float("nan")

    @property
    def request_latency_p99(self) -> float:
        return hist_percentile(self.request_latency_hist, 0.99)

    @property
    def reply_latency_p99(self) -> float:
        return hist_percentile(self.reply_latency_hist, 0.99)

    @property
    def round_trip_latency_p99(self) -> float:
        return hist_percentile(self.round_trip_hist, 0.99)

    @property
    def accepted_reply(self) -> float:
        """Reply flits accepted, flits/node/cycle (0 without replies)."""
        return self.reply_ejected_flits / (self.nodes * self.measure)

    @property
    def accepted_request(self) -> float:
        """Request flits accepted (all accepted flits without replies): compare with `offered`."""
        return (self.ejected_flits - self.reply_ejected_flits) / (self.nodes * self.measure)

    @property
    def latency_p90(self) -> float:
        return hist_percentile(self.latency_hist, 0.90)

    @property
    def latency_p999(self) -> float:
        return hist_percentile(self.latency_hist, 0.999)

    @property
    def network_latency_p50(self) -> float:
        return hist_percentile(self.network_latency_hist, 0.50)

    @property
    def network_latency_p90(self) -> float:
        return hist_percentile(self.network_latency_hist, 0.90)

    @property
    def network_latency_p999(self) -> float:
        return hist_percentile(self.network_latency_hist, 0.999)

    @property
    def latency_std(self) -> float:
        """Standard deviation of packet latency, from the histogram (latencies beyond the
        last bin count as the last bin's value)."""
        n = int(self.latency_hist.sum())
        if n < 2:
            return float("nan")
        v = np.arange(self.latency_hist.size, dtype=np.float64)
        mean = float((v * self.latency_hist).sum()) / n
        var = float((self.latency_hist * (v - mean) ** 2).sum()) / (n - 1)
        return var ** 0.5

    # Statistics across nodes ----------------------------------------------------------
    # Batch means over groups of nodes (BATCHES contiguous node ranges, i.e. routers/groups
    # of the topology): the spread between parts of the network. Used for the intervals
    # below only when the run has no time batches (sim.batches = 1).
    BATCHES = 20

    def _node_batches(self, per_node: np.ndarray) -> np.ndarray:
        b = min(self.BATCHES, per_node.size)
        return np.array([chunk.sum() / (chunk.size * self.measure)
                         for chunk in np.array_split(per_node.astype(np.float64), b)])

    def batch_means_ci(self, per_node: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
        """(mean, half-width) of a per-node flit count as flits/node/cycle, by batch means
        over node groups with a Student-t interval."""
        x = self._node_batches(per_node)
        if x.size < 2:
            return float(x.mean()) if x.size else float("nan"), float("nan")
        return float(x.mean()), _t_quantile(confidence, x.size - 1) * float(
            x.std(ddof=1)) / x.size ** 0.5

    # Time series and batch means over time -----------------------------------------------
    @property
    def batch_cycles(self) -> np.ndarray:
        """Cycles in each time batch (the engine puts cycle w+i in batch i*K // measure)."""
        k = self.batch_ejected.size
        return np.bincount(np.arange(self.measure) * k // self.measure, minlength=k) if k else np.zeros(0)

    @property
    def batch_accepted(self) -> np.ndarray:
        """Accepted throughput per time batch (flits/node/cycle)."""
        return self.batch_ejected / (self.nodes * self.batch_cycles)

    @property
    def batch_offered(self) -> np.ndarray:
        """Offered load per time batch (flits/node/cycle)."""
        return self.batch_created / (self.nodes * self.batch_cycles)

    @property
    def batch_latency_mean(self) -> np.ndarray:
        """Mean packet latency of the measured packets created in each time batch."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.batch_latency / self.batch_packets

    @staticmethod
    def _series_ci(x: np.ndarray, confidence: float = 0.95) -> float:
        x = x[np.isfinite(x)]
        if x.size < 2:
            return float("nan")
        return _t_quantile(confidence, x.size - 1) * float(x.std(ddof=1)) / x.size ** 0.5

    @property
    def accepted_ci95(self) -> float:
        """Half-width of the 95% batch-means interval of the accepted throughput: over the
        window's time batches (sim.batches >= 2), else over node groups."""
        if self.batch_ejected.size >= 2:
            return self._series_ci(self.batch_accepted)
        return self.batch_means_ci(self.node_ejected_flits)[1]

    @property
    def offered_ci95(self) -> float:
        """Half-width of the 95% batch-means interval of the offered load (as accepted_ci95)."""
        if self.batch_created.size >= 2:
            return self._series_ci(self.batch_offered)
        return self.batch_means_ci(self.node_created_flits)[1]

    @property
    def latency_mean_ci95(self) -> float:
        """Half-width of the 95% interval of the mean latency by batch means over the
        window's time batches (packets grouped by creation time); without batches, 1.96 x
        std / sqrt(n), optimistic because packets of one run are correlated."""
        if self.batch_packets.size >= 2:
            return self._series_ci(self.batch_latency_mean)
        n = self.packets_measured
        return 1.959963984540054 * self.latency_std / n ** 0.5 if n > 1 else float("nan")

    @property
    def fairness(self) -> float:
        """Jain's fairness index of per-node accepted throughput (flits arriving at each
        node): (sum x)^2 / (N sum x^2), 1 when all nodes receive equally, 1/N at worst."""
        x = self.node_ejected_flits.astype(np.float64)
        sq = float((x * x).sum())
        return float(x.sum()) ** 2 / (x.size * sq) if sq > 0 else float("nan")

    @property
    def injection_fairness(self) -> float:
        """Jain's fairness index of per-node injected (created) flits."""
        x = self.node_created_flits.astype(np.float64)
        sq = float((x * x).sum())
        return float(x.sum()) ** 2 / (x.size * sq) if sq > 0 else float("nan")

    def channel_utilisation(self) -> dict[str, float]:
        """Mean flits/cycle per channel (output port) over the window, by channel class."""
        out = {}
        for c, name in enumerate(self.class_names):
            mask = self.port_class == c
            if mask.any():
                out[name] = float(self.channel_flits[mask].mean() / self.measure)
        return out

    # Workload runs -------------------------------------------------------------------------
    @property
    def link_bytes(self) -> np.ndarray:
        """Bytes sent over each router-to-router channel (output ports with a peer), over the
        whole run, in workload mode (empty otherwise: open-loop runs have no byte size)."""
        if self.workload is None:
            return np.zeros(0, np.int64)
        return self.channel_flits[self.peer_port >= 0] * self.workload.flit_bytes

    @property
    def link_bytes_mean(self) -> float:
        b = self.link_bytes
        return float(b.mean()) if b.size else float("nan")

    @property
    def link_bytes_max(self) -> float:
        b = self.link_bytes
        return float(b.max()) if b.size else float("nan")

    # Traffic classes ([[traffic.class]], class_results.py) -----------------------------------
    @property
    def classes(self) -> list:
        """One ClassResult per traffic class (a run without classes: the totals as class 0)."""
        from .class_results import class_results
        return class_results(self)

    @property
    def has_classes(self) -> bool:
        """True when the config has [[traffic.class]] tables (its summary lists them)."""
        return bool((self.config or {}).get("traffic", {}).get("class"))

    WORKLOAD_SUMMARY_KEYS = ("comm_rate", "workload_cycles", "link_bytes_mean", "link_bytes_max")

    def summary(self) -> dict[str, Any]:
        """Plain-Python dict of SUMMARY_KEYS (NaN stays NaN; JSON writers map it to null);
        request-reply runs add REPLY_SUMMARY_KEYS; workload runs add WORKLOAD_SUMMARY_KEYS (the per-job table is `workload.jobs_table()`)."""
        d = {k: getattr(self, k) for k in SUMMARY_KEYS}
        if self.has_replies:
            d.update({k: getattr(self, k) for k in REPLY_SUMMARY_KEYS})
        if self.has_classes:  # traffic classes: one object per class, the totals' fields
            d["classes"] = [c.summary() for c in self.classes]
        if self.workload is not None:
            d.update(comm_rate=self.workload.comm_rate,
                     workload_cycles=self.workload.foreground_end + 1,
                     link_bytes_mean=self.link_bytes_mean, link_bytes_max=self.link_bytes_max)
        for k, v in d.items():
            if isinstance(v, (np.integer,)):
                d[k] = int(v)
            elif isinstance(v, (np.floating,)):
                d[k] = float(v)
            elif isinstance(v, (np.bool_,)):
                d[k] = bool(v)
        return d

    # Arrays written to HDF5 under /replicas/<i>/ (see docs/hdf5.md): the engine's arrays.
    ARRAY_FIELDS = tuple(st["name"] for st in ENGINE_STATISTICS if st["kind"] == "array")
    # Integer/float/bool scalars written as attributes: the run's, then the engine's.
    SCALAR_FIELDS = ("backend", "nodes", "routers", "load", "seed", "cycles", "wall_seconds", "warmup",
                     "measure", "saturated", "drained") + tuple(
        st["name"] for st in ENGINE_STATISTICS if st["kind"] == "scalar")
