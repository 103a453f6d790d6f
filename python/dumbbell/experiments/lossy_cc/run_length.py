"""E3 ``lossy-cc``'s sensitivity part ``run-length``: the ``loss-rtt``
part's cell at 20 ms and 20 % loss (Fig. 5a) at other run lengths.

At 20 % loss and 20 ms BBR v1's long-term (policer) bandwidth sampling takes
the random loss for a policer and holds its estimate at a few Mb/s, but
only after its first slow start and a few probing cycles: a short run
averages in the rate BBR had before the collapse. The paper's runs are 50 s
long; the quick scale's are 4 s. This part reruns that cell for the seven
final controls with the ``loss-rtt`` part's seeds (only the run length
differs) at each of :data:`POINTS`' ``durations_s``, so that the claims of
that cell which compare with BBR (C12: Expolinear above ten times BBR;
C14: Linear among the best) carry, as their ``sensitivity``, ours at each
run length beside ours at the part's own, and ``sensitivity_lo`` /
``sensitivity_hi`` their range. Rows carry ``duration_s``.
"""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

PART = "run-length"
RTT_MS = 20.0
LOSS = 0.20

POINTS: dict[str, dict[str, Any]] = {
    "paper": {"durations_s": (4.0, 12.5, 100.0, 200.0)},
    "quick": {"durations_s": (12.5, 25.0, 50.0)},
}
"""Per scale: the run lengths besides the ``loss-rtt`` part's own (quick
4 s, paper 50 s); quick scale reaches the paper's 50 s, which a cell at
20 % loss affords (its controls carry at most a few hundred Mb/s)."""

KEY_METRICS = ("expolinear / bbr", "linear / best other final control")
"""The claims of the cell whose number BBR's collapse moves."""


def attach(frame: pl.DataFrame, rows: pl.DataFrame,
           paper_frame: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.DataFrame:
    """``frame`` (the claims, with the ``sensitivity`` columns another part
    may have set) with this part's: on each claim of :data:`KEY_METRICS` at
    the part's cell, ours computed the same way from this part's rows at
    each run length, beside ours at the ``loss-rtt`` part's; unchanged when
    the part did not run."""
    b = rows.filter(pl.col("part") == PART)
    if b.height == 0:
        return frame
    own = rows.filter(pl.col("part") == "loss-rtt")["duration_s"]
    own_s = float(own[0]) if own.len() else None
    durations = sorted(set(b["duration_s"].to_list()))
    per = {d: paper_frame(b.filter(pl.col("duration_s") == d).with_columns(pl.lit("loss-rtt").alias("part")))
           ["ours"].to_list() for d in durations}
    point = f"rtt_ms={RTT_MS:g}, loss={LOSS:g}"
    text = frame["sensitivity"].to_list()
    lo = frame["sensitivity_lo"].to_list()
    hi = frame["sensitivity_hi"].to_list()
    for i, row in enumerate(frame.iter_rows(named=True)):
        if row["part"] != "loss-rtt" or row["metric"] not in KEY_METRICS or row["point"] != point:
            continue
        got = [(d, per[d][i]) for d in durations if per[d][i] is not None]
        if not got:
            continue
        ours = row["ours"]
        mine = [(own_s, ours)] if ours is not None and own_s is not None else []
        shown = sorted(mine + got, key=lambda dv: dv[0])
        words = (f"run length (ours {own_s:g} s; the paper's 50 s): " if own_s is not None else "run length: ") \
            + ", ".join(f"{d:g} s: {v:.3g}" for d, v in shown)
        text[i] = f"{text[i]}; {words}" if text[i] else words
        vals = [v for _, v in mine + got]
        lo[i], hi[i] = min(vals), max(vals)
    return frame.with_columns(pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64))

