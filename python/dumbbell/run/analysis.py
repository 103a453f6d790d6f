"""Measurements computed from a run's tables (numpy, vectorized).

- :func:`time_weighted_quantiles` / :func:`time_weighted_cdf`: the
  distribution of a piecewise-constant trace (queue occupancy) over time,
  each value weighted by how long it held. A trace recorded at every change
  and one sampled periodically give the same distribution (up to sampling).
- :func:`inter_dequeue_deviation`: the Mininet-HiFi DCTCP write-up's link-fidelity metric: for
  back-to-back transmissions, ``100 · |Δt − ideal| / ideal`` where Δt is the
  time between the starts of two consecutive transmissions and ideal the
  first packet's serialization time (``size · 8 / rate``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["hold_weights", "time_weighted_quantiles", "time_weighted_cdf", "inter_dequeue_deviation"]


def hold_weights(t_ps: np.ndarray, end_ps: int) -> np.ndarray:
    """How long each row of a piecewise-constant trace held: the time to the
    next row, and for the last row the time to ``end_ps``."""
    t = np.asarray(t_ps, dtype=np.int64)
    if t.size == 0:
        return np.zeros(0, dtype=np.float64)
    nxt = np.empty_like(t)
    nxt[:-1] = t[1:]
    nxt[-1] = max(int(end_ps), int(t[-1]))
    return (nxt - t).astype(np.float64)


def time_weighted_quantiles(values: np.ndarray, weights: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Quantiles of ``values`` weighted by ``weights`` (the smallest value
    whose cumulative weight reaches q). NaN if the total weight is zero."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    total = w.sum()
    if v.size == 0 or total <= 0:
        return [float("nan")] * len(qs)
    order = np.argsort(v, kind="stable")
    cum = np.cumsum(w[order]) / total
    out = []
    for q in qs:
        i = int(np.searchsorted(cum, q, side="left"))
        out.append(float(v[order][min(i, v.size - 1)]))
    return out


def time_weighted_cdf(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values and P(value <= x) for each, weighted by time."""
    v = np.asarray(values)
    w = np.asarray(weights, dtype=np.float64)
    if v.size == 0 or w.sum() <= 0:
        return np.zeros(0), np.zeros(0)
    uniq, inv = np.unique(v, return_inverse=True)
    mass = np.bincount(inv, weights=w, minlength=uniq.size)
    return uniq, np.cumsum(mass) / mass.sum()


def inter_dequeue_deviation(
    deq_t_ps: np.ndarray,
    deq_size_bytes: np.ndarray,
    rate_bps: int,
    trace_t_ps: np.ndarray,
    trace_pkts: np.ndarray,
    *,
    trace_sampled: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Deviation (%) of back-to-back inter-dequeue times from the ideal, and
    those inter-dequeue times (ps).

    A pair of consecutive transmissions is back-to-back when a packet was
    waiting in the queue just before the first one finished serializing (the
    occupancy trace counts waiting packets, not the one on the wire). That is
    read from the trace conservatively: the last trace row at or before that
    instant shows ``n`` packets; at most ``m`` of them left since (the
    dequeues between that row and the instant, counted from the dequeue
    times, the row's own instant included when the trace is ``trace_sampled``
    since a sample may precede a dequeue at the same instant); the pair counts
    only if ``n - m >= 1``. With a trace of every change this is exact; with a
    sampled trace it never mistakes an idle gap for a slow dequeue, but leaves
    out pairs it cannot be sure of. Pairs before the first trace row are left
    out.
    """
    t = np.asarray(deq_t_ps, dtype=np.int64)
    if t.size < 2:
        return np.zeros(0), np.zeros(0)
    size = np.asarray(deq_size_bytes, dtype=np.float64)
    ideal_ps = size[:-1] * 8.0 * 1e12 / float(rate_bps)
    dt = np.diff(t).astype(np.float64)
    tt = np.asarray(trace_t_ps, dtype=np.int64)
    probe = t[:-1] + np.ceil(ideal_ps).astype(np.int64) - 1
    idx = np.searchsorted(tt, probe, side="right") - 1
    known = idx >= 0
    safe = np.where(known, idx, 0)
    waiting = np.asarray(trace_pkts, dtype=np.int64)[safe] if tt.size else np.zeros(idx.size, dtype=np.int64)
    row_t = tt[safe] if tt.size else np.zeros(idx.size, dtype=np.int64)
    left_since = np.searchsorted(t, probe, side="right") - np.searchsorted(
        t, row_t, side="left" if trace_sampled else "right"
    )
    b2b = known & (waiting - left_since >= 1)
    dev = 100.0 * np.abs(dt[b2b] - ideal_ps[b2b]) / ideal_ps[b2b]
    return dev, dt[b2b]
