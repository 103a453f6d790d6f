"""E3 ``lossy-cc``: the Linear, Fractional and Expolinear controls against
BBR, Cubic, Reno and Vegas under bandwidth, loss and delay (Madeira and Mattos;
see :mod:`dumbbell.experiments.papers`).

Madeira and Mattos proposed three loss-based controls and measured them in
KVM virtual machines: two clients (A, B), a Linux router shaping the link to
a server with ``tc``/``netem``, iperf flows client → server, ten rounds per
point, 99 % confidence intervals. The five parts, as dumbbell runs them:

- ``bandwidth`` (Fig. 2b): one client alone, router–server rate swept up to
  1 Gb/s, 20 s. The paper reports ≈ 96 % of the link for every control but
  Vegas at one point.
- ``loss`` (Fig. 3a, 3b): one client alone, 10 Gb/s router–server link with
  random loss 1, 3, 5, 10, 20 %, 100 s; the Linear variants (fixed 10, 20,
  50 % and adaptive reduction) and the final controls. The adaptive
  reduction R = 15 + 35·lost/sent runs twice: lost/sent counted over the
  current window as the paper's eq. 3 words it (``linear-adaptive``: the
  losses reported in the window over the packets sent in it, in flight when
  it began) and on the loss-reporting ACK alone (``linear-adaptive-ack``).
- ``delay`` (Fig. 4a, 4b): 1 Gb/s, delay 5 to 500 ms added between router
  and server, the Linear variants and the final controls.
- ``loss-rtt`` (Fig. 5a, 5b): 1 Gb/s, RTT 20 and 100 ms, loss 1 to 20 %, 50 s.
- ``cordiality`` (Tables 1, 2): clients A and B send at once, A with the
  control of the table's column (Expolinear, Fractional, Linear), B with the
  row's; ``x = a / b`` of their goodputs; the server runs BBR or Cubic. Two
  setups (``setup``): the router of the other parts (``droptail``: its
  1000-packet queue and netem's limit), and a lossless deep FIFO
  (``lossless``: 20,000 packets, no netem limit), where the two clients'
  3 MiB receive windows, not losses, bound them.
- ``base-rtt`` (a sensitivity part, not a figure): the ``loss`` part's
  cells behind C5 and C7 (10 Gb/s, quick: 20 % loss; paper: 5, 10, 20 %)
  rerun with the propagation round trip at 0.2, 0.5 and 1 ms instead of our
  0.1 ms, since the paper's bridged VMs' base RTT is unstated
  (:mod:`dumbbell.experiments.lossy_cc.base_rtt`); rows carry
  ``base_rtt_ms``, and those claims name ours under each base RTT.
- ``netem-gso`` (a sensitivity part): the ``delay`` part's cells, the
  ``loss-rtt`` part's at 100 ms and the drop-tail ``cordiality`` cells
  rerun with netem's limit and loss per GSO skb, as the paper's VMs (TSO,
  GSO and GRO on) would apply them, instead of per packet
  (:mod:`dumbbell.experiments.lossy_cc.netem_gso`); rows carry
  ``netem_unit`` and ``gso_part``, and those claims name ours per skb.
- ``adaptive-count`` (a sensitivity part): the ``loss`` part's cells with
  the adaptive Linear counting eq. 3's lost/sent over two rounds of data
  (``linear-adaptive-round``), the third way of counting beside the
  ``loss`` part's per window and per ACK, since the paper leaves the span of
  the count open (:mod:`dumbbell.experiments.lossy_cc.adaptive_count`); the
  two C3 claims name the ratio to Linear-50 under each count.
- ``run-length`` (a sensitivity part): the ``loss-rtt`` part's cell at
  20 ms and 20 % loss for the final controls at other run lengths (quick:
  12.5, 25 and the paper's 50 s; paper: 4, 12.5, 100 and 200 s), since BBR's
  collapse there weighs by how long the run lasts
  (:mod:`dumbbell.experiments.lossy_cc.run_length`); rows carry
  ``duration_s``, and the claims of that cell which compare with BBR (C12,
  C14) name ours at each run length.

The network (``network``): clients ``a`` and ``b`` reach router ``r`` over
10 Gb/s virtual links (25 µs, with up to 5 µs of per-packet host jitter,
which makes the ten rounds independent realizations as the VMs' noise did;
see E1 for why deterministic senders need it); ``r`` reaches server ``srv``
at the swept rate, 25 µs each way. The router's port toward the server is
where the paper's ``tc``/``netem`` sat, and runs a netem stage
(``dumbbell.Netem``, Linux ``sch_netem``'s semantics): the loss is drawn
when a packet arrives, so a lost packet never uses the link (on-the-wire
loss would cap the survivors at (1 − p) of the link: 80 % at 20 % loss);
the added delay (``delay_ms`` and ``rtt_ms`` are the round-trip additions to
the 0.1 ms base) is its delay line on the data direction, ACKs returning
undelayed; its limit is netem's default of 1000 packets, counting the delay
line and the router's queue (drop-tail, 1000 packets) together, since the
paper states no other. Hosts are Linux-like: 1500-byte packets (MSS 1448
with 52 bytes of TCP/IP headers and timestamps), SACK, delayed ACKs, Linux's
loss recovery (RACK, tail loss probe, timestamps with undo, F-RTO).

The hosts' kernel is the paper's: its VMs ran Ubuntu Server 24.04.1, whose
kernel is Linux 6.8, so every flow runs ``TcpOptions(profile="linux-6.8")``
(:data:`KERNEL_PROFILE`, :mod:`dumbbell.scenario.tcp_profiles`). Its TCP is
the core's defaults (nothing the core models changed between 6.8 and
6.12); its ``tcp_rmem`` maximum of 6 MiB gives a receive window of 3 MiB at
Linux's initial 50 % scaling ratio (the measured ratio, not modelled, could
raise it up to about 1.5 times), and its ``tcp_wmem`` maximum a 4 MiB send
buffer, which the 3 MiB window keeps from binding.

What netem's 1000-packet limit does at each point: it binds once the delay
line alone would hold 1000 packets, that is above 12 ms of added delay at
1 Gb/s (83,333 packets/s of 1500 bytes), and then lets at most 1000
packets through per added delay, whatever the control: 600 Mb/s at 20 ms,
240 at 50, 120 at 100, 60 at 200 and 24 Mb/s at 500 ms (``delay``, and
``loss-rtt`` at 20 and 100 ms), each below what the 3 MiB receive window
allows (2172 packets per round trip: 1258, 503, 252, 126 and 50 Mb/s). At
5 and 10 ms the line holds 417 and 833 packets, which leaves the queue 583
and 167 packets before the limit drops. Without added delay (``bandwidth``,
``loss`` at 10 Gb/s, ``cordiality``) the limit is the queue's 1000 packets.
``network(..., netem_limit_pkts=None)`` removes it.

Goodput is iperf's: payload delivered in order over the flow's whole life
(slow start included), per round; rows give the mean over rounds, the 99 %
Student-t half-width and the number of rounds.

The paper's controls run with the paper's equations (a loss reduces the
window; ``module_hook`` false, see ``cc/loss_phases.rs``): the authors' modules,
loaded fresh, collapse to 2–3 packets on a connection's first loss (their
``ssthresh`` hook enters recovery on the initial b_r of 1). With that hook
Expolinear gets 185 Mb/s of this network's clean 1 Gb/s link at the base
round trip (0.1 ms), 2.4 Mb/s with 20 ms added and 0.9 Mb/s with 100 ms,
its window at 2 packets (20 s, seed 1; 965, 343 and 70 Mb/s without the
hook, where netem's 1000-packet limit caps the link at 600 and 120 Mb/s and
Expolinear's unbounded avoidance window overflows it; the ``module-hook``
section of ``examples/lossy_cc_evidence.py``), where the paper reports about 96 %
of every link. How the testbed escaped the collapse the paper does not say
(a module whose globals kept the state of earlier connections would have).

Where dumbbell and the paper differ, and why:

- The server's control cannot matter here: the data flow client → server,
  and the server only returns ACKs, whose timing no congestion control
  changes. dumbbell runs the cordiality table once per ``server_cc`` with
  independent random draws; the paper's two tables differ by no more than
  their noise but in the BBR and Vegas rows, where the spread is wide.
- The testbed's virtual machines ran on one Core i3; at 10 Gb/s (part
  ``loss``) they could not have moved 10 Gb/s, so the absolute values of the
  paper's Figure 3 are CPU-bound where ours are bound by loss and window.
  Compare orders and ratios there, not absolute rates.
- Cordiality: on one shared drop-tail bottleneck the proposals take most
  of the link from Reno, Cubic and Vegas (x from 5.9 to 488 in 20 s runs,
  ``python examples/lossy_cc_evidence.py cordiality-table``, where the paper's
  Tables have x ≈ 1 but for Vegas). That is what their laws imply:
  in avoidance they add 2 packets per *millisecond* (Linear, Expolinear)
  or 5 % of the window per ACK (Fractional), against Reno's one packet per
  RTT, and cut 10–20 % at most once per window against Reno's 50 %; with a
  receive window larger than the bottleneck's BDP plus buffer they keep
  the router's queue full and overflowing. The paper's x ≈ 1 with Vegas
  still starved suggests the two clients did not share a loss-producing
  bottleneck in their testbed (for example each VM limited by its own CPU
  or virtual NIC), which the paper does not describe; we do not guess it.
- BBR under heavy loss: our BBR v1 (Linux ``tcp_bbr.c``, long-term
  bandwidth sampling included) at 20 % loss and 20 ms added gets 20.5 and
  3.4 Mb/s in 50 s (seeds 1 and 2) against Expolinear's 21.2 and 21.7: its
  long-term (policer) bandwidth is in use in 71–77 % of the samples and its
  bandwidth estimate sits at 3–4 Mb/s (the ``heavy-loss`` section of
  ``examples/lossy_cc_evidence.py``). So BBR does collapse there, but Expolinear
  exceeds it by 1.0 to 6.4 times depending on the seed, not by the "more
  than an order of magnitude" of the paper; Expolinear itself spends 98 %
  of the run in recovery with a median window of 44 packets.
  docs/experiments/lossy-cc.md has every claim with its evidence.
- The authors' kernel modules keep their state in globals shared by every
  connection (the authors' code, see ``cc/linear.rs``); dumbbell keeps it per
  connection. In the cordiality runs the paper's two clients ran on
  separate VMs, so each module had one connection and this does not matter.

With ``module_dir`` (``dumbbell reproduce lossy-cc --module-dir DIR``)
Linear, Fractional and Expolinear run from the authors' own kernel modules,
``DIR/linha01.c``, ``DIR/frac01.c`` and ``DIR/expolin01.c`` (GitHub
``marcosvcm/CCAChikorita``, not in this repository), loaded unmodified as
Linux 6.1 modules (``docs/kernel-modules.md``), each simulated host with its
own statics; the Linear variants (20 %, 50 %, adaptive) and BBR, Cubic, Reno
and Vegas stay dumbbell's. Every row's ``impl`` says ``"module"`` when a
control of its run came from a module, ``"port"`` otherwise.

Paper-scale durations are the paper's (20, 100, 50 s; 20 s for the delay
sweep and the cordiality runs, which the paper does not state). Quick scale
keeps a few points per part, 2 rounds and short runs.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import polars as pl

from ...errors import ConfigError
from ...kmod import KernelModule
from ...scenario.models import DropTail, Link, Netem, Node, Scenario, TcpFlow, TcpOptions
from ...scenario.tcp_profiles import rcvbuf_window
from . import adaptive_count, base_rtt, run_length
from . import netem_gso
from ..claims import bars, claims_lines, interval
from .. import ExperimentResult, Progress, check_scale
from ..base import head, output_dir
from ..repeat import Job, by_point, mean_ci, round_seed, run_jobs
from . import NAME, PARTS

__all__ = ["NAME", "CC", "PAPER_TABLES", "network", "scenario", "adaptive_reduction", "run", "figures", "report"]

SEED_FILE = "001_98a806f760699703.txt"
LEVEL = 0.99

CC: dict[str, dict[str, Any]] = {
    "bbr": {"kind": "bbr"},
    "cubic": {"kind": "cubic"},
    "reno": {"kind": "reno"},
    "vegas": {"kind": "vegas"},
    "expolinear": {"kind": "expolinear"},
    "fractional": {"kind": "fractional"},
    "linear": {"kind": "linear"},
    "linear-20": {"kind": "linear", "reduction_pct": 20},
    "linear-50": {"kind": "linear", "reduction_pct": 50},
    "linear-adaptive": {"kind": "linear", "adaptive": True},
    "linear-adaptive-ack": {"kind": "linear", "adaptive": True, "adaptive_count": "ack"},
}
"""Row label → congestion-control configuration. ``linear`` is the final
Linear (fixed 10 % reduction); the other ``linear-*`` are its variants."""

FINAL = ("bbr", "cubic", "reno", "vegas", "expolinear", "fractional", "linear")
LINEAR_VARIANTS = ("linear", "linear-20", "linear-50", "linear-adaptive", "linear-adaptive-ack")
PROPOSED = ("expolinear", "fractional", "linear")

MODULE_FILES = {"linear": "linha01.c", "fractional": "frac01.c", "expolinear": "expolin01.c"}
"""The authors' module file of each proposal (``module_dir``)."""
MODULE_LINUX_VERSION = "6.1"
"""The kernel the authors' modules are written for: two-argument
``cong_control`` (``docs/kernel-modules.md``)."""

ACCESS_BPS = 10_000_000_000
ACCESS_DELAY_S = 25e-6
BASE_DELAY_S = 25e-6
HOST_JITTER_S = 5e-6
ROUTER_QUEUE_PKTS = 1000
NETEM_LIMIT_PKTS = 1000
# The lossless cordiality setup's router queue: both 3 MiB windows (2 × 2172
# packets) and more.
LOSSLESS_QUEUE_PKTS = 20_000
SETUPS = ("droptail", "lossless")
MSS_BYTES = 1448
HEADER_BYTES = 52
KERNEL_PROFILE = "linux-6.8"
"""The paper's hosts' kernel: Ubuntu Server 24.04.1's (the paper's §4)."""
RWND_BYTES = rcvbuf_window(KERNEL_PROFILE)
"""The receive window the era's ``tcp_rmem`` maximum gives: 3 MiB."""

POINTS: dict[str, dict[str, Any]] = {
    "paper": {
        "rounds": 10,
        "bandwidth": {"rates_bps": (10e6, 100e6, 250e6, 500e6, 750e6, 1e9), "duration_s": 20.0},
        "loss": {"losses": (0.01, 0.03, 0.05, 0.10, 0.20), "rate_bps": 10e9, "duration_s": 100.0},
        "delay": {"delays_ms": (5, 10, 20, 50, 100, 200, 500), "rate_bps": 1e9, "duration_s": 20.0},
        "loss-rtt": {"losses": (0.01, 0.03, 0.05, 0.10, 0.20), "rtts_ms": (20, 100), "rate_bps": 1e9, "duration_s": 50.0},
        "cordiality": {"rate_bps": 1e9, "duration_s": 20.0, "servers": ("bbr", "cubic"), "setups": SETUPS},
        "base-rtt": base_rtt.POINTS["paper"],
        "netem-gso": netem_gso.POINTS["paper"],
        "adaptive-count": {"duration_s": 100.0},
        "run-length": run_length.POINTS["paper"],
    },
    "quick": {
        "rounds": 2,
        "bandwidth": {"rates_bps": (100e6, 1e9), "duration_s": 5.0},
        "loss": {"losses": (0.01, 0.20), "rate_bps": 10e9, "duration_s": 2.0},
        "delay": {"delays_ms": (5, 100), "rate_bps": 1e9, "duration_s": 4.0},
        "loss-rtt": {"losses": (0.01, 0.20), "rtts_ms": (20, 100), "rate_bps": 1e9, "duration_s": 4.0},
        "cordiality": {"rate_bps": 1e9, "duration_s": 2.0, "servers": ("cubic",), "setups": SETUPS},
        "base-rtt": base_rtt.POINTS["quick"],
        "netem-gso": netem_gso.POINTS["quick"],
        "adaptive-count": {"duration_s": 2.0},
        "run-length": run_length.POINTS["quick"],
    },
}
"""Per scale: rounds, and each part's swept values and run length."""



def network(
    rate_bps: float,
    rtt_add_s: float = 0.0,
    loss: float = 0.0,
    duration_s: float = 20.0,
    name: str = "e3",
    netem_limit_pkts: int | None = NETEM_LIMIT_PKTS,
    base_rtt_s: float | None = None,
    netem_unit: str = "packet",
) -> Scenario:
    """Clients ``a``, ``b`` — router ``r`` — server ``srv``; see the module
    docs. The router's port toward the server runs a netem stage: loss at
    arrival, the added round trip as its delay line, and netem's limit over
    the line and the queue (``netem_limit_pkts``, netem's default 1000;
    ``None``: no limit), per packet or, with ``netem_unit="gso"``, per GSO
    skb (:mod:`~dumbbell.experiments.lossy_cc.netem_gso`). ``base_rtt_s``:
    the propagation round trip (default ``None``: ours, 0.1 ms), set by the
    router–server link's delay."""
    server_delay_s = BASE_DELAY_S if base_rtt_s is None else base_rtt.server_delay_s(base_rtt_s, ACCESS_DELAY_S)
    nodes = [Node(name=n, kind="host") for n in ("a", "b", "srv")] + [Node(name="r", kind="switch")]
    links = [
        Link(a=h, b="r", rate_bps=ACCESS_BPS, delay_s=ACCESS_DELAY_S, jitter_s=HOST_JITTER_S,
             queue_ab=DropTail(limit_pkts=ROUTER_QUEUE_PKTS))
        for h in ("a", "b")
    ]
    # netem's limit counts its line and the router's queue together; per
    # skb the queue too holds skbs, so its packet limit must not bind first.
    router_queue = (ROUTER_QUEUE_PKTS if netem_unit == "packet"
                    else netem_gso.router_queue_pkts(ROUTER_QUEUE_PKTS, MSS_BYTES))
    links.append(Link(a="r", b="srv", rate_bps=int(rate_bps), delay_s=server_delay_s,
                      queue_ab=DropTail(limit_pkts=router_queue),
                      netem_ab=Netem(loss=loss, delay_s=rtt_add_s, limit_pkts=netem_limit_pkts, unit=netem_unit)))
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links)


def adaptive_reduction(loss: float, count: str, duration_s: float = 20.0, seed: int = 1) -> tuple[float, int, float]:
    """The adaptive Linear's R as it ran: one flow on the ``loss`` part's
    network (10 Gb/s, random ``loss``), lost/sent counted over the current
    window (``count="window"``, eq. 3), over two rounds of data (``"round"``)
    or on the loss-reporting ACK (``"ack"``). Returns the
    mean R over the reductions (percent), their number, and the goodput."""
    from ...run.runner import run as run_scenario
    from ...scenario.models import Linear, Record

    s = network(10e9, loss=loss, duration_s=duration_s, name=f"e3-adaptive-{count}")
    s.add_flow(TcpFlow(name="a", src="a", dst="srv", cc=Linear(adaptive=True, adaptive_count=count), tcp=_tcp()))
    s.record = Record(cwnd_every_ack=True)
    r = run_scenario(s.validated(), seed=seed)
    t = r.table("cc_vars")
    pct = t.filter(pl.col("var") == "reduction_pct")["value"]
    point = t.filter(pl.col("var") == "recovery_point")["value"]
    at_reduction = pct.filter(point.diff().fill_null(0) != 0)
    return float(at_reduction.mean() or 0.0), at_reduction.len(), float(r.flows["goodput_bps"][0])


def _tcp() -> TcpOptions:
    # The era's profile: Linux 6.8's TCP and its buffers (RWND_BYTES, 4 MiB send buffer).
    return TcpOptions(mss_bytes=MSS_BYTES, header_bytes=HEADER_BYTES, profile=KERNEL_PROFILE)


def scenario(
    cc: str,
    rate_bps: float,
    *,
    rtt_add_s: float = 0.0,
    loss: float = 0.0,
    duration_s: float = 20.0,
    cc_b: str | None = None,
    setup: str = "droptail",
    module_dir: str | Path | None = None,
    base_rtt_s: float | None = None,
    netem_unit: str = "packet",
) -> Scenario:
    """One run: client ``a`` with ``cc`` alone, or with client ``b`` running
    ``cc_b`` at the same time (cordiality). ``setup``: the router as in the
    other parts (``"droptail"``: 1000 packets, netem's limit) or a lossless
    deep FIFO (``"lossless"``: room for both receive windows and more, no
    netem limit), where only the windows bound the clients. With
    ``module_dir``, Linear, Fractional and Expolinear run from the authors'
    modules there (:func:`module_files`). ``base_rtt_s``: the propagation
    round trip, ``netem_unit``: what netem's loss and limit count
    (:func:`network`)."""
    if setup not in SETUPS:
        raise ValueError(f"unknown setup {setup!r} (known: {', '.join(SETUPS)})")
    lossless = setup == "lossless"
    s = network(rate_bps, rtt_add_s, loss, duration_s, name=f"e3-{cc}" + (f"-vs-{cc_b}" if cc_b else ""),
                netem_limit_pkts=None if lossless else NETEM_LIMIT_PKTS, base_rtt_s=base_rtt_s,
                netem_unit=netem_unit)
    if lossless:
        s.link("r", "srv").queue_ab = DropTail(limit_pkts=LOSSLESS_QUEUE_PKTS)
    s.add_flow(TcpFlow(name="a", src="a", dst="srv", cc=_cc(cc, module_dir), tcp=_tcp()))
    if cc_b is not None:
        s.add_flow(TcpFlow(name="b", src="b", dst="srv", cc=_cc(cc_b, module_dir), tcp=_tcp()))
    return s.validated()


def module_files(module_dir: str | Path, field: str = "module_dir") -> dict[str, Path]:
    """The authors' module of each proposal in ``module_dir``; a missing
    file is one :class:`ConfigError` at ``field`` naming it, before
    anything runs."""
    d = Path(module_dir).expanduser()
    files = {cc: d / f for cc, f in MODULE_FILES.items()}
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise ConfigError(field, f"{', '.join(missing)}: no such file (the directory must hold the authors' "
                          f"{', '.join(MODULE_FILES.values())}, GitHub marcosvcm/CCAChikorita)")
    return files


def _cc(label: str, module_dir: str | Path | None) -> Any:
    if module_dir is not None and label in MODULE_FILES:
        return KernelModule(Path(module_dir).expanduser() / MODULE_FILES[label], linux_version=MODULE_LINUX_VERSION)
    return CC[label] if label in CC else adaptive_count.CC[label]


def _jobs(scale: str, seed: int, parts: tuple[str, ...], controls: tuple[str, ...] | None,
          module_dir: str | Path | None = None) -> list[Job]:
    cfg = POINTS[scale]
    rounds = cfg["rounds"]
    keep = (lambda c: True) if controls is None else (lambda c: c in controls)
    jobs: list[Job] = []

    def add(key: tuple, s_factory, part_index: int) -> None:
        s = s_factory()
        for r in range(rounds):
            jobs.append(Job(key=(*key, r), scenario=s, seed=round_seed(seed, part_index * 1000 + r)))

    if "bandwidth" in parts:
        p = cfg["bandwidth"]
        for i, rate in enumerate(p["rates_bps"]):
            for cc in filter(keep, FINAL):
                add(("bandwidth", cc, rate), lambda cc=cc, rate=rate: scenario(cc, rate, duration_s=p["duration_s"], module_dir=module_dir), 10 + i)
    if "loss" in parts:
        p = cfg["loss"]
        for i, loss in enumerate(p["losses"]):
            for cc in filter(keep, FINAL + LINEAR_VARIANTS[1:]):
                add(("loss", cc, loss), lambda cc=cc, loss=loss: scenario(cc, p["rate_bps"], loss=loss, duration_s=p["duration_s"], module_dir=module_dir), 20 + i)
    if "delay" in parts:
        p = cfg["delay"]
        for i, d in enumerate(p["delays_ms"]):
            for cc in filter(keep, FINAL + LINEAR_VARIANTS[1:]):
                add(("delay", cc, d), lambda cc=cc, d=d: scenario(cc, p["rate_bps"], rtt_add_s=d / 1e3, duration_s=p["duration_s"], module_dir=module_dir), 40 + i)
    if "loss-rtt" in parts:
        p = cfg["loss-rtt"]
        for j, rtt in enumerate(p["rtts_ms"]):
            for i, loss in enumerate(p["losses"]):
                for cc in filter(keep, FINAL):
                    add(("loss-rtt", cc, (rtt, loss)),
                        lambda cc=cc, rtt=rtt, loss=loss: scenario(cc, p["rate_bps"], rtt_add_s=rtt / 1e3, loss=loss, duration_s=p["duration_s"],
                                                         module_dir=module_dir),
                        60 + 10 * j + i)
    if "cordiality" in parts:
        p = cfg["cordiality"]
        for m, setup in enumerate(p["setups"]):
            for k, server in enumerate(p["servers"]):
                for i, col in enumerate(PROPOSED):
                    for j, row in enumerate(FINAL):
                        if keep(col) and keep(row):
                            add(("cordiality", col, (row, server, setup)),
                                lambda col=col, row=row, setup=setup: scenario(
                                    col, p["rate_bps"], duration_s=p["duration_s"], cc_b=row, setup=setup,
                                    module_dir=module_dir),
                                200 + 400 * m + 100 * k + 10 * i + j)
    if base_rtt.PART in parts:
        p = cfg[base_rtt.PART]
        losses = list(cfg["loss"]["losses"])
        for j, b in enumerate(p["base_rtts_ms"]):
            for i, loss in enumerate(p["losses"]):
                # The loss part's seeds at the same loss: only the round trip differs.
                index = 20 + losses.index(loss) if loss in losses else 1000 + i
                # Only the cells the part's claims read (BBR at 20 % only).
                for cc in filter(keep, base_rtt.controls(loss, FINAL)):
                    add((base_rtt.PART, cc, (b, loss)),
                        lambda cc=cc, b=b, loss=loss: scenario(cc, p["rate_bps"], loss=loss, duration_s=p["duration_s"],
                                                               module_dir=module_dir, base_rtt_s=b / 1e3),
                        index)
    if netem_gso.PART in parts:
        _gso_jobs(cfg, keep, add, module_dir)
    if adaptive_count.PART in parts:
        p = cfg["loss"]
        for i, loss in enumerate(p["losses"]):
            # The loss part's cells and seeds: only the count of eq. 3 differs.
            if keep(adaptive_count.LABEL):
                add((adaptive_count.PART, adaptive_count.LABEL, loss),
                    lambda loss=loss: scenario(adaptive_count.LABEL, p["rate_bps"], loss=loss,
                                               duration_s=cfg[adaptive_count.PART]["duration_s"]), 20 + i)
    if run_length.PART in parts:
        _run_length_jobs(cfg, keep, add, module_dir)
    return jobs


def _run_length_jobs(cfg: dict[str, Any], keep, add, module_dir: str | Path | None) -> None:
    """The ``run-length`` part: the loss-rtt part's cell at 20 ms and 20 %
    at each run length, with that cell's seeds
    (:mod:`~dumbbell.experiments.lossy_cc.run_length`)."""
    q = cfg["loss-rtt"]
    j = list(q["rtts_ms"]).index(run_length.RTT_MS) if run_length.RTT_MS in q["rtts_ms"] else 9
    i = list(q["losses"]).index(run_length.LOSS) if run_length.LOSS in q["losses"] else 9
    for d in cfg[run_length.PART]["durations_s"]:
        for cc in filter(keep, FINAL):
            add((run_length.PART, cc, d),
                lambda cc=cc, d=d: scenario(cc, q["rate_bps"], rtt_add_s=run_length.RTT_MS / 1e3, loss=run_length.LOSS,
                                            duration_s=d, module_dir=module_dir), 60 + 10 * j + i)


def _gso_jobs(cfg: dict[str, Any], keep, add, module_dir: str | Path | None) -> None:
    """The ``netem-gso`` part: the delay, loss-rtt (100 ms) and drop-tail
    cordiality cells with netem counting skbs, each with its own part's
    seeds (:mod:`~dumbbell.experiments.lossy_cc.netem_gso`)."""
    part, unit = netem_gso.PART, netem_gso.UNIT
    p = cfg["delay"]
    for i, d in enumerate(p["delays_ms"]):
        for cc in filter(keep, FINAL):
            add((part, cc, ("delay", d)),
                lambda cc=cc, d=d: scenario(cc, p["rate_bps"], rtt_add_s=d / 1e3, duration_s=p["duration_s"],
                                            module_dir=module_dir, netem_unit=unit), 40 + i)
    q = cfg["loss-rtt"]
    for j, rtt in enumerate(q["rtts_ms"]):
        if rtt not in cfg[part]["loss_rtt_rtts_ms"]:
            continue
        for i, loss in enumerate(q["losses"]):
            for cc in filter(keep, FINAL):
                add((part, cc, ("loss-rtt", rtt, loss)),
                    lambda cc=cc, rtt=rtt, loss=loss: scenario(cc, q["rate_bps"], rtt_add_s=rtt / 1e3, loss=loss,
                                                               duration_s=q["duration_s"], module_dir=module_dir,
                                                               netem_unit=unit), 60 + 10 * j + i)
    c = cfg["cordiality"]
    m = list(c["setups"]).index("droptail") if "droptail" in c["setups"] else 0
    for k, server in enumerate(c["servers"]):
        for i, col in enumerate(PROPOSED):
            for j, row in enumerate(FINAL):
                if keep(col) and keep(row):
                    add((part, col, ("cordiality", row, server, "droptail")),
                        lambda col=col, row=row: scenario(col, c["rate_bps"], duration_s=c["duration_s"], cc_b=row,
                                                          setup="droptail", module_dir=module_dir, netem_unit=unit),
                        200 + 400 * m + 100 * k + 10 * i + j)


def _rows(scale: str, outcomes, modules: tuple[str, ...] = ()) -> pl.DataFrame:
    cfg = POINTS[scale]
    groups = by_point(outcomes)
    rows = []
    for (part, cc, point), outs in groups.items():
        # A netem-gso row is its own part's row, per skb.
        gso_part = point[0] if part == netem_gso.PART else None
        kind, point = (gso_part, point[1] if len(point) == 2 else point[1:]) if gso_part else (part, point)
        base: dict[str, Any] = {
            "part": part, "cc": cc, "rate_bps": None, "loss": None, "delay_ms": None, "rtt_ms": None,
            "base_rtt_ms": None,
            "goodput_bps": None, "ci99_bps": None, "rounds": len(outs),
            "cc_a": None, "cc_b": None, "server_cc": None, "setup": None, "x": None, "x_ci99": None,
            "goodput_b_bps": None,
            "retransmits": float(sum(int(o.flows["retransmits"][0]) for o in outs)) / len(outs),
            "timeouts": float(sum(int(o.flows["timeouts"][0]) for o in outs)) / len(outs),
            "duration_s": cfg[kind].get("duration_s"),
            "netem_unit": netem_gso.UNIT if gso_part else None, "gso_part": gso_part,
        }
        if part == "bandwidth":
            base["rate_bps"] = int(point)
        elif part == "loss":
            base.update(rate_bps=int(cfg["loss"]["rate_bps"]), loss=point)
        elif kind == "delay":
            base.update(rate_bps=int(cfg["delay"]["rate_bps"]), delay_ms=float(point))
        elif kind == "loss-rtt":
            base.update(rate_bps=int(cfg["loss-rtt"]["rate_bps"]), rtt_ms=float(point[0]), loss=point[1])
        elif part == base_rtt.PART:
            base.update(rate_bps=int(cfg[part]["rate_bps"]), base_rtt_ms=float(point[0]), loss=point[1])
        elif part == adaptive_count.PART:
            base.update(rate_bps=int(cfg["loss"]["rate_bps"]), loss=point)
        elif part == run_length.PART:
            base.update(rate_bps=int(cfg["loss-rtt"]["rate_bps"]), rtt_ms=run_length.RTT_MS, loss=run_length.LOSS,
                        duration_s=float(point))
        a = [o.goodput_bps("a") for o in outs]
        base["goodput_bps"], base["ci99_bps"], _ = mean_ci(a, LEVEL)
        if kind == "cordiality":
            row_cc, server, setup = point
            base["setup"] = setup
            b = [o.goodput_bps("b") for o in outs]
            x = [ga / gb if gb > 0 else math.inf for ga, gb in zip(a, b)]
            base.update(rate_bps=int(cfg["cordiality"]["rate_bps"]), cc_a=cc, cc_b=row_cc, server_cc=server)
            base["x"], base["x_ci99"], _ = mean_ci(x, LEVEL)
            base["goodput_b_bps"] = mean_ci(b, LEVEL)[0]
        ran = (base["cc"], base["cc_b"])
        base["impl"] = "module" if any(c in modules for c in ran) else "port"
        rows.append(base)
    schema = {
        "part": pl.String, "cc": pl.String, "rate_bps": pl.Int64, "loss": pl.Float64, "delay_ms": pl.Float64,
        "rtt_ms": pl.Float64, "base_rtt_ms": pl.Float64, "goodput_bps": pl.Float64, "ci99_bps": pl.Float64,
        "rounds": pl.Int64,
        "cc_a": pl.String, "cc_b": pl.String, "server_cc": pl.String, "setup": pl.String, "x": pl.Float64,
        "x_ci99": pl.Float64,
        "goodput_b_bps": pl.Float64, "retransmits": pl.Float64, "timeouts": pl.Float64,
        "duration_s": pl.Float64, "impl": pl.String, "netem_unit": pl.String, "gso_part": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


# ---------------------------------------------------------------- the paper

_T_COLS = ("expolinear", "fractional", "linear")
_T_ROWS = ("bbr", "cubic", "reno", "vegas", "expolinear", "fractional", "linear")
PAPER_TABLES: dict[str, list[list[tuple[float, float]]]] = {
    # Table 1: server with BBR. Rows: BBR, Cubic, Reno, Vegas, Expolinear,
    # Fractional, Linear; columns: Expolinear, Fractional, Linear. (x, ±)
    "bbr": [
        [(1.56, 0.302), (2.11, 0.030), (1.26, 0.166)],
        [(1.02, 0.001), (0.96, 0.025), (1.02, 0.001)],
        [(1.01, 0.001), (0.91, 0.024), (1.01, 0.013)],
        [(21.02, 2.049), (36.75, 13.777), (20.74, 2.276)],
        [(1.00, 0.009), (0.93, 0.017), (1.01, 0.000)],
        [(1.02, 0.031), (1.07, 0.013), (1.13, 0.001)],
        [(1.01, 0.001), (0.93, 0.015), (1.01, 0.001)],
    ],
    # Table 2: server with Cubic.
    "cubic": [
        [(1.16, 0.013), (2.13, 0.042), (1.17, 0.006)],
        [(1.00, 0.009), (0.95, 0.025), (1.02, 0.011)],
        [(1.01, 0.001), (0.93, 0.019), (1.01, 0.011)],
        [(23.44, 5.212), (27.90, 5.365), (22.97, 3.560)],
        [(1.01, 0.000), (0.92, 0.020), (1.01, 0.011)],
        [(1.13, 0.002), (0.91, 0.034), (1.13, 0.001)],
        [(1.01, 0.001), (0.91, 0.021), (1.00, 0.006)],
    ],
}
"""The paper's Tables 1 and 2: cordiality x = a/b, a the column's control."""

_SRC = "Madeira and Mattos"


def _claims() -> list[dict[str, Any]]:
    """What the paper's text says, each as a ratio or a value we can compute."""
    c = []

    def claim(part, metric, point, relation, value, source, cc=None):
        c.append({"part": part, "metric": metric, "cc": cc, "point": point, "relation": relation,
                  "value": value, "source": f"{_SRC}, {source}"})

    claim("bandwidth", "goodput / link rate", "rate_bps=1e9", "~", 0.96,
          "Fig. 2b: every control uses about 96 % of the link", cc="each (min over controls)")
    for loss in (0.01, 0.03, 0.05, 0.10, 0.20):
        claim("loss", "linear / best other Linear variant", f"loss={loss}", ">=", 1.0,
              "Fig. 3a: the fixed 10 % reduction adapts best to loss", cc="linear")
    for cc in ("linear-adaptive", "linear-adaptive-ack"):
        claim("loss", f"{cc} / linear-50", "mean over losses", "~", 1.0,
              "Fig. 3a: the adaptive variant behaves like the fixed 50 % one", cc=cc)
    for loss in (0.01, 0.03, 0.05, 0.10):
        claim("loss", "bbr / best other final control", f"loss={loss}", ">=", 1.0,
              "Fig. 3b: BBR is the best below 20 % loss", cc="bbr")
    for loss in (0.05, 0.10, 0.20):
        claim("loss", "worst proposal / best of cubic, reno, vegas", f"loss={loss}", ">", 1.0,
              "Fig. 3b: the proposals beat Cubic, Reno and Vegas above 3 % loss", cc="proposals")
    for loss in (0.03, 0.05, 0.10):
        claim("loss", "fractional / best other proposal", f"loss={loss}", ">=", 1.0,
              "Fig. 3b: Fractional is the best proposal at 3, 5 and 10 % (overlapping Linear at 10 %)", cc="fractional")
    claim("loss", "linear / bbr", "loss=0.2", "~", 1.0, "Fig. 3b: at 20 % loss Linear performs like BBR", cc="linear")
    claim("delay", "max over controls of goodput(longest delay) / goodput(shortest)", "delay_ms=5..500", "<", 1.0,
          "Fig. 4, §5: delay lowers every control's goodput", cc="every control")
    claim("delay", "goodput(500 ms) / goodput(5 ms), fractional / min of others", "delay_ms=5..500", "<=", 1.0,
          "Fig. 4b: Fractional is the most affected by delay", cc="fractional")
    claim("delay", "min(linear, expolinear) decay / max decay of bbr, cubic, reno, vegas", "delay_ms=5..500", ">=", 1.0,
          "Fig. 4b: Linear and Expolinear decrease more gradually (decay: goodput at the longest delay over the "
          "shortest)", cc="linear, expolinear")
    for loss in (0.01, 0.03, 0.05):
        claim("loss-rtt", "bbr / best other final control", f"rtt_ms=20, loss={loss}", ">=", 1.0,
              "Fig. 5a: BBR is the best below 10 % loss at 20 ms", cc="bbr")
    claim("loss-rtt", "expolinear / bbr", "rtt_ms=20, loss=0.2", ">", 10.0,
          "Fig. 5a: at 20 % loss Expolinear exceeds BBR by more than an order of magnitude", cc="expolinear")
    claim("loss-rtt", "fractional / best of cubic, reno, vegas", "rtt_ms=20, loss=0.2", ">", 1.0,
          "Fig. 5a: Fractional is the worst proposal but still above Cubic, Reno and Vegas", cc="fractional")
    claim("loss-rtt", "linear / best other final control", "rtt_ms=20, loss=0.2", ">=", 1.0,
          "Fig. 5a: Linear also performs well at 20 % loss (among the best)", cc="linear")
    for loss in (0.10, 0.20):
        claim("loss-rtt", "bbr / min(expolinear, linear)", f"rtt_ms=100, loss={loss}", "<", 1.0,
              "Fig. 5b: BBR is beaten by Expolinear and Linear above 5 % loss", cc="bbr")
    for loss in (0.01, 0.03, 0.05, 0.10, 0.20):
        claim("loss-rtt", "min(expolinear, linear) / best other final control", f"rtt_ms=100, loss={loss}", ">=", 1.0,
              "Fig. 5b: Expolinear and Linear beat every other control at every loss rate at 100 ms",
              cc="expolinear, linear")
    # One claim per cell of Tables 1 and 2, scored against the lossless
    # FIFO (SCORED_SETUP); the shared drop-tail's x is shown beside it as a
    # sensitivity (ours_droptail), not as a second claim.
    setup = SCORED_SETUP
    for server, table in PAPER_TABLES.items():
        for i, row in enumerate(_T_ROWS):
            for j, col in enumerate(_T_COLS):
                x, ci = table[i][j]
                c.append({"part": "cordiality", "metric": "x", "cc": col, "cc_b": row, "server_cc": server,
                          "setup": setup, "point": f"cc_a={col}, cc_b={row}, server_cc={server}",
                          "relation": "=", "value": x, "value_ci": ci,
                          "source": f"{_SRC}, Table {1 if server == 'bbr' else 2} (ours: the server only returns "
                                    "ACKs, so both tables are one configuration of ours, their rounds differing "
                                    "by seed)"})
    return c


SCORED_SETUP = "lossless"
"""The cordiality setup the paper's tables are scored against: its clients
are bounded by their receive windows, as the paper's x ≈ 1 with Vegas still
starved suggests (the paper does not describe its bottleneck); the shared
drop-tail bottleneck is the sensitivity beside it (``ours_droptail``)."""

WINDOW_LIMITED = ("reno", "expolinear", "fractional", "linear")
"""Controls whose x on the lossless FIFO is set by the equal receive windows."""


def _basis(c: dict[str, Any]) -> tuple[str | None, str | None]:
    """Claims ours meets by the setup, whatever the controls do."""
    if c["part"] == "loss" and c["metric"].startswith("linear / best other"):
        return "by construction", ("Linear's fixed 10 % reduction is the smallest of its variants' (20 %, 50 %, "
                                   "the adaptive R), and goodput under the same random loss grows as the reduction "
                                   "shrinks")
    if c["part"] == "cordiality" and c["cc"] == c["cc_b"]:
        return "by construction", "the same control on both clients: an even share by symmetry"
    if c["part"] == "cordiality" and c["setup"] == "lossless" and c["cc_b"] in WINDOW_LIMITED:
        return "by construction", ("on the lossless FIFO both clients are bounded by their equal receive windows, "
                                   "whatever their controls")
    return None, None


def _paper_frame(rows: pl.DataFrame) -> pl.DataFrame:
    def g(part: str, cc: str, **where: Any) -> float | None:
        f = rows.filter((pl.col("part") == part) & (pl.col("cc") == cc))
        for k, v in where.items():
            f = f.filter(pl.col(k) == v)
        return float(f["goodput_bps"][0]) if f.height else None

    def ratio(num: float | None, den: float | None) -> float | None:
        if num is None or den is None or den <= 0:
            return None
        return num / den

    def best(part: str, ccs, **where: Any) -> float | None:
        vals = [v for v in (g(part, c, **where) for c in ccs) if v is not None]
        return max(vals) if vals else None

    def worst(part: str, ccs, **where: Any) -> float | None:
        vals = [g(part, c, **where) for c in ccs]
        return None if any(v is None for v in vals) or not vals else min(vals)

    # "module" when the run's proposals ran from the authors' modules
    # (--module-dir): the claims' accounts for module runs apply (null
    # otherwise).
    impl = "module" if "impl" in rows.columns and rows.filter(pl.col("impl") == "module").height else None
    out = []
    for c in _claims():
        ours = None
        ours_ci = None
        part, metric, point = c["part"], c["metric"], c["point"]
        kv = dict(p.split("=") for p in point.split(", ")) if "=" in point and ".." not in point else {}
        loss = float(kv["loss"]) if "loss" in kv else None
        if part == "bandwidth":
            vals = rows.filter((pl.col("part") == "bandwidth") & (pl.col("rate_bps") == 1_000_000_000))
            if vals.height:
                ours = float((vals["goodput_bps"] / vals["rate_bps"]).min())
        elif part == "loss" and metric.startswith("linear / best other"):
            ours = ratio(g("loss", "linear", loss=loss), best("loss", LINEAR_VARIANTS[1:], loss=loss))
        elif part == "loss" and metric.startswith("linear-adaptive"):
            a = rows.filter((pl.col("part") == "loss") & (pl.col("cc") == c["cc"]))["goodput_bps"].mean()
            b = rows.filter((pl.col("part") == "loss") & (pl.col("cc") == "linear-50"))["goodput_bps"].mean()
            ours = ratio(a, b)  # type: ignore[arg-type]
        elif part == "loss" and metric.startswith("bbr"):
            ours = ratio(g("loss", "bbr", loss=loss), best("loss", [x for x in FINAL if x != "bbr"], loss=loss))
        elif part == "loss" and metric.startswith("worst proposal"):
            ours = ratio(worst("loss", PROPOSED, loss=loss), best("loss", ("cubic", "reno", "vegas"), loss=loss))
        elif part == "loss" and metric.startswith("fractional"):
            ours = ratio(g("loss", "fractional", loss=loss), best("loss", ("expolinear", "linear"), loss=loss))
        elif part == "loss" and metric == "linear / bbr":
            ours = ratio(g("loss", "linear", loss=loss), g("loss", "bbr", loss=loss))
        elif part == "delay":
            d = rows.filter(pl.col("part") == "delay")
            if d.height:
                lo, hi = d["delay_ms"].min(), d["delay_ms"].max()
                keep = {}
                for cc in FINAL:
                    a, b = g("delay", cc, delay_ms=hi), g("delay", cc, delay_ms=lo)
                    if a is not None and b:
                        keep[cc] = a / b
                if metric.startswith("max over controls") and keep:
                    ours = max(keep.values())
                elif metric.startswith("min(linear, expolinear)"):
                    mine = [keep[x] for x in ("linear", "expolinear") if x in keep]
                    others = [keep[x] for x in ("bbr", "cubic", "reno", "vegas") if x in keep]
                    ours = min(mine) / max(others) if mine and others else None
                elif "fractional" in keep and len(keep) > 1:
                    ours = keep["fractional"] / min(v for k, v in keep.items() if k != "fractional")
        elif part == "loss-rtt":
            rtt = float(kv["rtt_ms"])
            w = {"rtt_ms": rtt, "loss": loss}
            if metric.startswith("bbr"):
                ours = ratio(g(part, "bbr", **w), best(part, [x for x in FINAL if x != "bbr"], **w))
            elif metric == "expolinear / bbr":
                ours = ratio(g(part, "expolinear", **w), g(part, "bbr", **w))
            elif metric.startswith("fractional"):
                ours = ratio(g(part, "fractional", **w), best(part, ("cubic", "reno", "vegas"), **w))
            elif metric.startswith("linear / best other"):
                ours = ratio(g(part, "linear", **w), best(part, [x for x in FINAL if x != "linear"], **w))
            elif metric == "bbr / min(expolinear, linear)":
                ours = ratio(g(part, "bbr", **w), worst(part, ("expolinear", "linear"), **w))
            else:
                ours = ratio(worst(part, ("expolinear", "linear"), **w),
                             best(part, ("bbr", "cubic", "reno", "vegas", "fractional"), **w))
        elif part == "cordiality":
            def cell(setup: str) -> pl.DataFrame:
                return rows.filter((pl.col("part") == "cordiality") & (pl.col("cc_a") == c["cc"])
                                   & (pl.col("cc_b") == c["cc_b"]) & (pl.col("server_cc") == c["server_cc"])
                                   & (pl.col("setup") == setup))
            f = cell(c["setup"])
            if f.height:
                ours, ours_ci = float(f["x"][0]), f["x_ci99"][0]
            other = cell("droptail")
            c = {**c, "ours_droptail": float(other["x"][0]) if other.height else None}
        basis, note = _basis(c)
        out.append({**{"cc_b": None, "server_cc": None, "setup": None, "value_ci": None, "ours_droptail": None}, **c,
                    "ours": ours, "ours_ci": ours_ci, "basis": basis, "basis_note": note, "impl": impl})
    schema = {"part": pl.String, "metric": pl.String, "cc": pl.String, "cc_b": pl.String, "server_cc": pl.String,
              "setup": pl.String,
              "point": pl.String, "relation": pl.String, "value": pl.Float64, "value_ci": pl.Float64,
              "ours": pl.Float64, "ours_ci": pl.Float64, "ours_droptail": pl.Float64, "basis": pl.String,
              "basis_note": pl.String, "source": pl.String, "impl": pl.String}
    frame = pl.DataFrame(out, schema=schema).select(list(schema))
    frame = netem_gso.attach(base_rtt.attach(frame, rows, _paper_frame), rows, _paper_frame)
    return run_length.attach(adaptive_count.attach(frame, rows, _paper_frame), rows, _paper_frame)


def run(
    scale: str = "quick",
    seed: int = 1,
    progress: Progress | None = None,
    *,
    parts: tuple[str, ...] = PARTS,
    controls: tuple[str, ...] | None = None,
    workers: int | None = None,
    module_dir: str | Path | None = None,
) -> ExperimentResult:
    """Runs the chosen ``parts`` (default all) for the chosen ``controls``
    (default all) on ``workers`` local cores, and measures them. With
    ``module_dir``, Linear, Fractional and Expolinear run from the authors'
    modules there (``linha01.c``, ``frac01.c``, ``expolin01.c``; a missing
    one is a :class:`ConfigError` before anything runs)."""
    check_scale(scale)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise ValueError(f"unknown parts {unknown} (known: {', '.join(PARTS)})")
    files = module_files(module_dir) if module_dir is not None else {}
    if progress and files:
        progress(f"{NAME}: " + ", ".join(f"{_LABEL[c].split(' ')[0]} from the authors' module {p}"
                                         for c, p in files.items())
                 + f" (Linux {MODULE_LINUX_VERSION}); every other control is dumbbell's")
    jobs = _jobs(scale, seed, parts, controls, module_dir)
    t0 = time.perf_counter()
    outcomes = run_jobs(jobs, workers=workers, progress=progress, label=NAME)
    rows = _rows(scale, outcomes, tuple(files))
    if progress:
        pkts = sum(int(o.summary["data_packets_sent"]) for o in outcomes)
        progress(f"{NAME}: {len(jobs)} runs, {pkts / 1e6:.1f} M data packets in {time.perf_counter() - t0:.1f} s wall")
    return ExperimentResult(experiment=NAME, scale=scale, seed=seed, rows=rows, paper=_paper_frame(rows),
                            params={"parts": list(parts), **POINTS[scale],
                                    **({"modules": {c: p.name for c, p in files.items()},
                                        "modules_linux_version": MODULE_LINUX_VERSION} if files else {})})


# ---------------------------------------------------------------- figures and report

_LABEL = {"bbr": "BBR", "cubic": "Cubic", "reno": "Reno", "vegas": "Vegas", "expolinear": "Expolinear",
          "fractional": "Fractional", "linear": "Linear (10 %)", "linear-20": "Linear 20 %",
          "linear-50": "Linear 50 %", "linear-adaptive": "Linear adaptive (per window)",
          "linear-adaptive-ack": "Linear adaptive (per ACK)", adaptive_count.LABEL: "Linear adaptive (per two rounds)"}


def figures(result: ExperimentResult, out_dir: str | Path) -> list[Path]:
    """Figures like the paper's 2b, 3a, 3b, 4a, 4b, 5a and 5b: mean goodput
    with 99 % intervals against the swept value, one line per control."""
    from .. import plots

    out = output_dir(out_dir)
    rows = result.rows
    specs = [
        ("fig2b_bandwidth.png", "bandwidth", FINAL, "rate_bps", {}, "link rate (Mb/s)", 1e-6, "Fig. 2b: goodput vs link rate"),
        ("fig3a_loss_linear.png", "loss", LINEAR_VARIANTS, "loss", {}, "loss (%)", 100.0, "Fig. 3a: Linear variants vs loss, 10 Gb/s"),
        ("fig3b_loss.png", "loss", FINAL, "loss", {}, "loss (%)", 100.0, "Fig. 3b: controls vs loss, 10 Gb/s"),
        ("fig4a_delay_linear.png", "delay", LINEAR_VARIANTS, "delay_ms", {}, "added RTT (ms)", 1.0, "Fig. 4a: Linear variants vs delay, 1 Gb/s"),
        ("fig4b_delay.png", "delay", FINAL, "delay_ms", {}, "added RTT (ms)", 1.0, "Fig. 4b: controls vs delay, 1 Gb/s"),
        ("fig5a_loss_rtt20.png", "loss-rtt", FINAL, "loss", {"rtt_ms": 20.0}, "loss (%)", 100.0, "Fig. 5a: controls vs loss, RTT 20 ms"),
        ("fig5b_loss_rtt100.png", "loss-rtt", FINAL, "loss", {"rtt_ms": 100.0}, "loss (%)", 100.0, "Fig. 5b: controls vs loss, RTT 100 ms"),
    ]
    paths = []
    for fname, part, ccs, xcol, where, xlabel, xscale, title in specs:
        f = rows.filter(pl.col("part") == part)
        for k, v in where.items():
            f = f.filter(pl.col(k) == v)
        if f.height == 0:
            continue
        series = {}
        for cc in ccs:
            g = f.filter(pl.col("cc") == cc).sort(xcol)
            if g.height:
                # 99 % intervals from 3 rounds up, the two rounds' range from
                # 2, never below 0 Mb/s.
                series[_LABEL[cc]] = (g[xcol].to_numpy() * xscale, g["goodput_bps"].to_numpy() / 1e6,
                                      bars(g["goodput_bps"].to_list(), g["ci99_bps"].to_list(), g["rounds"].to_list(),
                                           LEVEL, scale=1e-6))
        if not series:
            continue
        p = out / fname
        plots.errorbar_figure(series, title=f"{title} ({result.scale} scale)", xlabel=xlabel,
                              ylabel="goodput (Mb/s), mean, 99 % CI (2 rounds: their range)", path=p,
                              logx=part in ("delay",), logy=part in ("loss", "loss-rtt", "delay"))
        paths.append(p)
    return paths


def _mbps(v: Any) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v / 1e6:.1f}"


def report(result: ExperimentResult) -> str:
    """Plain-text tables: each part's means ± 99 % CI, the cordiality tables
    beside the paper's, and the paper's claims with our ratios."""
    rows = result.rows
    rounds = POINTS[result.scale]["rounds"]
    how = "mean [the two rounds]" if rounds == 2 else f"mean ± 99 % CI over {rounds} rounds"
    lines = head(result, f"goodput in Mb/s, {how}")
    modules = (result.params or {}).get("modules")
    lines.append("controls: " + (", ".join(f"{_LABEL[c].split(' ')[0]} from the authors' module {f}"
                                           for c, f in modules.items())
                                 + f" (Linux {MODULE_LINUX_VERSION}, rows impl=module); every other control "
                                 "dumbbell's port" if modules else "dumbbell's ports (rows impl=port)"))
    for part, xcol, fmt in (("bandwidth", "rate_bps", lambda v: f"{v / 1e6:g}M"), ("loss", "loss", lambda v: f"{v:.0%}"),
                            ("delay", "delay_ms", lambda v: f"{v:g}ms"), ("loss-rtt", None, None),
                            (base_rtt.PART, None, None), (adaptive_count.PART, "loss", lambda v: f"{v:.0%}"),
                            (run_length.PART, "duration_s", lambda v: f"{v:g}s")):
        f = rows.filter(pl.col("part") == part)
        if f.height == 0:
            continue
        if part in ("loss-rtt", base_rtt.PART):
            col = "rtt_ms" if part == "loss-rtt" else "base_rtt_ms"
            f = f.with_columns((pl.col(col).map_elements(lambda v: f"{v:g}", return_dtype=pl.String) + "ms/"
                                + (pl.col("loss") * 100).round(0).cast(pl.Int64).cast(pl.String) + "%").alias("pt"))
        else:
            f = f.with_columns(pl.col(xcol).map_elements(fmt, return_dtype=pl.String).alias("pt"))
        order = {"loss-rtt": ["rtt_ms", "loss"], base_rtt.PART: ["base_rtt_ms", "loss"]}.get(part, xcol)
        pts = list(dict.fromkeys(f.sort(order)["pt"].to_list()))
        ccs = [c for c in (*CC, adaptive_count.LABEL) if c in set(f["cc"].to_list())]
        lines.append("")
        lines.append(f"[{part}]")
        table = [["cc", *pts]]
        for cc in ccs:
            cells = [cc]
            for pt in pts:
                r = f.filter((pl.col("cc") == cc) & (pl.col("pt") == pt))
                cells.append(interval(r["goodput_bps"][0], r["ci99_bps"][0], r["rounds"][0], 0.99, 1e-6, "{:.1f}")
                             if r.height else "-")
            table.append(cells)
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table]
    lines += netem_gso.report_lines(rows)
    cord_all = rows.filter(pl.col("part") == "cordiality")
    for setup, server in dict.fromkeys(zip(cord_all["setup"].to_list(), cord_all["server_cc"].to_list())):
        cord = cord_all.filter(pl.col("setup") == setup)
        lines.append("")
        what = ("router queue 1000 packets (netem's limit)" if setup == "droptail"
                else "lossless deep FIFO, window-limited clients")
        lines.append(f"[cordiality] x = a/b, server {server}, {what}: ours (paper)")
        table = [["b \\ a", *_T_COLS]]
        for i, rb in enumerate(_T_ROWS):
            cells = [rb]
            for j, ca in enumerate(_T_COLS):
                r = cord.filter((pl.col("cc_a") == ca) & (pl.col("cc_b") == rb) & (pl.col("server_cc") == server))
                ours = f"{r['x'][0]:.2f}" if r.height and r["x"][0] is not None else "-"
                px, pci = PAPER_TABLES[server][i][j] if server in PAPER_TABLES else (float("nan"), 0)
                cells.append(f"{ours} ({px:.2f}±{pci:.2f})")
            table.append(cells)
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table]
    lines.append("")
    lines += claims_lines(result.paper, experiment=NAME)
    return "\n".join(lines)
