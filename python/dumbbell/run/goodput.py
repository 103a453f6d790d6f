"""A run's goodput as the catalog keeps it: every flow over one window, their
sum, and Jain's fairness index.

Each row of a run's ``flows`` table averages over **its own** interval
(``goodput_bps`` = ``bytes_delivered`` · 8 over [``start_ps``, ``end_ps``]),
so summing those rates over flows that started at different times counts the
shared link more than once (two flows staggered on a 50 Mb/s link sum to
51.9 Mb/s). The catalog instead puts every flow on **one window**, from the
first flow's start to the last flow's end:

- ``flow_goodput_bps``: each flow's ``bytes_delivered`` · 8 over that window;
- ``goodput_bps``: their sum, the bytes all flows delivered over the window
  (it cannot exceed what the bottleneck carries in that time);
- ``fairness``: Jain's index (Jain, Chiu and Hawe, DEC-TR-301, 1984),
  (Σx)² / (n · Σx²), of the rates the flows got **while each ran** (the
  ``flows`` table's ``goodput_bps``): 1 when all got the same, 1/n when one
  got everything. A late starter is not counted unfair for the time before
  it existed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = ["jain_index", "window_goodput"]


def jain_index(rates: Sequence[float]) -> float | None:
    """Jain's fairness index of ``rates`` (None without flows or with all zero)."""
    xs = [float(x) for x in rates]
    square_sum = sum(x * x for x in xs)
    if not xs or square_sum == 0.0:
        return None
    return sum(xs) ** 2 / (len(xs) * square_sum)


def window_goodput(flows: pl.DataFrame) -> dict[str, object]:
    """``goodput_bps``, ``flow_goodput_bps`` (in the table's flow order),
    ``fairness`` and ``window_s`` of a run's ``flows`` table (see the module
    docs); the rates are None if the window is empty."""
    if flows.height == 0:
        return {"goodput_bps": None, "flow_goodput_bps": [], "fairness": None, "window_s": None}
    t0 = int(flows["start_ps"].min())
    t1 = int(flows["end_ps"].max())
    window_s = (t1 - t0) / 1e12
    delivered = [int(b) for b in flows["bytes_delivered"]]
    if window_s <= 0:
        return {"goodput_bps": None, "flow_goodput_bps": [None] * len(delivered), "fairness": None, "window_s": 0.0}
    per_flow = [b * 8 / window_s for b in delivered]
    return {
        "goodput_bps": sum(delivered) * 8 / window_s,
        "flow_goodput_bps": per_flow,
        "fairness": jain_index([float(g) for g in flows["goodput_bps"]]),
        "window_s": window_s,
    }
