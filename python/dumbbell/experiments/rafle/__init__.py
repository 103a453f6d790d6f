"""``rafle``: RAFLE's stateless short/long flow differentiation on an FTP router.

The experiment's paper, its parts and its accounts of known differences.

This file is light (no numpy or polars): the registry
(:mod:`dumbbell.experiments.registry`) reads it to list the experiment, and
:func:`dumbbell.experiments.claims.judge` reads its accounts. The experiment
itself (its runs, tables, figures and printed report) is
:mod:`dumbbell.experiments.rafle.experiment`; its names are reachable from
here too (``dumbbell.experiments.rafle.run``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .accounts import paper_uptick, rafle_rr_spread, within_own_scatter
from ..._rooms import forward
from ..known import Condition, Known, above, across_sensitivity, below, doc, number
from ..papers import Paper
from .closed_loop_accounts import LOOP_KNOWN

NAME = "rafle"
PARTS = ("simultaneous", "closed-loop", "memory", "buffer", "memory-sensitivity", "closed-loop-sensitivity", "era", "web")
"""The parts ``--parts`` may name, in the order they run."""

PAPER = Paper(
    experiment="rafle",
    label="E4",
    title="RAFLE: stateless short/long flow differentiation",
    authors="S. S. Mussi and M. R. N. Ribeiro",
    surnames="Mussi and Ribeiro",
    paper_title="RAFLE: Uma Proposta para Diferenciação de Fluxos sem Manutenção de Estados em Roteadores",
    venue="Universidade Federal do Espírito Santo (no venue or year printed in our copy; its newest "
          "reference is from 2012)",
    language="Portuguese",
    doc="docs/experiments/rafle.md",
)
"""The paper this experiment reproduces."""


def _doc(anchor: str) -> str:
    return doc(NAME, anchor)


def _same_as_droptail(tol: float = 0.05) -> Condition:
    """Ours (a completion time) is within ``tol`` of our drop-tail's in the same bin."""
    def cond(r: Mapping[str, Any]) -> bool:
        o = number(r.get("ours"))
        dt = [number(x.get("ours")) for x in r.get("_rows", []) if x.get("classifier") == "droptail"
              and x.get("metric") == r.get("metric") and x.get("bin_kb") == r.get("bin_kb")]
        return o is not None and bool(dt) and dt[0] is not None and abs(o - dt[0]) <= tol * dt[0]
    return cond


def _one_file_carries(r: Mapping[str, Any]) -> bool:
    """The paper's value lies within the bin's leave-one-out range of ours
    (``ours_loo_lo`` to ``ours_loo_hi``, :mod:`.spread`): leaving out one of
    the bin's files moves ours across it."""
    v, lo, hi = number(r.get("value")), number(r.get("ours_loo_lo")), number(r.get("ours_loo_hi"))
    return v is not None and lo is not None and hi is not None and lo <= v <= hi


def _within_sampling(k: float = 2.0) -> Condition:
    """Ours and the paper's number differ by at most ``k`` standard errors
    of their difference, √(paper_se² + ours_se²): each the scatter of a
    mean (σ) over the completions behind it (the paper's three
    realizations of the bin's files, our realizations of them)."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = number(r.get("ours")), number(r.get("value"))
        sp, so = number(r.get("paper_se")), number(r.get("ours_se"))
        if o is None or v is None or sp is None or so is None:
            return False
        return abs(o - v) <= k * (sp ** 2 + so ** 2) ** 0.5
    return cond


def _above_paper_and_other_scheduler(r: Mapping[str, Any]) -> bool:
    """A Table 1 number of ours above the paper's and above ours under the
    other scheduler at the same N (``ours_other``): the excess is the
    scheduler's."""
    o, v, other = number(r.get("ours")), number(r.get("value")), number(r.get("ours_other"))
    return o is not None and v is not None and other is not None and o > v and o > other


KNOWN: list[Known] = [
    Known({"part": "simultaneous", "bin_kb": lambda b: b in ("0-100", "all"),
           "metric": lambda m: m in ("fct_mean_s", "fct_std_s", "gain", "gain_std")
           or (isinstance(m, str) and m.startswith("max finished"))}, cause="testbed",
          when=across_sensitivity,
          condition="the paper's value within the range ours spans over the buffer part's router buffers",
          reason="the router's buffer, which the paper does not give (ours: Click's default Queue of 1000 "
                 "packets), moves ours from {sensitivity_lo} to {sensitivity_hi}, across the paper's value",
          doc=_doc("the-routers-buffer")),
    Known({"part": "simultaneous", "classifier": "rafle", "scheduler": "rr", "metric": "fct_std_s",
           "bin_kb": lambda b: b not in ("0-100", "all")}, cause="model",
          when=rafle_rr_spread,
          condition="RAFLE RR's σ above the paper's and above both our drop-tail's and our RAFLE PrioSched's σ "
                    "in the bin",
          reason="RAFLE calls most packets short, so under round robin the long queue is a fast lane and each "
                 "file's completion is set by how often RAFLE sent its packets there: the bin spreads more than "
                 "under our drop-tail or our RAFLE PrioSched; how far depends on how the hosts' loss detection "
                 "answers the reordering (the kernel era: part era reruns the bin with the hosts of linux-6.12 and "
                 "of linux-3.2 with RACK on)",
          doc=_doc("rafle-rrs-spread-above-the-first-bin")),
    Known({"part": "simultaneous", "bin_kb": lambda b: b not in ("0-100", "all"),
           "metric": lambda m: m in ("fct_mean_s", "fct_std_s")}, cause="testbed",
          when=_one_file_carries,
          condition="the paper's value between ours with one of the bin's files left out (its lowest and highest)",
          reason="one file carries the bin: leaving out one of its files moves ours from {ours_loo_lo} to "
                 "{ours_loo_hi} s, across the paper's value (in the full FIFO a file whose window locks at one "
                 "or two packets takes several times its fair share; which file is the realization's draw)",
          doc=_doc("one-file-carries-a-bin")),
    Known({"part": "memory", "scheduler": "prio", "metric": lambda m: m in ("pa_c", "pa_l")}, cause="testbed",
          when=within_own_scatter,
          condition="ours within the paper's largest departure from a monotone trend of its column over N",
          reason="within the paper's own scatter of Table 1 (its column's largest departure from the monotone "
                 "trend over N that RAFLE's rule gives); which flows share a slot of the memory depends on "
                 "arrival timing the paper does not give",
          doc=_doc("rafles-accuracy-table-1")),
    Known({"part": "memory", "scheduler": "prio", "metric": "pa_l"}, cause="testbed",
          when=paper_uptick,
          condition="the paper's PA_l rising from the next smaller N while ours falls, ours below the paper's",
          reason="the paper's PA_l rises from the next smaller N, where RAFLE's rule lets it only fall for one "
                 "traffic (ours falls with N); the rise is the scatter of its three realizations",
          doc=_doc("rafles-accuracy-table-1")),
    Known({"part": "memory", "metric": "N of the best PA_c·PA_l"}, cause="model",
          when=below(1.0), condition="our best index at an N below the paper's 40",
          reason="our index falls with N (PA_l falls as a larger N lets fewer short flows share a long flow's "
                 "hash slot), best at N = {ours}; the paper's non-monotone PA_l at N = 40 is not reproduced",
          doc=_doc("rafles-accuracy-table-1")),
    Known({"part": "memory", "scheduler": "rr", "metric": "pa_l"}, cause="model",
          when=_above_paper_and_other_scheduler,
          condition="PA_l above the paper's and above ours under strict priority at the same N",
          reason="under round robin RAFLE's reordering makes the senders retransmit in same-flow bursts that "
                 "fill its memory: PA_l {ratio} times the paper's, and above ours under strict priority "
                 "({ours_other}) at the same N",
          doc=_doc("rafles-accuracy-table-1")),
    Known({"part": "memory", "scheduler": "rr", "metric": "pa_c"}, cause="model",
          when=below(1.0), condition="PA_c below the paper's (more short flows taken for long)",
          reason="under round robin RAFLE's reordering makes the senders retransmit in same-flow bursts that "
                 "fill its memory, so more short flows look long",
          doc=_doc("rafles-accuracy-table-1")),
    Known({"part": "simultaneous", "metric": lambda m: isinstance(m, str) and m.startswith("max finished")},
          cause="model", when=below(1.0), condition="ours below the paper's peak",
          reason="RAFLE sends some short packets to the long queue, where strict priority makes them wait "
                 "behind every long flow",
          doc=_doc("figure-5s-early-peak")),
    Known({"part": "simultaneous", "bin_kb": lambda b: b in ("0-100", "all"),
           "metric": lambda m: m in ("fct_mean_s", "fct_std_s")}, cause="testbed",
          when=below(1.0), condition="our first bin faster than the paper's",
          reason="most first-bin files fit in the initial window, so a FIFO serves them in the first rounds "
                 "of windows unless the router drops them: ours takes {ratio} of the paper's time",
          doc=_doc("drop-tails-first-bin-and-table-3s-gains")),
    Known({"part": "simultaneous", "metric": lambda m: m in ("gain", "gain_std")}, cause="testbed",
          when=below(1.0), condition="our gain below the paper's",
          reason="Table 3's gains are ratios to our drop-tail, whose first bin is several times faster than "
                 "the paper's",
          doc=_doc("drop-tails-first-bin-and-table-3s-gains")),
    *LOOP_KNOWN,
    Known({"part": "simultaneous", "classifier": "rafle", "scheduler": "rr", "metric": "fct_mean_s"},
          cause="model", when=above(1.0), condition="RAFLE RR slower than the paper's",
          reason="RAFLE splits flows across the queues; the reordering costs spurious retransmissions",
          doc=_doc("completion-times-above-the-first-bin-table-2")),
    Known({"part": "simultaneous", "metric": "fct_std_s"}, cause="testbed",
          when=below(1.0), condition="our σ below the paper's",
          reason="our router's losses spread a bin less than the paper's path did (its loss process is not "
                 "given; the direction only, not traced in this run)",
          doc=_doc("completion-times-above-the-first-bin-table-2")),
    Known({"part": "simultaneous", "classifier": "run2c", "scheduler": "prio", "metric": "fct_mean_s"},
          cause="model", when=_same_as_droptail(), condition="ours within 5 % of our drop-tail's in the bin",
          reason="our RuN2C with priority is our FIFO above 16 KB: its bins above the first are drop-tail's",
          doc=_doc("completion-times-above-the-first-bin-table-2")),
    Known({"part": "simultaneous", "bin_kb": lambda b: b not in ("0-100", "all"),
           "metric": lambda m: m in ("fct_mean_s", "fct_std_s")}, cause="testbed",
          when=_within_sampling(2.0),
          condition="ours within twice the standard error of the difference (the paper's over its three "
                    "realizations of the bin's files, ours over ours)",
          reason="within twice the standard error of the difference (the paper's {paper_se} s over its three "
                 "realizations of the bin's files, ours {ours_se} s): these few files cannot tell the two apart",
          doc=_doc("completion-times-above-the-first-bin-table-2")),
    Known({"part": "simultaneous", "metric": "fct_mean_s", "bin_kb": lambda b: b not in ("0-100", "all")},
          cause="testbed", when=across_sensitivity,
          condition="the paper's value within the range ours spans over the buffer part's router buffers",
          reason="the router's buffer, which the paper does not give, moves ours from {sensitivity_lo} to "
                 "{sensitivity_hi} s, across the paper's value",
          doc=_doc("completion-times-above-the-first-bin-table-2")),
]
"""Its documented accounts of claims that do not agree, each with the condition
on this run's numbers it explains."""

NOT_SCORED: list[tuple[str, str]] = [
    ("Table 1's PE_c and PE_l", "each is 1 − PA_c or 1 − PA_l: scored as that one claim"),
    ("Table 1's PA_c·PA_l", "the product of PA_c and PA_l, scored through them"),
    ("§6's orderings of Table 4 (round robin above priority; with priority only RuN2C above drop-tail; the "
     "ideal PrioSched the worst; among round-robin routers RuN2C the worst, RAFLE slightly above the ideal) and "
     "the abstract's +14 % files served",
     "each gain they order is scored (the +14 % is RAFLE RR's Table 4 gain); docs/experiments/rafle.md compares "
     "the orderings"),
    ("Figure 7: above the first bin every router serves about the same number of files",
     "read off a figure whose values our copy does not print"),
]
"""Claims the paper makes that are not scored, each with why (printed with
the claims and in the HTML report)."""

__getattr__, __dir__ = forward(__name__, "experiment", frozenset({"experiment"}))
