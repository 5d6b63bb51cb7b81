"""What a run's totals (results.Result) and each traffic class (class_results.ClassResult) derive
alike from their integer counters: loads, means, and latency histograms (bins 1 cycle wide, the
last one open) read as percentiles."""
from __future__ import annotations

import numpy as np


def hist_percentile(hist: np.ndarray, q: float) -> float:
    """Smallest bin value v with at least q of the mass at or below v (bins are 1 cycle wide;
    the last bin counts everything at or above its index)."""
    total = int(hist.sum())
    if total == 0:
        return float("nan")
    target = q * total
    cum = np.cumsum(hist)
    return float(np.searchsorted(cum, target - 1e-9 * total, side="left"))


class MeasuredPackets:
    """Derived values of the counters both records hold: nodes, measure, created_flits,
    ejected_flits, packets_measured, latency_sum, network_latency_sum, hops_sum, latency_hist,
    network_latency_hist."""

    @property
    def offered(self) -> float:
        return self.created_flits / (self.nodes * self.measure)

    @property
    def accepted(self) -> float:
        return self.ejected_flits / (self.nodes * self.measure)

    def _mean(self, total: int) -> float:
        return total / self.packets_measured if self.packets_measured else float("nan")

    @property
    def latency_mean(self) -> float:
        return self._mean(self.latency_sum)

    @property
    def network_latency_mean(self) -> float:
        return self._mean(self.network_latency_sum)

    @property
    def hops_mean(self) -> float:
        return self._mean(self.hops_sum)

    @property
    def latency_p50(self) -> float:
        return hist_percentile(self.latency_hist, 0.50)

    @property
    def latency_p99(self) -> float:
        return hist_percentile(self.latency_hist, 0.99)

    @property
    def latency_max(self) -> float:
        nz = np.nonzero(self.latency_hist)[0]
        return float(nz[-1]) if nz.size else float("nan")

    @property
    def network_latency_p99(self) -> float:
        return hist_percentile(self.network_latency_hist, 0.99)
