"""Figures (PNG) with matplotlib's object API and the Agg canvas.

No ``pyplot``: no global state and no backend switching, so figures can be
written from scripts, tests and notebooks alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..run.analysis import time_weighted_cdf
from .base import new_figure as _new, save_figure as _save

__all__ = ["queue_figure", "ccdf_figure", "errorbar_figure", "bars_figure", "state_trace_figure"]


def queue_figure(
    cases: Mapping[str, Mapping[str, np.ndarray]],
    *,
    title: str,
    path: str | Path,
    buffer_pkts: int | None = None,
    reference: Mapping[str, Mapping[str, float]] | None = None,
) -> Path:
    """One column per case: the queue over time (top) and its CDF over time
    (bottom). Each case holds ``t_s``, ``pkts`` and ``weights`` (how long each
    value held). ``reference``: per case, labelled levels (the paper's
    values) drawn as dashed lines on both panels."""
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
        for ref_label, level in (reference or {}).get(label, {}).items():
            top.axhline(level, linestyle="--", linewidth=0.9, color="tab:red", label=ref_label)
            bottom.axvline(level, linestyle="--", linewidth=0.9, color="tab:red", label=ref_label)
            top.legend(fontsize=7, loc="upper right")
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


Bars = Mapping[str, tuple[np.ndarray, np.ndarray]]
"""Series label → (values, half-widths), one value per group."""


def bars_figure(
    panels: Mapping[str, tuple[list[str], Bars, Bars]],
    *,
    title: str,
    ylabel: str,
    path: str | Path,
    logy: bool = False,
) -> Path:
    """One panel per entry: groups along x, one bar per series in each group
    with its error bar; the paper's series (third element) drawn hatched
    right beside ours, with the same colour. NaN values are not drawn."""
    n = max(1, len(panels))
    fig, ax = _new(1, n, (max(7.0, 4.6 * n), 4.4))
    for j, (name, (groups, ours, paper)) in enumerate(panels.items()):
        a = ax[0][j]
        x = np.arange(len(groups), dtype=float)
        k = max(1, len(ours) + len(paper))
        width = 0.8 / k
        i = 0
        colors = {}
        for label, (v, e) in ours.items():
            bars = a.bar(x - 0.4 + width * (i + 0.5), v, width, yerr=e, capsize=2, label=f"{label} (ours)")
            colors[label] = bars.patches[0].get_facecolor() if bars.patches else None
            i += 1
        for label, (v, e) in paper.items():
            a.bar(x - 0.4 + width * (i + 0.5), v, width, yerr=e, capsize=2, hatch="//", fill=False,
                  edgecolor=colors.get(label, "black"), label=f"{label} (paper)")
            i += 1
        a.set_xticks(x, groups)
        a.set_title(name, fontsize=10)
        a.set_ylabel(ylabel)
        if logy:
            a.set_yscale("log")
        a.grid(alpha=0.3, axis="y", which="both")
        a.legend(fontsize=7)
    fig.suptitle(title)
    p = Path(path)
    _save(fig, p)
    return p


def state_trace_figure(
    panels: Mapping[str, Mapping[str, np.ndarray]],
    *,
    title: str,
    path: str | Path,
    lines: Mapping[str, float] | None = None,
) -> Path:
    """One row per panel: a queue over time (``t_s``, ``pkts``, step-wise)
    with the intervals where ``state`` is true shaded, and horizontal
    reference ``lines`` (thresholds)."""
    n = max(1, len(panels))
    fig, ax = _new(n, 1, (10.0, 2.8 * n))
    for j, (name, d) in enumerate(panels.items()):
        a = ax[j][0]
        t, q, st = np.asarray(d["t_s"]), np.asarray(d["pkts"]), np.asarray(d["state"], dtype=bool)
        if t.size:
            a.step(t, q, where="post", linewidth=0.7, color="black", label="queue")
            a.fill_between(t, 0, 1, where=st, step="post", transform=a.get_xaxis_transform(), color="tab:red",
                           alpha=0.18, linewidth=0, label="marking / returning")
        for label, y in (lines or {}).items():
            a.axhline(y, linestyle="--", linewidth=0.9, label=label, color="tab:blue" if "S" in label else "tab:green")
        a.set_title(name, fontsize=10)
        a.set_xlabel("time (s)")
        a.set_ylabel("queue (packets)")
        a.grid(alpha=0.3)
        a.legend(fontsize=7, loc="upper right")
    fig.suptitle(title)
    p = Path(path)
    _save(fig, p)
    return p
