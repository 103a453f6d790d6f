"""``highspeed``: HighSpeed TCP against TCP at 1 Gb/s.

The experiment's paper, its parts and its accounts of known differences.

This file is light (no numpy or polars): the registry
(:mod:`dumbbell.experiments.registry`) reads it to list the experiment, and
:func:`dumbbell.experiments.claims.judge` reads its accounts. The experiment
itself (its runs, tables, figures and printed report) is
:mod:`dumbbell.experiments.highspeed.experiment`; its names are reachable from
here too (``dumbbell.experiments.highspeed.run``).
"""

from __future__ import annotations

from ..._rooms import forward
from ..known import Known, below, doc, within
from ..papers import Paper

NAME = "highspeed"
PARTS = ("single", "wan")
"""The parts ``--parts`` may name, in the order they run."""

PAPER = Paper(
    experiment="highspeed",
    label="E5",
    title="HighSpeed TCP against TCP at 1 Gb/s",
    authors="J. F. de Rezende, L. H. M. K. Costa and M. G. Rubinstein",
    surnames="de Rezende, Costa and Rubinstein",
    paper_title="Avaliação Experimental e Simulação do Protocolo TCP em Redes de Alta Velocidade",
    venue="no venue or year printed in our copy; its newest reference is from 2005",
    language="Portuguese",
    doc="docs/experiments/highspeed.md",
)
"""The paper this experiment reproduces."""


def _doc(anchor: str) -> str:
    return doc(NAME, anchor)


KNOWN: list[Known] = [
    Known({"metric": "median over losses of gain(highest latency) / gain(lowest latency)"}, cause="paper",
          when=below(1.0), condition="the gain not growing with the RTT",
          reason="in steady state the windows, in packets, do not depend on the RTT (the paper's own response "
                 "functions), so where neither flow is capped by the link or the receive window the gain does "
                 "not grow with it; over 60 s TCP's first slow start weighs more at the higher RTT",
          doc=_doc("hstcps-gain-and-the-rtt")),
    Known({"metric": "capped / uncapped goodput where the uncapped run stays below 600 Mb/s (the worst)"},
          cause="model", when=within(0.71 * 0.85, 0.71 * 1.15),
          condition="the testbed arm within 15 % of 1/√2 = 0.71 of the simulation arm",
          reason="the testbed arm runs Linux 2.4, which grows its window per ACK: with delayed ACKs one "
                 "segment per two round trips, so its windows are 1/√2 of the simulation arm's, which counts "
                 "segments acked; the paper does not say whether its ns-2 sink delayed ACKs (then ns-2, "
                 "growing per ACK too, would meet the testbed)",
          doc=_doc("the-testbed-arm-below-the-simulation-under-600-mbs")),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = []
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
