"""E6 ``l4s``'s sensitivity parts: the settings behind its two ``model``
differences, rerun through DualPI2.

- ``pi2-target``: the rate balance. RFC 9332 §2.1's k = 2 balances a
  scalable and a classic flow's rates for equal RTTs; here the base RTTs are
  equal, but a Cubic flow's RTT also holds the classic queue, which PI2
  holds at its target (Linux's 15 ms), and a Prague flow's the L queue's
  fraction of a millisecond. The part reruns the mixes behind the rate
  claims (1p1c, 4p4c) with PI2's target at each of :data:`TARGETS_MS`
  (the main part's 15 ms is Linux's default), so the classic queue's delay
  in Cubic's RTT is what moves.
- ``classic-flows``: the classic queue alone. One Cubic flow drops rarely,
  and between drops PI2's probability sits clamped at 0 with the queue
  under its target; the part runs :data:`CLASSIC_FLOWS` Cubic flows alone
  (the mixes 0pNc the scale's main part does not already run: at paper
  scale, every one).

Rows carry ``part`` and ``target_ms``; each claim these parts move carries,
as ``sensitivity``, ours under each setting beside ours at the main part's,
and ``sensitivity_lo`` / ``sensitivity_hi``, the range ours spans over them.
The rate claims also carry what their account checks
(:mod:`dumbbell.experiments.l4s.rates`): ``rtt_slope`` and ``rtt_window``,
fitted over the main run and the part's, and ``rtt_predicted``, the ratio
the account's physics gives for the main run's own queue delays.
"""

from __future__ import annotations

import polars as pl

from ..known import number
from . import rates

MAIN = "mixes"
TARGET = "pi2-target"
FLOWS = "classic-flows"
OURS_TARGET_MS = 15.0
"""PI2's target at Linux's default (``sch_dualpi2``), the main part's."""
TARGETS_MS = (1.0, 5.0, 30.0)
"""PI2's targets the ``pi2-target`` part runs beside the main part's 15 ms."""
TARGET_MIXES = ((1, 1), (4, 4))
"""The mixes behind the rate-balance claims."""
CLASSIC_FLOWS = (1, 2, 4)
"""The numbers of Cubic flows alone the ``classic-flows`` part compares."""


def cases(scale_mixes: tuple[tuple[int, int], ...]) -> list[tuple[str, float, int, int]]:
    """``(part, target_ms, n_prague, n_cubic)`` of the sensitivity parts'
    runs (all through DualPI2), given the main part's mixes at the scale."""
    out = [(TARGET, t, p, c) for t in TARGETS_MS for p, c in TARGET_MIXES]
    out += [(FLOWS, OURS_TARGET_MS, 0, n) for n in CLASSIC_FLOWS if (0, n) not in scale_mixes]
    return out


def _value(rows: pl.DataFrame, metric: str, n_prague: int, n_cubic: int, target_ms: float) -> float | None:
    hit = rows.filter((pl.col("queue") == "dualpi2") & (pl.col("n_prague") == n_prague)
                      & (pl.col("n_cubic") == n_cubic) & (pl.col("target_ms") == target_ms))
    return number(hit[metric][0]) if hit.height else None


def _mix(mix: str) -> tuple[int, int]:
    p, c = mix[:-1].split("p")
    return int(p), int(c)


def _rtt_fit(rows: pl.DataFrame, n_prague: int, n_cubic: int, base_ms: float
             ) -> tuple[float | None, float | None, float | None]:
    """``(rtt_slope, rtt_window, rtt_predicted)`` of a rate claim's mix:
    the fit of :func:`rates.fit` over the main run (Linux's target) and the
    ``pi2-target`` part's runs, and the account's ratio for the main run's
    own queue delays."""
    points = [tuple(_value(rows, m, n_prague, n_cubic, t) for m in ("rate_ratio", "classic_qdelay_p50_ms",
                                                                     "l4s_qdelay_p50_ms"))
              for t in sorted((*TARGETS_MS, OURS_TARGET_MS))]
    slope, window = rates.fit(points, base_ms)
    c, l = (_value(rows, m, n_prague, n_cubic, OURS_TARGET_MS) for m in ("classic_qdelay_p50_ms",
                                                                          "l4s_qdelay_p50_ms"))
    predicted = None if c is None or l is None else rates.WINDOW_RATIO * rates.rtt_ratio(c, l, base_ms)
    return slope, window, predicted


def attach(frame: pl.DataFrame, rows: pl.DataFrame, base_rtt_ms: float) -> pl.DataFrame:
    """``frame`` (the claims) with ``sensitivity``, ``sensitivity_lo`` and
    ``sensitivity_hi``: for the rate claims, ours at each PI2 target; for
    the classic queue of Cubic alone, ours with each number of Cubic flows;
    null elsewhere or when the part did not run. The rate claims also get
    ``rtt_slope``, ``rtt_window`` and ``rtt_predicted`` (:func:`_rtt_fit`,
    with the base RTT ``base_rtt_ms``)."""
    n = frame.height
    text: list[str | None] = [None] * n
    lo: list[float | None] = [None] * n
    hi: list[float | None] = [None] * n
    fitted: list[tuple[float | None, float | None, float | None]] = [(None, None, None)] * n
    for i, row in enumerate(frame.iter_rows(named=True)):
        if row["queue"] != "dualpi2":
            continue
        p, c = _mix(row["mix"])
        ours = number(row["ours"])
        if row["metric"] == "rate_ratio" and (p, c) in TARGET_MIXES:
            fitted[i] = _rtt_fit(rows, p, c, base_rtt_ms)
            got = [(t, _value(rows, "rate_ratio", p, c, t)) for t in TARGETS_MS]
            got = [(t, v) for t, v in got if v is not None]
            if got:
                text[i] = (f"PI2's target, the classic queue's delay in Cubic's RTT (part {TARGET}; ours Linux's "
                           f"{OURS_TARGET_MS:g} ms: {_g(ours)}): " + ", ".join(f"{t:g} ms: {v:.3g}" for t, v in got))
                slope, window, _ = fitted[i]
                text[i] += (f"; against each run's RTT ratio, slope {_g(slope)} and window ratio {_g(window)} "
                            f"(the account's bands {rates.SLOPE_BAND[0]:.2f}-{rates.SLOPE_BAND[1]:.2f} and "
                            f"{rates.WINDOW_BAND[0]:.2f}-{rates.WINDOW_BAND[1]:.2f})")
        elif row["metric"] == "classic_qdelay_p50_ms" and (p, c) == (0, 1):
            got = [(k, _value(rows, "classic_qdelay_p50_ms", 0, k, OURS_TARGET_MS)) for k in CLASSIC_FLOWS if k != 1]
            got = [(k, v) for k, v in got if v is not None]
            if got:
                text[i] = (f"Cubic flows alone (part {FLOWS}; ours one: {_g(ours)} ms): "
                           + ", ".join(f"{k}: {v:.3g} ms" for k, v in got))
        else:
            continue
        if text[i] is not None:
            vals = [v for _, v in got] + ([ours] if ours is not None else [])
            lo[i], hi[i] = min(vals), max(vals)
    slope, window, predicted = (list(x) for x in zip(*fitted)) if n else ([], [], [])
    return frame.with_columns(pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64),
                              pl.Series("rtt_slope", slope, dtype=pl.Float64),
                              pl.Series("rtt_window", window, dtype=pl.Float64),
                              pl.Series("rtt_predicted", predicted, dtype=pl.Float64))


def _g(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}"

