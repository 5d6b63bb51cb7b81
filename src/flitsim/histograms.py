"""Latency histograms (bins 1 cycle wide, the last one open) read as percentiles: shared by a
run's totals (results.py) and its traffic classes (class_results.py)."""
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
