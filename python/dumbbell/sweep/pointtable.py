"""The per-point table ``dumbbell sweep`` prints: plain text that does not wrap.

One row per grid point: its parameters, the runs ok (and failed), then the
goodput in Mb/s as mean ± half-width of the 95 % interval over the
repetitions, Jain's fairness index, retransmissions and drops (means).
Numbers are written with four significant digits; an interval narrower than
a billionth of its mean (the rounding noise of equal values, which polars
printed as ``1.85e-8``) is written ``0``, one from a single repetition ``-``.
Columns are as wide as their widest cell, parameters are cut at
:data:`MAX_CELL` characters, so a three-parameter sweep fits in 100 columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `dumbbell run` prints without importing polars
    import polars as pl

__all__ = ["points_text", "number", "MAX_CELL"]

MAX_CELL = 24
"""Longest parameter cell (a table-valued grid value is JSON): longer ones end in ``...``."""


def number(x: Any, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, without exponent for
    ordinary magnitudes; ``-`` for None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    x = float(f"{float(x):.{digits}g}")  # 0.99999999 is 1.000, not 1.0000
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e9:
        return str(int(x))  # a mean of counts that happens to be whole
    if 1e-3 <= abs(x) < 1e9:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
        return f"{x:.{decimals}f}"
    return f"{x:.{digits - 1}e}"


def interval(mean: Any, half: Any) -> str:
    """``mean ± half`` (Mb/s already scaled); a half-width that is rounding
    noise is 0."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    if half is None or (isinstance(half, float) and math.isnan(half)):
        return number(mean)
    if abs(half) <= 1e-9 * max(abs(mean), 1e-300):
        half = 0.0
    return f"{number(mean)} ± {number(half, 2)}"


def _cell(v: Any) -> str:
    text = number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else ("-" if v is None else str(v))
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 3] + "..."


def points_text(points: pl.DataFrame, keys: Sequence[str]) -> str:
    """The table of :meth:`SweepResult.points` as aligned plain text."""
    heads = [*keys, "runs", "goodput Mb/s", "fairness", "retrans", "drops"]
    rows: list[list[str]] = []
    for r in points.iter_rows(named=True):
        runs = str(r.get("ok", 0)) + (f" ({r['failed']} failed)" if r.get("failed") else "")
        g = r.get("goodput_bps")
        gh = r.get("goodput_bps_ci")
        rows.append([
            *(_cell(r.get(k)) for k in keys),
            runs,
            interval(None if g is None else g / 1e6, None if gh is None else gh / 1e6),
            "-" if r.get("fairness") is None or math.isnan(r["fairness"]) else f"{r['fairness']:.3f}",
            number(r.get("retransmits")),
            number(r.get("packets_dropped")),
        ])
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(heads)]
    numeric_from = len(keys)

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i < numeric_from else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    return "\n".join([line(heads), line(["-" * w for w in widths]), *(line(r) for r in rows), LEGEND])


LEGEND = ("goodput: all flows over one window; mean ± 95 % interval over the repetitions\n"
          "fairness: Jain's index (1: equal shares); retrans, drops: means")
"""The line under the sweep table."""


def run_text(flows: pl.DataFrame | list[dict[str, Any]], summary: dict[str, Any], width: int = 80) -> str:
    """What ``dumbbell run`` prints: one line per flow (goodput in Mb/s) and
    the summary's counters, wrapped at ``width`` columns (``flows``: the
    table or its rows)."""
    heads = ["flow", "from", "to", "cc", "goodput Mb/s", "retrans", "timeouts"]
    rows = []
    for f in flows if isinstance(flows, list) else flows.iter_rows(named=True):
        rows.append([_cell(f.get("name") or f.get("flow")), str(f.get("src", "")), str(f.get("dst", "")),
                     str(f.get("cc") or "-"), number(None if f.get("goodput_bps") is None else f["goodput_bps"] / 1e6),
                     number(f.get("retransmits")), number(f.get("timeouts"))])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(heads), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    words = [f"{k}={number(v) if isinstance(v, float) else v}" for k, v in summary.items()]
    current = "summary:"
    for w in words:
        if len(current) + 1 + len(w) > width:
            out.append(current)
            current = "        "
        current += " " + w
    out.append(current)
    return "\n".join(out)
