"""The fair-share (processor-sharing) reference, computed exactly.

The RAFLE paper compares every router with "o padrão de equidade": the link
of rate C shared equally among the tasks active at each instant (Mussi and
Ribeiro, SBrT 2009, cited there). For a set of transfers this gives each
task's completion time T_i and the number of active tasks over time, with
no simulation: between two events (an arrival or a completion) every
active task drains at C/n.

:func:`completions` handles any arrival times (an event loop over
arrivals and completions); with every task at t = 0 it reduces to the
closed form T_k = (Σ_{j<k} s_j + (n − k + 1)·s_k)/C over the sizes sorted
ascending. :func:`active_curve` turns arrivals and completions into the
step function of active tasks. :func:`bin_midpoint_reference` is the
paper's own Table 2 computation: every file at its 100 KB bin's midpoint.

Sizes are in bytes and the rate in bit/s, as everywhere in dumbbell; the
reference counts file bytes only (no headers), as the paper's does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["completions", "active_curve", "bin_midpoint_reference"]


def completions(sizes_bytes: Sequence[float], rate_bps: float,
                arrivals_s: Sequence[float] | None = None) -> np.ndarray:
    """Completion time (s, absolute) of each transfer under processor
    sharing at ``rate_bps``, in input order. ``arrivals_s`` defaults to all
    at t = 0."""
    n = len(sizes_bytes)
    if rate_bps <= 0:
        raise ValueError("the rate must be positive")
    work = np.asarray(sizes_bytes, dtype=np.float64) * 8.0 / rate_bps  # seconds of the whole link
    if np.any(work < 0):
        raise ValueError("sizes must be non-negative")
    arr = np.zeros(n) if arrivals_s is None else np.asarray(arrivals_s, dtype=np.float64)
    done = np.full(n, np.nan)
    order = np.argsort(arr, kind="stable")
    remaining = work.copy()
    active: list[int] = []
    t = 0.0
    k = 0  # next arrival in `order`
    while k < n or active:
        next_arrival = arr[order[k]] if k < n else math.inf
        if active:
            i_min = min(active, key=lambda i: (remaining[i], i))
            finish = t + remaining[i_min] * len(active)
        else:
            finish = math.inf
        if next_arrival <= finish:
            # Serve until the arrival, then admit everything arriving then.
            if active:
                served = (next_arrival - t) / len(active)
                for i in active:
                    remaining[i] -= served
            t = max(t, next_arrival)
            while k < n and arr[order[k]] <= t:
                active.append(int(order[k]))
                k += 1
        else:
            served = remaining[i_min]
            t = finish
            for i in active:
                remaining[i] -= served
            # Everything drained to (numerically) zero completes now.
            eps = 1e-12 * max(1.0, t)
            for i in [i for i in active if remaining[i] <= eps]:
                done[i] = t
                active.remove(i)
    return done


def active_curve(arrivals_s: Sequence[float], completions_s: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The step function of active tasks: times and the count from each time
    on (unfinished tasks, NaN or negative completion, stay active)."""
    ev: list[tuple[float, int]] = [(float(a), +1) for a in arrivals_s]
    ev += [(float(c), -1) for c in completions_s if c is not None and np.isfinite(c) and c >= 0]
    ev.sort(key=lambda e: (e[0], e[1]))  # completions first at equal times
    times, counts = [0.0], [0]
    n = 0
    for t, d in ev:
        n += d
        if times[-1] == t:
            counts[-1] = n
        else:
            times.append(t)
            counts.append(n)
    return np.asarray(times), np.asarray(counts)


def bin_midpoint_reference(sizes_bytes: Sequence[float], rate_bps: float,
                           bin_bytes: float = 100_000) -> dict[int, float]:
    """The paper's T_i per bin (Table 2, "Padrão"): every file replaced by
    its bin's midpoint, all starting at once; {bin index: T (s)}."""
    bins = [max(0, math.ceil(s / bin_bytes) - 1) for s in sizes_bytes]
    mids = [(b + 0.5) * bin_bytes for b in bins]
    t = completions(mids, rate_bps)
    out: dict[int, float] = {}
    for b, ti in zip(bins, t):
        out.setdefault(b, float(ti))
    return dict(sorted(out.items()))
