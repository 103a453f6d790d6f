"""E6 ``l4s``'s rate account: the per-flow rate ratio a run should show, from
its own queue delays, and the condition that it does.

The physics (docs/experiments/l4s.md, "Rates and the classic queue's RTT"):
DualPI2's coupling gives the L queue the probability p_L = k·p' and the
classic queue p_C = p'², so a scalable flow's window, 2/p_L (DCTCP's and
Prague's steady state), stands against a Reno-friendly classic window,
1.22/√p_C = 1.22·k/p_L: with k = 2, Prague's window is
:data:`WINDOW_RATIO` = 2/(1.22 × 2) = 0.82 of Cubic's. A window-based flow's
rate is its window over its RTT, and the base RTTs are equal, but a Cubic
flow's RTT also holds the classic queue and a Prague flow's the L queue, so

    rate ratio = WINDOW_RATIO × (base + classic delay) / (base + L delay),

0.82 × 35/20 = 1.43 at PI2's 15 ms target. Part ``pi2-target`` moves the
classic delay (PI2's target at 1, 5 and 30 ms beside Linux's 15), so each
run gives four points (RTT ratio, rate ratio), each RTT ratio from that
run's own medians of the two queue delays. :func:`fit` reduces them to two
numbers, and :func:`follows_rtt` checks both against the physics:

- ``rtt_slope``: the slope of log(rate ratio) against log(RTT ratio), 1 if
  the rate goes as 1/RTT at a fixed window ratio (a ratio that stayed flat
  across the targets gives 0);
- ``rtt_window``: the window ratio the run implies, the geometric mean of
  rate ratio / RTT ratio over the targets (:data:`WINDOW_RATIO` predicted).

The bands are three of :data:`SLOPE_SD` and :data:`WINDOW_LOG_SD`, the
per-seed scatter measured over 12 quick-scale seeds.

Light (no numpy or polars): the package's ``__init__`` reads it for the
account's condition.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..known import number

K = 2.0
"""DualPI2's coupling factor at Linux's defaults (RFC 9332 §2.1)."""
RENO_WINDOW = math.sqrt(1.5)
"""A Reno-friendly window's constant: W = √(3/2)/√p ≈ 1.22/√p (Cubic's
Reno-friendly region has the same, by its choice of additive increase)."""
WINDOW_RATIO = 2.0 / (RENO_WINDOW * K)
"""Prague's window over Cubic's at the coupling's balance: 2/p_L against
1.22·k/p_L, 0.816 with k = 2."""

SLOPE_SD = 0.28
"""The per-seed standard deviation of ``rtt_slope``: 0.28 over 12 seeds of
the quick scale (20 s runs) with one Prague and one Cubic flow, the noisier
mix (mean 0.63, from 0.24 to 1.10); four flows of each kind give sd 0.09
(mean 0.90, from 0.81 to 1.14). One band serves both claims."""
WINDOW_LOG_SD = 0.09
"""The per-seed standard deviation of log(``rtt_window``): 0.090 over the
same 12 quick seeds of one flow of each kind (window ratio 0.90, from
0.76 to 1.05); four of each give 0.029 (0.79, from 0.75 to 0.83)."""
BAND_SD = 3.0
"""How many of those standard deviations each band spans on either side of
the physics' value."""

SLOPE_BAND = (1.0 - BAND_SD * SLOPE_SD, 1.0 + BAND_SD * SLOPE_SD)
"""``rtt_slope``'s band: 1 ± 3 × 0.28."""
WINDOW_BAND = (WINDOW_RATIO * math.exp(-BAND_SD * WINDOW_LOG_SD), WINDOW_RATIO * math.exp(BAND_SD * WINDOW_LOG_SD))
"""``rtt_window``'s band: 0.816 × e^(±3 × 0.09), 0.62 to 1.07."""

MIN_POINTS = 3
"""The fewest targets a fit takes (the part and the main run give four)."""


def rtt_ratio(classic_ms: float, l4s_ms: float, base_ms: float) -> float:
    """A Cubic flow's RTT over a Prague flow's: (base + classic queue delay)
    / (base + L queue delay)."""
    return (base_ms + classic_ms) / (base_ms + l4s_ms)


def fit(points: Sequence[tuple[float | None, float | None, float | None]],
        base_ms: float) -> tuple[float | None, float | None]:
    """``(rtt_slope, rtt_window)`` of ``points``, each ``(rate ratio, classic
    queue delay ms, L queue delay ms)`` of one run (one PI2 target): the
    least-squares slope of log(rate ratio) on log(RTT ratio), and the
    geometric mean of rate ratio / RTT ratio. None for either when fewer than
    :data:`MIN_POINTS` points have every number (or the RTT ratios do not
    differ)."""
    xy = []
    for r, c, l in points:
        r, c, l = number(r), number(c), number(l)
        if r is None or c is None or l is None or r <= 0:
            continue
        q = rtt_ratio(c, l, base_ms)
        if q <= 0:
            continue
        xy.append((math.log(q), math.log(r)))
    if len(xy) < MIN_POINTS:
        return None, None
    mx = sum(x for x, _ in xy) / len(xy)
    my = sum(y for _, y in xy) / len(xy)
    sxx = sum((x - mx) ** 2 for x, _ in xy)
    window = math.exp(my - mx)
    if sxx <= 0:
        return None, window
    return sum((x - mx) * (y - my) for x, y in xy) / sxx, window


def follows_rtt(r: Mapping[str, Any]) -> bool:
    """The claim row's ``rtt_slope`` and ``rtt_window`` lie in
    :data:`SLOPE_BAND` and :data:`WINDOW_BAND`: over PI2's targets ours goes
    as the run's own RTT ratio at the coupling's window ratio."""
    s, w = number(r.get("rtt_slope")), number(r.get("rtt_window"))
    return (s is not None and w is not None and SLOPE_BAND[0] <= s <= SLOPE_BAND[1]
            and WINDOW_BAND[0] <= w <= WINDOW_BAND[1])
