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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from .known import CAUSES, VERDICTS, Condition, Known, above, below, number as _f, ratio_in, within
from .registry import rooms

__all__ = ["VERDICTS", "CAUSES", "Condition", "Known", "known_of", "not_scored_of", "judge", "count_line",
           "verdict_cell", "anchors", "DOCS", "interval", "bounds", "bar", "bars", "claims_lines", "merge_claims",
           "below", "above", "within", "ratio_in"]

NOT_TRACED = "not yet traced"
DOCS = Path(__file__).resolve().parents[3] / "docs"
"""The repository's docs directory (where the ``doc`` anchors point)."""


def known_of(experiment: str) -> list[Known]:
    """The experiment's accounts of known differences (``KNOWN`` in its
    package, :mod:`dumbbell.experiments.registry`); none for a name the
    registry does not hold."""
    room = rooms().get(experiment)
    return list(getattr(room, "KNOWN", [])) if room is not None else []


def not_scored_of(experiment: str) -> list[tuple[str, str]]:
    """The paper's claims the experiment does not score, each with why
    (``NOT_SCORED`` in its package)."""
    room = rooms().get(experiment)
    return list(getattr(room, "NOT_SCORED", [])) if room is not None else []


def __getattr__(name: str) -> Any:
    # `claims.KNOWN` and `claims.NOT_SCORED`, experiment name -> its list, as
    # before issue 28 moved each experiment's accounts into its package
    if name == "KNOWN":
        return {n: known_of(n) for n in rooms()}
    if name == "NOT_SCORED":
        return {n: not_scored_of(n) for n in rooms() if not_scored_of(n)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    accounts = known_of(experiment) if known is None else known
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


ACCOUNT_MEASURES = frozenset(
    # rafle's closed loop: the measures its Table 4 accounts check, of the claim's router and of drop-tail.
    f"{who}_{k}" for who in ("ours", "dt")
    for k in ("in_transfer", "dialogue_s", "inventory_mb", "retransmits", "retx_pct")
) | frozenset(
    # l4s's rate account: what it fits over PI2's targets (l4s/rates.py).
    {"rtt_slope", "rtt_window", "rtt_predicted"}
)
"""Claim columns that only feed an account's condition and reason: values, never
labels, and not shown as columns of the HTML claims table (the reason prints them)."""

_VALUE_COLUMNS = frozenset(
    {"relation", "value", "value_ci", "ours", "ours_ci", "ours_ci95", "source", "verdict", "cause", "reason", "doc",
     "rel_error", "rel_err", "role", "std_bps", "ours_std_bps", "metric", "basis", "basis_note", "not_run",
     "sensitivity", "sensitivity_lo", "sensitivity_hi", "paper_se", "ours_alt", "first_start_frac"}
) | ACCOUNT_MEASURES


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
    items = not_scored_of(experiment)
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
