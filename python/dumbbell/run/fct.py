"""Flow completion times and their slowdown against an empty fabric.

The **slowdown** of a flow is its completion time (FCT) over the ideal FCT
of a flow of that size between the same hosts on an empty fabric (the
"normalized FCT" of pFabric, Alizadeh et al., SIGCOMM 2013, and Homa).
The ideal is the exact store-and-forward time of a sender that its window
never holds back, along the shortest path of links ``1..h`` (rates
``R_k``, one-way delays ``d_k``). The flow's ``S`` payload bytes travel as
``n = ceil(S / MSS)`` segments: ``n - 1`` full ones of ``F = MSS + H``
bytes on the wire (``H`` header bytes) and a last one of ``P = S - (n-1)
MSS + H``. Each link sends one packet at a time, a packet whole before the
next link starts it, so the last byte arrives at (max-plus algebra of a
tandem of queues: the longest path through the grid of packets and links)

    ideal = T_hs + sum_k d_k + max over 1 <= j <= h of
            [ F (sum_{k<=j} 1/R_k + (n-2) max_{k<=j} 1/R_k) + P sum_{k>=j} 1/R_k ]

in bits over bit/s (for ``n = 1``, ``P sum_k 1/R_k``); on equal rates ``R``
it is ``(W + (h-1) F) / R`` with ``W = (n-1) F + P`` the bytes on the wire.
With the handshake (the default), ``T_hs = 2 sum_k (d_k + H/R_k)`` is the
round trip of the header-only SYN and SYN-ACK (the data leaves with the
handshake's last ACK). A flow that TCP's slow start spreads over several
round trips has a slowdown above 1 even alone: that is the cost of the
transport, which the measure is meant to show; no flow can beat the ideal.

:func:`fct_table` gives one row per completed flow or task;
:func:`slowdown_percentiles` the percentiles per size bin;
:func:`plot_slowdown` the slowdown against size.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from .runner import Result
    from ..scenario.models import Scenario

__all__ = ["ideal_fct_s", "path_links", "fct_table", "slowdown_percentiles", "plot_slowdown", "SIZE_BINS"]

DEFAULT_MSS = 1448
DEFAULT_HEADER = 40

SIZE_BINS: tuple[float, ...] = (0, 10e3, 100e3, 1e6, 10e6, math.inf)
"""Default size bins, bytes: (0, 10 KB], (10 KB, 100 KB], (100 KB, 1 MB],
(1 MB, 10 MB], above 10 MB (small flows are latency-bound, large ones
throughput-bound)."""


def ideal_fct_s(
    size_bytes: int,
    rates_bps: Sequence[float],
    delays_s: Sequence[float],
    *,
    mss: int = DEFAULT_MSS,
    header: int = DEFAULT_HEADER,
    handshake: bool = True,
) -> float:
    """The ideal FCT (see the module's formula) of ``size_bytes`` over links
    of ``rates_bps`` and one-way ``delays_s``, in path order."""
    if not rates_bps or len(rates_bps) != len(delays_s):
        raise ValueError("need one rate and one delay per link of the path")
    n = max(1, math.ceil(size_bytes / mss))
    full = mss + header
    last = size_bytes - (n - 1) * mss + header
    groups = [(8.0 * full, n - 1), (8.0 * last, 1)] if n > 1 else [(8.0 * last, 1)]
    prop = sum(delays_s)
    t = prop
    if handshake:
        t += 2 * prop + 2 * sum(8 * header / r for r in rates_bps)
    return t + _train_s(groups, rates_bps)


def _train_s(groups: Sequence[tuple[float, int]], rates_bps: Sequence[float]) -> float:
    """When the last bit of a train of packets (``groups``: (bits, count)
    in order, sent back to back) leaves the last of a tandem of links: the
    longest monotone path through the grid of packets and links (a group of
    ``c`` equal packets entering at link ``a`` and leaving at ``b`` weighs
    ``bits (sum_{a..b} 1/R + (c-1) max_{a..b} 1/R)``)."""
    inv = [1.0 / r for r in rates_bps]
    h = len(inv)
    best = [0.0] + [-math.inf] * (h - 1)  # best[a]: the previous group ended at link a
    for bits, count in groups:
        nxt = [-math.inf] * h
        for a in range(h):
            if best[a] == -math.inf:
                continue
            total, worst = 0.0, 0.0
            for b in range(a, h):
                total += inv[b]
                worst = max(worst, inv[b])
                nxt[b] = max(nxt[b], best[a] + bits * (total + (count - 1) * worst))
        best = nxt
    return best[h - 1]


def path_links(scenario: Scenario, src: str, dst: str) -> tuple[list[float], list[float]]:
    """Rates (bit/s) and one-way delays (s) of the links of one shortest
    path from ``src`` to ``dst`` (hops; every equal-cost path of a fat tree
    or leaf-spine has the same links' rates and delays)."""
    adj: dict[str, list[tuple[str, float, float]]] = {n.name: [] for n in scenario.nodes}
    for link in scenario.links:
        adj[link.a].append((link.b, float(link.rate_bps), float(link.delay_s)))
        adj[link.b].append((link.a, float(link.rate_bps), float(link.delay_s)))
    prev: dict[str, tuple[str, float, float] | None] = {src: None}
    todo = deque([src])
    while todo and dst not in prev:
        u = todo.popleft()
        for v, r, d in adj[u]:
            if v not in prev:
                prev[v] = (u, r, d)
                todo.append(v)
    if dst not in prev:
        raise KeyError(f"no path from {src!r} to {dst!r}")
    rates: list[float] = []
    delays: list[float] = []
    node = dst
    while (step := prev[node]) is not None:
        node, r, d = step
        rates.append(r)
        delays.append(d)
    return rates[::-1], delays[::-1]


def _tcp_of(item: Any) -> tuple[int, int, bool]:
    tcp = getattr(item, "tcp", None)
    mss = getattr(tcp, "mss_bytes", None) or DEFAULT_MSS
    header = getattr(tcp, "header_bytes", None)
    header = DEFAULT_HEADER if header is None else header
    hs = getattr(tcp, "handshake", None)
    return mss, header, True if hs is None else bool(hs)


def fct_table(result: Result) -> pl.DataFrame:
    """One row per completed flow (a TCP flow with ``bytes``) or task:
    ``name``, ``src``, ``dst``, ``size_bytes``, ``start_s``, ``fct_s``,
    ``ideal_fct_s`` (the module's formula) and ``slowdown`` (fct / ideal).
    Flows and tasks that did not complete are left out (count them from
    ``result.flows`` / ``result.tasks``)."""
    import polars as pl

    s = result.scenario
    rows: list[dict[str, Any]] = []
    paths: dict[tuple[str, str], tuple[list[float], list[float]]] = {}

    def ideal(src: str, dst: str, size: int, item: Any) -> float:
        if (src, dst) not in paths:
            paths[(src, dst)] = path_links(s, src, dst)
        mss, header, hs = _tcp_of(item)
        rates, delays = paths[(src, dst)]
        return ideal_fct_s(size, rates, delays, mss=mss, header=header, handshake=hs)

    by_name = {(f.name or f"{f.kind}{i}"): f for i, f in enumerate(s.flows)}
    for row in result.flows.iter_rows(named=True):
        f = by_name.get(row["name"])
        if f is None or getattr(f, "bytes", None) is None or not row["completion_ps"]:
            continue
        fct = (row["completion_ps"] - row["start_ps"]) * 1e-12
        rows.append({"name": row["name"], "src": row["src"], "dst": row["dst"], "size_bytes": int(f.bytes),
                     "start_s": row["start_ps"] * 1e-12, "fct_s": fct,
                     "ideal_fct_s": ideal(row["src"], row["dst"], int(f.bytes), f)})
    if "tasks" in result.tables and s.workloads:
        wl = {w.name: w for w in s.workloads}
        for row in result.table("tasks").iter_rows(named=True):
            if row["fct_ps"] < 0:
                continue
            w = wl[row["workload"]]
            # a task's data runs from its server to its client
            rows.append({"name": f"{row['workload']}#{row['task']}", "src": row["server"], "dst": row["client"],
                         "size_bytes": int(row["size_bytes"]), "start_s": row["start_ps"] * 1e-12,
                         "fct_s": row["fct_ps"] * 1e-12,
                         "ideal_fct_s": ideal(row["server"], row["client"], int(row["size_bytes"]), w)})
    schema = {"name": pl.Utf8, "src": pl.Utf8, "dst": pl.Utf8, "size_bytes": pl.Int64, "start_s": pl.Float64,
              "fct_s": pl.Float64, "ideal_fct_s": pl.Float64}
    df = pl.DataFrame(rows, schema=schema)
    return df.with_columns((pl.col("fct_s") / pl.col("ideal_fct_s")).alias("slowdown"))


def slowdown_percentiles(
    table: pl.DataFrame, bins: Sequence[float] = SIZE_BINS, percentiles: Sequence[float] = (50, 95, 99)
) -> pl.DataFrame:
    """Per size bin ``(lo, hi]`` of :func:`fct_table`'s rows: ``flows``,
    ``mean`` and the ``p<q>`` percentiles of the slowdown (nearest rank,
    ``polars``' ``"nearest"``), empty bins left out."""
    import polars as pl

    out = []
    for lo, hi in zip(bins, bins[1:]):
        sel = table.filter((pl.col("size_bytes") > lo) & (pl.col("size_bytes") <= hi))["slowdown"]
        if sel.len() == 0:
            continue
        row: dict[str, Any] = {"lo_bytes": float(lo), "hi_bytes": float(hi), "flows": sel.len(), "mean": sel.mean()}
        for q in percentiles:
            row[f"p{q:g}"] = sel.quantile(q / 100, interpolation="nearest")
        out.append(row)
    return pl.DataFrame(out)


def plot_slowdown(table: pl.DataFrame, path: str | Path | None = None, *, title: str = "") -> Any:
    """Slowdown against flow size (log-log scatter, with the per-bin median
    and 99th percentile). Returns a matplotlib Figure; with ``path``, also
    writes it as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(table["size_bytes"], table["slowdown"], s=6, alpha=0.4, label="flows")
    pct = slowdown_percentiles(table)
    if pct.height:
        mid = [math.sqrt(max(lo, 1) * hi) if math.isfinite(hi) else lo * 3 for lo, hi in
               zip(pct["lo_bytes"], pct["hi_bytes"])]
        ax.plot(mid, pct["p50"], "o-", color="k", label="median per bin")
        ax.plot(mid, pct["p99"], "s--", color="C3", label="99th percentile per bin")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.axhline(1, color="grey", lw=0.8)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
