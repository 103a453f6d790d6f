"""E4 ``rafle``: short/long flow differentiation on an FTP router (Mussi and
Ribeiro, "RAFLE: Uma Proposta para Diferenciação de Fluxos sem Manutenção
de Estados em Roteadores", UFES; a paper in the Brazilian Computer
Society's proceedings format, c. 2012 — our copy names no venue).

The paper's testbed: an FTP client and an FTP server joined by a Click
router on PCs; the router limits the client-bound direction to 1 Mb/s "by
dropping packets" (§3.1), while §5 says its queues never dropped; neither
gives the queues' capacity. Every task fetches one file of a
564-file base (``dumbbell.experiments.filebase``). The router runs one of: a plain FIFO
(drop-tail), or two queues (short, long) fed by a classifier — ``ideal``
(the application's tag), RuN2C (16 KB) or RAFLE (N = 40) — and served by
strict priority (``prio``) or packet round robin (``rr``). Three
realizations of everything.

As dumbbell runs it (``network``):

- hosts ``client`` and ``server``, router ``router``; server–router
  100 Mb/s (FastEthernet), router–client 1 Mb/s, 50 µs per link. dumbbell's
  links have one rate for both directions, so the client → server direction
  is 1 Mb/s too; it carries only ACKs and FTP requests (under 2 % of its
  capacity), so nothing queues there. Each of the router's queues (the
  FIFO, or each class queue) holds :data:`ROUTER_BUFFER_PKTS` = 1000
  packets, Click's default Queue capacity, and drops arrivals when full
  (the paper's first statement); the hosts' queues never fill. Part
  ``buffer`` reruns the simultaneous transfer at 250, 500, 1000 and 2000
  packets and lossless (the paper's second statement; the experiment
  checks that those runs drop nothing).
- Tasks (``dumbbell.scenario.workloads``): the FTP dialogue (greeting, USER, PASS,
  TYPE, PORT, RETR, each a small request answered by a small reply), then
  the data connection from the server (active mode). Completion time runs
  from the task's start to the file's last byte at the client.
- Hosts: Linux 3.2 (``TcpOptions(profile="linux-3.2")``, :data:`TCP_PROFILE`):
  the paper names no kernel and its newest references are from 2012, when
  3.2 was the distributions' long-term kernel; so Cubic, initial window 10,
  MSS 1448, SACK, delayed ACKs, 1 s initial RTO, no TLP, no RACK, no TSQ,
  the reordering adaptation up to 127, growth per ACK; and a 3 MiB receive
  window. Linux's receive-buffer auto-tuning
  (not modelled) raises the buffer to about twice what the application read
  in the last round trip; behind a deep FIFO a connection delivers its
  whole window every round trip, so the advertised window follows the
  sender's up to the ceiling, 3/4 of the 4 MiB ``tcp_rmem`` maximum of the
  paper's time (kernels 3.x). The paper limited the link to 1 Mb/s for the
  same reason: so that the receive window would never be what limits.
- Ground truth: a task is short if its file has at most 16 KiB (the
  paper's 16 KB); the control connection of a long task is long.

Parts (``PARTS``):

- ``simultaneous`` (§5): all 564 tasks at t = 0, in an order drawn per
  realization (the order in which the paper's client threads would have
  started them). Rows per 100 KB bin (``bin_kb`` = ``0-100``, ...): mean
  and σ of the completion time (Table 2), the gain over drop-tail,
  mean_droptail / mean − 1 and the same for σ (Table 3; the paper's gains
  are that ratio of its Table 2 values), and the exact fair-share
  (processor-sharing) reference of ``dumbbell.experiments.fairshare``: ``ps_fct_s`` on
  the real sizes, ``ps_mid_fct_s`` with every file at its bin's midpoint,
  the paper's own method, which gives its "Padrão" column exactly.
- ``closed-loop`` (§6): 300 tasks active at all times, a random file of the
  base started whenever one completes, 4000 s; ``files_served`` per bin in
  [1000 s, 4000 s] and the first bin's gain over drop-tail (Table 4); the
  ``all`` rows add what Table 4's accounts check (tasks transferring, the
  dialogue's duration, the file data the slots hold, retransmissions;
  ``rafle.closed_loop``).
- ``memory`` (§4.1): the simultaneous transfer with RAFLE at N = 10, 30, 40,
  50, 60, 100 under both schedulers; PA_c, PE_c, PA_l, PE_l and PA_c·PA_l
  of the router's client-bound port, every packet counted (Table 1).
- ``buffer``: the simultaneous transfer (same files, order and seeds)
  with every router queue holding 250, 500, 1000 (the simultaneous part's
  own runs, made once) and 2000 packets, and lossless, for every router:
  the Table 2 bins, the first-bin gains over drop-tail at the same buffer,
  Figure 5's early peak (``fig5_peak``) and the packets dropped. Rows carry
  ``buffer_pkts`` (null for lossless; every other part's rows carry the
  buffer they ran with). Each claim about the simultaneous transfer prints
  ours under every buffer (its ``sensitivity``).
- ``memory-sensitivity``: the memory part's RAFLE at each N with one
  setting changed (``setting``): the scheduler the memory part does not
  run, hosts of ``linux-6.12`` (RACK, TLP), a lossless router
  (``rafle.sensitivity``); each Table 1 claim prints ours under each.
- ``closed-loop-sensitivity``: the closed loop (same draws) with every
  router queue at 250, 500 or 2000 packets or lossless, or hosts of
  ``linux-6.12``; rows carry ``setting``; each Table 4 claim prints its
  gain under each.
- ``era``: the simultaneous transfer with the hosts of another kernel era
  (``rafle.era``); each claim it moves prints ours under each era.
- ``web`` (beyond the paper, its future work): Poisson arrivals of
  web-search flows (DCTCP's distribution, ``dumbbell.scenario.workloads.load_cdf``),
  no FTP dialogue, on a two-hop path at 1 Gb/s: ``server1`` — ``r1`` —
  ``r2`` — ``client``, with ``server2`` on ``r2``; 50 % of the bottleneck
  rate from ``server1`` across both hops and 20 % more from ``server2``, so
  the last hop runs at 70 % and the first at 50 %; both routers' ports
  toward the client classify. Rows: mean and 99th percentile of the short
  flows' completion time (``bin_kb`` = ``0-16``) and the mean over all.
  Its routers are lossless (not Click; the experiment checks it).

Means are over realizations with Student-t 95 % intervals (``*_ci95``).
The ``paper`` table lists Tables 1–4 and the claims about Figure 5 with
our value beside each.

Where dumbbell and the paper differ, and why: ``docs/experiments/rafle.md``
has every claim of the paper beside ours (paper scale, seed 1) with its
verdict, and for each difference the traced cause with the command that
prints it (``tools/rafle_trace.py``). In short: the router's buffer,
which the paper does not give, moves the first bin most (part ``buffer``);
the bins above it hold a few files each, and one file whose window locks
at one or two packets in the full FIFO carries a bin (``rafle.spread``);
RAFLE reorders flows (one flow's packets in both queues), which under
round robin costs retransmissions and raises Table 1's PA_l (part
``memory-sensitivity``); in the closed loop the FTP dialogue crosses the
router's FIFO six times under drop-tail, while routers that prioritize it
let all 300 tasks transfer at once and pile up large files (measured on
the run; part ``closed-loop-sensitivity`` shows what the router's buffer
and the hosts' era move).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .. import fairshare, filebase
from ...errors import SimulationError
from ...scenario.models import DropTail, Link, Node, Scenario, TcpOptions, Workload
from ...scenario.workloads import AllAtOnce, ClosedLoop, Control, Files, Poisson, load_cdf
from ..claims import claims_lines
from .. import ExperimentResult, Progress, check_parts, check_scale
from ..base import head, output_dir, save_figure, text_table
from ..repeat import Job, Outcome, by_point, mean_ci, round_seed, run_jobs
from . import NAME, PARTS
from .sensitivity import ERA_ALT, buffer_label, buffer_sensitivity as _buffer_sensitivity, \
    memory_arm_aliases, memory_arms, memory_sensitivity, memory_sensitivity_lines
from .era import add_era_sensitivity, era_aliases, era_jobs, era_lines, era_rows
from .spread import leave_one_out, leave_one_out_claim, mean_ranges
from .tasks import bin_label, tasks_of as _tasks
from .closed_loop import CLAIM_SCHEMA as _LOOP_CLAIM_SCHEMA, MECHANISM as _LOOP_MECHANISM, \
    SENSITIVITY_PART as _LOOP_SENS, closed_loop_lines, closed_loop_rows, loop_arms, loop_claim_fields, \
    loop_sensitivity

__all__ = ["NAME", "PAPER", "COMBOS", "PARTS", "POINTS", "PAPER_TABLES", "network", "web_network", "run",
           "figures", "report"]

PAPER = ('Mussi and Ribeiro, "RAFLE: Uma Proposta para Diferenciação de Fluxos sem Manutenção de Estados '
         'em Roteadores"')
LEVEL = 0.95

LINK_BPS = 1_000_000
LAN_BPS = 100_000_000
DELAY_S = 50e-6
ROUTER_BUFFER_PKTS = 1000
"""Each queue of the router holds this many packets: Click's default Queue
capacity (``Queue``/``SimpleQueue``: "The default for CAPACITY is 1000"),
what a Click configuration that names no capacity gets. The paper gives
none (§3.1: the router limits the rate by dropping packets; §5: the
queues never dropped), so the router is Click's default, not a number
fitted on the paper's; part ``buffer`` shows what the choice moves."""
LOSSLESS_PKTS = 1_000_000
"""A queue that never fills: the hosts' interface queues (a Linux host's
qdisc drop is reported to its TCP, which keeps the segment), the router in
part ``buffer``'s lossless arm and the ``web`` part's routers."""
BUFFERS: tuple[int | None, ...] = (250, 500, 1000, 2000, None)
"""Part ``buffer``: the router buffers (packets per queue; None: lossless)."""
RWND_BYTES = 3 * 1024 * 1024
TCP_PROFILE = "linux-3.2"
"""The hosts' kernel era (``tcp_profiles``): the paper's newest references
are from 2012, when 3.2 was the distributions' long-term kernel."""
RAFLE_N = 40
PAPER_REALIZATIONS = 3
"""§3: "Todos os resultados apresentados serão médias de três realizações"."""
BIN_BYTES = filebase.BIN_BYTES
SHORT_BYTES = filebase.SHORT_MAX_BYTES

COMBOS: tuple[tuple[str, str], ...] = (
    ("droptail", "fifo"),
    ("ideal", "prio"),
    ("ideal", "rr"),
    ("run2c", "prio"),
    ("run2c", "rr"),
    ("rafle", "prio"),
    ("rafle", "rr"),
)
"""(classifier, scheduler); ``droptail`` is one FIFO."""


POINTS: dict[str, dict[str, Any]] = {
    "paper": {
        "realizations": 3,
        "simultaneous": {"duration_s": 10_000.0},
        "closed-loop": {"concurrency": 300, "duration_s": 4000.0, "window_s": (1000.0, 4000.0)},
        "memory": {"n": (10, 30, 40, 50, 60, 100), "schedulers": ("prio", "rr")},
        "buffer": {"buffers": BUFFERS},
        "web": {"rate_bps": 1_000_000_000, "loads": (0.5, 0.2), "arrivals_s": 20.0, "drain_s": 5.0},
    },
    "quick": {
        "realizations": 1,
        "simultaneous": {"duration_s": 10_000.0},
        "closed-loop": {"concurrency": 300, "duration_s": 1500.0, "window_s": (500.0, 1500.0)},
        "memory": {"n": (10, 40, 100), "schedulers": ("rr",)},
        "buffer": {"buffers": BUFFERS},
        "web": {"rate_bps": 1_000_000_000, "loads": (0.5, 0.2), "arrivals_s": 2.0, "drain_s": 2.0},
    },
}

# ---------------------------------------------------------------- the paper's numbers

_T2_BINS = ("0-100", "100-200", "200-300", "300-400", "400-500")
PAPER_TABLES: dict[str, Any] = {
    # Table 1: N -> (PA_c, PE_c, PA_l, PE_l, PA_c·PA_l).
    "table1": {
        10: (0.937, 0.063, 0.140, 0.860, 0.131),
        30: (0.976, 0.024, 0.096, 0.904, 0.094),
        40: (0.979, 0.021, 0.139, 0.861, 0.136),
        50: (0.983, 0.017, 0.094, 0.906, 0.092),
        60: (0.986, 0.014, 0.079, 0.921, 0.078),
        100: (0.989, 0.011, 0.087, 0.913, 0.086),
    },
    # Table 2: (classifier, scheduler) -> per bin (mean s, σ s); "ps" is the
    # fair-share column ("Padrão (T_i)").
    "table2": {
        ("ps", ""): ((225.600, 0.0), (326.400, 0.0), (410.400, 0.0), (488.000, 0.0), (562.400, 0.0)),
        ("droptail", "fifo"): ((168.267, 304.951), (242.231, 117.352), (320.642, 126.085), (453.563, 169.347),
                               (450.703, 182.594)),
        ("rafle", "prio"): ((128.028, 101.626), (226.004, 135.493), (293.833, 154.693), (423.693, 201.833),
                            (532.777, 288.520)),
        ("rafle", "rr"): ((137.564, 98.583), (258.138, 120.287), (335.265, 127.435), (530.535, 121.696),
                          (404.530, 182.580)),
        ("run2c", "prio"): ((157.072, 107.247), (281.258, 127.090), (411.895, 139.599), (509.720, 145.537),
                            (500.218, 192.643)),
        ("run2c", "rr"): ((146.344, 107.868), (277.436, 130.317), (370.537, 149.912), (487.665, 133.801),
                          (440.305, 226.393)),
    },
    # Table 3: first-bin gains over drop-tail, percent: (mean, σ). As
    # printed; RAFLE's two σ entries are swapped against Table 2
    # (304.951/98.583 − 1 = 209.33 % is RR's, printed under priority).
    "table3": {
        ("ideal", "prio"): (44.69, 198.44),
        ("rafle", "prio"): (31.43, 209.33),
        ("run2c", "prio"): (7.13, 184.34),
        ("ideal", "rr"): (21.87, 233.27),
        ("rafle", "rr"): (22.32, 200.07),
        ("run2c", "rr"): (14.98, 182.70),
    },
    # Table 4: closed loop, first-bin files served, gain over drop-tail, percent.
    "table4": {
        ("ideal", "prio"): -6.83, ("ideal", "rr"): 13.57,
        ("run2c", "prio"): 5.57, ("run2c", "rr"): 11.45,
        ("rafle", "prio"): -2.27, ("rafle", "rr"): 14.15,
    },
}


# ---------------------------------------------------------------- scenarios


def _limit(buffer_pkts: int | None) -> int:
    return LOSSLESS_PKTS if buffer_pkts is None else buffer_pkts


def _bottleneck(classifier: str, scheduler: str, rafle_n: int = RAFLE_N,
                buffer_pkts: int | None = LOSSLESS_PKTS) -> DropTail:
    """The router's client-bound port: one FIFO, or a classifier and two
    queues of ``buffer_pkts`` each (Click's two Queue elements)."""
    if classifier == "droptail":
        return DropTail(limit_pkts=_limit(buffer_pkts))
    cls: Any = {"kind": "rafle", "n": rafle_n} if classifier == "rafle" else classifier
    return DropTail(limit_pkts=_limit(buffer_pkts), classifier=cls, scheduler=scheduler)


def _tcp(profile: str = TCP_PROFILE) -> TcpOptions:
    return TcpOptions(rwnd_bytes=RWND_BYTES, profile=profile)


def network(classifier: str, scheduler: str, *, rafle_n: int = RAFLE_N, duration_s: float = 10_000.0,
            buffer_pkts: int | None = ROUTER_BUFFER_PKTS) -> Scenario:
    """The FTP testbed with the router's client-bound port configured as
    ``classifier`` (``droptail``, ``ideal``, ``run2c``, ``rafle``) and
    ``scheduler`` (``fifo``, ``prio``, ``rr``); no workload yet. Each of
    the router's queues holds ``buffer_pkts`` packets and drops arrivals
    when full (None: lossless); the hosts' queues never fill."""
    deep = DropTail(limit_pkts=LOSSLESS_PKTS)
    router = DropTail(limit_pkts=_limit(buffer_pkts))
    return Scenario(
        name=f"e4-{classifier}-{scheduler}",
        duration_s=duration_s,
        nodes=[Node(name="client"), Node(name="router", kind="switch"), Node(name="server")],
        links=[
            Link(a="server", b="router", rate_bps=LAN_BPS, delay_s=DELAY_S, queue_ab=deep, queue_ba=router),
            Link(a="router", b="client", rate_bps=LINK_BPS, delay_s=DELAY_S,
                 queue_ab=_bottleneck(classifier, scheduler, rafle_n, buffer_pkts), queue_ba=deep),
        ],
    )


def _ftp(arrivals: Any, files: list[int], profile: str = TCP_PROFILE, **kw: Any) -> Workload:
    return Workload(name="ftp", clients=["client"], servers=["server"], sizes=Files(bytes=files),
                    arrivals=arrivals, control=Control(), cc="cubic", tcp=_tcp(profile), **kw)


def simultaneous_scenario(classifier: str, scheduler: str, files: list[int], *, rafle_n: int = RAFLE_N,
                          duration_s: float = 10_000.0, buffer_pkts: int | None = ROUTER_BUFFER_PKTS,
                          profile: str = TCP_PROFILE) -> Scenario:
    """Every file of ``files`` fetched at t = 0, in that order, by hosts of
    kernel era ``profile``."""
    s = network(classifier, scheduler, rafle_n=rafle_n, duration_s=duration_s, buffer_pkts=buffer_pkts)
    s.add_workload(_ftp(AllAtOnce(), files, profile))
    return s.validated()


def closed_loop_scenario(classifier: str, scheduler: str, files: list[int], concurrency: int,
                         duration_s: float, buffer_pkts: int | None = ROUTER_BUFFER_PKTS,
                         profile: str = TCP_PROFILE) -> Scenario:
    """``concurrency`` tasks active at all times, random files of the base,
    hosts of kernel era ``profile``."""
    s = network(classifier, scheduler, duration_s=duration_s, buffer_pkts=buffer_pkts)
    s.add_workload(_ftp(ClosedLoop(concurrency=concurrency), files, profile))
    return s.validated()


def web_network(classifier: str, scheduler: str, rate_bps: int, loads: tuple[float, float], arrivals_s: float,
                drain_s: float) -> Scenario:
    """Part ``web``: server1 — r1 — r2 — client at ``rate_bps``, server2 on
    r2; web-search flows from each server at ``loads`` of the rate (of file
    bytes), Poisson, for ``arrivals_s``; both routers' client-bound ports
    classify."""
    deep = DropTail(limit_pkts=LOSSLESS_PKTS)
    fast = 10 * rate_bps
    s = Scenario(
        name=f"e4-web-{classifier}-{scheduler}",
        duration_s=arrivals_s + drain_s,
        nodes=[Node(name="server1"), Node(name="server2"), Node(name="r1", kind="switch"),
               Node(name="r2", kind="switch"), Node(name="client")],
        links=[
            Link(a="server1", b="r1", rate_bps=fast, delay_s=5e-6, queue_ab=deep, queue_ba=deep),
            Link(a="server2", b="r2", rate_bps=fast, delay_s=5e-6, queue_ab=deep, queue_ba=deep),
            Link(a="r1", b="r2", rate_bps=rate_bps, delay_s=10e-6, queue_ab=_bottleneck(classifier, scheduler),
                 queue_ba=deep),
            Link(a="r2", b="client", rate_bps=rate_bps, delay_s=10e-6, queue_ab=_bottleneck(classifier, scheduler),
                 queue_ba=deep),
        ],
    )
    cdf = load_cdf("websearch")
    for i, load in enumerate(loads, start=1):
        rate = load * rate_bps / (8 * cdf.mean_bytes())
        s.add_workload(Workload(name=f"web{i}", clients=["client"], servers=[f"server{i}"], sizes=cdf,
                                arrivals=Poisson(rate_per_s=rate), stop_s=arrivals_s, cc="cubic", tcp=_tcp()))
    return s.validated()


def _order(files: list[int], seed: int) -> list[int]:
    """The base in the start order of one realization."""
    out = list(files)
    random.Random(seed).shuffle(out)
    return out


def _memory_is_simultaneous(n: int, sch: str, parts: tuple[str, ...]) -> bool:
    """The memory part's RAFLE at the simultaneous part's N is the very same
    run (same files, order and seed): it is made once."""
    return n == RAFLE_N and "simultaneous" in parts and ("rafle", sch) in COMBOS


def _buffer_is_simultaneous(buffer_pkts: int | None, parts: tuple[str, ...]) -> bool:
    """The buffer part at the default router buffer is the simultaneous
    part's very run: made once."""
    return buffer_pkts == ROUTER_BUFFER_PKTS and "simultaneous" in parts


def _with_memory_aliases(outcomes: list[Outcome], scale: str, parts: tuple[str, ...]) -> list[Outcome]:
    """``outcomes`` plus, for the memory part, the simultaneous part's RAFLE
    runs at N = RAFLE_N under their memory keys, and for the buffer part
    the simultaneous part's runs under their buffer keys."""
    extra = []
    if "memory" in parts:
        p = POINTS[scale]["memory"]
        extra += [Outcome(("memory", "rafle", o.key[2], RAFLE_N, o.key[4]), o.job, o.record) for o in outcomes
                  if o.key[0] == "simultaneous" and o.key[1] == "rafle" and RAFLE_N in p["n"]
                  and o.key[2] in p["schedulers"] and _memory_is_simultaneous(RAFLE_N, o.key[2], parts)]
    if "buffer" in parts and _buffer_is_simultaneous(ROUTER_BUFFER_PKTS, parts) \
            and ROUTER_BUFFER_PKTS in POINTS[scale]["buffer"]["buffers"]:
        extra += [Outcome(("buffer", o.key[1], o.key[2], ROUTER_BUFFER_PKTS, o.key[4]), o.job, o.record)
                  for o in outcomes if o.key[0] == "simultaneous"]
    if "memory-sensitivity" in parts:
        extra += [Outcome(("memory-sensitivity", label, sch, RAFLE_N, o.key[4]), o.job, o.record) for o in outcomes
                  for label, sch, buf in memory_arm_aliases(POINTS[scale], parts)
                  if o.key[:4] == ((("simultaneous", "rafle", sch, None) if buf else ("buffer", "rafle", sch, None)))]
    return outcomes + extra + era_aliases(outcomes, POINTS[scale], parts)



def _jobs(scale: str, seed: int, parts: tuple[str, ...]) -> list[Job]:
    cfg = POINTS[scale]
    base = filebase.load()
    jobs: list[Job] = []
    for r in range(cfg["realizations"]):
        # Common random numbers: every router sees the same traffic in a
        # realization (the same start order, the same closed-loop draws).
        s_sim, s_loop, s_web = (round_seed(seed, k * 1000 + r) for k in (1, 2, 3))
        files = _order(base, s_sim)
        if "simultaneous" in parts:
            d = cfg["simultaneous"]["duration_s"]
            for cls, sch in COMBOS:
                jobs.append(Job(("simultaneous", cls, sch, None, r), simultaneous_scenario(cls, sch, files, duration_s=d),
                                s_sim))
        if "closed-loop" in parts:
            p = cfg["closed-loop"]
            for cls, sch in COMBOS:
                jobs.append(Job(("closed-loop", cls, sch, None, r),
                                closed_loop_scenario(cls, sch, base, p["concurrency"], p["duration_s"]), s_loop))
        if _LOOP_SENS in parts:
            p = cfg["closed-loop"]
            for setting, buf, era in loop_arms(ROUTER_BUFFER_PKTS, TCP_PROFILE):
                for cls, sch in COMBOS:
                    jobs.append(Job((_LOOP_SENS, cls, sch, setting, r),
                                    closed_loop_scenario(cls, sch, base, p["concurrency"], p["duration_s"],
                                                         buffer_pkts=buf, profile=era), s_loop))
        if "memory" in parts:
            p = cfg["memory"]
            for n in p["n"]:
                for sch in p["schedulers"]:
                    if _memory_is_simultaneous(n, sch, parts):
                        continue  # the same run as the simultaneous part's RAFLE: made once (run() reuses it)
                    jobs.append(Job(("memory", "rafle", sch, n, r),
                                    simultaneous_scenario("rafle", sch, files, rafle_n=n,
                                                          duration_s=cfg["simultaneous"]["duration_s"]), s_sim))
        if "buffer" in parts:
            d = cfg["simultaneous"]["duration_s"]
            for buf in cfg["buffer"]["buffers"]:
                if _buffer_is_simultaneous(buf, parts):
                    continue  # the simultaneous part's run (run() reuses it)
                for cls, sch in COMBOS:
                    jobs.append(Job(("buffer", cls, sch, buf, r),
                                    simultaneous_scenario(cls, sch, files, duration_s=d, buffer_pkts=buf), s_sim))
        if "memory-sensitivity" in parts:
            made = {(label, sch) for label, sch, _ in memory_arm_aliases(cfg, parts)}
            for arm, sch, label in memory_arms(cfg["memory"]["schedulers"]):
                for n in cfg["memory"]["n"]:
                    if n == RAFLE_N and (label, sch) in made:
                        continue  # another part's run (run() reuses it)
                    sc = simultaneous_scenario("rafle", sch, files, rafle_n=n, duration_s=cfg["simultaneous"]["duration_s"],
                                               buffer_pkts=None if arm == "router" else ROUTER_BUFFER_PKTS,
                                               profile=ERA_ALT if arm == "era" else TCP_PROFILE)
                    jobs.append(Job(("memory-sensitivity", label, sch, n, r), sc, s_sim))
        jobs += era_jobs(scale, cfg, parts, COMBOS, r, s_sim, lambda c, sch, pr: simultaneous_scenario(
            c, sch, files, duration_s=cfg["simultaneous"]["duration_s"], profile=pr))
        if "web" in parts:
            p = cfg["web"]
            for cls, sch in COMBOS:
                jobs.append(Job(("web", cls, sch, None, r),
                                web_network(cls, sch, p["rate_bps"], p["loads"], p["arrivals_s"], p["drain_s"]), s_web))
    return jobs


# ---------------------------------------------------------------- measurements


def _lossless(key: tuple) -> bool:
    """The run's router never drops: the web part, the buffer part's and
    the closed loop's lossless arms."""
    return key[0] == "web" or (key[0] == "buffer" and key[3] is None) or "router lossless" in key[1:4]


def _check_no_drops(outcomes) -> None:
    dropped = [(o.key, o.summary["packets_dropped"]) for o in outcomes
               if _lossless(o.key) and o.summary["packets_dropped"]]
    if dropped:
        raise SimulationError(f"E4's lossless runs dropped packets: {dropped[:5]}")


def _empty_row(part: str, cls: str, sch: str) -> dict[str, Any]:
    return {c: None for c in _SCHEMA} | {"part": part, "classifier": cls, "scheduler": sch}


def _simultaneous_rows(outcomes, ps: dict[str, Any]) -> list[dict[str, Any]]:
    """Per combo and bin: mean of the realizations' per-bin mean and σ."""
    groups = {k[1:3]: v for k, v in by_point([o for o in outcomes if o.key[0] == "simultaneous"]).items()}
    stats: dict[tuple[str, str], dict[int, dict[str, list[float]]]] = {}
    rows = []
    for combo, outs in groups.items():
        per_bin: dict[int, dict[str, list[float]]] = {}
        for o in outs:
            t = _tasks(o)
            if t.filter(pl.col("fct_s").is_null()).height:
                raise SimulationError(f"run {o.key!r}: tasks left unfinished; lengthen the run")
            for (b,), g in t.group_by(["bin"]):
                d = per_bin.setdefault(int(b), {"mean": [], "std": [], "n": [], "loo": []})
                d["loo"].append(leave_one_out(g["fct_s"].to_numpy()))
                d["mean"].append(float(g["fct_s"].mean()))
                d["std"].append(float(g["fct_s"].std(ddof=1)) if g.height > 1 else 0.0)
                d["n"].append(g.height)
        stats[combo] = per_bin
        for b in sorted(per_bin):
            d = per_bin[b]
            mean, half, n = mean_ci(d["mean"], LEVEL)
            loo = dict(zip(("fct_loo_lo_s", "fct_loo_hi_s", "std_loo_lo_s", "std_loo_hi_s"), mean_ranges(d["loo"])))
            row = _empty_row("simultaneous", *combo) | loo | {
                "bin_kb": bin_label(b), "files": int(np.mean(d["n"])), "fct_mean_s": mean, "fct_ci95_s": half,
                "fct_std_s": float(np.mean(d["std"])), "realizations": n,
                "ps_fct_s": ps["bin_mean"].get(b), "ps_mid_fct_s": ps["bin_mid"].get(b),
            }
            if combo[0] == "rafle":
                row["n"] = RAFLE_N
            rows.append(row)
        # One summary row per combo: every task.
        all_fct = [float(_tasks(o)["fct_s"].mean()) for o in outs]
        mk = [float(_tasks(o)["done_s"].max()) for o in outs]
        def total(col: str) -> float:
            return float(np.mean([float(o.table("tasks")[col].sum()) for o in outs]))

        drops = float(np.mean([float(o.summary["packets_dropped"]) for o in outs]))

        mean, half, n = mean_ci(all_fct, LEVEL)
        rows.append(_empty_row("simultaneous", *combo) | {
            "bin_kb": "all", "files": outs[0].table("tasks").height, "fct_mean_s": mean, "fct_ci95_s": half,
            "makespan_s": float(np.mean(mk)), "retransmits": total("retransmits"),
            "timeouts": total("timeouts"), "out_of_order": total("out_of_order"), "drops": drops,
            "realizations": n, "ps_fct_s": ps["all_mean"], "n": RAFLE_N if combo[0] == "rafle" else None,
        })
    # Gains over drop-tail, bin by bin (Table 3 uses the first).
    dt = stats.get(("droptail", "fifo"), {})
    for row in rows:
        if row["bin_kb"] == "all" or row["classifier"] == "droptail":
            continue
        b = int(row["bin_kb"].split("-")[0]) * 1000 // BIN_BYTES
        if b in dt:
            dmean, dstd = float(np.mean(dt[b]["mean"])), float(np.mean(dt[b]["std"]))
            row["gain"] = dmean / row["fct_mean_s"] - 1 if row["fct_mean_s"] else None
            row["gain_std"] = dstd / row["fct_std_s"] - 1 if row["fct_std_s"] else None
            # Paired per realization (same traffic): the gain's interval.
            mine = stats[(row["classifier"], row["scheduler"])][b]["mean"]
            if len(mine) == len(dt[b]["mean"]):
                _, row["gain_ci95"], _ = mean_ci([x / y - 1 for x, y in zip(dt[b]["mean"], mine)], LEVEL)
    return rows


def _buffer_rows(outcomes, ps: dict[str, Any]) -> list[dict[str, Any]]:
    """Part ``buffer``: the simultaneous transfer's Table 2 bins, first-bin
    gains (over drop-tail at the same buffer) and Figure 5's early peak
    (``fig5_peak``, on the ``all`` row) under each router buffer."""
    by_buf: dict[int | None, list[Outcome]] = {}
    for o in outcomes:
        if o.key[0] == "buffer":
            by_buf.setdefault(o.key[3], []).append(
                Outcome(("simultaneous", o.key[1], o.key[2], None, o.key[4]), o.job, o.record))
    keep = set(_T2_BINS) | {"all"}
    rows = []
    for buf in sorted(by_buf, key=lambda b: BUFFERS.index(b) if b in BUFFERS else len(BUFFERS)):
        outs = by_buf[buf]
        first = {(o.key[1], o.key[2]): np.sort(_tasks(o)["done_s"].drop_nulls().to_numpy())
                 for o in outs if o.key[4] == 0}
        peak = _finished_ratio(first)
        for row in _simultaneous_rows(outs, ps):
            if row["bin_kb"] not in keep:
                continue
            row |= {"part": "buffer", "buffer_pkts": buf}
            if row["bin_kb"] == "all":
                row["fig5_peak"] = peak.get((row["classifier"], row["scheduler"]))
            rows.append(row)
    return rows


def _memory_rows(outcomes, part: str = "memory") -> list[dict[str, Any]]:
    """Table 1 per N and scheduler; for part ``memory-sensitivity`` the
    key's second element is the arm's ``setting``."""
    rows = []
    for (_, cls, sch, n), outs in by_point([o for o in outcomes if o.key[0] == part]).items():
        vals = {k: [] for k in ("pa_c", "pe_c", "pa_l", "pe_l", "index")}
        for o in outs:
            c = o.table("classification").filter((pl.col("node") == "router") & (pl.col("peer") == "client"))
            for k in vals:
                vals[k].append(float(c[k][0]))
        row = _empty_row(part, "rafle", sch) | {"n": n, "realizations": len(outs),
                                                 "setting": cls if part != "memory" else None}
        for k, v in vals.items():
            row[k] = float(np.mean(v))
        _, row["index_ci95"], _ = mean_ci(vals["index"], LEVEL)
        rows.append(row)
    return sorted(rows, key=lambda r: (r["setting"] or "", r["n"], r["scheduler"]))


def _web_rows(outcomes) -> list[dict[str, Any]]:
    rows = []
    for (_, cls, sch, _n), outs in by_point([o for o in outcomes if o.key[0] == "web"]).items():
        for label, filt in (("0-16", pl.col("size_bytes") <= SHORT_BYTES), ("all", pl.lit(True))):
            means, p99s, counts, unfinished = [], [], [], []
            for o in outs:
                t = _tasks(o).filter(filt)
                done = t.filter(pl.col("fct_s").is_not_null())
                unfinished.append(t.height - done.height)
                counts.append(done.height)
                if done.height:
                    means.append(float(done["fct_s"].mean()))
                    p99s.append(float(done["fct_s"].quantile(0.99, interpolation="linear")))
            mean, half, n = mean_ci(means, LEVEL)
            rows.append(_empty_row("web", cls, sch) | {
                "bin_kb": label, "files": int(np.mean(counts)), "fct_mean_s": mean, "fct_ci95_s": half,
                "fct_p99_s": float(np.mean(p99s)) if p99s else None, "unfinished": float(np.mean(unfinished)),
                "realizations": n, "n": RAFLE_N if cls == "rafle" else None,
            })
    dt = {r["bin_kb"]: r for r in rows if r["classifier"] == "droptail"}
    for r in rows:
        base = dt.get(r["bin_kb"])
        if r["classifier"] != "droptail" and base and r["fct_mean_s"]:
            r["gain"] = base["fct_mean_s"] / r["fct_mean_s"] - 1
    return rows


_SCHEMA: dict[str, Any] = {
    "part": pl.String, "classifier": pl.String, "scheduler": pl.String, "n": pl.Int64, "bin_kb": pl.String,
    "files": pl.Int64, "fct_mean_s": pl.Float64, "fct_ci95_s": pl.Float64, "fct_std_s": pl.Float64,
    "fct_p99_s": pl.Float64, "gain": pl.Float64, "gain_ci95": pl.Float64, "gain_std": pl.Float64,
    "files_served": pl.Float64, "files_served_ci95": pl.Float64, "ps_fct_s": pl.Float64, "ps_mid_fct_s": pl.Float64,
    "pa_c": pl.Float64, "pe_c": pl.Float64, "pa_l": pl.Float64, "pe_l": pl.Float64, "index": pl.Float64,
    "index_ci95": pl.Float64, "makespan_s": pl.Float64, "retransmits": pl.Float64, "timeouts": pl.Float64,
    "out_of_order": pl.Float64, "drops": pl.Float64, "buffer_pkts": pl.Int64, "fig5_peak": pl.Float64,
    "unfinished": pl.Float64, "realizations": pl.Int64, "fct_loo_lo_s": pl.Float64, "fct_loo_hi_s": pl.Float64,
    "std_loo_lo_s": pl.Float64, "std_loo_hi_s": pl.Float64, "setting": pl.String,
    **{k: pl.Float64 for k in _LOOP_MECHANISM if k != "retransmits"},
}


def _fair_share(outcomes) -> dict[str, Any]:
    """The exact processor-sharing reference of the simultaneous transfer,
    and the paper's bin-midpoint version, per bin."""
    base = filebase.load()
    t = fairshare.completions(base, LINK_BPS)
    bins = [max(0, math.ceil(s / BIN_BYTES) - 1) for s in base]
    per: dict[int, list[float]] = {}
    for b, ti in zip(bins, t):
        per.setdefault(b, []).append(float(ti))
    return {
        "completions": t,
        "bin_mean": {b: float(np.mean(v)) for b, v in per.items()},
        "bin_mid": fairshare.bin_midpoint_reference(base, LINK_BPS, BIN_BYTES),
        "all_mean": float(np.mean(t)),
    }


def _figure_data(outcomes, cfg) -> dict[str, Any]:
    """Completion times of realization 0 per combo (simultaneous), and the
    closed loop's per-1000-s histograms and data-phase activity."""
    data: dict[str, Any] = {"simultaneous": {}, "closed-loop": {}}
    for o in outcomes:
        part, cls, sch, _n, r = o.key
        if r != 0 or part not in data:
            continue
        t = _tasks(o)
        if part == "simultaneous":
            data[part][(cls, sch)] = np.sort(t["done_s"].drop_nulls().to_numpy())
        else:
            data[part][(cls, sch)] = {
                "start": t["start_ps"].to_numpy() / 1e12,
                "data_start": t["data_start_ps"].to_numpy() / 1e12,
                "done": t["done_s"].fill_null(-1.0).to_numpy(),
                "bin": t["bin"].to_numpy(),
            }
    data["window_s"] = cfg["closed-loop"]["window_s"]
    return data


# ---------------------------------------------------------------- the paper beside ours


def _paper_frame(rows: pl.DataFrame, finished_ratio: dict[tuple[str, str], float],
                 window_s: tuple[float, float] = (1000.0, 4000.0), loop_s: float = 4000.0) -> pl.DataFrame:
    out: list[dict[str, Any]] = []

    def ours(part: str, cls: str, sch: str | None, col: str, **where: Any) -> tuple[float | None, float | None]:
        f = rows.filter((pl.col("part") == part) & (pl.col("classifier") == cls))
        if sch is not None:
            f = f.filter(pl.col("scheduler") == sch)
        for k, v in where.items():
            f = f.filter(pl.col(k) == v)
        if f.height == 0 or f[col][0] is None:
            return None, None
        ci = {"fct_mean_s": "fct_ci95_s", "gain": "gain_ci95", "files_served": "files_served_ci95",
              "index": "index_ci95"}.get(col)
        return float(f[col][0]), (float(f[ci][0]) if ci and f[ci][0] is not None else None)

    def add(part, cls, sch, n, bin_kb, metric, value, got, source, relation="=", basis=None, note=None,
            not_run=None, other=None):
        val, ci = got
        out.append({"part": part, "classifier": cls, "scheduler": sch, "n": n, "bin_kb": bin_kb, "metric": metric,
                    "relation": relation, "value": value, "ours": val, "ours_ci95": ci, "ours_other": other,
                    "rel_err": (val - value) / abs(value) if val is not None and value else None,
                    "basis": basis, "basis_note": note, "not_run": not_run, "source": f"{PAPER}, {source}",
                    "paper_se": None, "ours_loo_lo": None, "ours_loo_hi": None, "ours_se": None})

    # Table 1: PE_c = 1 − PA_c and PE_l = 1 − PA_l, and PA_c·PA_l is their
    # product: one claim each for PA_c and PA_l (NOT_SCORED in rafle/__init__.py
    # says so).
    # The paper does not say which scheduler Table 1 ran: each number is one
    # claim, scored under strict priority where this scale runs it (round
    # robin otherwise), the other scheduler's number beside it (ours_other).
    mem = rows.filter(pl.col("part") == "memory")
    run_sch = [x for x in ("prio", "rr") if mem.filter(pl.col("scheduler") == x).height]
    for n, vals in PAPER_TABLES["table1"].items():
        if not run_sch or not mem.filter(pl.col("n") == n).height:
            continue
        sch, other = run_sch[0], (run_sch[1] if len(run_sch) > 1 else None)
        for metric, v, comp in (("pa_c", vals[0], "PE_c"), ("pa_l", vals[2], "PE_l")):
            add("memory", "rafle", sch, n, None, metric, v, ours("memory", "rafle", sch, metric, n=n),
                f"Table 1 (scheduler not stated: scored under {sch}; {comp} = 1 − {metric.upper()} is the same claim)",
                other=ours("memory", "rafle", other, metric, n=n)[0] if other else
                ours("memory-sensitivity", "rafle", None, metric, n=n, setting=f"scheduler {'rr' if sch == 'prio' else 'prio'}")[0])
    if run_sch:
        sch = run_sch[0]
        f = mem.filter(pl.col("scheduler") == sch).sort("n")
        best = int(f.sort("index", descending=True)["n"][0]) if f.height and f["index"].drop_nulls().len() else None
        add("memory", "rafle", sch, None, None, "N of the best PA_c·PA_l", 40.0,
            (float(best) if best is not None else None, None),
            f"Table 1 and §5: N = 40 gives the best index (scored under {sch}, over the N this scale runs: "
            f"{', '.join(str(x) for x in f['n'].to_list())})")
    files_per_bin: dict[str, int] = {}
    for size in filebase.load():
        b = bin_label(max(0, math.ceil(size / BIN_BYTES) - 1))
        files_per_bin[b] = files_per_bin.get(b, 0) + 1
    for (cls, sch), bins in PAPER_TABLES["table2"].items():
        for label, (mean, std) in zip(_T2_BINS, bins):
            if cls == "ps":
                got = ours("simultaneous", "droptail", "fifo", "ps_mid_fct_s", bin_kb=label)
                add("simultaneous", "fair-share", None, None, label, "ps_mid_fct_s", mean, got,
                    "Table 2, Padrão (T_i): every file at its bin's midpoint", basis="by construction",
                    note="the paper's own formula (every file at its bin's midpoint, the link shared fairly) "
                         "recomputed from the same files, not a run")
                continue
            n = RAFLE_N if cls == "rafle" else None
            k = files_per_bin.get(label, 0)
            add("simultaneous", cls, sch, n, label, "fct_mean_s", mean,
                ours("simultaneous", cls, sch, "fct_mean_s", bin_kb=label), "Table 2")
            # The standard error of the paper's own number, over its three
            # realizations of the bin's k files (§3: every result is the
            # mean of three): a mean (σ/√(3k)) and a σ (σ/√(2(3k − 1))).
            kk = PAPER_REALIZATIONS * k
            out[-1] |= {"paper_se": std / math.sqrt(kk) if k else None, **leave_one_out_claim(rows, cls, sch, "fct_mean_s", label)}
            add("simultaneous", cls, sch, n, label, "fct_std_s", std,
                ours("simultaneous", cls, sch, "fct_std_s", bin_kb=label), "Table 2")
            out[-1] |= {"paper_se": std / math.sqrt(2 * (kk - 1)) if kk > 1 else None,
                        **leave_one_out_claim(rows, cls, sch, "fct_std_s", label)}
    # Table 2 has no ideal column: Table 3's gain is the paper's only number
    # for the ideal classifier (a mean derived from it and drop-tail's would
    # not be an independent claim).
    for (cls, sch), (g, gs) in PAPER_TABLES["table3"].items():
        n = RAFLE_N if cls == "rafle" else None
        add("simultaneous", cls, sch, n, "0-100", "gain", g / 100, ours("simultaneous", cls, sch, "gain", bin_kb="0-100"),
            "Table 3 (mean)")
        note = "Table 3 (σ; printed swapped with the other scheduler's, see Table 2)" if cls == "rafle" else "Table 3 (σ)"
        add("simultaneous", cls, sch, n, "0-100", "gain_std", gs / 100,
            ours("simultaneous", cls, sch, "gain_std", bin_kb="0-100"), note)
    w0, w1 = window_s
    paper_w = POINTS["paper"]["closed-loop"]["window_s"]
    short = None
    if (w0, w1) != paper_w:
        short = (f"the closed loop at this scale counts files in {w0:g}-{w1:g} s of a shorter run, not the "
                 f"paper's {paper_w[0]:g}-{paper_w[1]:g} s: --scale paper runs it")
    for (cls, sch), g in PAPER_TABLES["table4"].items():
        add("closed-loop", cls, sch, RAFLE_N if cls == "rafle" else None, "0-100", "gain", g / 100,
            ours("closed-loop", cls, sch, "gain", bin_kb="0-100"), "Table 4", not_run=short)
        out[-1] |= loop_claim_fields(rows, cls, sch, LINK_BPS, loop_s)
    if ("rafle", "prio") in finished_ratio:
        add("simultaneous", "rafle", "prio", RAFLE_N, "all", "max finished / droptail finished, t <= 100 s", 3.0,
            (finished_ratio[("rafle", "prio")], None), "§5, Figure 5: almost three times in the first seconds", "~")
    for r in out:
        r["sensitivity"], r["sensitivity_lo"], r["sensitivity_hi"] = (
            memory_sensitivity(rows, r) if r["part"] == "memory" else
            loop_sensitivity(rows, r, ROUTER_BUFFER_PKTS) if r["part"] == "closed-loop" else _buffer_sensitivity(rows, r))
    add_era_sensitivity(rows, out)
    schema = {"part": pl.String, "classifier": pl.String, "scheduler": pl.String, "n": pl.Int64,
              "bin_kb": pl.String, "metric": pl.String, "relation": pl.String, "value": pl.Float64,
              "ours": pl.Float64, "ours_ci95": pl.Float64, "ours_other": pl.Float64, "rel_err": pl.Float64,
              "basis": pl.String,
              "basis_note": pl.String, "not_run": pl.String, "source": pl.String, "sensitivity": pl.String,
              "sensitivity_lo": pl.Float64, "sensitivity_hi": pl.Float64, "paper_se": pl.Float64,
              "ours_loo_lo": pl.Float64, "ours_loo_hi": pl.Float64, "ours_se": pl.Float64, **_LOOP_CLAIM_SCHEMA}
    return pl.DataFrame(out, schema=schema)


def _finished_ratio(sim: dict[tuple[str, str], np.ndarray], horizon_s: float = 100.0) -> dict[tuple[str, str], float]:
    """Figure 5's early peak: max over t in (0, horizon] of finished(t) /
    finished_droptail(t), on a 1 s grid where drop-tail finished something."""
    dt = sim.get(("droptail", "fifo"))
    if dt is None:
        return {}
    grid = np.arange(1.0, horizon_s + 1.0)
    base = np.searchsorted(dt, grid, side="right").astype(float)
    ok = base > 0
    out = {}
    for combo, done in sim.items():
        if combo == ("droptail", "fifo") or not ok.any():
            continue
        mine = np.searchsorted(done, grid, side="right").astype(float)
        out[combo] = float(np.max(mine[ok] / base[ok]))
    return out


# ---------------------------------------------------------------- the experiment


def run(
    scale: str = "quick",
    seed: int = 1,
    progress: Progress | None = None,
    *,
    parts: tuple[str, ...] = PARTS,
    workers: int | None = None,
) -> ExperimentResult:
    """Runs the chosen ``parts`` (default all of ``PARTS``) on ``workers`` local cores."""
    check_scale(scale)
    check_parts(parts, PARTS)
    cfg = POINTS[scale]
    jobs = _jobs(scale, seed, parts)
    t0 = time.perf_counter()
    outcomes = _with_memory_aliases(run_jobs(jobs, workers=workers, progress=progress, label=NAME), scale, parts)
    _check_no_drops(outcomes)
    ps = _fair_share(outcomes)
    loop = [_empty_row(r["part"], r["classifier"], r["scheduler"]) | r
            for part in ("closed-loop", _LOOP_SENS)
            for r in closed_loop_rows(outcomes, cfg["closed-loop"]["window_s"], part, RAFLE_N)]
    rows = _simultaneous_rows(outcomes, ps) + [r for r in loop if r["part"] == "closed-loop"]
    rows += _memory_rows(outcomes) + _memory_rows(outcomes, "memory-sensitivity")
    for r in rows:
        r["buffer_pkts"] = None if r["setting"] == "router lossless" else ROUTER_BUFFER_PKTS
    arms = {setting: buf for setting, buf, _ in loop_arms(ROUTER_BUFFER_PKTS, TCP_PROFILE)}
    rows += [r | {"buffer_pkts": arms[r["setting"]]} for r in loop if r["part"] == _LOOP_SENS]
    rows += _buffer_rows(outcomes, ps) + _web_rows(outcomes)
    rows += era_rows(outcomes, lambda o: _buffer_rows(o, ps), ROUTER_BUFFER_PKTS)
    frame = pl.DataFrame(rows, schema=_SCHEMA)
    data = _figure_data(outcomes, cfg)
    data["fair_share"] = np.sort(ps["completions"])
    ratio = _finished_ratio(data["simultaneous"])
    if progress:
        events = sum(int(o.summary["events"]) for o in outcomes[:len(jobs)])
        progress(f"{NAME}: {len(jobs)} runs, {events / 1e6:.1f} M events in {time.perf_counter() - t0:.1f} s wall")
    paper = _paper_frame(frame, ratio, cfg["closed-loop"]["window_s"], cfg["closed-loop"]["duration_s"])
    return ExperimentResult(experiment=NAME, scale=scale, seed=seed, rows=frame, paper=paper, data=data)


# ---------------------------------------------------------------- figures


def _label(combo: tuple[str, str]) -> str:
    cls, sch = combo
    if cls == "droptail":
        return "Drop Tail"
    names = {"ideal": "Ideal", "run2c": "RuN2C 16k", "rafle": f"RAFLE N={RAFLE_N}"}
    return f"{names[cls]} {'PrioSched' if sch == 'prio' else 'RR'}"


def figures(result: ExperimentResult, out_dir: str | Path) -> list[Path]:
    """Like the paper's Figures 4–7 and Table 1: active tasks against the
    fair-share curve, finished tasks normalized to drop-tail, completion
    time per bin against the fair-share reference, files served per bin in
    the closed loop, RAFLE's accuracy against N, and the web part."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = output_dir(out_dir)
    paths: list[Path] = []
    data = result.data
    sim: dict[tuple[str, str], np.ndarray] = data.get("simultaneous", {})

    def new(rows: int, cols: int, size: tuple[float, float]):
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        return fig, fig.subplots(rows, cols, squeeze=False)

    def save(fig, name: str) -> None:
        p = out / name
        save_figure(fig, p)
        paths.append(p)

    def style(a, xlabel: str, ylabel: str, title: str, legend: int = 7) -> None:
        a.set_xlabel(xlabel)
        a.set_ylabel(ylabel)
        a.set_title(title, fontsize=10)
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=legend)

    def scheduler_name(sch: str) -> str:
        return "strict priority" if sch == "prio" else "round robin"

    if sim:
        n_tasks = max(len(v) for v in sim.values())
        fs_t = data.get("fair_share", np.array([]))
        fig, ax = new(1, 2, (12.0, 4.5))
        for j, sch in enumerate(("prio", "rr")):
            a = ax[0][j]
            for combo, done in sim.items():
                if combo[1] not in (sch, "fifo"):
                    continue
                a.step(np.concatenate([[0.0], done]), n_tasks - np.arange(len(done) + 1), where="post",
                       label=_label(combo), linewidth=1.0)
            if fs_t.size:
                a.step(np.concatenate([[0.0], fs_t]), n_tasks - np.arange(len(fs_t) + 1), where="post",
                       linestyle="--", color="black", label="fair share (processor sharing)", linewidth=1.0)
            style(a, "time (s)", "active tasks", f"All tasks at t = 0, {scheduler_name(sch)}")
        fig.suptitle(f"E4 {NAME}: active tasks over time (like Figure 4; {result.scale} scale, realization 1)")
        save(fig, "fig4_active_tasks.png")

        dt = sim.get(("droptail", "fifo"))
        if dt is not None and dt.size:
            grid = np.linspace(1.0, float(max(v.max() for v in sim.values())), 800)
            base = np.searchsorted(dt, grid, side="right").astype(float)
            fig, ax = new(1, 1, (8.0, 4.5))
            a = ax[0][0]
            ok = base > 0
            for combo, done in sim.items():
                if combo == ("droptail", "fifo"):
                    continue
                mine = np.searchsorted(done, grid, side="right").astype(float)
                a.plot(grid[ok], mine[ok] / base[ok], label=_label(combo), linewidth=1.0)
            a.axhline(1.0, color="black", linewidth=0.8)
            a.set_xscale("log")
            style(a, "time (s)", "finished tasks / finished with Drop Tail",
                  f"E4 {NAME}: finished tasks normalized to drop-tail (like Figure 5)")
            save(fig, "fig5_finished_normalized.png")

    rows = result.rows
    s = rows.filter((pl.col("part") == "simultaneous") & (pl.col("bin_kb") != "all"))
    if s.height:
        fig, ax = new(1, 2, (12.0, 4.5))
        for j, sch in enumerate(("prio", "rr")):
            a = ax[0][j]
            for combo in COMBOS:
                if combo[1] not in (sch, "fifo"):
                    continue
                g = s.filter((pl.col("classifier") == combo[0]) & (pl.col("scheduler") == combo[1]))
                if not g.height:
                    continue
                x = np.array([int(b.split("-")[0]) + 50 for b in g["bin_kb"]])
                mean, sd = g["fct_mean_s"].to_numpy(), g["fct_std_s"].to_numpy()
                # ± σ, never below a completion time of 0.
                line = a.errorbar(x, mean, yerr=np.array([np.minimum(sd, mean), sd]), marker="o",
                                  markersize=3, capsize=2, linewidth=0.8, label=_label(combo))
                # The paper's Table 2 means for the same router, beside ours.
                pt = result.paper.filter((pl.col("part") == "simultaneous") & (pl.col("metric") == "fct_mean_s")
                                         & (pl.col("classifier") == combo[0]) & (pl.col("scheduler") == combo[1])
                                         & (pl.col("bin_kb") != "all"))
                if pt.height:
                    px = np.array([int(b.split("-")[0]) + 50 for b in pt["bin_kb"]])
                    a.plot(px, pt["value"].to_numpy(), marker="x", linestyle="none", markersize=6,
                           color=line.lines[0].get_color(), label=f"{_label(combo)}, paper (Table 2)")
            g = s.filter((pl.col("classifier") == "droptail"))
            x = np.array([int(b.split("-")[0]) + 50 for b in g["bin_kb"]])
            a.plot(x, g["ps_fct_s"].to_numpy(), "k--", label="fair share, real sizes")
            a.plot(x, g["ps_mid_fct_s"].to_numpy(), "k:", label="fair share, bin midpoints (paper's T_i)")
            style(a, "file size (KB, bin centre)", "completion time (s), mean ± σ", scheduler_name(sch))
        fig.suptitle(f"E4 {NAME}: completion time per 100 KB bin (like Figure 3 and Table 2)")
        save(fig, "fig3_fct_per_bin.png")

    loop = data.get("closed-loop", {})
    c = rows.filter((pl.col("part") == "closed-loop") & (pl.col("bin_kb") != "all"))
    if c.height:
        fig, ax = new(1, 2, (12.0, 4.5))
        a = ax[0][0]
        for combo in COMBOS:
            g = c.filter((pl.col("classifier") == combo[0]) & (pl.col("scheduler") == combo[1]))
            if g.height:
                x = np.array([int(b.split("-")[0]) + 50 for b in g["bin_kb"]])
                a.step(x, g["files_served"].to_numpy(), where="mid", label=_label(combo), linewidth=1.0)
        a.set_yscale("symlog", linthresh=10)
        w0, w1 = data.get("window_s", (0, 0))
        style(a, "file size (KB)", "files served in the window",
              f"Closed loop: files served per bin in [{w0:g}, {w1:g}] s (like Figure 7)")
        a = ax[0][1]
        for combo, d in loop.items():
            grid = np.linspace(0.0, w1, 400)
            inside = (d["data_start"][None, :] >= 0) & (d["data_start"][None, :] * 1.0 <= grid[:, None]) & (
                (d["done"][None, :] < 0) | (d["done"][None, :] > grid[:, None]))
            a.plot(grid, inside.sum(axis=1), label=_label(combo), linewidth=0.9)
        style(a, "time (s)", "tasks transferring their file", "Closed loop: data connections in progress (like Figure 6)")
        save(fig, "fig6_7_closed_loop.png")

    _memory_figure(rows, new, style, save)

    w = rows.filter((pl.col("part") == "web") & (pl.col("bin_kb") == "0-16"))
    if w.height:
        fig, ax = new(1, 1, (8.0, 4.5))
        a = ax[0][0]
        labels = [_label((r["classifier"], r["scheduler"])) for r in w.iter_rows(named=True)]
        x = np.arange(w.height)
        a.bar(x - 0.2, w["fct_mean_s"].to_numpy() * 1e3, width=0.4, label="mean")
        a.bar(x + 0.2, w["fct_p99_s"].fill_null(0.0).to_numpy() * 1e3, width=0.4, label="99th percentile")
        a.set_xticks(x, labels, rotation=30, ha="right", fontsize=7)
        style(a, "", "completion time of flows ≤ 16 KB (ms)",
              f"E4 {NAME}, beyond the paper: web-search flows on a two-hop path, 70 % load", legend=8)
        save(fig, "web_short_flows.png")
    return paths


def _memory_figure(rows: pl.DataFrame, new: Callable[..., Any], style: Callable[..., None],
                   save: Callable[..., None]) -> None:
    """RAFLE's accuracy against its memory N, beside the paper's Table 1 (one panel of :func:`figures`)."""
    m = rows.filter(pl.col("part") == "memory")
    if not m.height:
        return
    fig, ax = new(1, 1, (7.0, 4.5))
    a = ax[0][0]
    for sch in ("prio", "rr"):
        g = m.filter(pl.col("scheduler") == sch).sort("n")
        if g.height:
            a.plot(g["n"], g["pa_c"], "o-", label=f"PA_c, {sch}")
            a.plot(g["n"], g["pa_l"], "s-", label=f"PA_l, {sch}")
            a.plot(g["n"], g["index"], "^-", label=f"PA_c·PA_l, {sch}")
    ns = sorted(PAPER_TABLES["table1"])
    for k, (name, mark) in enumerate((("PA_c", "o"), ("PA_l", "s"))):
        a.plot(ns, [PAPER_TABLES["table1"][n][2 * k] for n in ns], mark, color="black", fillstyle="none",
               linestyle="--", label=f"{name}, paper")
    a.plot(ns, [PAPER_TABLES["table1"][n][4] for n in ns], "^", color="black", fillstyle="none", linestyle="--",
           label="PA_c·PA_l, paper")
    style(a, "RAFLE memory N (packets)", "probability", f"E4 {NAME}: RAFLE's accuracy against N (Table 1)")
    save(fig, "table1_memory.png")


# ---------------------------------------------------------------- report


def _f(v: Any, fmt: str = "{:.1f}") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return fmt.format(v)


def _pct(v: float | None) -> str:
    return _f(None if v is None else 100 * v)


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    return text_table([header, *body], indent="  ")


def _buffer_report(rows: pl.DataFrame) -> list[str]:
    """Part ``buffer``: the first bin, its gain and Figure 5's peak under each router buffer."""
    b = rows.filter(pl.col("part") == "buffer")
    if not b.height:
        return []
    lines = ["", f"[buffer] each router queue holding 250 ... 2000 packets or lossless (default "
                 f"{ROUTER_BUFFER_PKTS}, Click's Queue): first bin mean (σ) [paper], its gain over drop-tail at the "
                 "same buffer [paper], Figure 5's peak in the first 100 s [paper ~3 for RAFLE PrioSched], packets "
                 "dropped, segments retransmitted, last completion"]
    body = []
    for buf in dict.fromkeys(b["buffer_pkts"].to_list()):
        sel = b.filter(pl.col("buffer_pkts").is_null() if buf is None else pl.col("buffer_pkts") == buf)
        for cls, sch in COMBOS:
            g = sel.filter((pl.col("classifier") == cls) & (pl.col("scheduler") == sch))
            r0 = g.filter(pl.col("bin_kb") == "0-100")
            ra = g.filter(pl.col("bin_kb") == "all")
            if not r0.height or not ra.height:
                continue
            r0, ra = r0.row(0, named=True), ra.row(0, named=True)
            t2 = PAPER_TABLES["table2"].get((cls, sch))
            t3 = PAPER_TABLES["table3"].get((cls, sch))
            body.append([buffer_label(buf), _label((cls, sch)),
                         f"{_f(r0['fct_mean_s'])} ({_f(r0['fct_std_s'])})" + (f" [{t2[0][0]:.1f}]" if t2 else ""),
                         _pct(r0["gain"]) + (f" [{t3[0]:.1f}]" if t3 else ""), _f(ra["fig5_peak"], "{:.2f}"),
                         _f(ra["drops"], "{:.0f}"), _f(ra["retransmits"], "{:.0f}"), _f(ra["makespan_s"])])
    return lines + _table(["buffer", "router", "0-100 KB", "gain %", "Fig. 5 peak", "drops", "retransmits",
                           "last"], body)


def report(result: ExperimentResult) -> str:
    """Plain-text tables: ours (mean ± 95 % CI over realizations) beside the
    paper's Tables 1–4."""
    rows, paper = result.rows, result.paper
    lines = head(result, "times in s, gains in %")

    def get(part, cls, sch, bin_kb=None, n=None):
        f = rows.filter((pl.col("part") == part) & (pl.col("classifier") == cls) & (pl.col("scheduler") == sch))
        if bin_kb is not None:
            f = f.filter(pl.col("bin_kb") == bin_kb)
        if n is not None:
            f = f.filter(pl.col("n") == n)
        return f.row(0, named=True) if f.height else None

    def pget(part, cls, sch, metric, bin_kb=None, n=None):
        f = paper.filter((pl.col("part") == part) & (pl.col("classifier") == cls) & (pl.col("metric") == metric))
        if sch is not None:
            f = f.filter(pl.col("scheduler") == sch)
        if bin_kb is not None:
            f = f.filter(pl.col("bin_kb") == bin_kb)
        if n is not None:
            f = f.filter(pl.col("n") == n)
        return f["value"][0] if f.height else None

    if rows.filter(pl.col("part") == "simultaneous").height:
        lines += ["", "[simultaneous] completion time per bin, mean ± CI (σ) [paper mean (σ)]  — Table 2"]
        body = []
        for cls, sch in COMBOS:
            cells = [_label((cls, sch))]
            for b in _T2_BINS:
                r = get("simultaneous", cls, sch, b)
                pm, ps = pget("simultaneous", cls, sch, "fct_mean_s", b), pget("simultaneous", cls, sch, "fct_std_s", b)
                cell = "-" if r is None else f"{_f(r['fct_mean_s'])}±{_f(r['fct_ci95_s'])} ({_f(r['fct_std_s'])})"
                if pm is not None:
                    cell += f" [{pm:.1f}" + (f" ({ps:.1f})]" if ps is not None else "]")
                cells.append(cell)
            body.append(cells)
        r0 = get("simultaneous", "droptail", "fifo", "0-100")
        if r0:
            cells = ["fair share"]
            for b in _T2_BINS:
                r = get("simultaneous", "droptail", "fifo", b)
                pm = pget("simultaneous", "fair-share", None, "ps_mid_fct_s", b)
                cells.append("-" if r is None else f"{_f(r['ps_fct_s'])}; mid {_f(r['ps_mid_fct_s'])} [{_f(pm)}]")
            body.append(cells)
        lines += _table(["router", *(f"{b} KB" for b in _T2_BINS)], body)
        lines += ["", "[simultaneous] first-bin gains over drop-tail, mean ± CI and σ [paper]  — Table 3"]
        body = []
        for cls, sch in COMBOS[1:]:
            r = get("simultaneous", cls, sch, "0-100")
            if r is None:
                continue
            pg, pgs = pget("simultaneous", cls, sch, "gain", "0-100"), pget("simultaneous", cls, sch, "gain_std", "0-100")
            body.append([_label((cls, sch)), f"{_pct(r['gain'])}"
                         f"±{_pct(r['gain_ci95'])}",
                         _pct(pg), _pct(r['gain_std']),
                         _pct(pgs)])
        lines += _table(["router", "t̄ ours", "t̄ paper", "σ ours", "σ paper"], body)
        body = []
        for cls, sch in COMBOS:
            r = get("simultaneous", cls, sch, "all")
            if r:
                body.append([_label((cls, sch)), _f(r["fct_mean_s"]), _f(r["makespan_s"]), _f(r["retransmits"], "{:.0f}"),
                             _f(r["timeouts"], "{:.0f}"), _f(r["out_of_order"], "{:.0f}"), _f(r["drops"], "{:.0f}")])
        lines += ["", "[simultaneous] every task: mean and last completion, retransmitted segments, timeouts, "
                      "segments received out of order (losses and reordering), packets the router dropped"]
        lines += _table(["router", "mean", "last", "retransmits", "timeouts", "out of order", "drops"], body)
    lines += _buffer_report(rows)
    lines += closed_loop_lines(rows, paper, COMBOS, _label, text_table)
    m = rows.filter(pl.col("part") == "memory")
    if m.height:
        lines += ["", "[memory] RAFLE at the router's client-bound port [paper]  — Table 1"]
        body = []
        for r in m.sort(["scheduler", "n"]).iter_rows(named=True):
            pv = PAPER_TABLES["table1"].get(r["n"])
            body.append([str(r["n"]), r["scheduler"], *(
                f"{r[k]:.3f} [{pv[i]:.3f}]" if pv else f"{r[k]:.3f}" for i, k in enumerate(("pa_c", "pe_c", "pa_l", "pe_l", "index")))])
        lines += _table(["N", "sched", "PA_c", "PE_c", "PA_l", "PE_l", "PA_c·PA_l"], body)
    lines += memory_sensitivity_lines(rows, PAPER_TABLES["table1"]) + era_lines(rows)
    w = rows.filter(pl.col("part") == "web")
    if w.height:
        lines += ["", "[web] beyond the paper: web-search flows, two hops, 70 % load; completion in ms"]
        body = []
        for cls, sch in COMBOS:
            r, a = get("web", cls, sch, "0-16"), get("web", cls, sch, "all")
            if r is None:
                continue
            ms = lambda v: _f(v * 1e3 if v is not None else None, "{:.2f}")  # noqa: E731
            body.append([_label((cls, sch)), str(r["files"]), ms(r["fct_mean_s"]), ms(r["fct_p99_s"]),
                         ms(a["fct_mean_s"] if a else None), _f(a["unfinished"] if a else None, "{:.0f}")])
        lines += _table(["router", "short flows", "short mean", "short p99", "all mean", "unfinished"], body)
    fig5 = paper.filter(pl.col("metric").str.starts_with("max finished"))
    for r in fig5.iter_rows(named=True):
        lines += ["", f"Figure 5: RAFLE PrioSched's peak of finished tasks over drop-tail's in the first 100 s: "
                      f"ours {_f(r['ours'], '{:.2f}')}, paper ~{r['value']:g}"]
    lines += ["", *claims_lines(result.paper, experiment=NAME)]
    return "\n".join(lines)
