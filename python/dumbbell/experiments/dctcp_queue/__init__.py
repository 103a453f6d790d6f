"""``dctcp-queue``: the DCTCP queue-occupancy micro-benchmark.

The experiment's paper, its parts and its accounts of known differences.

This file is light (no numpy or polars): the registry
(:mod:`dumbbell.experiments.registry`) reads it to list the experiment, and
:func:`dumbbell.experiments.claims.judge` reads its accounts. The experiment
itself (its runs, tables, figures and printed report) is
:mod:`dumbbell.experiments.dctcp_queue.experiment`; its names are reachable from
here too (``dumbbell.experiments.dctcp_queue.run``).
"""

from __future__ import annotations

from ..._rooms import forward
from ..known import Known, doc, within
from ..papers import Paper

NAME = "dctcp-queue"

PAPER = Paper(
    experiment="dctcp-queue",
    label="E1",
    title="DCTCP queue occupancy",
    authors="N. Handigol, B. Heller, V. Jeyakumar and B. Lantz",
    surnames="Handigol, Heller, Jeyakumar and Lantz",
    paper_title="DCTCP",
    venue="a Mininet-HiFi reproduction write-up, Stanford University (titled by its subject alone; no venue "
          "or year printed in our copy; its newest reference is from 2011)",
    reproduces="M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta and "
               "M. Sridharan, \"Data Center TCP (DCTCP)\", ACM SIGCOMM 2010, pp. 63-74",
    doc="docs/experiments/dctcp-queue.md",
)
"""The paper this experiment reproduces."""


def _doc(anchor: str) -> str:
    return doc(NAME, anchor)


KNOWN: list[Known] = [
    Known({"metric": "queue_vs_hardware_pkts"}, verdict="not measurable", cause="testbed",
          reason="compares Mininet-HiFi with the authors' hardware switch; dumbbell is neither",
          doc=_doc("mininet-hifi-against-hardware")),
    Known({"metric": "dequeue_dev_frac_over_100pct", "rate_bps": 1_000_000_000}, cause="testbed",
          when=within(hi=0.0), condition="every dequeue deviation of ours being 0",
          reason="a measure of Mininet-HiFi's emulation error at 1 Gb/s; dumbbell's links are exact, every "
                 "deviation is 0",
          doc=_doc("link-fidelity-at-1-gbs")),
    Known({"metric": "utilization", "rate_bps": 1_000_000_000}, cause="testbed",
          when=within(lo=0.99), condition="our link staying at or above 99 % utilization",
          reason="Mininet-HiFi's CPU saturated at 1 Gb/s; a simulated link is never short of CPU, so ours "
                 "stays at {ours}",
          doc=_doc("link-fidelity-at-1-gbs")),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = []
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
