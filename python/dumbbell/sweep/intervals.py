"""Confidence intervals of repeated runs: the mean and the Student-t
half-width that sweeps' point tables, the sweep report and the experiments
give for every metric."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats


def mean_ci(values: Sequence[float], level: float) -> tuple[float, float, int]:
    """(mean, half-width of the ``level`` Student-t interval, n). The
    half-width is NaN with fewer than two values, 0 if they are all equal."""
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = float(x.mean())
    if n < 2:
        return mean, float("nan"), n
    sd = float(x.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2.0, n - 1)) * sd / math.sqrt(n)
    return mean, half, n
