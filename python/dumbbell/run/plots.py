"""Figures of one run, behind :meth:`Result.plot_queue`,
:meth:`Result.plot_cwnd`, :meth:`Result.plot_goodput` and
``dumbbell run FILE --out DIR --plot``.

Each function returns a matplotlib :class:`~matplotlib.figure.Figure`
(it shows itself in a notebook) and, given ``path``, also writes it as PNG.
No ``pyplot``: no global state, so they work from scripts, tests and
notebooks alike. Rates are in Mb/s and times in seconds, with the units in
the axis labels.

Goodput per interval comes from the cumulative ``delivered_bytes`` of the
``flow_samples`` table: between two consecutive samples of a flow (the
first against 0 bytes at the flow's start), Δbytes · 8 / Δt. The series
integrates back to the bytes the last sample counts
(:func:`goodput_intervals`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..scenario.units import PS_PER_S

if TYPE_CHECKING:
    from .result import Result

__all__ = ["goodput_intervals", "queue_figure", "cwnd_figure", "goodput_figure", "rtt_figure", "write_figures"]


def _figure(size: tuple[float, float] = (8.0, 4.0)) -> tuple[Figure, Any]:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _save(fig: Figure, path: str | Path | None) -> None:
    if path is None:
        return
    import io

    from ..sweep.store import atomic_write_bytes

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    atomic_write_bytes(Path(path), buf.getvalue())


def _flow_names(result: Result) -> dict[int, str]:
    flows = result.flows
    return {int(f): (n or f"flow {f}") for f, n in zip(flows["flow"], flows["name"])}


def _title(result: Result, what: str) -> str:
    return f"{result.scenario.name}: {what} (seed {result.seed})"


def goodput_intervals(result: Result) -> pl.DataFrame:
    """Goodput per sampling interval, one row per flow and sample:
    ``flow``, ``name``, ``start_s`` and ``end_s`` (the interval),
    ``delivered_bytes`` (in the interval) and ``goodput_mbps`` (Δbytes · 8 /
    Δt / 10^6). The first interval of a flow starts at its ``start_ps``
    (nothing is delivered before it)."""
    samples = result.flow_samples
    flows = result.flows
    schema = {"flow": pl.UInt32, "name": pl.String, "start_s": pl.Float64, "end_s": pl.Float64,
              "delivered_bytes": pl.Int64, "goodput_mbps": pl.Float64}
    if samples.height == 0:
        return pl.DataFrame(schema=schema)
    starts = flows.select(pl.col("flow").cast(pl.UInt32), pl.col("start_ps").alias("_start_ps"), "name")
    df = (
        samples.select(pl.col("flow").cast(pl.UInt32), "time_ps", "delivered_bytes")
        .join(starts, on="flow", how="left")
        .sort("flow", "time_ps")
        .with_columns(
            pl.col("time_ps").shift(1).over("flow").alias("_prev_ps"),
            pl.col("delivered_bytes").cast(pl.Int64).shift(1).over("flow").fill_null(0).alias("_prev_bytes"),
        )
        .with_columns(pl.coalesce("_prev_ps", pl.min_horizontal("_start_ps", "time_ps")).alias("_from_ps"))
        # Samples taken before the flow started carry nothing.
        .filter(pl.col("time_ps") > pl.col("_from_ps"))
        .with_columns(
            (pl.col("delivered_bytes").cast(pl.Int64) - pl.col("_prev_bytes")).alias("_bytes"),
            ((pl.col("time_ps") - pl.col("_from_ps")).cast(pl.Float64) / PS_PER_S).alias("_dt_s"),
        )
    )
    return df.select(
        "flow",
        pl.col("name").fill_null(""),
        (pl.col("_from_ps").cast(pl.Float64) / PS_PER_S).alias("start_s"),
        (pl.col("time_ps").cast(pl.Float64) / PS_PER_S).alias("end_s"),
        pl.col("_bytes").alias("delivered_bytes"),
        (pl.col("_bytes").cast(pl.Float64) * 8.0 / pl.col("_dt_s") / 1e6).alias("goodput_mbps"),
    ).cast(schema)


def goodput_figure(result: Result, path: str | Path | None = None) -> Figure:
    """Goodput per sampling interval of every flow (Mb/s), drawn as steps:
    each interval's rate held over the interval. It is the in-order delivery
    rate: the bytes behind a hole count when the hole is filled, so an
    interval after a loss can exceed the link's rate; a note under the plot
    says so (:data:`GOODPUT_NOTE`)."""
    g = goodput_intervals(result)
    if g.height == 0:
        raise ValueError("no flow samples to plot: set record.flow_sample_s in the scenario")
    fig, ax = _figure()
    for (flow,), part in g.partition_by("flow", as_dict=True, maintain_order=True).items():
        name = part["name"][0] or f"flow {flow}"
        x = np.concatenate([part["start_s"].to_numpy()[:1], part["end_s"].to_numpy()])
        y = np.concatenate([part["goodput_mbps"].to_numpy(), part["goodput_mbps"].to_numpy()[-1:]])
        ax.step(x, y, where="post", linewidth=0.9, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("in-order delivery rate (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, "goodput per sampling interval"), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.005, GOODPUT_NOTE, fontsize=7, color="0.35", ha="left", va="bottom", wrap=True)
    fig.get_layout_engine().set(h_pad=0.25)
    _save(fig, path)
    return fig


GOODPUT_NOTE = (
    "Goodput is payload delivered in order to the application. After a loss, the bytes behind the hole "
    "are delivered together once it is filled, so one interval can exceed the link's rate; the run's "
    "average cannot (flows table: goodput_bps)."
)
"""The explanation printed under every goodput figure."""


def cwnd_figure(result: Result, path: str | Path | None = None) -> Figure:
    """Congestion window of every TCP flow (packets) over time: every ACK's
    value if the run recorded them (``record.cwnd_every_ack``), else the
    flow samples."""
    every_ack = result.tables.get("cwnd")
    src = every_ack if every_ack is not None and every_ack.height else result.flow_samples
    if src.height == 0:
        raise ValueError("no cwnd samples to plot: set record.flow_sample_s (or record.cwnd_every_ack)")
    names = _flow_names(result)
    tcp = set(result.flows.filter(pl.col("kind") == "tcp")["flow"].to_list())
    fig, ax = _figure()
    for (flow,), part in src.sort("flow", "time_ps").partition_by("flow", as_dict=True, maintain_order=True).items():
        if int(flow) not in tcp:
            continue
        ax.step(part["time_s"].to_numpy(), part["cwnd_pkts"].to_numpy(), where="post", linewidth=0.9,
                label=names.get(int(flow), f"flow {flow}"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.set_ylim(bottom=0)
    what = "congestion window at every ACK" if src is every_ack else "congestion window at each flow sample"
    ax.set_title(_title(result, what), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    return fig


def _rtt_samples_figure(result: Result, samples: pl.DataFrame, path: str | Path | None) -> Figure:
    """The ``rtt_samples`` table per TCP flow: every RTT measurement (dots),
    the smoothed RTT and the minimum so far (lines), in ms."""
    names = _flow_names(result)
    fig, ax = _figure()
    for (flow,), part in samples.sort("flow", "time_ps").partition_by("flow", as_dict=True,
                                                                      maintain_order=True).items():
        label = names.get(int(flow), f"flow {flow}")
        t = part["time_ps"].to_numpy() / 1e12
        dots = ax.plot(t, part["rtt_ps"].to_numpy() / 1e9, ".", markersize=1.5, alpha=0.35,
                       label=f"{label} rtt samples")
        color = dots[0].get_color()
        ax.step(t, part["srtt_ps"].to_numpy() / 1e9, where="post", linewidth=0.9, color=color,
                label=f"{label} srtt")
        ax.step(t, part["min_rtt_ps"].to_numpy() / 1e9, where="post", linewidth=0.8, linestyle="--",
                color=color, label=f"{label} min_rtt")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("RTT (ms)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, "RTT samples, smoothed RTT and minimum RTT at the sender"), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    return fig


def rtt_figure(result: Result, path: str | Path | None = None) -> Figure:
    """Every TCP flow's smoothed RTT (ms) over time, as the sender's ``srtt``
    at every ACK (``record.cwnd_every_ack``) or else at each flow sample,
    with the flow's ``min_rtt`` over the run (the ``flows`` table) as a
    dashed line. With ``record.rtt_samples``, from the ``rtt_samples``
    table instead: each measurement as a dot, ``srtt`` and the running
    ``min_rtt`` as lines (:func:`_rtt_samples_figure`)."""
    samples = result.tables.get("rtt_samples") if "rtt_samples" in result.tables else None
    if samples is not None and samples.height:
        return _rtt_samples_figure(result, samples, path)
    every_ack = result.tables.get("cwnd")
    src = every_ack if every_ack is not None and every_ack.height else result.flow_samples
    if src.height == 0:
        raise ValueError("no RTT samples to plot: set record.flow_sample_s (or record.cwnd_every_ack)")
    names = _flow_names(result)
    tcp = result.flows.filter(pl.col("kind") == "tcp")
    min_rtt = {int(f): int(m) for f, m in zip(tcp["flow"], tcp["min_rtt_ps"])}
    fig, ax = _figure()
    for (flow,), part in src.sort("flow", "time_ps").partition_by("flow", as_dict=True, maintain_order=True).items():
        if int(flow) not in min_rtt:
            continue
        part = part.filter(pl.col("srtt_ps") > 0)  # no RTT measured yet
        if part.height == 0:
            continue
        label = names.get(int(flow), f"flow {flow}")
        (line,) = ax.step(part["time_s"].to_numpy(), part["srtt_ps"].to_numpy() / 1e9, where="post", linewidth=0.9,
                          label=f"{label} srtt")
        if min_rtt[int(flow)]:
            ax.axhline(min_rtt[int(flow)] / 1e9, color=line.get_color(), linestyle="--", linewidth=0.8,
                       label=f"{label} min_rtt")
    ax.set_xlabel("time (s)")
    if not ax.get_lines():
        raise ValueError("no RTT to plot: no TCP flow measured one (UDP flows have none)")
    ax.set_ylabel("RTT (ms)")
    ax.set_ylim(bottom=0)
    what = "smoothed RTT at every ACK" if src is every_ack else "smoothed RTT at each flow sample"
    ax.set_title(_title(result, what), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    return fig


def queue_figure(result: Result, node: str, peer: str, path: str | Path | None = None) -> Figure:
    """Occupancy (packets) of ``node``'s port toward ``peer`` over time, as
    traced (the port must be listed in ``record.queues``)."""
    trace = result.queue(node, peer)
    if trace.height == 0:
        raise ValueError(
            f"no trace of {node!r}'s port toward {peer!r}: add QueueRecord(node={node!r}, peer={peer!r}) "
            "to record.queues"
        )
    fig, ax = _figure()
    ax.step(trace["time_s"].to_numpy(), trace["pkts"].to_numpy(), where="post", linewidth=0.7,
            label=f"{node} → {peer}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, f"queue of {node}'s port toward {peer}"), fontsize=10)
    ax.grid(alpha=0.3)
    _save(fig, path)
    return fig


def write_figures(result: Result, directory: str | Path) -> list[Path]:
    """The usual figures of a run into ``directory``: ``queue_NODE-PEER.png``
    per recorded queue, ``cwnd.png``, ``rtt.png`` (TCP flows with an RTT
    measured) and ``goodput.png`` if the run sampled flows (``rtt.png``
    also with ``record.rtt_samples`` alone). Returns the paths written."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for q in result.scenario.record.queues:
        if result.queue(q.node, q.peer).height:
            p = d / f"queue_{q.node}-{q.peer}.png"
            queue_figure(result, q.node, q.peer, p)
            out.append(p)
    if result.flow_samples.height:
        if result.flows.filter(pl.col("kind") == "tcp").height:
            cwnd_figure(result, d / "cwnd.png")
            out.append(d / "cwnd.png")
            if (result.flow_samples["srtt_ps"] > 0).any():
                rtt_figure(result, d / "rtt.png")
                out.append(d / "rtt.png")
        goodput_figure(result, d / "goodput.png")
        out.append(d / "goodput.png")
    rtt = d / "rtt.png"
    if rtt not in out and "rtt_samples" in result.tables and result.table("rtt_samples").height:
        rtt_figure(result, rtt)  # record.rtt_samples without flow samples
        out.append(rtt)
    return out
