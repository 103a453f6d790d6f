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
from ..known import Condition, Known, across_sensitivity, within
from ..papers import Paper
from . import rates

NAME = "l4s"
PARTS = ("mixes", "pi2-target", "classic-flows")
"""The parts ``--parts`` may name, in the order they run: ``mixes`` (every
(queue, mix) of the scale) and the sensitivity parts ``pi2-target`` and
``classic-flows`` (:mod:`dumbbell.experiments.l4s.sensitivity`)."""

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


def _and_across(lo: float, hi: float) -> Condition:
    """Ours lies in [lo, hi] and the sensitivity part's settings move ours
    across the specification's value (:func:`across_sensitivity`)."""
    inside = within(lo, hi)
    return lambda r: inside(r) and across_sensitivity(r)


KNOWN: list[Known] = [
    Known({"metric": "classic_qdelay_p50_ms", "mix": "0p1c"}, cause="model",
          when=_and_across(8.0, 15.0),
          condition="ours between 8 and 15 ms (below the target, not above), and more Cubic flows alone (part "
                    "classic-flows) bringing the median to the 15 ms target",
          reason="one Cubic flow drops rarely (a sawtooth of seconds): between drops PI2's probability "
                 "falls to its floor of 0 and stays clamped there, so the queue spends long stretches "
                 "below the target and its median ({ours} ms) sits under 15 ms; more Cubic flows alone (part "
                 "classic-flows) move it from {sensitivity_lo} to {sensitivity_hi} ms, to the target",
          doc="docs/experiments/l4s.md#one-cubic-flow-sits-below-the-target"),
    Known({"metric": "rate_ratio"}, cause="model", when=rates.follows_rtt,
          condition=f"ours going as each run's own RTT ratio over PI2's targets 1, 5, 15 and 30 ms (part "
                    f"pi2-target): the slope of log(ours) against log((20 + classic delay)/(20 + L delay)) within "
                    f"{rates.SLOPE_BAND[0]:.2f}-{rates.SLOPE_BAND[1]:.2f} (1 ± 3 sd) and the window ratio ours/RTT "
                    f"ratio within {rates.WINDOW_BAND[0]:.2f}-{rates.WINDOW_BAND[1]:.2f} (k = 2's "
                    f"{rates.WINDOW_RATIO:.2f}, ± 3 sd; sd over 12 quick seeds)",
          reason="k = 2 balances windows, not rates: Prague's window 2/p_L against a Reno-friendly Cubic's "
                 "1.22/sqrt(p_C) = 2.44/p_L makes it 0.82 of Cubic's, and a flow's rate is its window over its "
                 "RTT; the base RTTs are equal (20 ms) but a Cubic flow's RTT also holds the classic queue "
                 "(about 15 ms, PI2's target) and a Prague flow's the L queue (under 1 ms), so Prague gets "
                 "0.82 x (20 + classic delay)/(20 + L delay) times Cubic's rate: {rtt_predicted} from this "
                 "run's queue delays (ours {ours}); PI2's target (part pi2-target) moves ours from "
                 "{sensitivity_lo} to {sensitivity_hi}, as the RTT ratio (slope 1 and window ratio 0.82 "
                 "predicted; this run's below)",
          doc="docs/experiments/l4s.md#rates-and-the-classic-queues-rtt"),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = []
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
