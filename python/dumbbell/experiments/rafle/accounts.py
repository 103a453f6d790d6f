"""E4 ``rafle``: the conditions of the accounts traced on branch
``rafle-trace`` (issue 23), each a claim about one claim row checked
against the run's other rows (``_rows``, the ``paper`` table's rows).

Light (no numpy or polars): the package's ``__init__`` imports it for its
``KNOWN`` accounts.

- :func:`rafle_rr_spread`: RAFLE with round robin's σ of a Table 2 bin is
  above the paper's *and* above both our drop-tail's and our RAFLE
  PrioSched's in the same bin, the state ``tools/rafle_bin_trace.py``
  traces (the long queue a fast lane, each file's completion set by how
  often RAFLE sent its packets there);
- :func:`within_own_scatter`: a Table 1 number within the paper's own
  departure from a monotone trend of its column over N (its scatter);
- :func:`paper_uptick`: the paper's Table 1 PA_l rises from the next
  smaller N while ours falls, and ours is below the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..known import number

__all__ = ["ours_of", "rafle_rr_spread", "monotone_fit", "own_scatter", "within_own_scatter", "paper_uptick"]


def ours_of(r: Mapping[str, Any], classifier: str, scheduler: str) -> float | None:
    """Ours for ``r``'s metric and bin under another router (the row of
    ``classifier``/``scheduler`` among ``r["_rows"]``), or None."""
    for x in r.get("_rows", []):
        if (x.get("classifier"), x.get("scheduler"), x.get("metric"), x.get("bin_kb"), x.get("part")) == (
                classifier, scheduler, r.get("metric"), r.get("bin_kb"), r.get("part")):
            return number(x.get("ours"))
    return None


def rafle_rr_spread(r: Mapping[str, Any]) -> bool:
    """Ours (RAFLE RR's σ of a bin) above the paper's and above our
    drop-tail's and our RAFLE PrioSched's σ in the same bin: the excess
    spread is RAFLE's under round robin, not the FIFO's or the classifier's
    alone."""
    o, v = number(r.get("ours")), number(r.get("value"))
    dt, prio = ours_of(r, "droptail", "fifo"), ours_of(r, "rafle", "prio")
    return None not in (o, v, dt, prio) and o > v and o > dt and o > prio  # type: ignore[operator]


def monotone_fit(ys: Sequence[float], increasing: bool) -> list[float]:
    """The least-squares monotone fit of ``ys`` (pool adjacent violators):
    non-decreasing if ``increasing``, else non-increasing."""
    sign = 1.0 if increasing else -1.0
    blocks: list[list[float]] = []  # [mean, count]
    for y in ys:
        blocks.append([sign * y, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, n2 = blocks.pop()
            m1, n1 = blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    out: list[float] = []
    for m, n in blocks:
        out += [sign * m] * int(n)
    return out


def _column(r: Mapping[str, Any], col: str) -> list[tuple[int, float]]:
    """(N, ``col``) of Table 1's rows of ``r``'s metric and scheduler,
    sorted by N."""
    got = [(int(x["n"]), number(x.get(col))) for x in r.get("_rows", []) if x.get("part") == "memory"
           and x.get("metric") == r.get("metric") and x.get("scheduler") == r.get("scheduler") and x.get("n") is not None]
    return sorted((n, v) for n, v in got if v is not None)


def own_scatter(r: Mapping[str, Any]) -> float | None:
    """The paper's own scatter of ``r``'s Table 1 column: its largest
    departure from the monotone fit over N that RAFLE's rule gives (PA_c
    rising with N, PA_l falling). None for other metrics."""
    if r.get("metric") not in ("pa_c", "pa_l"):
        return None
    col = [v for _, v in _column(r, "value")]
    if len(col) < 2:
        return None
    fit = monotone_fit(col, increasing=r.get("metric") == "pa_c")
    return max(abs(a - b) for a, b in zip(col, fit))


def within_own_scatter(r: Mapping[str, Any]) -> bool:
    """Ours within the paper's own scatter (:func:`own_scatter`) of the
    paper's value."""
    o, v, s = number(r.get("ours")), number(r.get("value")), own_scatter(r)
    return None not in (o, v, s) and abs(o - v) <= s  # type: ignore[operator]


def paper_uptick(r: Mapping[str, Any]) -> bool:
    """A Table 1 PA_l where the paper's column rises from the next smaller
    N (against the fall RAFLE's rule gives) while ours falls (or stays),
    and ours is below the paper's."""
    if r.get("metric") != "pa_l" or r.get("n") is None:
        return False
    paper, ours = dict(_column(r, "value")), dict(_column(r, "ours"))
    n = int(r["n"])
    prev = [m for m in paper if m < n and m in ours]
    if not prev or n not in paper or n not in ours:
        return False
    m = max(prev)
    return paper[n] > paper[m] and ours[n] <= ours[m] and ours[n] < paper[n]
