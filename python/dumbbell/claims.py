"""Verdicts on the papers' claims: every "paper vs ours" row says whether it
holds.

Each experiment's ``paper`` table holds one row per published number or
statement, with the relation it states (``=``, ``~``, ``<=``, ``>``, ...),
the paper's value and ours. :func:`judge` adds three columns:

- ``verdict``: ``agrees``, ``differs``, ``not measurable`` (the claim is
  about something dumbbell has no counterpart for, such as the testbed's
  own hardware) or ``not run at this scale`` (the point is not part of the
  runs at this scale: ``--scale paper`` runs it);
- ``reason``: for ``differs`` and ``not measurable``, one line saying why,
  taken from the experiment's documented and traced account (the
  ``Known`` entries below); ``not yet traced`` for a difference the docs
  list as not yet traced (its ``doc`` points to that list) or that no
  account covers (no ``doc``: a test failure);
- ``doc``: where that account is (``docs/experiments/eN.md#section``).

The rule for agreement is :func:`dumbbell.report.agreement` (``=`` within
5 % or overlapping intervals when ours is no wider than ±20 % of the
paper's value, ``~`` within 20 %, inequalities as written).
A ``differs`` without an account is a failure of ours, not of the paper:
each experiment's ``test_claims_carry_verdicts`` (``tests/claims_check.py``) fails on it, and on an account whose section does
not exist in the docs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["VERDICTS", "Known", "KNOWN", "judge", "count_line", "verdict_cell", "anchors", "DOCS", "interval"]

VERDICTS = ("agrees", "differs", "not measurable", "not run at this scale")
NOT_TRACED = "not yet traced"
DOCS = Path(__file__).resolve().parents[2] / "docs"
"""The repository's docs directory (where the ``doc`` anchors point)."""


@dataclass(frozen=True)
class Known:
    """An account of claims that do not agree: the rows it covers (every
    ``column = value`` of ``match`` holds; a value may be a predicate), the
    verdict it gives them, one line of reason and the doc section."""

    match: Mapping[str, Any]
    reason: str
    doc: str
    verdict: str = "differs"
    scales: tuple[str, ...] = ("quick", "paper")
    """The scales the account was traced at."""

    def covers(self, row: Mapping[str, Any], scale: str) -> bool:
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


def _contains(text: str) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and text in v


def _doc(n: int, anchor: str) -> str:
    return f"docs/experiments/e{n}.md#{anchor}"


KNOWN: dict[str, list[Known]] = {
    "dctcp-queue": [
        Known({"metric": "queue_vs_hardware_pkts"}, verdict="not measurable",
              reason="compares Mininet-HiFi with the authors' hardware switch; dumbbell is neither",
              doc=_doc(1, "mininet-hifi-against-hardware")),
        Known({"metric": "dequeue_dev_frac_over_100pct", "rate_bps": 1_000_000_000},
              reason="a measure of Mininet-HiFi's emulation error at 1 Gb/s; dumbbell's links are exact, every "
                     "deviation is 0",
              doc=_doc(1, "link-fidelity-at-1-gbs")),
        Known({"metric": "utilization", "rate_bps": 1_000_000_000},
              reason="Mininet-HiFi's CPU saturated at 1 Gb/s; a simulated link is never short of CPU, so ours "
                     "stays at 1",
              doc=_doc(1, "link-fidelity-at-1-gbs")),
    ],
    "hysteresis": [
        Known({"case": "A", "part": lambda p: p in ("li-sweep", "ls-sweep")},
              reason="our case A sweeps are flat: the port never runs dry with either marking, so both deliver its "
                     "rate; the paper's dips are not reproduced",
              doc=_doc(2, "case-a-and-its-sweeps")),
        Known({"case": lambda c: c in ("B", "C", "E")},
              reason="our TCP starves: UDP overloads the port (B) or the shared pipeline (C, E), which drops TCP "
                     "too; the paper's hosts kept 0.07-0.5 Mb/s",
              doc=_doc(2, "cases-b-c-and-e-tcp-starves")),
        Known({"case": "D"},
              reason="shares within a run are very unequal (sigma ~1 Mb/s against the paper's 0.03-0.14), so means "
                     "over few runs scatter around the paper's",
              doc=_doc(2, "case-d-unequal-shares")),
    ],
    "lossy-cc": [
        Known({"metric": lambda m: m in ("linear / bbr", "expolinear / bbr")},
              reason="at 20 ms BBR collapses (long-term bandwidth in use 71-77 %) but Expolinear gets only 21-22 "
                     "Mb/s, a ratio of 1.0-6.4; at 10 Gb/s Linear sits at 1 packet, its recovery adding 1 packet "
                     "per ms against 0.2-0.4 ms round trips",
              doc=_doc(3, "bbr-under-heavy-loss")),
        Known({"metric": lambda m: m in ("bbr / best other final control", "worst proposal / best of cubic, reno, vegas",
                                         "min(expolinear, linear) / best other final control")},
              reason="at 100 ms BBR's long-term sampling stays off up to 10 % while the proposals overflow netem's "
                     "limit; at 10 Gb/s Fractional, like BBR bounded only by the receive window, carries 1.7-2.0 % more "
                     "than it at 1-5 % (ten rounds), and "
                     "Linear's per-ms recovery falls below Reno at 5 %",
              doc=_doc(3, "bbr-at-100-ms-and-at-10-gbs")),
        Known({"metric": lambda m: isinstance(m, str) and m.startswith("linear-adaptive")},
              reason="traced R averages 17.5-22 % counted per round and 32.6-34 % per loss-reporting ACK at 1-20 % "
                     "loss, never near the fixed 50 %",
              doc=_doc(3, "the-adaptive-reduction-never-nears-50-")),
        Known({"part": "delay", "cc": "fractional"},
              reason="above 12 ms of added delay netem's 1000-packet limit caps every control and the proposals' "
                     "windows overflow it; Fractional's ratio ends fourth, not last",
              doc=_doc(3, "fractional-and-delay")),
        Known({"part": "cordiality", "setup": "droptail"},
              reason="on one shared drop-tail bottleneck the proposals' unbounded avoidance windows keep the queue "
                     "full and take most of the link; between proposals the larger window law wins",
              doc=_doc(3, "cordiality-on-a-shared-drop-tail-bottleneck")),
        Known({"part": "cordiality", "setup": "lossless"},
              reason="window-limited clients share evenly but BBR (min_rtt measured before the queue built), "
                     "Cubic (HyStart's early exit) and Vegas (takes the queue for its own)",
              doc=_doc(3, "cordiality-on-the-lossless-deep-fifo")),
    ],
    "rafle": [
        Known({"part": "memory"},
              reason="under strict priority within the paper's own scatter; under round robin RAFLE's reordering "
                     "makes the senders retransmit in same-flow bursts that fill its memory (PA_l about 3 times)",
              doc=_doc(4, "rafles-accuracy-table-1")),
        Known({"part": "simultaneous", "metric": lambda m: isinstance(m, str) and m.startswith("max finished")},
              reason="RAFLE sends some short packets to the long queue, where strict priority makes them wait "
                     "behind every long flow",
              doc=_doc(4, "figure-5s-early-peak")),
        Known({"part": "simultaneous", "bin_kb": lambda b: b in ("0-100", "all")},
              reason="most first-bin files fit in the initial window, so drop-tail serves them in the first "
                     "round of windows: our drop-tail is faster and the gains smaller",
              doc=_doc(4, "drop-tails-first-bin-and-table-3s-gains")),
        Known({"part": "simultaneous", "metric": lambda m: m in ("gain", "gain_std")},
              reason="Table 3's gains are ratios to our drop-tail, whose first bin is four times faster than the "
                     "paper's",
              doc=_doc(4, "drop-tails-first-bin-and-table-3s-gains")),
        Known({"part": "closed-loop"},
              reason="the FTP dialogue crosses an ~85 s FIFO six times, so drop-tail keeps most tasks out of "
                     "transfer; routers that prioritize it let all 300 transfer and pile up large files; RAFLE RR "
                     "spends the link on reordering retransmissions",
              doc=_doc(4, "closed-loop-table-4")),
        Known({"part": "simultaneous", "classifier": "rafle", "scheduler": "rr",
               "metric": lambda m: m in ("fct_mean_s", "fct_std_s")},
              reason="RAFLE splits flows across the queues; the reordering costs spurious retransmissions "
                     "(about 109 000 segments, 1300 s of the link)",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "simultaneous", "metric": "fct_std_s"},
              reason="a lossless link spreads a bin as the fair share does; 1 % random loss gives the paper's σ",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
        Known({"part": "simultaneous", "metric": "fct_mean_s"},
              reason="within about 11 % but for RuN2C PrioSched (our RuN2C with priority is our FIFO above "
                     "16 KB); the paper's path was lossy (its σ), ours is lossless",
              doc=_doc(4, "completion-times-above-the-first-bin-table-2")),
    ],
    "highspeed": [
        Known({"metric": "highspeed / reno", "relation": "~", "point": _contains("loss=0.0001")},
              reason="the paper's own response functions give HSTCP 263 packets against TCP's 120 at 1e-4, so "
                     "HSTCP keeps about twice TCP's rate",
              doc=_doc(5, "at-1e-4-hstcp-keeps-twice-tcps-rate")),
        Known({"metric": "gain at the highest latency / gain at the lowest"},
              reason="steady windows do not depend on the RTT (gain 4.6-5.4 against the model's 4.7 at 1e-5); over "
                     "60 s TCP's first slow start weighs more at 80 ms; the gain grows with RTT only where the link "
                     "or receive window caps HSTCP (1e-6)",
              doc=_doc(5, "hstcps-gain-and-the-rtt")),
    ],
}
"""Experiment name → its documented accounts of claims that do not agree."""


def _agreement(row: Mapping[str, Any], samples: int | None) -> str | None:
    from .report import agreement

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


def judge(experiment: str, scale: str, paper: pl.DataFrame, known: Sequence[Known] | None = None,
          samples: int | None = None) -> pl.DataFrame:
    """``paper`` with ``verdict``, ``reason`` and ``doc`` (replaced if
    present). ``samples``: the fewest samples behind our means (below 3,
    our intervals do not count towards agreement)."""
    accounts = KNOWN.get(experiment, []) if known is None else known
    verdicts, reasons, docs = [], [], []
    for row in paper.iter_rows(named=True):
        a = _agreement(row, samples)
        account = next((k for k in accounts if k.covers(row, scale)), None)
        if a == "agree":
            v, why, doc = "agrees", "", ""
        elif a == "differ":
            v = "differs"
            # Without any account, the reason says so and no doc is given:
            # tests/claims_check.py fails on such a row.
            why, doc = (account.reason, account.doc) if account and account.verdict == "differs" else (NOT_TRACED, "")
        elif account is not None and account.verdict == "not measurable":
            v, why, doc = "not measurable", account.reason, account.doc
        else:
            v, why, doc = "not run at this scale", "", ""
        verdicts.append(v)
        reasons.append(why)
        docs.append(doc)
    base = paper.drop([c for c in ("verdict", "reason", "doc") if c in paper.columns])
    return base.with_columns(
        pl.Series("verdict", verdicts, dtype=pl.String),
        pl.Series("reason", reasons, dtype=pl.String),
        pl.Series("doc", docs, dtype=pl.String),
    )


def count_line(paper: pl.DataFrame) -> str:
    """"9 agree, 3 differ (explained in docs/...#a, ...), 1 not measurable,
    2 not run at this scale"; an unexplained difference is said so."""
    if "verdict" not in paper.columns or paper.height == 0:
        return "no claims of the paper are compared here"
    counts = {v: 0 for v in VERDICTS}
    for v in paper["verdict"].to_list():
        counts[v] = counts.get(v, 0) + 1
    differ = paper.filter(pl.col("verdict") == "differs")
    traced = differ.filter(pl.col("reason") != NOT_TRACED)
    explained = [d for d in dict.fromkeys(traced["doc"].to_list()) if d]
    untraced = differ.filter(pl.col("reason") == NOT_TRACED)
    parts = [f"{counts['agrees']} {'agrees' if counts['agrees'] == 1 else 'agree'}"]
    if counts["differs"]:
        text = f"{counts['differs']} {'differs' if counts['differs'] == 1 else 'differ'}"
        if explained:
            text += f" (explained in {', '.join(explained)})"
        if untraced.height:
            where = [d for d in dict.fromkeys(untraced["doc"].to_list()) if d]
            text += f", {untraced.height} of them not yet traced" + (f" (listed in {', '.join(where)})" if where else "")
        parts.append(text)
    else:
        parts.append("0 differ")
    if counts["not measurable"]:
        parts.append(f"{counts['not measurable']} not measurable")
    if counts["not run at this scale"]:
        parts.append(f"{counts['not run at this scale']} not run at this scale")
    return "Claims: " + ", ".join(parts) + "."


def verdict_cell(row: Mapping[str, Any]) -> str:
    """The verdict as one printed cell: ``agrees``, ``differs: reason
    (doc)``, ..."""
    v = row.get("verdict") or ""
    if v in ("differs", "not measurable") and row.get("reason"):
        doc = f" ({row['doc']})" if row.get("doc") else ""
        return f"{v}: {row['reason']}{doc}"
    return v


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


def interval(mean: float | None, half: float | None, n: int | None, level: float, scale: float = 1.0,
             fmt: str = "{:.1f}") -> str:
    """A mean and its interval for printing: ``mean ± half`` from 3 samples
    up; with 2, the two samples' range (a Student-t interval from two
    values says little); with 1, the value alone."""
    import math

    from scipy import stats

    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    m = mean * scale
    if n is None or n < 2 or half is None or (isinstance(half, float) and math.isnan(half)):
        return fmt.format(m) + (" (1 sample)" if n == 1 else "")
    h = half * scale
    if n >= 3:
        return f"{fmt.format(m)}±{fmt.format(h)}"
    # n = 2: half = t · s / √2 and s = |x1 − x2| / √2, so the samples are
    # mean ± half / t.
    d = h / float(stats.t.ppf(0.5 + level / 2.0, 1))
    return f"{fmt.format(m)} [{fmt.format(m - d)}..{fmt.format(m + d)}]"



_VALUE_COLUMNS = frozenset(
    {"relation", "value", "value_ci", "ours", "ours_ci", "ours_ci95", "source", "verdict", "reason", "doc", "rel_error",
     "rel_err", "role", "std_bps", "ours_std_bps", "metric"}
)


def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:  # NaN
            return "-"
        return f"{v:.4g}"
    return str(v)


def claims_lines(paper: pl.DataFrame, *, title: str = "The paper's claims beside ours, each with its verdict:") -> list[str]:
    """The printed claims: one line per claim compared at this scale (what
    it concerns, the paper's relation and value, ours, the verdict and, for
    a difference, its reason and doc section), one line counting the claims
    not run at this scale, and the count line (:func:`count_line`)."""
    if "verdict" not in paper.columns or paper.height == 0:
        return [count_line(paper)]
    keys = [c for c in paper.columns if c not in _VALUE_COLUMNS]
    lines = [title]
    for row in paper.filter(pl.col("verdict") != "not run at this scale").iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in keys if row.get(k) not in (None, ""))
        ci = f" ± {_num(row['value_ci'])}" if row.get("value_ci") is not None else ""
        head = f"  {row['verdict']:<14s} {row.get('metric', '')} [{where}]: paper {row['relation']} {_num(row['value'])}{ci}, ours {_num(row['ours'])}"
        if row["verdict"] in ("differs", "not measurable"):
            head += f" -- {row['reason']}" + (f" ({row['doc']})" if row.get("doc") else "")
        lines.append(head)
    skipped = paper.filter(pl.col("verdict") == "not run at this scale").height
    if skipped:
        lines.append(f"  ({skipped} more claims concern points not run at this scale: --scale paper runs them)")
    lines.append(count_line(paper))
    return lines
