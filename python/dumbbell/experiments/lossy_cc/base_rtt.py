"""E3 ``lossy-cc``'s sensitivity part ``base-rtt``: the virtual machines'
base round trip, which the paper does not state.

Madeira and Mattos ran their clients, router and server as KVM virtual
machines on one host, bridged; such a path takes about 0.5 to 1 ms of round
trip. Ours is 0.1 ms of propagation (25 µs on each of the two links, each
way; 0.2 to 0.4 ms with serialization, host jitter and queueing), and at
10 Gb/s under loss the round trip sets how many packets a window holds and
how many milliseconds Linear's and Expolinear's recovery (which grow per
millisecond, not per round trip) have between losses. The part reruns the
``loss`` part's cells behind the claims it moves, at 10 Gb/s, with the
propagation round trip set to each of :data:`POINTS`' ``base_rtts_ms`` (the
router–server link's delay is B/2 minus the clients' 25 µs), for the final
controls those claims read at each loss (:data:`READS`: all seven at 20 %,
all but BBR at 5 and 10 %), with the ``loss`` part's seeds at the same
loss. Rows carry ``base_rtt_ms``; each claim of :data:`KEY_METRICS`
carries, as its ``sensitivity``, ours under each base RTT beside ours at
0.1 ms.
"""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

from ...errors import ConfigError

PART = "base-rtt"
OURS_BASE_RTT_MS = 0.1
"""Ours: 2 × (25 µs + 25 µs) of propagation."""

POINTS: dict[str, dict[str, Any]] = {
    "paper": {"base_rtts_ms": (0.2, 0.5, 1.0), "losses": (0.05, 0.10, 0.20), "rate_bps": 10e9, "duration_s": 100.0},
    "quick": {"base_rtts_ms": (0.2, 0.5, 1.0), "losses": (0.20,), "rate_bps": 10e9, "duration_s": 2.0},
}
"""Per scale: the base round trips, the losses (the cells of C5 and C7) and
the run length, as the ``loss`` part's."""

READS: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    "worst proposal / best of cubic, reno, vegas": (("expolinear", "fractional", "linear", "cubic", "reno", "vegas"),
                                                    (0.05, 0.10, 0.20)),
    "linear / bbr": (("linear", "bbr"), (0.20,)),
}
"""The claims whose number the base RTT moves, each with the ``loss`` part's
cells it reads: its controls and losses (C5, Fig. 3b: the worst proposal
against the best of Cubic, Reno and Vegas at 5, 10 and 20 %; C7: Linear
like BBR at 20 %). The part runs these cells and no others
(:func:`controls`): BBR at 5 and 10 %, which no claim reads, would be
about half the part's packets at paper scale (it keeps 8-9.5 Gb/s there)."""

KEY_METRICS = tuple(READS)
"""The claims whose ``sensitivity`` the part gives."""


def controls(loss: float, final: tuple[str, ...]) -> tuple[str, ...]:
    """The controls of ``final``, in its order, that a claim of
    :data:`READS` reads at ``loss``: the part's cells at that loss."""
    read = {cc for ccs, losses in READS.values() if loss in losses for cc in ccs}
    return tuple(cc for cc in final if cc in read)


def server_delay_s(base_rtt_s: float, access_delay_s: float) -> float:
    """The router–server link's one-way delay that makes the propagation
    round trip ``base_rtt_s``, the clients' links taking ``access_delay_s``
    each way; a base RTT no longer than the clients' links alone is one
    :class:`ConfigError` at ``base_rtt_s``."""
    d = base_rtt_s / 2 - access_delay_s
    if not d > 0:
        raise ConfigError("base_rtt_s", f"{base_rtt_s!r} s must exceed the clients' links' round trip "
                          f"{2 * access_delay_s:g} s")
    return d


def attach(frame: pl.DataFrame, rows: pl.DataFrame,
           paper_frame: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.DataFrame:
    """``frame`` (the claims) with ``sensitivity``, ``sensitivity_lo`` and
    ``sensitivity_hi``: for each claim of :data:`KEY_METRICS`, ours computed
    the same way from the ``base-rtt`` rows at each base RTT, beside ours at
    0.1 ms; null elsewhere or when the part did not run."""
    b = rows.filter(pl.col("part") == PART)
    n = frame.height
    text: list[str | None] = [None] * n
    lo: list[float | None] = [None] * n
    hi: list[float | None] = [None] * n
    if b.height:
        rtts = sorted(set(b["base_rtt_ms"].to_list()))
        per = {r: paper_frame(b.filter(pl.col("base_rtt_ms") == r).with_columns(pl.lit("loss").alias("part"),
                                                                                  pl.lit(None).alias("base_rtt_ms")))
               ["ours"].to_list() for r in rtts}
        for i, row in enumerate(frame.iter_rows(named=True)):
            if row["part"] != "loss" or row["metric"] not in KEY_METRICS:
                continue
            got = [(r, per[r][i]) for r in rtts if per[r][i] is not None]
            if not got:
                continue
            ours = row["ours"]
            vals = [v for _, v in got] + ([ours] if ours is not None else [])
            here = f"{ours:.3g}" if ours is not None else "-"
            text[i] = (f"base RTT (the VMs' is unstated; ours {OURS_BASE_RTT_MS:g} ms: {here}): "
                       + ", ".join(f"{r:g} ms: {v:.3g}" for r, v in got))
            lo[i], hi[i] = min(vals), max(vals)
    return frame.with_columns(pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64))
