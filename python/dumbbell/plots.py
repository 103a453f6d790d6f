"""Figures (PNG) with matplotlib's object API and the Agg canvas.

No ``pyplot``: no global state and no backend switching, so figures can be
written from scripts, tests and notebooks alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .analysis import time_weighted_cdf

__all__ = ["queue_figure", "ccdf_figure", "errorbar_figure"]


def _save(fig: Figure, path: Path) -> None:
    """Saves a PNG atomically (rendered in memory, then renamed into place)."""
    import io

    from .store import atomic_write_bytes

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    atomic_write_bytes(path, buf.getvalue())


def _new(rows: int, cols: int, size: tuple[float, float]) -> tuple[Figure, Any]:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False)


def queue_figure(
    cases: Mapping[str, Mapping[str, np.ndarray]],
    *,
    title: str,
    path: str | Path,
    buffer_pkts: int | None = None,
) -> Path:
    """One column per case: the queue over time (top) and its CDF over time
    (bottom). Each case holds ``t_s``, ``pkts`` and ``weights`` (how long each
    value held)."""
    n = max(1, len(cases))
    fig, ax = _new(2, n, (5.0 * n, 6.5))
    ymax = max([float(np.max(d["pkts"])) for d in cases.values() if len(d["pkts"])] + [1.0])
    if buffer_pkts:
        ymax = max(ymax, float(buffer_pkts))
    for j, (label, d) in enumerate(cases.items()):
        top, bottom = ax[0][j], ax[1][j]
        if len(d["t_s"]) > 40_000:  # draw the min-max envelope of 4000 equal-count bins
            t_s, pk = np.asarray(d["t_s"]), np.asarray(d["pkts"])
            starts = np.linspace(0, t_s.size, 4001).astype(np.int64)[:-1]
            top.fill_between(
                t_s[starts], np.minimum.reduceat(pk, starts), np.maximum.reduceat(pk, starts), step="post", linewidth=0.6
            )
        elif len(d["t_s"]):
            top.step(d["t_s"], d["pkts"], where="post", linewidth=0.6)
        top.set_title(f"{label}: queue over time", fontsize=10)
        top.set_xlabel("time (s)")
        top.set_ylabel("queue (packets)")
        top.set_ylim(0, ymax * 1.05)
        x, cdf = time_weighted_cdf(d["pkts"], d["weights"])
        if x.size:
            bottom.step(x, cdf, where="post")
        bottom.set_title(f"{label}: CDF of the queue", fontsize=10)
        bottom.set_xlabel("queue (packets)")
        bottom.set_ylabel("fraction of time")
        bottom.set_xlim(0, ymax * 1.05)
        bottom.set_ylim(0, 1.02)
        for a in (top, bottom):
            a.grid(alpha=0.3)
    fig.suptitle(title)
    p = Path(path)
    _save(fig, p)
    return p


def ccdf_figure(
    curves: Mapping[str, np.ndarray],
    *,
    title: str,
    xlabel: str,
    path: str | Path,
    paper_points: Mapping[str, tuple[float, float]] | None = None,
) -> Path:
    """Complementary CDFs, P(X > x), on a log scale; curves whose values are
    all zero (an exact link) are listed in the legend as such."""
    fig, ax = _new(1, 1, (7.0, 4.5))
    a = ax[0][0]
    floor = 1.0
    xmax = 100.0
    for label, values in curves.items():
        v = np.sort(np.asarray(values, dtype=np.float64))
        if v.size == 0:
            a.plot([], [], label=f"{label}: no back-to-back dequeues")
            continue
        floor = min(floor, 1.0 / v.size)
        ccdf = 1.0 - np.arange(1, v.size + 1) / v.size
        keep = ccdf > 0
        if not keep.any() or v[-1] == 0.0:
            a.plot([], [], label=f"{label}: all {v.size} deviations are 0")
            continue
        xmax = max(xmax, float(v[keep][-1]))
        x, y = v[keep], ccdf[keep]
        if x.size > 4000:  # thin for drawing: even ranks plus the log-spaced tail
            n = x.size
            pick = np.concatenate([np.linspace(0, n - 1, 2000), n - np.logspace(0, np.log10(n), 2000)])
            pick = np.unique(np.clip(pick.astype(np.int64), 0, n - 1))
            x, y = x[pick], y[pick]
        a.step(x, y, where="post", label=label)
    for label, (x, y) in (paper_points or {}).items():
        a.plot([x], [y], marker="x", linestyle="none", markersize=9, label=label)
        floor = min(floor, y)
    a.set_yscale("log")
    a.set_ylim(floor / 2, 1.5)
    a.set_xlim(0, xmax * 1.05)
    a.set_xlabel(xlabel)
    a.set_ylabel("P(deviation > x)")
    a.set_title(title, fontsize=10)
    a.grid(alpha=0.3, which="both")
    a.legend(fontsize=8)
    p = Path(path)
    _save(fig, p)
    return p


def errorbar_figure(
    series: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    path: str | Path,
    logx: bool = False,
    logy: bool = False,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> Path:
    """One line per series, ``(x, mean, half-width)``, with error bars; and
    optional ``reference`` curves ``(x, y)`` drawn dashed (models, the
    paper's values)."""
    fig, ax = _new(1, 1, (7.0, 4.5))
    a = ax[0][0]
    for label, (x, y, half) in series.items():
        a.errorbar(x, y, yerr=half, marker="o", markersize=3.5, capsize=3, linewidth=1.2, label=label)
    for label, (x, y) in (reference or {}).items():
        a.plot(x, y, linestyle="--", linewidth=1.0, label=label)
    if logx:
        a.set_xscale("log")
    if logy:
        a.set_yscale("log")
    a.set_xlabel(xlabel)
    a.set_ylabel(ylabel)
    a.set_title(title, fontsize=10)
    a.grid(alpha=0.3, which="both")
    a.legend(fontsize=8)
    p = Path(path)
    _save(fig, p)
    return p
