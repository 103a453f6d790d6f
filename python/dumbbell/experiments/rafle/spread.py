"""E4 ``rafle``: how far one file moves a Table 2 bin.

The bins above 100 KB hold a few files of the base (21, 8, 4, 3, 2 ...),
so one file's completion sets much of a bin's mean and σ; in an
overflowing FIFO a file whose window locks at one or two packets takes
several times its fair share (``tools/rafle_trace.py bin``). The
leave-one-out range of a bin, the bin's mean (σ) recomputed without each of
its files in turn, measures that: the account "one file carries the bin"
(the package's ``KNOWN``) holds where the paper's number lies inside it.
Both numbers of a bin are samples of few completions: the account "within
sampling" holds where they differ by at most twice the standard error of their
difference.
"""

from __future__ import annotations

import numpy as np
import polars as pl

__all__ = ["leave_one_out", "leave_one_out_claim", "mean_ranges"]


def leave_one_out(x: np.ndarray) -> tuple[float | None, float | None, float | None, float | None]:
    """The lowest and highest mean, and the lowest and highest σ (ddof 1),
    of ``x`` without one of its values; Nones where too few values are
    left (a mean needs one, a σ two)."""
    n = len(x)
    if n < 2:
        return None, None, None, None
    total = float(np.sum(x))
    means = (total - x) / (n - 1)
    if n < 3:
        return float(means.min()), float(means.max()), None, None
    stds = np.array([np.std(np.delete(x, i), ddof=1) for i in range(n)])
    return float(means.min()), float(means.max()), float(stds.min()), float(stds.max())


def mean_ranges(per_realization: list[tuple[float | None, ...]]) -> tuple[float | None, ...]:
    """Each bound averaged over the realizations (the bin's mean over
    realizations is the mean of their means); None if any is None."""
    if not per_realization:
        return None, None, None, None
    out = []
    for k in range(4):
        vals = [r[k] for r in per_realization]
        out.append(None if any(v is None for v in vals) else float(np.mean(vals)))
    return tuple(out)


def leave_one_out_claim(rows: pl.DataFrame, cls: str, sch: str, metric: str, bin_kb: str) -> dict[str, float | None]:
    """A Table 2 claim's ``ours_loo_lo`` and ``ours_loo_hi`` (the bin's
    leave-one-out range of ``metric``, ``fct_mean_s`` or ``fct_std_s``)
    and ``ours_se``, the standard error of ours over its r realizations of
    the bin's k files (σ/√(rk) for a mean, σ/√(2(rk − 1)) for a σ), from
    the simultaneous part's row."""
    f = rows.filter((pl.col("part") == "simultaneous") & (pl.col("classifier") == cls)
                    & (pl.col("scheduler") == sch) & (pl.col("bin_kb") == bin_kb))
    if not f.height:
        return {"ours_loo_lo": None, "ours_loo_hi": None, "ours_se": None}
    r = f.row(0, named=True)
    pre = "fct" if metric == "fct_mean_s" else "std"
    rk, sd = (r["realizations"] or 0) * (r["files"] or 0), r["fct_std_s"]
    se = None if sd is None or rk < 2 else (sd / rk ** 0.5 if metric == "fct_mean_s" else sd / (2 * (rk - 1)) ** 0.5)
    return {"ours_loo_lo": r[f"{pre}_loo_lo_s"], "ours_loo_hi": r[f"{pre}_loo_hi_s"], "ours_se": se}

