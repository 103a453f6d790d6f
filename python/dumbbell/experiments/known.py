"""Accounts of known differences (:class:`Known`) and the conditions they
state on a run's numbers: the light half of :mod:`dumbbell.experiments.claims`.

Each experiment's package declares its accounts in its ``__init__.py``
(``KNOWN``) with these; :func:`dumbbell.experiments.claims.judge` checks them
against a run's numbers. Nothing here imports numpy or polars, so naming the
experiments (``dumbbell list``, ``reproduce --help``) stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["VERDICTS", "CAUSES", "Condition", "Known", "number", "doc", "below", "above", "within", "ratio_in",
           "across_sensitivity"]

VERDICTS = ("agrees", "differs", "calibrated", "by construction", "not measurable", "not run at this scale")
CAUSES = ("testbed", "paper", "model", "ours")

Condition = Callable[[Mapping[str, Any]], bool]
"""A condition on one claim row (its ``ours``, ``value`` and other columns)."""


def number(v: Any) -> float | None:
    """``v`` as a finite float, or None."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x and abs(x) != float("inf") else None


def below(factor: float = 1.0) -> Condition:
    """Ours is below ``factor`` times the paper's value."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = number(r.get("ours")), number(r.get("value"))
        return o is not None and v is not None and o < factor * v
    return cond


def above(factor: float = 1.0) -> Condition:
    """Ours is above ``factor`` times the paper's value."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = number(r.get("ours")), number(r.get("value"))
        return o is not None and v is not None and o > factor * v
    return cond


def within(lo: float | None = None, hi: float | None = None, column: str = "ours") -> Condition:
    """``column`` (default ours) lies in [lo, hi]."""
    def cond(r: Mapping[str, Any]) -> bool:
        x = number(r.get(column))
        return x is not None and (lo is None or x >= lo) and (hi is None or x <= hi)
    return cond


def ratio_in(lo: float, hi: float) -> Condition:
    """Ours / the paper's value lies in [lo, hi]."""
    def cond(r: Mapping[str, Any]) -> bool:
        o, v = number(r.get("ours")), number(r.get("value"))
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



def doc(page: str, anchor: str) -> str:
    """``docs/experiments/PAGE.md#ANCHOR``: where an account is written
    (each experiment's page is named after the experiment)."""
    return f"docs/experiments/{page}.md#{anchor}"


def across_sensitivity(r: Mapping[str, Any]) -> bool:
    """The paper's value lies within the range ours spans over the settings
    of the experiment's sensitivity part (``sensitivity_lo`` to
    ``sensitivity_hi``): a setting the paper does not give moves ours across
    it."""
    v, lo, hi = number(r.get("value")), number(r.get("sensitivity_lo")), number(r.get("sensitivity_hi"))
    return v is not None and lo is not None and hi is not None and lo <= v <= hi
