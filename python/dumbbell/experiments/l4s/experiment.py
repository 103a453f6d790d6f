"""``l4s``: TCP Prague and Cubic through DualPI2 and through FQ-CoDel, beside
what the L4S specifications and the PI2 paper state (see :mod:`dumbbell.papers`).

The setup (a dumbbell, the validation point of issue 26):

- one sender host and one receiver host on routers ``r1`` and ``r2``; the
  bottleneck ``r1``–``r2`` at 100 Mb/s with 10 ms one way (base RTT 20 ms),
  access links at 1 Gb/s without delay; MSS 1448 B with Linux's TCP
  timestamps (``header_bytes`` 52: 1500-byte IP packets, 1514-byte frames);
- ``n_prague`` TCP Prague flows (``cc = "prague"``, ECN on: ECT(1) and
  Accurate ECN) and ``n_cubic`` Cubic flows (ECN off: Not-ECT), all starting
  at once; every sender hands its NIC TSO-sized skbs (``gso_max_bytes`` =
  :data:`GSO_MAX_BYTES`, Linux's default ``gso_max_size``), as the Linux
  defaults the specifications assume have TSO/GSO on: Prague sizes its own
  skbs (about 0.25 ms of its rate, one segment at 50 Mb/s), Cubic takes
  Linux's autosize (docs/model.md, "TSO-sized bursts"). DualPI2 sees them
  segment by segment, as Linux's ``sch_dualpi2`` does with ``split_gso``,
  its default;
- the bottleneck is DualPI2 at Linux's defaults (``sch_dualpi2``: 1 ms step,
  15 ms PI2 target, k = 2, 10 % classic weight, 10 000 packets) or FQ-CoDel
  at Linux's defaults (5 ms, 100 ms, ECN on, 1024 queues, 10 240 packets);
- mixes (n_prague, n_cubic): at quick scale (1, 0), (0, 1), (1, 1), (1, 4),
  (4, 1) and (4, 4), 20 s each; at paper scale every mix of 0 to 4 flows of
  each kind (24), 60 s each. The first quarter of each run is warm-up;
- the sensitivity parts (:mod:`dumbbell.experiments.l4s.sensitivity`), at
  both scales with the scale's run length, through DualPI2: ``pi2-target``
  reruns 1p1c and 4p4c with PI2's target at 1, 5 and 30 ms (the classic
  queue's delay in Cubic's RTT); ``classic-flows`` runs 2 and 4 Cubic flows
  alone (where the scale's mixes lack them). Rows carry ``part``
  (``mixes`` for the cases above) and ``target_ms``.

Measured per (queue, mix), over the measured window:

- ``l4s_qdelay_p50_ms``, ``l4s_qdelay_p99_ms``: Prague's queueing delay, from
  its raw RTT samples (the control's ``rtt_sample_ms``, read every
  millisecond) minus the base RTT; ``classic_qdelay_p50_ms``,
  ``classic_qdelay_p99_ms``: Cubic's, from its smoothed RTT (srtt) minus the
  base RTT, read every millisecond (Cubic has no raw-sample trace: its p99 is
  the smoothed one, slightly lower than a raw one);
- ``l4s_share``: the Prague flows' part of the total goodput;
  ``rate_ratio``: the mean Prague flow's goodput over the mean Cubic
  flow's (with both kinds present);
- ``utilization``: goodput × 1500/1448 over the link rate;
- ``prague_classic``: the fraction of samples in which a Prague flow's
  classic ECN fallback was active.

The published statements (``PAPER``) are the design targets RFC 9332 and the
PI2 paper give for DualPI2 at these defaults; with FQ-CoDel they state
nothing, and its rows are a comparison.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ...run.runner import Result
from ...scenario.models import DualPi2, FqCodel, Record, Scenario, TcpFlow, TcpOptions
from ...scenario.topology import dumbbell
from ..claims import count_line, verdict_cell
from .. import ExperimentResult, Progress, check_parts, check_scale
from ..base import head, output_dir, save_figure, text_table
from ..repeat import Job, run_jobs
from . import NAME, PARTS
from . import rates
from . import sensitivity as sens

RATE_BPS = 100_000_000
ACCESS_BPS = 1_000_000_000
ONE_WAY_S = 0.010
BASE_RTT_MS = 20.0
MSS_BYTES = 1448
HEADER_BYTES = 52
"""IPv4 + TCP with the timestamp option, on by default in Linux (the hosts
of the L4S specifications' defaults): 1500-byte IP packets, each a 1514-byte
frame in DualPI2's backlog and WRR credit (docs/experiments/l4s.md)."""
WIRE_BYTES = MSS_BYTES + HEADER_BYTES
QUEUES = ("dualpi2", "fq_codel")
MIXES = {
    "quick": ((1, 0), (0, 1), (1, 1), (1, 4), (4, 1), (4, 4)),
    "paper": tuple((p, c) for p in range(5) for c in range(5) if p + c > 0),
}
DURATION_S = {"quick": 20.0, "paper": 60.0}
WARMUP_FRACTION = 0.25
SAMPLE_S = 0.001
GSO_MAX_BYTES = 65536
"""Every connection's ``gso_max_bytes``: Linux's default ``gso_max_size``
(TSO/GSO on), the hosts' setting at the Linux defaults the L4S
specifications assume (docs/experiments/l4s.md, "TSO-sized bursts")."""


def bottleneck(queue: str, target_s: float | None = None) -> DualPi2 | FqCodel:
    """The bottleneck discipline at Linux's defaults (DualPI2 with PI2's
    target ``target_s`` if given)."""
    if queue == "dualpi2":
        return DualPi2() if target_s is None else DualPi2(target_s=target_s)
    if queue == "fq_codel":
        return FqCodel()
    raise ValueError(f"queue must be one of {QUEUES}, got {queue!r}")


def scenario(queue: str, n_prague: int, n_cubic: int, duration_s: float, target_s: float | None = None) -> Scenario:
    """One case: ``n_prague`` Prague and ``n_cubic`` Cubic flows through
    ``queue`` (DualPI2 with PI2's target ``target_s``, default Linux's)."""
    if n_prague < 0 or n_cubic < 0 or n_prague + n_cubic == 0:
        raise ValueError(f"need at least one flow, got {n_prague} Prague and {n_cubic} Cubic")
    if target_s is not None and queue != "dualpi2":
        raise ValueError(f"target_s is DualPI2's PI2 target; queue is {queue!r}")
    name = f"l4s-{queue}-{n_prague}p{n_cubic}c" + ("" if target_s is None else f"-target{target_s * 1e3:g}ms")
    s = dumbbell(["snd"], ["rcv"], ACCESS_BPS, RATE_BPS, bottleneck_delay=ONE_WAY_S,
                 queue=bottleneck(queue, target_s), duration_s=duration_s, name=name)
    for i in range(n_prague):
        s.add_flow(TcpFlow(name=f"prague{i}", src="snd", dst="rcv", cc="prague",
                           tcp=TcpOptions(mss_bytes=MSS_BYTES, header_bytes=HEADER_BYTES, ecn=True,
                                          gso_max_bytes=GSO_MAX_BYTES)))
    for i in range(n_cubic):
        s.add_flow(TcpFlow(name=f"cubic{i}", src="snd", dst="rcv", cc="cubic",
                           tcp=TcpOptions(mss_bytes=MSS_BYTES, header_bytes=HEADER_BYTES,
                                          gso_max_bytes=GSO_MAX_BYTES)))
    s.record = Record(flow_sample_s=SAMPLE_S)
    return s.validated()


def _q(v: np.ndarray, q: float) -> float:
    return float(np.quantile(v, q)) if v.size else float("nan")


def measure(res: Result, queue: str, n_prague: int, n_cubic: int, duration_s: float, part: str = sens.MAIN,
            target_ms: float | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The row of one case and its delay samples (for the CDFs)."""
    w0_ps = round(WARMUP_FRACTION * duration_s * 1e12)
    flows = res.flows
    prague_ids = set(flows.filter(pl.col("cc") == "prague")["flow"].to_list())
    samples = res.flow_samples.filter(pl.col("time_ps") >= w0_ps)
    rates: dict[int, float] = {}
    for (fid,), g in samples.group_by("flow", maintain_order=True):  # a fixed order: the sums below are bit-stable
        g = g.sort("time_ps")
        dt = (int(g["time_ps"][-1]) - int(g["time_ps"][0])) / 1e12
        rates[int(fid)] = (int(g["delivered_bytes"][-1]) - int(g["delivered_bytes"][0])) * 8 / dt if dt > 0 else 0.0
    l4s_rates = [r for f, r in rates.items() if f in prague_ids]
    classic_rates = [r for f, r in rates.items() if f not in prague_ids]
    total = sum(rates.values())
    classic_srtt = samples.filter(~pl.col("flow").is_in(list(prague_ids)) & (pl.col("srtt_ps") > 0))
    classic_q = classic_srtt["srtt_ps"].to_numpy() / 1e9 - BASE_RTT_MS
    l4s_q = np.array([])
    classic_frac = float("nan")
    if prague_ids:
        v = res.table("cc_vars").filter((pl.col("time_ps") >= w0_ps) & pl.col("flow").is_in(list(prague_ids)))
        rtt = v.filter((pl.col("var") == "rtt_sample_ms") & (pl.col("value") > 0))["value"].to_numpy()
        l4s_q = rtt - BASE_RTT_MS
        cl = v.filter(pl.col("var") == "classic")["value"].to_numpy()
        classic_frac = float(cl.mean()) if cl.size else float("nan")
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    row = {
        "part": part,
        "queue": queue,
        "target_ms": (sens.OURS_TARGET_MS if target_ms is None else target_ms) if queue == "dualpi2" else None,
        "n_prague": n_prague,
        "n_cubic": n_cubic,
        "duration_s": duration_s,
        "l4s_qdelay_p50_ms": _q(l4s_q, 0.5),
        "l4s_qdelay_p99_ms": _q(l4s_q, 0.99),
        "classic_qdelay_p50_ms": _q(classic_q, 0.5),
        "classic_qdelay_p99_ms": _q(classic_q, 0.99),
        "l4s_share": sum(l4s_rates) / total if total > 0 else float("nan"),
        "rate_ratio": mean(l4s_rates) / mean(classic_rates) if l4s_rates and classic_rates else float("nan"),
        "utilization": total * WIRE_BYTES / MSS_BYTES / RATE_BPS,
        "prague_classic": classic_frac,
        "conservation_ok": bool(res.summary["conservation_ok"]),
    }
    return row, {"l4s_qdelay_ms": l4s_q, "classic_qdelay_ms": classic_q}


SOURCE_RFC = "RFC 9332 (De Schepper, Briscoe and White, 2023)"
SOURCE_PI2 = "De Schepper et al., PI2 (CoNEXT 2016)"

PAPER: list[dict[str, Any]] = [
    {"metric": "l4s_qdelay_p99_ms", "queue": "dualpi2", "mix": "1p0c", "relation": "<=", "value": 2.0,
     "source": f"{SOURCE_RFC}, Appendix A: the L queue marks every packet past a 1 ms sojourn (the step), so a "
               "scalable flow's queueing delay stays about a millisecond; issue 26 asks p99 <= 2 ms"},
    {"metric": "utilization", "queue": "dualpi2", "mix": "1p0c", "relation": ">", "value": 0.95,
     "source": f"{SOURCE_RFC} and RFC 9330: low delay without giving up utilization (issue 26 asks over 95 %)"},
    {"metric": "classic_qdelay_p50_ms", "queue": "dualpi2", "mix": "0p1c", "relation": "~", "value": 15.0,
     "source": f"{SOURCE_RFC}, Appendix A, and {SOURCE_PI2}: PI2 holds the classic queue at its 15 ms target"},
    {"metric": "classic_qdelay_p50_ms", "queue": "dualpi2", "mix": "1p4c", "relation": "~", "value": 15.0,
     "source": f"{SOURCE_RFC}, Appendix A: the classic queue at PI2's target beside L4S traffic"},
    {"metric": "rate_ratio", "queue": "dualpi2", "mix": "1p1c", "relation": "~", "value": 1.0,
     "source": f"{SOURCE_RFC} §2.1 and {SOURCE_PI2}: with k = 2 and equal RTTs a scalable and a classic flow "
               "get roughly equal rates (issue 26 asks within a factor 2)"},
    {"metric": "l4s_qdelay_p99_ms", "queue": "dualpi2", "mix": "1p1c", "relation": "<=", "value": 2.0,
     "source": f"{SOURCE_RFC}: the L queue keeps its low delay beside classic traffic"},
    {"metric": "rate_ratio", "queue": "dualpi2", "mix": "4p4c", "relation": "~", "value": 1.0,
     "source": f"{SOURCE_RFC} §2.1: the coupling balances per-flow rates, whatever the numbers of flows"},
]
"""The design targets of DualPI2 at Linux's defaults, tied to a metric and case."""


def _mix(n_prague: int, n_cubic: int) -> str:
    return f"{n_prague}p{n_cubic}c"


def _paper_frame(rows: pl.DataFrame, scale: str) -> pl.DataFrame:
    rows = rows.filter(pl.col("part") == sens.MAIN)
    out = []
    for p in PAPER:
        hit = rows.filter((pl.col("queue") == p["queue"])
                          & (pl.format("{}p{}c", pl.col("n_prague"), pl.col("n_cubic")) == p["mix"]))
        ours = None
        if hit.height:
            v = hit[p["metric"]][0]
            ours = float(v) if v is not None and not (isinstance(v, float) and math.isnan(v)) else None
        not_run = None if hit.height else f"mix {p['mix']} is not among the {scale} scale's mixes"
        out.append({**p, "ours": ours, "not_run": not_run})
    return pl.DataFrame(
        out,
        schema={"metric": pl.String, "queue": pl.String, "mix": pl.String, "relation": pl.String,
                "value": pl.Float64, "ours": pl.Float64, "source": pl.String, "not_run": pl.String},
    )


def run(scale: str = "quick", seed: int = 1, progress: Progress | None = None, *,
        parts: tuple[str, ...] = PARTS) -> ExperimentResult:
    """Every (queue, mix) of the scale and the sensitivity parts' cases,
    through the sweep engine."""
    check_scale(scale)
    check_parts(parts, PARTS)
    duration = DURATION_S[scale]
    cases: list[tuple[str, str, float | None, int, int]] = []
    if sens.MAIN in parts:
        cases += [(sens.MAIN, q, None, p, c) for q in QUEUES for p, c in MIXES[scale]]
    cases += [(part, "dualpi2", t, p, c) for part, t, p, c in sens.cases(MIXES[scale]) if part in parts]
    jobs = [Job(key=(part, q, t, p, c, 0), seed=seed,
                scenario=scenario(q, p, c, duration, None if part == sens.MAIN else t / 1e3))
            for part, q, t, p, c in cases]
    outcomes = run_jobs(jobs, label=NAME)
    rows, data = [], {}
    for (part, q, t, p, c), out in zip(cases, outcomes):
        row, raw = measure(out.result(), q, p, c, duration, part, t)
        rows.append(row)
        if part == sens.MAIN:
            data[(q, p, c)] = raw
        if progress:
            where = "" if part == sens.MAIN else f" ({part}, PI2 target {t:g} ms)"
            progress(f"{NAME}: {q:8s} {p} Prague + {c} Cubic{where}: L4S delay p99 {row['l4s_qdelay_p99_ms']:.3g} ms, "
                     f"classic p50 {row['classic_qdelay_p50_ms']:.3g} ms, utilization {row['utilization']:.3f}")
    df = pl.DataFrame(rows, infer_schema_length=None)
    params = {"rate_bps": RATE_BPS, "base_rtt_ms": BASE_RTT_MS, "duration_s": duration, "mss_bytes": MSS_BYTES,
              "queues": list(QUEUES), "mixes": [_mix(p, c) for p, c in MIXES[scale]],
              "warmup_fraction": WARMUP_FRACTION, "sample_s": SAMPLE_S, "parts": list(parts),
              "pi2_targets_ms": list(sens.TARGETS_MS), "classic_flows": list(sens.CLASSIC_FLOWS)}
    return ExperimentResult(experiment=NAME, scale=scale, seed=seed, rows=df,
                            paper=sens.attach(_paper_frame(df, scale), df, BASE_RTT_MS), data=data, params=params)


def figures(result: ExperimentResult, out_dir: str | Path) -> list[Path]:
    """Per queue, the CDFs of the queueing delay per class (every mix), and
    the Prague flows' share of the goodput per mix."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = output_dir(out_dir)
    paths = []
    for q in QUEUES:
        keys = [k for k in result.data if k[0] == q]
        if not keys:
            continue
        fig = Figure(figsize=(10, 4.2), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, 2)
        for (_, p, c) in keys:
            for a, cls in zip(axes, ("l4s_qdelay_ms", "classic_qdelay_ms")):
                v = np.sort(np.asarray(result.data[(q, p, c)][cls]))
                if v.size:
                    a.plot(v, np.arange(1, v.size + 1) / v.size, label=_mix(p, c))
        axes[0].axvline(2.0, color="grey", ls="--", label="2 ms (p99 target)")
        if q == "dualpi2":
            axes[1].axvline(15.0, color="grey", ls="--", label="PI2 target 15 ms")
        for a, t in zip(axes, ("Prague (L4S) queueing delay", "Cubic (classic) queueing delay")):
            a.set_title(t, fontsize=10)
            a.set_xlabel("ms")
            a.set_ylabel("CDF")
            a.grid(alpha=0.3)
            a.legend(fontsize=7, loc="lower right")  # "best" is slow over the CDFs' many points
        fig.suptitle(f"{q}: queueing delay per class ({result.scale} scale, seed {result.seed})")
        p = out / f"qdelay_cdf_{q}.png"
        save_figure(fig, p)
        paths.append(p)
    fig = Figure(figsize=(9, 4), layout="constrained")
    FigureCanvasAgg(fig)
    a = fig.subplots()
    both = result.rows.filter((pl.col("part") == sens.MAIN) & (pl.col("n_prague") > 0) & (pl.col("n_cubic") > 0))
    mixes = sorted({_mix(r["n_prague"], r["n_cubic"]) for r in both.iter_rows(named=True)})
    x = np.arange(len(mixes))
    for i, q in enumerate(QUEUES):
        sub = {_mix(r["n_prague"], r["n_cubic"]): r["l4s_share"] for r in both.filter(pl.col("queue") == q)
               .iter_rows(named=True)}
        a.bar(x - 0.2 + 0.4 * i, [sub.get(m, float("nan")) for m in mixes], 0.4, label=q)
    fair = [int(m.split("p")[0]) / (int(m.split("p")[0]) + int(m.split("p")[1][:-1])) for m in mixes]
    a.scatter(x, fair, color="black", marker="_", s=400, label="equal per-flow rates", zorder=3)
    a.set_xticks(x, mixes)
    a.set_ylabel("Prague flows' share of goodput")
    a.legend(fontsize=8)
    a.grid(alpha=0.3, axis="y")
    p = out / "l4s_share.png"
    save_figure(fig, p)
    paths.append(p)
    p = _target_figure(result.rows, out)
    if p is not None:
        paths.append(p)
    return paths


def _target_figure(rows: pl.DataFrame, out: Path) -> Path | None:
    """Part ``pi2-target``: the per-flow rate ratio against PI2's target,
    with the main part's 15 ms, beside what the rate account predicts from
    each run's own queue delays (k = 2's window ratio times the RTT ratio,
    :mod:`dumbbell.experiments.l4s.rates`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    dual = rows.filter((pl.col("queue") == "dualpi2") & pl.col("part").is_in([sens.MAIN, sens.TARGET]))
    if not dual.filter(pl.col("part") == sens.TARGET).height:
        return None
    fig = Figure(figsize=(7, 4), layout="constrained")
    FigureCanvasAgg(fig)
    a = fig.subplots()
    for p, c in sens.TARGET_MIXES:
        g = dual.filter((pl.col("n_prague") == p) & (pl.col("n_cubic") == c)).sort("target_ms")
        line, = a.plot(g["target_ms"].to_numpy(), g["rate_ratio"].to_numpy(), marker="o", label=_mix(p, c))
        # The rate account's physics from each run's own queue delays (l4s/rates.py).
        pred = [rates.WINDOW_RATIO * rates.rtt_ratio(cq, lq, BASE_RTT_MS)
                for cq, lq in zip(g["classic_qdelay_p50_ms"].to_list(), g["l4s_qdelay_p50_ms"].to_list())]
        a.plot(g["target_ms"].to_numpy(), pred, color=line.get_color(), ls="--", marker="x",
               label=f"{_mix(p, c)}: {rates.WINDOW_RATIO:.2f} x (20 + C delay) / (20 + L delay)")
    a.axhline(1.0, color="black", lw=0.8, label="RFC 9332: about 1")
    a.axvline(sens.OURS_TARGET_MS, color="grey", lw=0.8, ls=":", label="Linux's 15 ms")
    a.set_xlabel("PI2 target (ms)")
    a.set_ylabel("Prague / Cubic per-flow rate")
    a.set_title("DualPI2: the rate balance against PI2's target (part pi2-target)", fontsize=10)
    a.grid(alpha=0.3)
    a.legend(fontsize=7)
    path = out / "rate_ratio_vs_pi2_target.png"
    save_figure(fig, path)
    return path


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def report(result: ExperimentResult) -> str:
    """A plain-text table: our rows, then each published statement beside ours."""
    cols = [("part", "part"), ("queue", "queue"), ("target_ms", "target ms"), ("n_prague", "prague"),
            ("n_cubic", "cubic"),
            ("l4s_qdelay_p50_ms", "L p50 ms"), ("l4s_qdelay_p99_ms", "L p99 ms"),
            ("classic_qdelay_p50_ms", "C p50 ms"), ("classic_qdelay_p99_ms", "C p99 ms"),
            ("l4s_share", "L share"), ("rate_ratio", "L/C rate"), ("utilization", "util"),
            ("prague_classic", "fallback")]
    lines = head(result, "100 Mb/s, base RTT 20 ms; delays are queueing delays")
    table = [[h for _, h in cols]] + [[_fmt(r[c]) for c, _ in cols] for r in result.rows.iter_rows(named=True)]
    lines += text_table(table)
    lines += ["Rows with queue fq_codel: a comparison the specifications make no statement about. Parts "
              "pi2-target and classic-flows: sensitivity parts (PI2's target; Cubic flows alone), beside the "
              "claims they move.", "",
              "The published statements beside ours:"]
    ptab = [["metric", "queue", "mix", "paper", "ours", "verdict"]]
    for p in result.paper.iter_rows(named=True):
        ptab.append([p["metric"], p["queue"], p["mix"], f"{p['relation']} {_fmt(p['value'])}", _fmt(p["ours"]),
                     verdict_cell(p)])
    pw = [max(len(row[i]) for row in ptab) for i in range(5)]
    lines += ["  ".join([*(cell.ljust(w) for cell, w in zip(row[:5], pw)), row[5]]) for row in ptab]
    lines.append(count_line(result.paper))
    return "\n".join(lines)
