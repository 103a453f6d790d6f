"""Verdicts on the papers' claims: every "paper vs ours" row says whether it
holds, and why, in this run's numbers.

Each experiment's ``paper`` table holds one row per independent published
number or statement (a probability and its complement are one claim; a point
the paper shows in a table and in a sweep is one claim), with the relation
it states (``=``, ``~``, ``<=``, ``>``, ...), the paper's value and ours.
:func:`judge` adds four columns:

- ``verdict``, one of :data:`VERDICTS`: ``agrees``; ``differs``;
  ``calibrated`` (the number a parameter of ours was fitted on);
  ``by construction`` (ours holds by the setup, whatever the model does);
  ``not measurable`` (dumbbell has no counterpart, such as the testbed's own
  hardware); ``not run at this scale`` (the paper's point is not among this
  scale's runs). Neither ``calibrated`` nor ``by construction`` counts as
  agreement. An experiment marks a row ``calibrated`` or ``by construction``
  through its ``basis`` column (and says why in ``basis_note``); a
  by-construction number that misses the paper's is a ``differs``.
- ``cause``, for every ``differs``, one of :data:`CAUSES`: ``testbed`` (a
  property of the paper's environment the paper does not give or a
  simulator cannot know), ``paper`` (the paper contradicts itself or its own
  equations), ``model`` (a choice of ours that could be made differently)
  or ``ours`` (a bug, or a difference no account explains).
- ``reason``: computed from this run's numbers (ours, the paper's, the
  deviation and the tolerance), followed for a difference by its account.
- ``doc``: where that account is (``docs/experiments/PAGE.md#section``, the experiment's page).

An account of a known difference (:class:`Known`) states the condition it
explains (a direction, a range, a traced state), and :func:`judge` checks it
against this run's numbers: if the condition fails, the account does not
apply, and the row is a difference of cause ``ours`` whose reason says which
condition failed. The agreement rule is :func:`agreement`,
one tolerance policy for equalities and inequalities, written once in
``docs/experiments/README.md#verdicts-and-the-tolerance-policy``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["VERDICTS", "CAUSES", "Known", "KNOWN", "NOT_SCORED", "judge", "count_line", "verdict_cell", "anchors",
           "DOCS", "interval", "bounds", "bar", "bars", "claims_lines", "merge_claims", "below", "above", "within", "ratio_in"]

VERDICTS = ("agrees", "differs", "calibrated", "by construction", "not measurable", "not run at this scale")
CAUSES = ("testbed", "paper", "model", "ours")
NOT_TRACED = "not yet traced"
DOCS = Path(__file__).resolve().parents[3] / "docs"
"""The repository's docs directory (where the ``doc`` anchors point)."""

Condition = Callable[[Mapping[str, Any]], bool]
"""A condition on one claim row (its ``ours``, ``value`` and other columns)."""


def _f(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x and abs(x) != float("inf") else None


def below(factor: float = 1.0) -> Condition:
    """Ours is below ``factor`` times the paper's value."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = _f(r.get("ours")), _f(r.get("value"))
        return o is not None and v is not None and o < factor * v
    return cond


def above(factor: float = 1.0) -> Condition:
    """Ours is above ``factor`` times the paper's value."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = _f(r.get("ours")), _f(r.get("value"))
        return o is not None and v is not None and o > factor * v
    return cond


def within(lo: float | None = None, hi: float | None = None, column: str = "ours") -> Condition:
    """``column`` (default ours) lies in [lo, hi]."""
    def cond(r: Mapping[str, Any]) -> bool:
        x = _f(r.get(column))
        return x is not None and (lo is None or x >= lo) and (hi is None or x <= hi)
    return cond


def ratio_in(lo: float, hi: float) -> Condition:
    """Ours / the paper's value lies in [lo, hi]."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = _f(r.get("ours")), _f(r.get("value"))
        return o is not None and v not in (None, 0.0) and lo <= o / v <= hi
    return cond


@dataclass(frozen=True)
class Known:
    """An account of claims that do not agree: the rows it covers (every
    ``column = value`` of ``match`` holds; a value may be a predicate), the
    condition on this run's numbers it explains (``when``, said in words by
    ``condition``), the verdict it gives them, its cause, one line of reason
    and the doc section."""

    match: Mapping[str, Any]
    reason: str
    doc: str
    verdict: str = "differs"
    cause: str = "model"
    when: Condition | None = None
    """The state the account explains, checked on this run's row: None only
    for ``not measurable`` (nothing of ours to check)."""
    condition: str = ""
    """``when`` in words (printed when it fails)."""
    scales: tuple[str, ...] = ("quick", "paper")
    """The scales the account was traced at."""

    def __post_init__(self) -> None:
        if self.cause not in CAUSES:
            raise ValueError(f"Known.cause: {self.cause!r} is not one of {CAUSES}")
        if self.verdict == "differs" and (self.when is None or not self.condition):
            raise ValueError(f"Known({dict(self.match)}): an account of a difference states its condition "
                             "(when= and condition=)")

    def covers(self, row: Mapping[str, Any], scale: str) -> bool:
        """The account is about this row (its labels; not yet its numbers)."""
        if scale not in self.scales:
            return False
        for k, want in self.match.items():
            have = row.get(k)
            if callable(want):
                if not want(have):
                    return False
            elif have != want:
                return False
        return True

    def holds(self, row: Mapping[str, Any]) -> bool:
        """This run's numbers show the state the account explains."""
        return self.when is None or bool(self.when(row))


def _contains(text: str) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and text in v


_PAGES = {1: "dctcp-queue", 2: "hysteresis", 3: "lossy-cc", 4: "rafle", 5: "highspeed"}
"""Each experiment's page in ``docs/experiments/``, by its number in the papers' table (E1..E5)."""


def _doc(n: int, anchor: str) -> str:
    return f"docs/experiments/{_PAGES[n]}.md#{anchor}"


def _near(ref: float, tol: float) -> Condition:
    """Ours is within ``tol`` (relative) of ``ref``."""
    def cond(r: Mapping[str, Any]) -> bool:
        o = _f(r.get("ours"))
        return o is not None and abs(o - ref) <= tol * abs(ref)
    return cond


def _scatter_within_sd(k: float = 2.0) -> Condition:
    """The paper's value lies within ``k`` standard deviations (over our runs)
    of ours."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v, sd = _f(r.get("ours")), _f(r.get("value")), _f(r.get("ours_std_bps"))
        return o is not None and v is not None and sd is not None and abs(o - v) <= k * sd
    return cond


def _flat_at_calibration(tol: float = 0.02) -> Condition:
    """Ours equals the calibration point's ours within ``tol`` (a flat sweep)."""
    def cond(r: Mapping[str, Any]) -> bool:
        o = _f(r.get("ours"))
        ref = [_f(x.get("ours")) for x in r.get("_rows", []) if x.get("basis") == "calibrated"]
        return o is not None and bool(ref) and ref[0] is not None and abs(o - ref[0]) <= tol * ref[0]
    return cond


def _same_as_droptail(tol: float = 0.05) -> Condition:
    """Ours (a completion time) is within ``tol`` of our drop-tail's in the same bin."""
    def cond(r: Mapping[str, Any]) -> bool:
        o = _f(r.get("ours"))
        dt = [_f(x.get("ours")) for x in r.get("_rows", []) if x.get("classifier") == "droptail"
              and x.get("metric") == r.get("metric") and x.get("bin_kb") == r.get("bin_kb")]
        return o is not None and bool(dt) and dt[0] is not None and abs(o - dt[0]) <= tol * dt[0]
    return cond


def _across_sensitivity(r: Mapping[str, Any]) -> bool:
    """The paper's value lies within the range ours spans over the settings
    of the experiment's sensitivity part (``sensitivity_lo`` to
    ``sensitivity_hi``): a setting the paper does not give moves ours across
    it."""
    v, lo, hi = _f(r.get("value")), _f(r.get("sensitivity_lo")), _f(r.get("sensitivity_hi"))
    return v is not None and lo is not None and hi is not None and lo <= v <= hi


def _alternative_closer(r: Mapping[str, Any]) -> bool:
    """Ours under the sensitivity part's other setting (``ours_alt``) lies
    closer to the paper's value than ours."""
    o, v, alt = _f(r.get("ours")), _f(r.get("value")), _f(r.get("ours_alt"))
    return o is not None and v is not None and alt is not None and abs(alt - v) < abs(o - v)


def _within_paper_se(k: float = 2.0) -> Condition:
    """Ours within ``k`` standard errors of the paper's own number
    (``paper_se``: its scatter over the few samples behind it)."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v, se = _f(r.get("ours")), _f(r.get("value")), _f(r.get("paper_se"))
        return o is not None and v is not None and se is not None and abs(o - v) <= k * se
    return cond


def _table1_scatter(r: Mapping[str, Any]) -> bool:
    """Ours lies within the paper's own scatter of that column of Table 1
    (its range over N)."""
    o = _f(r.get("ours"))
    same = [_f(x.get("value")) for x in r.get("_rows", []) if x.get("metric") == r.get("metric")
            and x.get("scheduler") == r.get("scheduler")]
    vals = [x for x in same if x is not None]
    if o is None or not vals:
        return False
    spread = max(vals) - min(vals)
    return min(vals) - spread <= o <= max(vals) + spread


KNOWN: dict[str, list[Known]] = {
    "dctcp-queue": [
        Known({"metric": "queue_vs_hardware_pkts"}, verdict="not measurable", cause="testbed",
              reason="compares Mininet-HiFi with the authors' hardware switch; dumbbell is neither",
              doc=_doc(1, "mininet-hifi-against-hardware")),
        Known({"metric": "dequeue_dev_frac_over_100pct", "rate_bps": 1_000_000_000}, cause="testbed",
              when=within(hi=0.0), condition="every dequeue deviation of ours being 0",
              reason="a measure of Mininet-HiFi's emulation error at 1 Gb/s; dumbbell's links are exact, every "
                     "deviation is 0",
              doc=_doc(1, "link-fidelity-at-1-gbs")),
        Known({"metric": "utilization", "rate_bps": 1_000_000_000}, cause="testbed",
              when=within(lo=0.99), condition="our link staying at or above 99 % utilization",
              reason="Mininet-HiFi's CPU saturated at 1 Gb/s; a simulated link is never short of CPU, so ours "
                     "stays at {ours}",
              doc=_doc(1, "link-fidelity-at-1-gbs")),
    ],
    "hysteresis": [
        Known({"case": "A", "part": lambda p: p in ("li-sweep", "ls-sweep")}, cause="model",
              when=_flat_at_calibration(), condition="ours within 2 % of the calibrated case-A point (a flat sweep)",
              reason="our case A sweeps are flat: the port never runs dry with either marking, so both deliver the "
                     "calibrated port rate; the paper's dips are not reproduced",
              doc=_doc(2, "case-a-and-its-sweeps")),
        Known({"case": lambda c: c in ("B", "C", "E")}, cause="model",
              when=below(0.5), condition="ours below half the paper's (TCP starving)",
              reason="our TCP starves ({ratio} of the paper's): UDP overloads the port (B) or the shared pipeline "
                     "(C, E), which drops TCP too; the paper's hosts kept 0.07-0.5 Mb/s",
              doc=_doc(2, "cases-b-c-and-e-tcp-starves")),
        Known({"case": "D"}, cause="model",
              when=_scatter_within_sd(2.0), condition="the paper's value within 2 σ of ours (σ over our runs)",
              reason="shares within a run are very unequal (σ over our runs {ours_std_bps} b/s against the paper's "
                     "{std_bps}), so means over few runs scatter around the paper's",
              doc=_doc(2, "case-d-unequal-shares")),
        Known({"case": "D", "marking": lambda m: m in ("return", "return+hysteresis")}, cause="model",
              when=_alternative_closer,
              condition="ours with copies taken as congestion echoes (part copy-effect) closer to the paper's",
              reason="the senders drop the returned copies as Linux would (copy_effect linux) and the return ports "
                     "do not mark, so only drops restrain the flows and the start order's winner takes its port; "
                     "taken as congestion echoes (the paper's intent) the copies give {ours_alt} b/s",
              doc=_doc(2, "packet-return-where-what-it-costs-what-the-sender-does")),
    ],
    "lossy-cc": [
        # Runs with the authors' modules (--module-dir): claim rows say impl=module.
        Known({"impl": "module", "metric": "goodput / link rate"}, cause="paper",
              when=below(0.5), condition="a control below half the link with the authors' modules",
              reason="the lowest control is a module (Expolinear from expolin01.c at quick scale, {ours} of the "
                     "clean 1 Gb/s link): the modules' ssthresh hook enters recovery itself on the initial b_r of 1 "
                     "and collapses a fresh window to 2-3 packets at its first loss, which the paper's equations "
                     "(and the ports, module_hook = false) do not; the ports with module_hook = true give the "
                     "module run bit for bit",
              doc=_doc(3, "with-the-authors-modules")),
        Known({"impl": "module", "part": "loss", "metric": "linear / best other Linear variant"}, cause="paper",
              when=below(1.0), condition="Linear from linha01.c below its variants",
              reason="Linear from linha01.c keeps {ours} of its best variant's goodput: its ssthresh hook enters "
                     "recovery itself and collapses the window at a loss, which the paper's equations do not, while "
                     "the variants (20 %, 50 %, adaptive) are dumbbell's ports without that hook",
              doc=_doc(3, "with-the-authors-modules")),
        Known({"metric": "linear / bbr"}, cause="model",
              when=below(1.0), condition="Linear below BBR at 10 Gb/s and 20 % loss",
              reason="at 10 Gb/s Linear sits at a window of 1 packet in recovery, its recovery adding 1 packet per "
                     "ms against 0.2-0.4 ms round trips, while BBR keeps its rate",
              doc=_doc(3, "bbr-under-heavy-loss")),
        Known({"metric": "expolinear / bbr"}, cause="model", scales=("paper",),
              when=below(1.0), condition="Expolinear below ten times BBR at 20 ms and 20 % loss",
              reason="BBR collapses as the paper saw (its long-term bandwidth in use in 71-77 % of the samples), but "
                     "Expolinear, in recovery 98 % of the time, gets only about 21-22 Mb/s (traced over 50 s, seeds "
                     "1 and 2), so the ratio stays below ten",
              doc=_doc(3, "bbr-under-heavy-loss")),
        Known({"metric": "expolinear / bbr"}, cause="model", scales=("quick",),
              when=below(1.0), condition="Expolinear below ten times BBR in a 4 s run",
              reason="the quick scale's 4 s runs end before BBR's collapse under 20 % loss (its first slow start "
                     "still in the average); the paper's 50 s runs are --scale paper's",
              doc=_doc(3, "bbr-under-heavy-loss")),
        Known({"metric": "bbr / best other final control"}, cause="model",
              when=below(1.0), condition="BBR below the best other control",
              reason="Fractional, like BBR bounded only by the receive window, carries more than BBR (traced at 10 Gb/s "
                     "and 1-5 % over ten rounds)",
              doc=_doc(3, "bbr-at-100-ms-and-at-10-gbs")),
        Known({"metric": "worst proposal / best of cubic, reno, vegas"}, cause="testbed",
              when=_across_sensitivity,
              condition="the paper's value within the range ours spans over the base-rtt part's base round trips",
              reason="the VMs' base round trip, which the paper does not give (ours 0.1 ms of propagation), moves "
                     "ours from {sensitivity_lo} to {sensitivity_hi}, across the paper's value: Linear's recovery "
                     "grows per millisecond, Reno's per round trip",
              doc=_doc(3, "e12-the-base-round-trip-part-base-rtt")),
        Known({"metric": "worst proposal / best of cubic, reno, vegas"}, cause="model",
              when=below(1.0), condition="a proposal below the best of Cubic, Reno and Vegas",
              reason="Linear's recovery, one packet per millisecond, falls below Reno at 5 % loss and 10 Gb/s",
              doc=_doc(3, "bbr-at-100-ms-and-at-10-gbs")),
        Known({"metric": "min(expolinear, linear) / best other final control"}, cause="model",
              when=below(1.0), condition="Expolinear or Linear below the best other control at 100 ms",
              reason="at 100 ms BBR's long-term sampling stays off up to 10 % loss while the proposals overflow "
                     "netem's 1000-packet limit, so BBR leads",
              doc=_doc(3, "bbr-at-100-ms-and-at-10-gbs")),
        Known({"metric": lambda m: isinstance(m, str) and m.startswith("linear-adaptive")}, cause="model",
              when=above(1.0), condition="the adaptive variant above Linear-50 (a smaller reduction)",
              reason="traced R averages 19.3-21.4 % counted over the current window (eq. 3), 17.5-22.2 % over two "
                     "rounds and 32.6-34.0 % per loss-reporting ACK at 1-20 % loss, never near the fixed 50 %, so the "
                     "adaptive variant keeps {ratio} times the paper's ratio",
              doc=_doc(3, "the-adaptive-reduction-never-nears-50-")),
        Known({"part": "delay", "cc": "fractional"}, cause="testbed",
              when=above(1.0), condition="Fractional's ratio above the paper's bound (not last)",
              reason="above 12 ms of added delay netem's 1000-packet limit caps every control and the proposals' "
                     "windows overflow it; Fractional's ratio ends fourth, not last",
              doc=_doc(3, "fractional-and-delay")),
        Known({"part": "delay", "metric": lambda m: isinstance(m, str) and m.startswith("min(linear, expolinear)")},
              cause="testbed", when=below(1.0), condition="Linear's and Expolinear's decay no flatter than the others'",
              reason="above 12 ms of added delay netem's 1000-packet limit caps every control alike, so no "
                     "control's curve is flatter by its own law",
              doc=_doc(3, "fractional-and-delay")),
        Known({"part": "loss-rtt", "metric": "linear / best other final control"}, cause="model",
              when=below(1.0), condition="Linear below the best other control in a 4 s run", scales=("quick",),
              reason="the quick scale's 4 s runs end before BBR's collapse under 20 % loss (its first slow start "
                     "still in the average), so BBR leads Linear; the paper's 50 s runs are --scale paper's",
              doc=_doc(3, "bbr-under-heavy-loss")),
        Known({"metric": "bbr / min(expolinear, linear)"}, cause="model",
              when=above(1.0), condition="BBR above Expolinear or Linear",
              reason="at 100 ms BBR's long-term sampling stays off up to 10 % while the proposals overflow netem's "
                     "limit",
              doc=_doc(3, "bbr-at-100-ms-and-at-10-gbs")),
        Known({"part": "cordiality", "setup": "lossless", "cc_b": lambda b: b in ("bbr", "cubic", "vegas")},
              cause="model", when=above(1.0), condition="the proposal taking more than the paper's share",
              reason="window-limited clients share evenly but BBR (min_rtt measured before the queue built), "
                     "Cubic (HyStart's early exit) and Vegas (takes the queue for its own) fall short",
              doc=_doc(3, "cordiality-on-the-lossless-deep-fifo")),
        Known({"part": "cordiality", "setup": "lossless", "cc": "fractional",
               "cc_b": lambda b: b in ("expolinear", "linear")}, cause="model", scales=("quick",),
              when=within(hi=1.0), condition="Fractional below an even share in a 2 s run",
              reason="Fractional's slow start reaches the receive window at 0.3 s, Expolinear's and Linear's first "
                     "window within 0.1 s: a lead of about 10 MB that weighs 15 % over the quick scale's 2 s and "
                     "under 2 % over the paper's 20 s (traced, seed 1)",
              doc=_doc(3, "cordiality-on-the-lossless-deep-fifo")),
        Known({"part": "cordiality", "setup": "lossless"}, cause="model",
              when=_near(1.0, 0.10), condition="an even share within 10 % (both clients window-limited)",
              reason="window-limited clients share evenly (equal receive windows), whatever the paper's cell",
              doc=_doc(3, "cordiality-on-the-lossless-deep-fifo")),
    ],
    "rafle": [
        Known({"part": "simultaneous", "bin_kb": lambda b: b in ("0-100", "all"),
               "metric": lambda m: m in ("fct_mean_s", "fct_std_s", "gain", "gain_std")
               or (isinstance(m, str) and m.startswith("max finished"))}, cause="testbed",
              when=_across_sensitivity,
              condition="the paper's value within the range ours spans over the buffer part's router buffers",
              reason="the router's buffer, which the paper does not give (ours: Click's default Queue of 1000 "
                     "packets), moves ours from {sensitivity_lo} to {sensitivity_hi}, across the paper's value",
              doc=_doc(4, "the-routers-buffer")),
        Known({"part": "simultaneous", "bin_kb": lambda b: b not in ("0-100", "all"),
               "metric": lambda m: m in ("fct_mean_s", "fct_std_s")}, cause="testbed",
              when=_within_paper_se(2.0), condition="ours within twice the standard error of the paper's number",
              reason="within twice the standard error of the paper's own number ({paper_se} s: its σ over the "
                     "bin's few files), the scatter its realizations leave",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "memory", "scheduler": "prio"}, cause="testbed",
              when=_table1_scatter, condition="ours within the paper's own scatter over N",
              reason="within the paper's own scatter of Table 1 over N; which flows share a hash slot depends on "
                     "arrival timing the paper does not give",
              doc=_doc(4, "rafles-accuracy-table-1")),
        Known({"part": "memory", "metric": "N of the best PA_c·PA_l"}, cause="model",
              when=below(1.0), condition="our best index at an N below the paper's 40",
              reason="our index falls with N (PA_l falls as a larger N lets fewer short flows share a long flow's "
                     "hash slot), best at N = {ours}; the paper's non-monotone PA_l at N = 40 is not reproduced",
              doc=_doc(4, "rafles-accuracy-table-1")),
        Known({"part": "memory", "scheduler": "rr", "metric": "pa_l"}, cause="model",
              when=above(1.0), condition="PA_l above the paper's",
              reason="under round robin RAFLE's reordering makes the senders retransmit in same-flow bursts that "
                     "fill its memory (PA_l {ratio} times the paper's)",
              doc=_doc(4, "rafles-accuracy-table-1")),
        Known({"part": "memory", "scheduler": "rr", "metric": "pa_c"}, cause="model",
              when=below(1.0), condition="PA_c below the paper's (more short flows taken for long)",
              reason="under round robin RAFLE's reordering makes the senders retransmit in same-flow bursts that "
                     "fill its memory, so more short flows look long",
              doc=_doc(4, "rafles-accuracy-table-1")),
        Known({"part": "simultaneous", "metric": lambda m: isinstance(m, str) and m.startswith("max finished")},
              cause="model", when=below(1.0), condition="ours below the paper's peak",
              reason="RAFLE sends some short packets to the long queue, where strict priority makes them wait "
                     "behind every long flow",
              doc=_doc(4, "figure-5s-early-peak")),
        Known({"part": "simultaneous", "bin_kb": lambda b: b in ("0-100", "all"),
               "metric": lambda m: m in ("fct_mean_s", "fct_std_s")}, cause="testbed",
              when=below(1.0), condition="our first bin faster than the paper's",
              reason="most first-bin files fit in the initial window, so a FIFO serves them in the first rounds "
                     "of windows unless the router drops them: ours takes {ratio} of the paper's time",
              doc=_doc(4, "drop-tails-first-bin-and-table-3s-gains")),
        Known({"part": "simultaneous", "metric": lambda m: m in ("gain", "gain_std")}, cause="testbed",
              when=below(1.0), condition="our gain below the paper's",
              reason="Table 3's gains are ratios to our drop-tail, whose first bin is several times faster than "
                     "the paper's",
              doc=_doc(4, "drop-tails-first-bin-and-table-3s-gains")),
        Known({"part": "closed-loop", "scheduler": "prio"}, cause="model",
              when=below(1.0), condition="a gain below the paper's under strict priority",
              reason="the FTP dialogue crosses the router's FIFO six times, so drop-tail keeps many tasks out of "
                     "transfer; routers that prioritize it let all 300 transfer and pile up large files",
              doc=_doc(4, "closed-loop-table-4"), scales=("paper",)),
        Known({"part": "closed-loop", "scheduler": "rr", "classifier": "rafle"}, cause="model",
              when=below(1.0), condition="a gain below the paper's for RAFLE with round robin",
              reason="RAFLE with round robin spends the link on reordering retransmissions",
              doc=_doc(4, "closed-loop-table-4"), scales=("paper",)),
        Known({"part": "closed-loop", "scheduler": "rr"}, cause="model",
              when=below(1.0), condition="a gain below the paper's under round robin",
              reason="the FTP dialogue crosses the router's FIFO six times, so drop-tail keeps many tasks out of "
                     "transfer; routers that prioritize it let all 300 transfer and pile up large files",
              doc=_doc(4, "closed-loop-table-4"), scales=("paper",)),
        Known({"part": "simultaneous", "classifier": "rafle", "scheduler": "rr", "metric": "fct_mean_s"},
              cause="model", when=above(1.0), condition="RAFLE RR slower than the paper's",
              reason="RAFLE splits flows across the queues; the reordering costs spurious retransmissions",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "simultaneous", "metric": "fct_std_s"}, cause="testbed",
              when=below(1.0), condition="our σ below the paper's",
              reason="our router's losses spread a bin less than the paper's path did (its loss process is not "
                     "given; 1 % random loss gives the paper's σ on a lossless router)",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "simultaneous", "classifier": "run2c", "scheduler": "prio", "metric": "fct_mean_s"},
              cause="model", when=_same_as_droptail(), condition="ours within 5 % of our drop-tail's in the bin",
              reason="our RuN2C with priority is our FIFO above 16 KB: its bins above the first are drop-tail's",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "simultaneous", "metric": "fct_mean_s"}, cause="testbed",
              when=ratio_in(0.8, 1.2), condition="ours within 20 % of the paper's",
              reason="ours is {ratio} of the paper's; the router's buffer and loss process, which the paper does "
                     "not give, move the bins above the first",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
    ],
    "highspeed": [
        Known({"metric": "median over losses of gain(highest latency) / gain(lowest latency)"}, cause="paper",
              when=below(1.0), condition="the gain not growing with the RTT",
              reason="in steady state the windows, in packets, do not depend on the RTT (the paper's own response "
                     "functions), so where neither flow is capped by the link or the receive window the gain does "
                     "not grow with it; over 60 s TCP's first slow start weighs more at the higher RTT",
              doc=_doc(5, "hstcps-gain-and-the-rtt")),
        Known({"metric": "capped / uncapped goodput where the uncapped run stays below 600 Mb/s (the worst)"},
              cause="model", when=within(0.71 * 0.85, 0.71 * 1.15),
              condition="the testbed arm within 15 % of 1/√2 = 0.71 of the simulation arm",
              reason="the testbed arm runs Linux 2.4, which grows its window per ACK: with delayed ACKs one "
                     "segment per two round trips, so its windows are 1/√2 of the simulation arm's, which counts "
                     "segments acked; the paper does not say whether its ns-2 sink delayed ACKs (then ns-2, "
                     "growing per ACK too, would meet the testbed)",
              doc=_doc(5, "the-testbed-arm-below-the-simulation-under-600-mbs")),
    ],
    "l4s": [
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
    ],
}
"""Experiment name → its documented accounts of claims that do not agree,
each with the condition on this run's numbers it explains."""

NOT_SCORED: dict[str, list[tuple[str, str]]] = {
    "lossy-cc": [
        ("the abstract's, §1's and §6's 'up to ten times the rate of the traditional controls under high loss' "
         "(C17)", "it names no point or control to compare; docs/experiments/lossy-cc.md gives ours at the paper's "
                  "high-loss points"),
        ("§5's 'except Vegas, the proposals show satisfactory fairness' (C19)",
         "a judgement over Tables 1 and 2, whose every cell is scored"),
    ],
    "rafle": [
        ("Table 1's PE_c and PE_l", "each is 1 − PA_c or 1 − PA_l: scored as that one claim"),
        ("Table 1's PA_c·PA_l", "the product of PA_c and PA_l, scored through them"),
        ("§6's orderings of Table 4 (round robin above priority; with priority only RuN2C above drop-tail; the "
         "ideal PrioSched the worst; among round-robin routers RuN2C the worst, RAFLE slightly above the ideal) and "
         "the abstract's +14 % files served",
         "each gain they order is scored (the +14 % is RAFLE RR's Table 4 gain); docs/experiments/rafle.md compares "
         "the orderings"),
        ("Figure 7: above the first bin every router serves about the same number of files",
         "read off a figure whose values our copy does not print"),
    ],
}
"""Experiment name → claims the paper makes that are not scored, each with
why (printed with the claims and in the HTML report)."""


# ---------------------------------------------------------------- the agreement rule

TOLERANCE = {"=": 0.05, "~": 0.20}
"""Relative tolerance of the relations ``=`` and ``~``; the inequalities
``<``, ``<=``, ``>``, ``>=`` take ``=``'s (see :func:`tolerance_of`)."""

INTERVAL_MAX = 0.20
"""An interval of ours counts towards ``=`` only when its half-width is at
most this fraction of the paper's value."""


def tolerance_of(relation: str) -> float:
    """The relative tolerance of a relation: ``~`` 20 %, every other 5 %."""
    return TOLERANCE.get(relation, TOLERANCE["="])


def _finite(v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def agreement(relation: str, value: Any, ours: Any, value_ci: Any = None, ours_ci: Any = None) -> str | None:
    """``"agree"``, ``"differ"`` or None (not measured) for one published
    number. One policy: the relation holds for some number within the
    relation's tolerance of ours (``=`` and the inequalities 5 % of the
    paper's value, ``~`` 20 %); for ``=``, overlapping intervals also agree
    when ours is no wider than ±20 % of the paper's value."""
    v, o = _finite(value), _finite(ours)
    if v is None or o is None:
        return None
    if relation not in ("=", "~", "<", "<=", ">", ">="):
        return None
    scale = abs(v) if v != 0 else 1.0
    slack = tolerance_of(relation) * scale
    if relation in ("=", "~"):
        vci, oci = _finite(value_ci) or 0.0, _finite(ours_ci) or 0.0
        if relation == "=" and (vci or oci) and abs(o - v) <= vci + oci and oci <= INTERVAL_MAX * scale:
            return "agree"
        return "agree" if abs(o - v) <= slack else "differ"
    ok = o <= v + slack if relation in ("<", "<=") else o >= v - slack
    return "agree" if ok else "differ"



def _agreement(row: Mapping[str, Any], samples: int | None) -> str | None:
    # An interval from fewer than 3 samples says little (from 2, a 99 %
    # Student-t half-width is 32 times their distance): ours is then taken as
    # a point, not as an interval that may overlap the paper's.
    ours_ci = row.get("ours_ci", row.get("ours_ci95")) if samples is None or samples >= 3 else None
    return agreement(row.get("relation", "="), row.get("value"), row.get("ours"), row.get("value_ci"), ours_ci)


SAMPLE_COLUMNS = ("rounds", "samples", "runs", "realizations")
"""Columns of an experiment's rows that count the samples behind a mean."""


def samples_of(rows: pl.DataFrame) -> int | None:
    """The fewest samples behind any mean of ``rows`` (None if it does not say)."""
    for c in SAMPLE_COLUMNS:
        if c in rows.columns and rows.height and rows[c].drop_nulls().len():
            return int(rows[c].drop_nulls().min())
    return None


def _g(v: Any) -> str:
    x = _f(v)
    return "-" if x is None else f"{x:.4g}"


def measured(row: Mapping[str, Any], samples: int | None = None) -> str:
    """This run's numbers for one claim, in words: ours, the paper's, the
    deviation and what the tolerance policy allows."""
    rel, v, o = row.get("relation") or "=", _f(row.get("value")), _f(row.get("ours"))
    if v is None or o is None:
        return "no number of ours"
    dev = f", {(o - v) / abs(v):+.1%}" if v else ""
    tol = tolerance_of(rel)
    text = f"ours {o:.4g} against the paper's {rel} {v:.4g}{dev}"
    if rel in TOLERANCE:
        oci = _f(row.get("ours_ci", row.get("ours_ci95"))) if samples is None or samples >= 3 else None
        vci = _f(row.get("value_ci"))
        extra = ""
        if (oci or vci) and rel == "=":
            sides = [f"ours ±{oci:.3g}" if oci else "", f"the paper's ±{vci:.3g}" if vci else ""]
            extra = f" or overlapping intervals ({', '.join(x for x in sides if x)}; ours no wider than ±20%)"
        return f"{text} ({rel} allows ±{tol:.0%}{extra})"
    return f"{text} ({rel} with ±{tol:.0%} of the bound: ours must be {rel} {_bound(rel, v, tol):.4g})"


def _bound(rel: str, v: float, tol: float) -> float:
    scale = abs(v) if v else 1.0
    return v + tol * scale if rel in ("<", "<=") else v - tol * scale


def _format(text: str, row: Mapping[str, Any]) -> str:
    """An account's text with this row's numbers ({ours}, {value}, {ratio}
    and any column) filled in."""
    if "{" not in text:
        return text
    o, v = _f(row.get("ours")), _f(row.get("value"))
    fields = {k: (_g(x) if isinstance(x, float) else x) for k, x in row.items()}
    fields.update(ours=_g(o), value=_g(v), ratio=_g(o / v) if o is not None and v else "-")
    try:
        return text.format_map(fields)
    except (KeyError, ValueError, IndexError):
        return text


def judge(experiment: str, scale: str, paper: pl.DataFrame, known: Sequence[Known] | None = None,
          samples: int | None = None) -> pl.DataFrame:
    """``paper`` with ``verdict``, ``cause``, ``reason`` and ``doc``
    (replaced if present). ``samples``: the fewest samples behind our means
    (below 3, our intervals do not count towards agreement).

    Optional columns of ``paper`` an experiment sets: ``basis``
    (``calibrated`` or ``by construction``) with ``basis_note`` (why),
    ``not_run`` (why the paper's point is not among this scale's runs) and
    ``sensitivity`` (ours under the settings of the sensitivity part that
    moves it, in words; appended to the reason of a compared claim)."""
    accounts = KNOWN.get(experiment, []) if known is None else known
    rows = paper.to_dicts()
    verdicts, causes, reasons, docs = [], [], [], []
    for row in rows:
        a = _agreement(row, samples)
        numbers = measured(row, samples)
        mine = [k for k in accounts if k.covers(row, scale)]
        cause, doc = "", ""
        if row.get("not_run"):
            v, why = "not run at this scale", str(row["not_run"])
        elif (row.get("basis") == "calibrated" and a is not None) or (row.get("basis") == "by construction"
                                                                     and a == "agree"):
            # A number fitted on the paper's, or one the setup makes meet it,
            # is not agreement (a by-construction number that still misses the
            # paper's is a difference like any other, below).
            v = str(row["basis"])
            why = f"{row.get('basis_note') or row['basis']}; {numbers}"
        elif a == "agree":
            v, why = "agrees", numbers
        elif a == "differ":
            v = "differs"
            diffs = [k for k in mine if k.verdict == "differs"]
            held = next((k for k in diffs if k.holds({**row, "_rows": rows})), None)
            if held is not None:
                cause, doc = held.cause, held.doc
                why = f"{numbers}. {_format(held.reason, row)}"
            elif diffs:
                cause, doc = "ours", diffs[0].doc
                why = (f"{numbers}. {NOT_TRACED}: the account in {diffs[0].doc} explains {diffs[0].condition}, "
                       "which this run does not show")
            else:
                cause = "ours"
                why = f"{numbers}. {NOT_TRACED}: no account covers it"
        else:
            nm = next((k for k in mine if k.verdict == "not measurable"), None)
            if nm is not None:
                v, why, doc = "not measurable", nm.reason, nm.doc
            else:
                v = "not run at this scale"
                why = "no run at this scale measures it" + (" (--scale paper runs it)" if scale == "quick" else "")
        if row.get("sensitivity") and v in ("agrees", "differs"):
            # Issue 23's sensitivity: the experiment's part that moves this
            # number, and by how much.
            why += f". Sensitivity, {row['sensitivity']}"
        verdicts.append(v)
        causes.append(cause)
        reasons.append(why)
        docs.append(doc)
    # One number of ours meeting two statements of the paper with different
    # verdicts: each row names the other statement.
    seen: dict[tuple[Any, ...], list[int]] = {}
    labels = [c for c in paper.columns if c not in _VALUE_COLUMNS]
    for i, row in enumerate(rows):
        o = _f(row.get("ours"))
        if o is not None and verdicts[i] in ("agrees", "differs"):
            key = (row.get("metric"), o, *(row.get(c) for c in labels))
            seen.setdefault(key, []).append(i)
    for idx in seen.values():
        if len({verdicts[i] for i in idx}) > 1:
            for i in idx:
                others = "; ".join(f"{rows[j].get('relation')} {_g(rows[j].get('value'))} ({verdicts[j]})"
                                   for j in idx if j != i)
                reasons[i] += (f". The same number of ours also meets another statement of the paper, {others}: "
                               "the two statements differ")
    base = paper.drop([c for c in ("verdict", "cause", "reason", "doc") if c in paper.columns])
    return base.with_columns(
        pl.Series("verdict", verdicts, dtype=pl.String),
        pl.Series("cause", causes, dtype=pl.String),
        pl.Series("reason", reasons, dtype=pl.String),
        pl.Series("doc", docs, dtype=pl.String),
    )


def merge_claims(rows: list[dict[str, Any]], key: Sequence[str]) -> list[dict[str, Any]]:
    """One claim per distinct ``key``: later rows with the same key (a point
    the paper shows in a table and again in a sweep) are folded into the
    first, whose ``source`` names them and their values."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in rows:
        k = tuple(r.get(c) for c in key)
        if k not in out:
            out[k] = dict(r)
            continue
        first = out[k]
        also = f"{r.get('source', '')}" + (f" ({_g(r['value'])})" if r.get("value") != first.get("value") else "")
        first["source"] = f"{first.get('source', '')}; also {also}"
    return list(out.values())


def counts(paper: pl.DataFrame | Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each verdict's count and, for ``differs``, each cause's
    (``differs/testbed`` ...)."""
    rows = paper.to_dicts() if isinstance(paper, pl.DataFrame) else list(paper)
    n = {v: 0 for v in VERDICTS} | {f"differs/{c}": 0 for c in CAUSES}
    for r in rows:
        v = r.get("verdict") or ""
        n[v] = n.get(v, 0) + 1
        if v == "differs":
            c = r.get("cause") or "ours"
            n[f"differs/{c}"] = n.get(f"differs/{c}", 0) + 1
    return n


def cause_text(n: Mapping[str, int]) -> str:
    """``2 testbed, 1 model`` from :func:`counts`."""
    return ", ".join(f"{n[f'differs/{c}']} {c}" for c in CAUSES if n.get(f"differs/{c}"))


def count_line(paper: pl.DataFrame) -> str:
    """"9 agree, 3 differ (2 testbed, 1 model; explained in docs/...#a,
    ...), 1 calibrated, 2 by construction, 1 not measurable, 2 not run at
    this scale"; a difference no account explains is counted as ``ours``."""
    if "verdict" not in paper.columns or paper.height == 0:
        return "no claims of the paper are compared here"
    n = counts(paper)
    differ = paper.filter(pl.col("verdict") == "differs")
    explained = [d for d in dict.fromkeys(differ.filter(pl.col("cause") != "ours")["doc"].to_list()) if d]
    parts = [f"{n['agrees']} {'agrees' if n['agrees'] == 1 else 'agree'}"]
    if n["differs"]:
        text = f"{n['differs']} {'differs' if n['differs'] == 1 else 'differ'} ({cause_text(n)}"
        if explained:
            text += f"; explained in {', '.join(explained)}"
        if n["differs/ours"]:
            text += f"; {n['differs/ours']} of them not yet traced"
        parts.append(text + ")")
    else:
        parts.append("0 differ")
    for v in VERDICTS[2:]:
        if n[v]:
            parts.append(f"{n[v]} {v}")
    return "Claims: " + ", ".join(parts) + "."


def verdict_cell(row: Mapping[str, Any]) -> str:
    """The verdict as one printed cell: ``agrees``, ``differs (model): reason
    (doc)``, ..."""
    v = row.get("verdict") or ""
    head = f"{v} ({row['cause']})" if v == "differs" and row.get("cause") else v
    if v != "agrees" and row.get("reason"):
        doc = f" ({row['doc']})" if row.get("doc") else ""
        return f"{head}: {row['reason']}{doc}"
    return head


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """The anchors of every heading of a Markdown text."""
    out = set()
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("#"):
            out.add(_slug(line.lstrip("#")))
    return out


def bounds(values: Sequence[float], level: float = 0.95, lower: float | None = 0.0,
           upper: float | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)`` of samples for a figure's bar or a table: from 3
    samples the Student-t interval at ``level``, from 2 their min–max, from 1
    the value itself; clipped to the quantity's physical range [lower,
    upper] (a goodput is never below 0)."""
    import math

    from scipy import stats

    xs = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if not xs:
        return math.nan, math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) < 3:
        lo, hi = min(xs), max(xs)
    else:
        s = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
        h = float(stats.t.ppf(0.5 + level / 2.0, len(xs) - 1)) * s / math.sqrt(len(xs))
        lo, hi = m - h, m + h
    if lower is not None:
        lo = max(lo, lower)
    if upper is not None:
        hi = min(hi, upper)
    return m, lo, hi


def bar(mean: float, half: float | None, n: int | None, level: float = 0.95, lower: float | None = 0.0,
        upper: float | None = None) -> tuple[float, float]:
    """``(low, high)`` of a mean's bar from its Student-t ``half``-width and
    ``n``, as :func:`bounds` draws it: from 2 samples their min–max (the
    half-width is t(1)·|x1 − x2|/2), clipped to [lower, upper]."""
    import math

    from scipy import stats

    if n is None or n < 2 or half is None or not math.isfinite(half):
        lo = hi = mean
    elif n == 2:
        d = half / float(stats.t.ppf(0.5 + level / 2.0, 1))
        lo, hi = mean - d, mean + d
    else:
        lo, hi = mean - half, mean + half
    if lower is not None:
        lo = max(lo, lower)
    if upper is not None:
        hi = min(hi, upper)
    return lo, hi


def bars(means: Sequence[float], halves: Sequence[float | None], ns: Sequence[int | None], level: float = 0.95,
         lower: float | None = 0.0, scale: float = 1.0) -> Any:
    """A figure's error bars, below and above each mean (a 2 × N array for
    ``yerr``), in units of ``scale``: :func:`bar` per point (min–max from 2
    samples, never below ``lower``)."""
    import numpy as np

    lo, hi = [], []
    for m, h, n in zip(means, halves, ns):
        if m is None:
            lo.append(0.0)
            hi.append(0.0)
            continue
        a, b = bar(m, h, n, level, lower=lower)
        lo.append((m - a) * scale)
        hi.append((b - m) * scale)
    return np.array([lo, hi])


def interval(mean: float | None, half: float | None, n: int | None, level: float, scale: float = 1.0,
             fmt: str = "{:.1f}", lower: float | None = None) -> str:
    """A mean and its interval for printing: ``mean ± half`` from 3 samples
    up (``mean [lower..mean+half]`` where the interval would cross the
    quantity's physical ``lower`` bound); with 2, the two samples' range (a
    Student-t interval from two values says little); with 1, the value
    alone."""
    import math

    from scipy import stats

    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    m = mean * scale
    if n is None or n < 2 or half is None or (isinstance(half, float) and math.isnan(half)):
        return fmt.format(m) + (" (1 sample)" if n == 1 else "")
    h = half * scale
    if n >= 3:
        if lower is not None and m - h < lower * scale:
            return f"{fmt.format(m)} [{fmt.format(lower * scale)}..{fmt.format(m + h)}]"
        return f"{fmt.format(m)}±{fmt.format(h)}"
    # n = 2: half = t · s / √2 and s = |x1 − x2| / √2, so the samples are
    # mean ± half / t.
    d = h / float(stats.t.ppf(0.5 + level / 2.0, 1))
    return f"{fmt.format(m)} [{fmt.format(m - d)}..{fmt.format(m + d)}]"


_VALUE_COLUMNS = frozenset(
    {"relation", "value", "value_ci", "ours", "ours_ci", "ours_ci95", "source", "verdict", "cause", "reason", "doc",
     "rel_error", "rel_err", "role", "std_bps", "ours_std_bps", "metric", "basis", "basis_note", "not_run",
     "sensitivity", "sensitivity_lo", "sensitivity_hi", "paper_se", "ours_alt"}
)


def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:  # NaN
            return "-"
        return f"{v:.4g}"
    return str(v)


def not_scored_lines(experiment: str) -> list[str]:
    """The paper's claims this experiment does not score, each with why."""
    items = NOT_SCORED.get(experiment, [])
    if not items:
        return []
    return ["Claims of the paper not scored:"] + [f"  not scored     {claim} -- {why}" for claim, why in items]


def claims_lines(paper: pl.DataFrame, *, title: str = "The paper's claims beside ours, each with its verdict:",
                 experiment: str | None = None) -> list[str]:
    """The printed claims: one line per claim compared at this scale (what
    it concerns, the paper's relation and value, ours, the verdict, its
    cause and its reason from this run's numbers), one line counting the
    claims not run at this scale, the claims not scored and the count line
    (:func:`count_line`)."""
    if "verdict" not in paper.columns or paper.height == 0:
        return [count_line(paper)]
    keys = [c for c in paper.columns if c not in _VALUE_COLUMNS]
    lines = [title]
    for row in paper.filter(pl.col("verdict") != "not run at this scale").iter_rows(named=True):
        where = ", ".join(f"{k}={_num(row[k])}" for k in keys if row.get(k) not in (None, ""))
        ci = f" ± {_num(row['value_ci'])}" if row.get("value_ci") is not None else ""
        v = f"{row['verdict']} ({row['cause']})" if row.get("cause") else row["verdict"]
        head = f"  {v:<14s} {row.get('metric', '')} [{where}]: paper {row['relation']} {_num(row['value'])}{ci}, ours {_num(row['ours'])}"
        if row["verdict"] != "agrees":
            head += f" -- {row['reason']}" + (f" ({row['doc']})" if row.get("doc") else "")
        lines.append(head)
    skipped = paper.filter(pl.col("verdict") == "not run at this scale")
    if skipped.height:
        why = sorted({r for r in skipped["reason"].to_list() if r})
        lines.append(f"  ({skipped.height} more claims concern points not run at this scale: {'; '.join(why)})")
    if experiment:
        lines += not_scored_lines(experiment)
    lines.append(count_line(paper))
    return lines
