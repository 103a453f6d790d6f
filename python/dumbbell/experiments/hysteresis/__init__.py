"""``hysteresis``: DCTCP with hysteresis marking and packet return on a software switch.

The experiment's paper, its parts and its accounts of known differences.

This file is light (no numpy or polars): the registry
(:mod:`dumbbell.experiments.registry`) reads it to list the experiment, and
:func:`dumbbell.experiments.claims.judge` reads its accounts. The experiment
itself (its runs, tables, figures and printed report) is
:mod:`dumbbell.experiments.hysteresis.experiment`; its names are reachable from
here too (``dumbbell.experiments.hysteresis.run``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._rooms import forward
from ..known import Condition, Known, below, doc, number
from ..papers import Paper

NAME = "hysteresis"
PARTS = ("cases", "li-sweep", "ls-sweep", "hardware", "copy-effect")
"""The parts ``--parts`` may name, in the order they run."""

PAPER = Paper(
    experiment="hysteresis",
    label="E2",
    title="DCTCP with hysteresis marking and packet return in P4 switches",
    authors="V. L. G. Silva, M. A. M. Vieira and J. A. M. Nacif",
    surnames="Silva, Vieira and Nacif",
    paper_title="Data Center TCP com Histerese em Switches P4",
    venue="Universidade Federal de Viçosa and Universidade Federal de Minas Gerais (no venue or year printed in "
          "our copy; its newest reference is from 2021)",
    language="Portuguese",
    doc="docs/experiments/hysteresis.md",
)
"""The paper this experiment reproduces."""


def _doc(anchor: str) -> str:
    return doc(NAME, anchor)


def _flat_at_calibration(tol: float = 0.02) -> Condition:
    """Ours equals the calibration point's ours within ``tol`` (a flat sweep)."""
    def cond(r: Mapping[str, Any]) -> bool:
        o = number(r.get("ours"))
        ref = [number(x.get("ours")) for x in r.get("_rows", []) if x.get("basis") == "calibrated"]
        return o is not None and bool(ref) and ref[0] is not None and abs(o - ref[0]) <= tol * ref[0]
    return cond


def _scatter_within_sd(k: float = 2.0) -> Condition:
    """The paper's value lies within ``k`` standard deviations (over our runs)
    of ours."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v, sd = number(r.get("ours")), number(r.get("value")), number(r.get("ours_std_bps"))
        return o is not None and v is not None and sd is not None and abs(o - v) <= k * sd
    return cond


def _alternative_closer(r: Mapping[str, Any]) -> bool:
    """Ours under the sensitivity part's other setting (``ours_alt``) lies
    closer to the paper's value than ours."""
    o, v, alt = number(r.get("ours")), number(r.get("value")), number(r.get("ours_alt"))
    return o is not None and v is not None and alt is not None and abs(alt - v) < abs(o - v)


KNOWN: list[Known] = [
    Known({"case": "A", "part": lambda p: p in ("li-sweep", "ls-sweep")}, cause="model",
          when=_flat_at_calibration(), condition="ours within 2 % of the calibrated case-A point (a flat sweep)",
          reason="our case A sweeps are flat: the port never runs dry with either marking, so both deliver the "
                 "calibrated port rate; the paper's dips are not reproduced",
          doc=_doc("case-a-and-its-sweeps")),
    Known({"case": lambda c: c in ("B", "C", "E")}, cause="model",
          when=below(0.5), condition="ours below half the paper's (TCP starving)",
          reason="our TCP starves ({ratio} of the paper's): UDP overloads the port (B) or the shared pipeline "
                 "(C, E), which drops TCP too; the paper's hosts kept 0.07-0.5 Mb/s",
          doc=_doc("cases-b-c-and-e-tcp-starves")),
    Known({"case": "D"}, cause="model",
          when=_scatter_within_sd(2.0), condition="the paper's value within 2 σ of ours (σ over our runs)",
          reason="shares within a run are very unequal (σ over our runs {ours_std_bps} b/s against the paper's "
                 "{std_bps}), so means over few runs scatter around the paper's",
          doc=_doc("case-d-unequal-shares")),
    Known({"case": "D", "marking": lambda m: m in ("return", "return+hysteresis")}, cause="model",
          when=_alternative_closer,
          condition="ours with copies taken as congestion echoes (part copy-effect) closer to the paper's",
          reason="the senders drop the returned copies as Linux would (copy_effect linux) and the return ports "
                 "do not mark, so only drops restrain the flows and the start order's winner takes its port; "
                 "taken as congestion echoes (the paper's intent) the copies give {ours_alt} b/s",
          doc=_doc("packet-return-where-what-it-costs-what-the-sender-does")),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = []
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
