"""E5 ``highspeed``: TCP against HighSpeed TCP at 1 Gb/s (de Rezende, Costa and Rubinstein;
see :mod:`dumbbell.papers`).

Rezende, Costa and Rubinstein measured TCP and HSTCP (RFC 3649) between two
Linux PCs through NIST Net and in ns-2, varying latency and random loss, and
simulated a GIGA-like WAN with 1 to 16 parallel flows. The two parts, as
dumbbell runs them:

- ``single`` (Figures 3–5): sender ``snd`` — router ``r`` — receiver
  ``rcv``, 1 Gb/s links. ``r`` emulates the path: one-way latency 0, 20 or
  40 ms on ``r``–``rcv`` in both directions (RTT twice that) and Bernoulli
  loss 1e-6 … 1e-4 on the data direction, drawn as packets arrive at ``r``'s
  port (a ``Netem`` stage with loss only): NIST Net, the paper's emulator,
  drops packets as it receives them, so a lost packet never uses the
  bottleneck; at p ≤ 1e-4 that differs from on-the-wire loss by 0.01 % of
  the link at most. The stage has no packet limit: the paper states none for
  NIST Net and ns-2's loss model has none. Were netem's default limit of
  1000 packets applied to a netem that also held the latency (its delay
  line), it would bind at 20 and 40 ms, where the line would hold 1667 and
  3333 packets at 1 Gb/s, capping any flow at 1000 packets per one-way
  latency, 600 and 300 Mb/s; at 0 ms it would be the queue's limit only.
  One flow of 60 s, ten samples,
  95 % Student-t intervals. Hosts: 1460-byte segments (1500-byte packets),
  SACK, delayed ACKs, a 6000-packet receive window (8.76 MB, the paper's
  8 MB socket buffers), Linux's TCP small queues at the sender (its NIC
  never drops, as the paper's enlarged ``txqueuelen`` intended). Every case
  runs twice: at full link speed (ns-2's view) and with the sender capped at
  700 Mb/s (``sender_cap_bps``), the rate the paper's 33 MHz PCI bus allowed,
  to stand beside its experimental curves.
- ``wan`` (Figure 6): the network of ``data/giga.toml`` (1 Gb/s links,
  11.4 ms RTT, each link's queue the path's bandwidth × RTT over its number
  of links, as the paper set ns-2's queues), N = 1 … 16 parallel flows of
  the same control between its two hosts, 60 s, ten samples, aggregate
  goodput. As in ns-2, the sender's own link queue is a plain drop-tail
  queue of that size (no TCP small queues), so the first hop is where
  congestion losses happen.

Both parts use Reno (with SACK; ns-2's ``Sack1`` and Linux 2.4's TCP) for
"TCP" and ``highspeed`` in its formula mode (the paper's eq. 12–13; ns-2's
implementation) for HSTCP. Each ``single`` row also carries the response
functions' prediction: ``window_pkts`` is our average window
(goodput · RTT / MSS), ``model_window_pkts`` the paper's w = 1.2/√p (TCP)
or w = 0.12/p^0.835 (HSTCP, TCP's for p above Low_P), and
``model_goodput_bps`` the goodput that window gives, bounded by the link (or
the cap) and by the receive window. The response functions describe the
steady state; a 60 s average also holds the first slow start's overshoot
(at 80 ms and p = 1e-4 Reno's window peaks at 3368 packets 0.8 s in and is
back at or below 180 from 8.8 s on, seed 1: ``python
examples/e5_evidence.py overshoot``), so at high RTT our averages, like the
paper's iperf numbers, sit above the model. ``tests/highspeed.rs`` checks the steady
state against the response functions.

Where dumbbell and the paper differ, and why: the paper's figures are not
in our copy of the paper, only its text, so the ``paper`` table holds what
the text states (TCP and HSTCP both fill the link at 0 ms; HSTCP's gain
grows with RTT; at 1e-4 both fall to a similar low rate; experimental
curves sit below simulation above 600 Mb/s because of the 700 Mb/s PCI
limit; ~10 parallel TCP flows approach HSTCP on the WAN), each tied to the
rows that test it. The GIGA topology is ours (see ``data/giga.toml``).
Two statements of the text are not what we find, and the reason is the
response functions the paper itself gives: at p = 1e-4 HSTCP's window is
0.12/p^0.835 = 263 packets against TCP's 120, so HSTCP keeps about twice
TCP's rate there (ours: 1.8–1.9× over 60 s and 2.0–2.1× after a 20 s
warm-up, at 20 and 40 ms; ``python examples/e5_evidence.py high-loss``)
rather than "a similar low rate"; and HSTCP's relative gain over TCP at
40 ms is above its gain at 20 ms only where the link or the receive window
caps HSTCP (at 1e-6: 2.12× against 1.80×; ``low-loss``), not at 1e-5
(2.25× against 2.82× over 60 s, 4.6× against 5.4× after the warm-up;
``moderate-loss``): in steady
state the windows, in packets, do not depend on the RTT, so the gain is
the response functions' ratio (4.7× at 1e-5) wherever the link caps
neither flow; it grows with the RTT only from 0 ms, where both fill the
link. Over a whole run, TCP's first slow start (its window reaches
12,000 packets at 40 ms, twice the 6000 in flight the receive window
allows, Linux's cwnd-limited rule) inflates TCP's average more at 80 ms.
docs/experiments/e5.md has every claim with its evidence.

Goodput is iperf's, over the whole run (``goodput_bps``), as the paper
measured; each ``single`` row also gives ``steady_goodput_bps``, the goodput
after a warm-up of ``warmup_s`` (20 s at paper scale), which leaves out the
first slow start and is what the response functions describe; the rows'
``window_pkts`` is taken from it.

Quick scale: latencies 0 and 40 ms at p = 1e-4, 30 s runs with a 10 s
warm-up, 2 samples: at 80 ms RTT a loss every 1/p = 10,000 packets comes
every ~7 s once TCP's window is near its steady 120 packets, so 20 s after
the warm-up hold about three loss cycles, and the first slow start's
overshoot (TCP's whole-run average 37 Mb/s against a steady 22) has decayed.
Lower loss rates need minutes per point at 80 ms (at 1e-5 a cycle lasts
~21 s), which paper scale gives. The WAN with 1, 4 and 16 flows for 8 s.
"""

from __future__ import annotations

import math
import time
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from ..scenario import DropTail, Link, Netem, Node, Scenario, TcpFlow, TcpOptions
from ..claims import claims_lines, interval
from ..papers import cite, citation
from . import ExperimentResult, Progress, check_parts, check_scale
from .repeat import Job, by_point, mean_ci, round_seed, run_jobs

__all__ = ["NAME", "single_scenario", "giga_network", "wan_scenario", "model_window", "run", "figures", "report"]

NAME = "highspeed"
SEED_FILE = "004_ba8fb89fbd3a9300.txt"
LEVEL = 0.95

CC: dict[str, dict[str, Any]] = {"reno": {"kind": "reno"}, "highspeed": {"kind": "highspeed"}}
LINK_BPS = 1_000_000_000
MSS_BYTES = 1460
HEADER_BYTES = 40
RWND_PKTS = 6000
CAP_BPS = 700_000_000
MIN_QUEUE_PKTS = 100
HOST_JITTER_S = 2e-6

POINTS: dict[str, dict[str, Any]] = {
    "paper": {
        "samples": 10,
        "single": {
            "latencies_ms": (0, 20, 40),
            "losses": (1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4),
            "caps_bps": (None, CAP_BPS),
            "duration_s": 60.0,
            "warmup_s": 20.0,
        },
        "wan": {"flows": (1, 2, 4, 6, 8, 10, 12, 14, 16), "duration_s": 60.0},
    },
    "quick": {
        "samples": 2,
        "single": {"latencies_ms": (0, 40), "losses": (1e-4,), "caps_bps": (None, CAP_BPS), "duration_s": 30.0,
                   "warmup_s": 10.0},
        "wan": {"flows": (1, 4, 16), "duration_s": 8.0},
    },
}
PARTS = ("single", "wan")


def _tcp(**kw: Any) -> TcpOptions:
    return TcpOptions(mss_bytes=MSS_BYTES, header_bytes=HEADER_BYTES, rwnd_bytes=RWND_PKTS * MSS_BYTES, **kw)


def _pkt_bits() -> int:
    return (MSS_BYTES + HEADER_BYTES) * 8


def single_scenario(
    cc: str, latency_ms: float, loss: float, duration_s: float, cap_bps: int | None = None, warmup_s: float = 0.0
) -> Scenario:
    """Part (a): one flow ``snd`` → ``rcv`` through the emulating router;
    with ``warmup_s``, the flows table also has the goodput after it."""
    rtt_s = 2 * latency_ms / 1e3
    queue = max(MIN_QUEUE_PKTS, math.ceil(LINK_BPS * rtt_s / _pkt_bits()))
    s = Scenario(
        name=f"e5-{cc}-{latency_ms:g}ms-{loss:g}",
        duration_s=duration_s,
        nodes=[Node(name="snd", kind="host"), Node(name="r", kind="switch"), Node(name="rcv", kind="host")],
        links=[
            Link(a="snd", b="r", rate_bps=LINK_BPS, delay_s=0.0, jitter_s=HOST_JITTER_S),
            Link(a="r", b="rcv", rate_bps=LINK_BPS, delay_s=latency_ms / 1e3,
                 queue_ab=DropTail(limit_pkts=queue), netem_ab=Netem(loss=loss, limit_pkts=None)),
        ],
    )
    s.add_flow(TcpFlow(name="f", src="snd", dst="rcv", cc=CC[cc], tcp=_tcp(max_rate_bps=cap_bps)))
    s.record.warmup_s = warmup_s
    return s.validated()


def giga_network(path: str | Path | None = None) -> tuple[Scenario, str, str, float]:
    """The WAN of ``data/giga.toml`` (or ``path``): (scenario without flows,
    source host, destination host, path RTT in seconds). Each link's queue,
    in both directions, is the path's bandwidth × RTT over its number of
    links."""
    text = Path(path).read_text() if path is not None else resources.files("dumbbell").joinpath("data/giga.toml").read_text()
    doc = tomllib.loads(text)
    rate = int(doc["rate_bps"])
    links = doc["links"]
    rtt_s = 2 * sum(float(link["delay_ms"]) for link in links) / 1e3
    queue = max(MIN_QUEUE_PKTS, math.ceil(rate * rtt_s / len(links) / _pkt_bits()))
    s = Scenario(
        name="giga",
        duration_s=1.0,
        nodes=[Node(name=n["name"], kind=n["kind"]) for n in doc["nodes"]],
        links=[
            Link(a=link["a"], b=link["b"], rate_bps=rate, delay_s=float(link["delay_ms"]) / 1e3,
                 queue_ab=DropTail(limit_pkts=queue), queue_ba=DropTail(limit_pkts=queue))
            for link in links
        ],
    )
    return s, doc["src"], doc["dst"], rtt_s


def wan_scenario(cc: str, flows: int, duration_s: float) -> Scenario:
    """Part (b): ``flows`` parallel flows of ``cc`` across the GIGA-like WAN.
    TCP small queues are off: the sender's link queue drops, as ns-2's does."""
    s, src, dst, _ = giga_network()
    s.name = f"e5-wan-{cc}-{flows}"
    s.duration_s = duration_s
    s.link(src, s.links[0].b if s.links[0].a == src else s.links[0].a).jitter_s = HOST_JITTER_S
    for i in range(flows):
        s.add_flow(TcpFlow(name=f"f{i}", src=src, dst=dst, cc=CC[cc], tcp=_tcp(tsq_bytes=0)))
    return s.validated()


def model_window(cc: str, p: float) -> float:
    """The response functions of the paper: w = 1.2/√p for TCP (eq. 5) and
    w = 0.12/p^0.835 for HSTCP (RFC 3649; eq. 9 rounds the exponent to
    0.83), TCP's below Low_Window (p above Low_P = 1e-3)."""
    tcp = 1.2 / math.sqrt(p)
    if cc == "reno" or p >= 1e-3:
        return tcp
    return 0.12 / p**0.835


def _jobs(scale: str, seed: int, parts: tuple[str, ...]) -> list[Job]:
    cfg = POINTS[scale]
    jobs = []
    if "single" in parts:
        p = cfg["single"]
        for i, lat in enumerate(p["latencies_ms"]):
            for j, loss in enumerate(p["losses"]):
                for k, cap in enumerate(p["caps_bps"]):
                    for cc in CC:
                        s = single_scenario(cc, lat, loss, p["duration_s"], cap, p["warmup_s"])
                        for r in range(cfg["samples"]):
                            jobs.append(Job(key=("single", cc, (lat, loss, cap), r), scenario=s,
                                            seed=round_seed(seed, 100_000 * i + 1000 * j + 100 * k + r)))
    if "wan" in parts:
        p = cfg["wan"]
        for i, n in enumerate(p["flows"]):
            for cc in CC:
                s = wan_scenario(cc, n, p["duration_s"])
                for r in range(cfg["samples"]):
                    jobs.append(Job(key=("wan", cc, n, r), scenario=s, seed=round_seed(seed, 1_000_000 + 100 * i + r)))
    return jobs


def _rows(scale: str, outcomes) -> pl.DataFrame:
    cfg = POINTS[scale]
    groups = by_point(outcomes)
    rows = []
    payload_share = MSS_BYTES / (MSS_BYTES + HEADER_BYTES)
    for (part, cc, point), outs in groups.items():
        totals = [float(o.flows["goodput_bps"].sum()) for o in outs]
        mean, half, n = mean_ci(totals, LEVEL)
        row: dict[str, Any] = {
            "part": part, "cc": cc, "latency_ms": None, "rtt_ms": None, "loss": None, "sender_cap_bps": None,
            "flows": 1, "goodput_bps": mean, "ci95_bps": half, "samples": n,
            "steady_goodput_bps": None, "steady_ci95_bps": None, "warmup_s": None,
            "window_pkts": None, "model_window_pkts": None, "model_goodput_bps": None,
            "retransmits": sum(int(o.flows["retransmits"].sum()) for o in outs) / n,
            "timeouts": sum(int(o.flows["timeouts"].sum()) for o in outs) / n,
            "duration_s": cfg[part]["duration_s"],
            "data_packets": sum(int(o.summary["data_packets_sent"]) for o in outs),
        }
        if part == "single":
            lat, loss, cap = point
            rtt = 2 * lat / 1e3
            row.update(latency_ms=float(lat), rtt_ms=2.0 * lat, loss=loss, sender_cap_bps=cap)
            steady, steady_half, _ = mean_ci([float(o.flows["steady_goodput_bps"].sum()) for o in outs], LEVEL)
            row.update(steady_goodput_bps=steady, steady_ci95_bps=steady_half, warmup_s=cfg["single"]["warmup_s"])
            w = model_window(cc, loss)
            limit = min(LINK_BPS, cap or LINK_BPS) * payload_share
            if rtt > 0:
                # The response functions describe the steady state.
                row["window_pkts"] = steady * rtt / (MSS_BYTES * 8)
                row["model_window_pkts"] = w
                row["model_goodput_bps"] = min(limit, w * MSS_BYTES * 8 / rtt, RWND_PKTS * MSS_BYTES * 8 / rtt)
            else:
                row["model_goodput_bps"] = limit
        else:
            row.update(flows=int(point), rtt_ms=giga_network()[3] * 1e3, loss=0.0)
        rows.append(row)
    schema = {
        "part": pl.String, "cc": pl.String, "latency_ms": pl.Float64, "rtt_ms": pl.Float64, "loss": pl.Float64,
        "sender_cap_bps": pl.Int64, "flows": pl.Int64, "goodput_bps": pl.Float64, "ci95_bps": pl.Float64,
        "samples": pl.Int64, "steady_goodput_bps": pl.Float64, "steady_ci95_bps": pl.Float64,
        "warmup_s": pl.Float64, "window_pkts": pl.Float64, "model_window_pkts": pl.Float64,
        "model_goodput_bps": pl.Float64, "retransmits": pl.Float64, "timeouts": pl.Float64,
        "duration_s": pl.Float64, "data_packets": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema)


_SRC = "de Rezende, Costa and Rubinstein"


def _paper_frame(rows: pl.DataFrame) -> pl.DataFrame:
    """The paper's text, claim by claim, each with our number."""
    single = rows.filter((pl.col("part") == "single") & pl.col("sender_cap_bps").is_null())
    capped = rows.filter((pl.col("part") == "single") & pl.col("sender_cap_bps").is_not_null())
    wan = rows.filter(pl.col("part") == "wan")

    def g(df: pl.DataFrame, cc: str, **where: Any) -> float | None:
        f = df.filter(pl.col("cc") == cc)
        for k, v in where.items():
            f = f.filter(pl.col(k) == v)
        return float(f["goodput_bps"][0]) if f.height else None

    out: list[dict[str, Any]] = []

    def claim(metric: str, point: str, relation: str, value: float, ours: float | None, source: str, cc: str | None = None):
        out.append({"part": "wan" if "flows" in point else "single", "metric": metric, "cc": cc, "point": point,
                    "relation": relation, "value": value, "ours": ours, "source": f"{_SRC}, {source}"})

    lats = sorted(set(single["latency_ms"].to_list())) if single.height else []
    losses = sorted(set(single["loss"].to_list())) if single.height else []
    if 0.0 in lats:
        for cc in CC:
            vals = [g(single, cc, latency_ms=0.0, loss=p) for p in losses]
            ours = min(v for v in vals if v is not None) / LINK_BPS if vals else None
            claim("min goodput / link rate", "latency_ms=0, every loss", "~", 0.97, ours,
                  "§V, Fig. 3: with RTT near zero both fill the link whatever the loss", cc=cc)
    hi = [x for x in lats if x > 0]
    if hi and losses:
        mid = [p for p in losses if p < 1e-4]
        p_mid = mid[len(mid) // 2] if mid else losses[0]
        gains = {}
        for lat in hi:
            a, b = g(single, "highspeed", latency_ms=lat, loss=p_mid), g(single, "reno", latency_ms=lat, loss=p_mid)
            gains[lat] = a / b if a and b else None
            claim("highspeed / reno", f"latency_ms={lat:g}, loss={p_mid:g}", ">", 1.0, gains[lat],
                  "§V: HSTCP outperforms TCP, more so at higher RTT and moderate loss")
        if len(hi) >= 2 and all(gains[x] for x in hi):
            claim("gain at the highest latency / gain at the lowest", f"loss={p_mid:g}", ">", 1.0,
                  gains[hi[-1]] / gains[hi[0]], "§V: HSTCP's advantage over TCP grows with the RTT")
        if 1e-4 in losses:
            for lat in hi:
                a, b = g(single, "highspeed", latency_ms=lat, loss=1e-4), g(single, "reno", latency_ms=lat, loss=1e-4)
                claim("highspeed / reno", f"latency_ms={lat:g}, loss=0.0001", "~", 1.0, a / b if a and b else None,
                      "§V: from 1e-4 on both reach a similar, low rate")
    if capped.height:
        ours = float(capped["goodput_bps"].max()) / 1e6
        claim("max capped goodput (Mb/s)", "sender_cap_bps=700e6", "<=", 700.0, ours,
              "§IV-A, §V: the PCI bus limited the testbed to 700 Mb/s; experimental curves sit below simulation above 600 Mb/s")
    if wan.height:
        ns = sorted(set(wan["flows"].to_list()))
        n_hi = max(ns)
        tcp_hi = g(wan, "reno", flows=n_hi)
        hs_1 = g(wan, "highspeed", flows=1)
        tcp_1 = g(wan, "reno", flows=1)
        claim("reno aggregate / highspeed single flow", f"flows={n_hi}", "~", 1.0,
              tcp_hi / hs_1 if tcp_hi and hs_1 else None,
              "§V, Fig. 6: about ten parallel TCP flows come close to HSTCP and to the link's capacity", cc="reno")
        claim("reno aggregate(N max) / reno single flow", f"flows={n_hi}", ">", 1.0,
              tcp_hi / tcp_1 if tcp_hi and tcp_1 else None,
              "§VI: several TCP connections together take more of the link than one", cc="reno")
    schema = {"part": pl.String, "metric": pl.String, "cc": pl.String, "point": pl.String, "relation": pl.String,
              "value": pl.Float64, "ours": pl.Float64, "source": pl.String}
    return pl.DataFrame(out, schema=schema)


def run(
    scale: str = "quick",
    seed: int = 1,
    progress: Progress | None = None,
    *,
    parts: tuple[str, ...] = PARTS,
    workers: int | None = None,
) -> ExperimentResult:
    """Runs the chosen ``parts`` (default both) on ``workers`` local cores."""
    check_scale(scale)
    check_parts(parts, PARTS)
    jobs = _jobs(scale, seed, parts)
    t0 = time.perf_counter()
    outcomes = run_jobs(jobs, workers=workers, progress=progress, label=NAME)
    rows = _rows(scale, outcomes)
    if progress:
        pkts = int(rows["data_packets"].sum())
        progress(f"{NAME}: {len(jobs)} runs, {pkts / 1e6:.1f} M data packets in {time.perf_counter() - t0:.1f} s wall")
    return ExperimentResult(experiment=NAME, scale=scale, seed=seed, rows=rows, paper=_paper_frame(rows),
                            params={"parts": list(parts), **POINTS[scale]})


def figures(result: ExperimentResult, out_dir: str | Path) -> list[Path]:
    """Like the paper's Figures 3–5 (goodput against loss, one per latency,
    TCP and HSTCP, full speed and capped, with the response functions'
    prediction dashed) and Figure 6 (aggregate goodput against N)."""
    import numpy as np

    from .. import plots

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = result.rows
    paths = []
    single = rows.filter(pl.col("part") == "single")
    label = {"reno": "TCP", "highspeed": "HSTCP"}
    for lat in sorted(set(single["latency_ms"].to_list())):
        f = single.filter(pl.col("latency_ms") == lat)
        series, ref = {}, {}
        for cc in CC:
            for capped in (False, True):
                g = f.filter((pl.col("cc") == cc) & (pl.col("sender_cap_bps").is_not_null() == capped)).sort("loss")
                if g.height == 0:
                    continue
                name = f"{label[cc]}" + (" (sender capped at 700 Mb/s)" if capped else "")
                series[name] = (g["loss"].to_numpy(), g["goodput_bps"].to_numpy() / 1e6,
                                g["ci95_bps"].fill_null(0.0).fill_nan(0.0).to_numpy() / 1e6)
                if not capped:
                    ref[f"{label[cc]} response function"] = (g["loss"].to_numpy(), g["model_goodput_bps"].to_numpy() / 1e6)
        # Named by what it shows, the same at every scale (a figure number
        # counted over the latencies run would change meaning with the scale).
        p = out / f"goodput_vs_loss_latency_{lat:g}ms.png"
        plots.errorbar_figure(series, title=f"Goodput, latency {lat:g} ms ({result.scale} scale)",
                              xlabel="loss probability", ylabel="goodput (Mb/s), mean ± 95 % CI", path=p,
                              logx=True, reference=ref)
        paths.append(p)
    wan = rows.filter(pl.col("part") == "wan")
    if wan.height:
        series = {}
        for cc in CC:
            g = wan.filter(pl.col("cc") == cc).sort("flows")
            series[label[cc]] = (g["flows"].to_numpy(), g["goodput_bps"].to_numpy() / 1e6,
                                 g["ci95_bps"].fill_null(0.0).fill_nan(0.0).to_numpy() / 1e6)
        n = np.array(sorted(set(wan["flows"].to_list())), dtype=float)
        p = out / "wan_goodput_vs_flows.png"
        plots.errorbar_figure(series, title=f"GIGA-like WAN: aggregate goodput ({result.scale} scale)",
                              xlabel="parallel flows", ylabel="aggregate goodput (Mb/s), mean ± 95 % CI", path=p,
                              reference={"link payload rate": (n, np.full_like(n, LINK_BPS * MSS_BYTES / (MSS_BYTES + HEADER_BYTES) / 1e6))})
        paths.append(p)
    return paths


def _m(v: Any) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v / 1e6:.1f}"


def report(result: ExperimentResult) -> str:
    """Plain-text tables (Mb/s, mean ± 95 % CI; the response function's
    goodput in brackets) and the paper's claims beside ours."""
    rows = result.rows
    lines = [cite(NAME), f"  {citation(NAME)}", f"scale {result.scale}, run seed {result.seed}; goodput in Mb/s over the whole run, "
             "mean ± 95 % CI, or mean [the two samples] from 2 (steady: after the warm-up) [model]"]
    single = rows.filter(pl.col("part") == "single")
    for capped in (False, True):
        f = single.filter(pl.col("sender_cap_bps").is_not_null() == capped)
        if f.height == 0:
            continue
        lines.append("")
        lines.append("[single] " + ("sender capped at 700 Mb/s" if capped else "full link speed"))
        losses = sorted(set(f["loss"].to_list()))
        table = [["latency", "cc", *(f"p={p:g}" for p in losses)]]
        for lat in sorted(set(f["latency_ms"].to_list())):
            for cc in CC:
                cells = [f"{lat:g} ms", cc]
                for p in losses:
                    r = f.filter((pl.col("latency_ms") == lat) & (pl.col("cc") == cc) & (pl.col("loss") == p))
                    if r.height == 0:
                        cells.append("-")
                        continue
                    cells.append(f"{interval(r['goodput_bps'][0], r['ci95_bps'][0], r['samples'][0], LEVEL, 1e-6)} "
                                 f"(steady {_m(r['steady_goodput_bps'][0])}) [{_m(r['model_goodput_bps'][0])}]")
                table.append(cells)
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table]
    wan = rows.filter(pl.col("part") == "wan")
    if wan.height:
        lines.append("")
        lines.append(f"[wan] aggregate goodput, RTT {wan['rtt_ms'][0]:.1f} ms")
        ns = sorted(set(wan["flows"].to_list()))
        table = [["cc", *(f"N={n}" for n in ns)]]
        for cc in CC:
            cells = [cc]
            for n in ns:
                r = wan.filter((pl.col("cc") == cc) & (pl.col("flows") == n))
                cells.append(interval(r["goodput_bps"][0], r["ci95_bps"][0], r["samples"][0], LEVEL, 1e-6)
                             if r.height else "-")
            table.append(cells)
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table]
    lines.append("")
    lines += claims_lines(result.paper)
    return "\n".join(lines)
