"""E5 ``highspeed``'s sensitivity part ``growth``: the simulation arm's
window growth law, which the paper does not state.

The paper's testbed ran Linux 2.4.26, which grows the window per ACK: with
delayed ACKs, Reno gains one segment per two round trips. Its ns-2 runs
(our simulation arm) grew per ACK too, but the paper does not say whether
ns-2's sink delayed its ACKs: with an ACK per packet that is one segment per
round trip, as our simulation arm counts (per segment acked, Linux since
3.18/4.0). The claim it moves is §V's "experimental and simulated curves
meet below 600 Mb/s" (C6a), whose number is the testbed arm over the
simulation arm.

The part reruns the simulation arm (full link speed, no cap) at the
testbed arm's points with latency, with the testbed's growth law: per ACK
(``growth_per_ack``) and HSTCP in Linux's table mode. Each run takes the
seed of the simulation arm's run at the same point and sample, so the two
arms differ only in the growth law. Rows carry ``part = "growth"`` and
``arm = "simulation, per-ACK growth"``; C6a's claim carries, as
``ours_alt``, its number with this arm in place of the simulation arm, and
as ``sensitivity`` both numbers with each point's ratio.
"""

from __future__ import annotations

from typing import Any

import polars as pl

PART = "growth"
ARM = "simulation, per-ACK growth"
METRIC = "capped / uncapped goodput where the uncapped run stays below 600 Mb/s (the worst)"
"""C6a's metric: the claim this part moves."""
BELOW_BPS = 600e6
"""The paper's 600 Mb/s: below it, testbed and simulation meet (§V)."""


def _cell(rows: pl.DataFrame, **where: Any) -> float | None:
    f = rows
    for k, v in where.items():
        f = f.filter(pl.col(k) == v)
    return float(f["goodput_bps"][0]) if f.height and f["goodput_bps"][0] is not None else None


def ratios(rows: pl.DataFrame) -> list[dict[str, Any]]:
    """Per testbed point with latency where the simulation arm stays below
    600 Mb/s: the testbed over the simulation arm (``sim``) and over the
    per-ACK arm (``per_ack``, None where the part did not run)."""
    single = rows.filter(pl.col("part") == "single")
    sim = single.filter(pl.col("sender_cap_bps").is_null())
    bed = single.filter(pl.col("sender_cap_bps").is_not_null() & (pl.col("latency_ms") > 0))
    ack = rows.filter(pl.col("part") == PART)
    out = []
    for r in bed.iter_rows(named=True):
        at = {"cc": r["cc"], "latency_ms": r["latency_ms"], "loss": r["loss"]}
        free = _cell(sim, **at)
        if not free or free > BELOW_BPS:
            continue
        alt = _cell(ack, **at)
        out.append({**at, "sim": r["goodput_bps"] / free, "per_ack": r["goodput_bps"] / alt if alt else None})
    return out


def _worst(xs: list[float]) -> float:
    return max(xs, key=lambda x: abs(x - 1.0))


def attach(frame: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (the claims) with ``ours_alt``, ``sensitivity``,
    ``sensitivity_lo`` and ``sensitivity_hi``: for C6a, its number with the
    per-ACK arm in place of the simulation arm, over the same points, and
    both numbers in words with each point's; null elsewhere or when the
    part did not run."""
    n = frame.height
    alt: list[float | None] = [None] * n
    text: list[str | None] = [None] * n
    lo: list[float | None] = [None] * n
    hi: list[float | None] = [None] * n
    pts = [p for p in ratios(rows) if p["per_ack"] is not None]
    if pts:
        ours, other = _worst([p["sim"] for p in pts]), _worst([p["per_ack"] for p in pts])
        each = "; ".join(f"{p['cc']} {p['latency_ms']:g} ms {p['loss']:g}: {p['sim']:.2f} -> {p['per_ack']:.2f}"
                         for p in pts)
        for i, row in enumerate(frame.iter_rows(named=True)):
            if row["metric"] != METRIC:
                continue
            alt[i] = other
            text[i] = (f"the simulation arm's window growth (part {PART}; the paper does not say whether ns-2's sink "
                       f"delayed its ACKs): per segment acked (ours) {ours:.4g}, per ACK as Linux 2.4 {other:.4g} "
                       f"(testbed / simulation, per segment acked -> per ACK: {each})")
            lo[i], hi[i] = min(ours, other), max(ours, other)
    return frame.with_columns(pl.Series("ours_alt", alt, dtype=pl.Float64),
                              pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64))

