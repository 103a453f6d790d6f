"""E3 ``lossy-cc``'s sensitivity part ``netem-gso``: netem's limit and loss
counted per GSO/GRO skb, as on the paper's virtual machines, instead of per
packet.

Madeira and Mattos ran Ubuntu Server 24.04.1 guests on KVM, bridged on one
host. There, as by Linux's default, TSO/GSO and GRO are on: a sender's TCP
hands its virtio NIC skbs of several segments (``tcp_tso_autosize``: about
1 ms of the pacing rate, the whole 64 KB while the minimum RTT is under
512 µs), the bridge passes them whole, and the router VM's ``sch_netem``
sees one packet per skb. Its ``limit`` (1000) then counts skbs, and its
random loss drops an skb with every segment in it. dumbbell's network counts
MTU packets (:data:`~dumbbell.experiments.lossy_cc.experiment.NETEM_LIMIT_PKTS`); an
independent review of E3 traced to that single choice the drop-tail
cordiality cells at 168–451 (the paper's ≈ 1), the caps of 600, 120 and
24 Mb/s over delay (Fig. 4) and claims C15 and C16 (Fig. 5b).

This part reruns those cells with the router's netem stage counting skbs
(``Netem(unit="gso")``, ``crates/dumbbell-core/src/net/netem_gso.rs``), and
the router's queue, which netem's limit counts with its delay line (in Linux
netem is that queue), with room for 1000 full skbs
(:func:`router_queue_pkts`), so that netem's 1000 skbs bind; everything
else and the seeds as in their own parts:

- ``delay``: the delay part's points for the seven final controls;
- ``loss-rtt``: the loss-rtt part's points at 100 ms (Fig. 5b);
- ``cordiality``: the drop-tail setup's cells (both servers at paper
  scale, as the cordiality part).

Rows carry ``netem_unit = "gso"`` and ``gso_part`` (the part they rerun);
each claim of those parts carries, as its ``sensitivity``, ours per skb
beside ours per packet (for the cordiality cells: the drop-tail x, the
``ours_droptail`` shown beside the lossless x they are scored on). Nothing
is tuned: the skb size is Linux's rule and the limit netem's default.
"""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

PART = "netem-gso"
UNIT = "gso"
SUBPARTS = ("delay", "loss-rtt", "cordiality")

POINTS: dict[str, dict[str, Any]] = {
    "paper": {"loss_rtt_rtts_ms": (100,)},
    "quick": {"loss_rtt_rtts_ms": (100,)},
}
"""Per scale: the loss-rtt part's round trips rerun (100 ms: Fig. 5b, C15
and C16); the delay points, losses, durations and cordiality cells are
those of their own parts at the same scale."""


GSO_MAX_BYTES = 65536
"""Linux's ``gso_max_size`` without BIG TCP: netem's default skb cap."""


def router_queue_pkts(queue_skbs: int, mss_bytes: int) -> int:
    """The router queue's limit in packets when it, like netem's, counts
    skbs: ``queue_skbs`` skbs of at most ``GSO_MAX_BYTES`` of payload (45
    segments of 1448 B). In Linux netem is the router's queue (its limit
    counts the delay line and the queue together), so under GSO its 1000
    are skbs; dumbbell's port queue counts packets, so it gets room for
    that many full skbs and netem's skb count is the limit that binds."""
    return queue_skbs * (GSO_MAX_BYTES // mss_bytes)


def attach(frame: pl.DataFrame, rows: pl.DataFrame,
           paper_frame: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.DataFrame:
    """``frame`` (the claims, with the ``sensitivity`` columns another part
    may have set) with this part's: for each claim of the delay, loss-rtt
    and cordiality parts that its rows measure, ours per skb beside ours
    per packet; unchanged when the part did not run."""
    g = rows.filter(pl.col("part") == PART)
    if g.height == 0:
        return frame
    as_parts = g.with_columns(pl.col("gso_part").alias("part"), pl.lit(None, dtype=pl.String).alias("netem_unit"))
    skb = paper_frame(as_parts)
    text = frame["sensitivity"].to_list()
    lo = frame["sensitivity_lo"].to_list()
    hi = frame["sensitivity_hi"].to_list()
    for i, (row, alt) in enumerate(zip(frame.iter_rows(named=True), skb.iter_rows(named=True))):
        if row["part"] not in SUBPARTS:
            continue
        key = "ours_droptail" if row["part"] == "cordiality" else "ours"
        mine, theirs = row[key], alt[key]
        if theirs is None:
            continue
        what = "drop-tail x" if key == "ours_droptail" else "ours"
        here = f"{mine:.3g}" if mine is not None else "-"
        words = (f"netem's limit and loss per GSO skb (the VMs' TSO/GRO; ours per packet): "
                 f"{what} {here} per packet, {theirs:.3g} per skb")
        text[i] = f"{text[i]}; {words}" if text[i] else words
        # A range of ours only where ours is what the part reran (the
        # cordiality claims are scored on the lossless x, not the drop-tail).
        if key == "ours" and lo[i] is None and hi[i] is None:
            vals = [v for v in (mine, theirs) if v is not None]
            lo[i], hi[i] = min(vals), max(vals)
    return frame.with_columns(pl.Series("sensitivity", text, dtype=pl.String),
                              pl.Series("sensitivity_lo", lo, dtype=pl.Float64),
                              pl.Series("sensitivity_hi", hi, dtype=pl.Float64))


def report_lines(rows: pl.DataFrame) -> list[str]:
    """The part's cells beside the same cells per packet: goodput (Mb/s)
    for the delay and loss-rtt cells, x = a/b for the cordiality ones."""
    g = rows.filter(pl.col("part") == PART)
    if g.height == 0:
        return []
    lines = ["", f"[{PART}] netem's limit and loss per GSO skb, beside per packet (goodput Mb/s; cordiality: x)"]
    keys = {"delay": ("delay_ms",), "loss-rtt": ("rtt_ms", "loss"), "cordiality": ("cc_b", "server_cc")}
    for sub, cols in keys.items():
        mine = g.filter(pl.col("gso_part") == sub)
        if mine.height == 0:
            continue
        base = rows.filter((pl.col("part") == sub) & ((pl.col("setup") == "droptail") | pl.col("setup").is_null()))
        value = "x" if sub == "cordiality" else "goodput_bps"
        scale = 1.0 if sub == "cordiality" else 1e-6
        for r in mine.sort(["cc", *cols]).iter_rows(named=True):
            match = base.filter(pl.col("cc") == r["cc"])
            for c in cols:
                match = match.filter(pl.col(c) == r[c])
            before = match[value][0] if match.height else None
            where = ", ".join(f"{c}={r[c]:g}" if isinstance(r[c], float) else f"{c}={r[c]}" for c in cols)
            was = f"{before * scale:.3g}" if before is not None else "-"
            now = f"{r[value] * scale:.3g}" if r[value] is not None else "-"
            lines.append(f"  {sub:10s} {r['cc']:10s} {where}: {was} per packet, {now} per skb")
    return lines
