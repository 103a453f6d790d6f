"""``l4s``: TCP Prague and Cubic through DualPI2 and FQ-CoDel.

The experiment's paper, its parts and its accounts of known differences.

This file is light (no numpy or polars): the registry
(:mod:`dumbbell.experiments.registry`) reads it to list the experiment, and
:func:`dumbbell.experiments.claims.judge` reads its accounts. The experiment
itself (its runs, tables, figures and printed report) is
:mod:`dumbbell.experiments.l4s.experiment`; its names are reachable from
here too (``dumbbell.experiments.l4s.run``).
"""

from __future__ import annotations

from ..._rooms import forward
from ..known import Known, within
from ..papers import Paper

NAME = "l4s"

PAPER = Paper(
    experiment="l4s",
    label="E6",
    title="L4S: TCP Prague and Cubic through DualPI2 and FQ-CoDel",
    authors="K. De Schepper, B. Briscoe and G. White",
    surnames="De Schepper, Briscoe and White",
    paper_title="Dual-Queue Coupled Active Queue Management (AQM) for Low Latency, Low Loss, and Scalable "
                "Throughput (L4S)",
    venue="RFC 9332, IETF, January 2023; with K. De Schepper, O. Bondarenko, I.-J. Tsang and B. Briscoe, "
          "\"PI2: A Linearized AQM for both Classic and Scalable TCP\", ACM CoNEXT 2016",
    doc="docs/experiments/l4s.md",
)
"""The paper this experiment reproduces."""


KNOWN: list[Known] = [
    Known({"metric": "classic_qdelay_p50_ms", "mix": "0p1c"}, cause="model",
          when=within(8.0, 15.0), condition="ours between 8 and 15 ms (below the target, not above)",
          reason="one Cubic flow drops rarely (a sawtooth of seconds): between drops PI2's probability "
                 "falls to its floor of 0 and stays clamped there, so the queue spends long stretches "
                 "below the target and its median ({ours} ms) sits under 15 ms; with four classic flows "
                 "(mix 1p4c) it is at the target",
          doc="docs/experiments/l4s.md#one-cubic-flow-sits-below-the-target"),
    Known({"metric": "rate_ratio"}, cause="model", when=within(1.0, 1.75),
          condition="Prague's per-flow rate between 1 and 1.75 times Cubic's",
          reason="the balance k = 2 gives is for equal RTTs; here the base RTTs are equal (20 ms) but a "
                 "Cubic flow's RTT also holds the classic queue (about 15 ms) and a Prague flow's the L "
                 "queue (under 1 ms), and a window-based flow's rate goes as 1/RTT: Prague gets up to "
                 "35/20 = 1.75 times Cubic's rate (ours {ours})",
          doc="docs/experiments/l4s.md#rates-and-the-classic-queues-rtt"),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = []
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
