"""E3 ``lossy-cc``'s sensitivity part ``adaptive-count``: how eq. 3's
lost/sent is counted, which the paper leaves open.

Madeira and Mattos's adaptive reduction is R = 15 + 35·pkts_err/pkts_env
(eq. 3), pkts_env "o total de pacotes enviados na janela atual" (the
packets sent in the current window) and pkts_err "o número de pacotes
perdidos" (the packets lost, over a span the paper does not give). The
paper gives the bounds (15 and 50 %) and the weights; what it leaves open is
the span the two counts run over, and no module of the adaptive variant was
published. dumbbell's Linear counts it three ways (``adaptive_count``,
``cc/loss_phases.rs``): over the current window (``window``, the default and
the ``loss`` part's ``linear-adaptive``), on the loss-reporting ACK alone
(``ack``, the ``loss`` part's ``linear-adaptive-ack``) and over the current
and the previous round of data (``round``, a window two rounds long). This
part runs the third, ``linear-adaptive-round``, on the ``loss`` part's cells
with the ``loss`` part's seeds (only the count differs), so that each of the
claims "the adaptive variant behaves like the fixed 50 %" (C3) carries, as
its ``sensitivity``, the goodput ratio to ``linear-50`` under every count,
and ``sensitivity_lo`` / ``sensitivity_hi`` their range. Nothing is chosen
to meet the paper's ratio: R's bounds and weights are the paper's.
"""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

PART = "adaptive-count"
LABEL = "linear-adaptive-round"
CC: dict[str, dict[str, Any]] = {LABEL: {"kind": "linear", "adaptive": True, "adaptive_count": "round"}}
"""The control this part runs: the adaptive Linear counting over two rounds."""

COUNTS = (("linear-adaptive", "per window (eq. 3's current window)"),
          (LABEL, "per two rounds of data"),
          ("linear-adaptive-ack", "per loss-reporting ACK"))
"""Each way of counting, as the control that runs it and in words."""

METRICS = ("linear-adaptive / linear-50", "linear-adaptive-ack / linear-50")
"""The claims this part's sensitivity is attached to (C3, per count)."""


def attach(frame: pl.DataFrame, rows: pl.DataFrame,
           paper_frame: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.DataFrame:
    """``frame`` (the claims, with the ``sensitivity`` columns another part
    may have set) with this part's: on each claim of :data:`METRICS`, the
    ratio to ``linear-50`` under each way of counting (the two the ``loss``
    part runs, the third from this part's rows, computed as the claim is:
    mean goodput over the losses over ``linear-50``'s); unchanged when the
    part did not run."""
    a = rows.filter(pl.col("part") == PART)
    if a.height == 0:
        return frame
    # This part's rows as the loss part's adaptive variant, beside the loss
    # part's linear-50: the claim's own computation gives the ratio.
    as_loss = pl.concat([rows.filter((pl.col("part") == "loss") & (pl.col("cc") == "linear-50")),
                         a.with_columns(pl.lit("loss").alias("part"), pl.lit("linear-adaptive").alias("cc"))],
                        how="vertical")
    alt = paper_frame(as_loss)
    ratio = {m: o for m, o in zip(alt["metric"].to_list(), alt["ours"].to_list())}
    mine = {m: o for m, o in zip(frame["metric"].to_list(), frame["ours"].to_list()) if m in METRICS}
    got = {"linear-adaptive": mine.get(METRICS[0]), LABEL: ratio.get(METRICS[0]),
           "linear-adaptive-ack": mine.get(METRICS[1])}
    vals = [v for v in got.values() if v is not None]
    if not vals:
        return frame
    words = ("how eq. 3 counts lost/sent (the paper's span unstated), ratio to linear-50: "
             + ", ".join(f"{what} {got[cc]:.3g}" for cc, what in COUNTS if got[cc] is not None))
    text = frame["sensitivity"].to_list()
    lo = frame["sensitivity_lo"].to_list()
    hi = frame["sensitivity_hi"].to_list()
    for i, (part, metric) in enumerate(zip(frame["part"].to_list(), frame["metric"].to_list())):
        if part != "loss" or metric not in METRICS:
            continue
        text[i] = f"{text[i]}; {words}" if text[i] else words
        lo[i], hi[i] = min(vals), max(vals)
    return frame.with_columns(pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64))
