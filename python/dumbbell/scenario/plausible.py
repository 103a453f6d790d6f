"""Warnings for values that are valid but almost certainly not meant.

A value inside its range is accepted, but a few are far from anything a
network experiment uses and usually come from a unit slip: ``rate_bps = 50``
(50 bit/s, meant 50 Mb/s) or ``delay_s = 13`` (13 s, meant 13 ms). Each such
value gets **one warning line naming the field**, a
:class:`~dumbbell.errors.DumbbellWarning`, and the run goes on with it:

- a rate below :data:`MIN_PLAUSIBLE_RATE_BPS` (1 kb/s) in ``rate_bps``,
  ``bandwidth_bps`` or ``max_rate_bps``;
- a delay above :data:`MAX_PLAUSIBLE_DELAY_S` (10 s) in ``delay_s``,
  ``jitter_s`` or ``reorder_delay_s`` (a link's or a netem stage's);
- a finished run with flows in which no flow delivered any data
  (``flows.bytes_delivered`` all 0).

A sweep (:func:`dumbbell.sweep`, ``dumbbell sweep``) checks every grid point
before it runs and warns once per value, naming the grid points where it
occurs (``--grid links[0].rate_bps=50,100`` is 50 and 100 bit/s).

The checks read the scenario before the run and the ``flows`` table after
it; they cost nothing in the simulator. To silence them, filter the class:
``warnings.filterwarnings("ignore", category=db.DumbbellWarning)``; to make
them errors, ``-W error`` (pytest here runs so).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DumbbellWarning

if TYPE_CHECKING:
    import polars as pl

    from .models import Scenario

__all__ = [
    "MIN_PLAUSIBLE_RATE_BPS",
    "MAX_PLAUSIBLE_DELAY_S",
    "implausible_values",
    "warn_scenario",
    "warn_result",
    "warn_points",
    "one_line_warnings",
]

MIN_PLAUSIBLE_RATE_BPS = 1000
"""Below 1 kb/s a rate is almost surely a unit slip (``50`` for ``"50Mbps"``)."""
MAX_PLAUSIBLE_DELAY_S = 10.0
"""Above 10 s a one-way delay is almost surely a unit slip (``13`` for ``"13ms"``)."""

RATE_FIELDS = frozenset({"rate_bps", "bandwidth_bps", "max_rate_bps"})
DELAY_FIELDS = frozenset({"delay_s", "jitter_s", "reorder_delay_s"})


def _walk(value: Any, path: str) -> Iterator[tuple[str, str, Any]]:
    """(path, field name, value) of every field of the models under ``value``."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            v = getattr(value, name)
            here = f"{path}.{name}" if path else name
            yield here, name, v
            yield from _walk(v, here)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")


def implausible_values(scenario: Scenario) -> list[tuple[str, str]]:
    """``(field, message)`` for every implausible value of ``scenario``, in
    the order of its fields."""
    out: list[tuple[str, str]] = []
    for path, name, v in _walk(scenario, ""):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        # (0 is no slip: CAKE's rate_bps = 0 means unlimited)
        if name in RATE_FIELDS and 0 < v < MIN_PLAUSIBLE_RATE_BPS:
            out.append((path, f"{v:g} bit/s is below 1 kb/s; did you mean '{v:g}Mbps'? (the value is used as given)"))
        elif name in DELAY_FIELDS and v > MAX_PLAUSIBLE_DELAY_S:
            out.append((path, f"{v:g} s is above 10 s; did you mean '{v:g}ms'? (the value is used as given)"))
    return out


def warn_scenario(scenario: Scenario, stacklevel: int = 3) -> None:
    """One :class:`DumbbellWarning` per implausible value of ``scenario``."""
    for field, message in implausible_values(scenario):
        warnings.warn(f"{field}: {message}", DumbbellWarning, stacklevel=stacklevel)


def warn_points(points: Sequence[tuple[Mapping[str, Any], Scenario]], stacklevel: int = 3) -> None:
    """For a sweep: one warning per implausible value over all its grid
    points (``(point, scenario)`` pairs, as :func:`dumbbell.sweep.expand_grid`
    gives them), naming the points where it occurs unless it is all of them."""
    where: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for point, scenario in points:
        for field, message in implausible_values(scenario):
            where.setdefault((field, message), []).append(point)
    for (field, message), at in where.items():
        tail = ""
        if len(at) < len(points):
            shown = "; ".join(", ".join(f"{k}={v!r}" for k, v in p.items()) for p in at[:3])
            tail = f" (at grid point {shown}{' ...' if len(at) > 3 else ''})"
        warnings.warn(f"{field}: {message}{tail}", DumbbellWarning, stacklevel=stacklevel)


def no_data_delivered(flows: pl.DataFrame | list[dict[str, Any]]) -> bool:
    """True if there are flows and none delivered a byte (``flows``: the
    table, or its rows as :meth:`~dumbbell.run.tables.Tables.rows` gives them)."""
    if isinstance(flows, list):
        return bool(flows) and "bytes_delivered" in flows[0] and max(f["bytes_delivered"] for f in flows) == 0
    return flows.height > 0 and "bytes_delivered" in flows.columns and int(flows["bytes_delivered"].max()) == 0


def warn_result(flows: pl.DataFrame | list[dict[str, Any]], duration_s: float, stopped: bool, stacklevel: int = 3) -> None:
    """A :class:`DumbbellWarning` if a finished run's flows delivered nothing."""
    if not stopped and no_data_delivered(flows):
        warnings.warn(
            f"flows: no flow delivered any data in {duration_s:g} s of simulated time "
            "(check the links' rate_bps and delay_s, and the flows' start_s)",
            DumbbellWarning,
            stacklevel=stacklevel,
        )


def one_line_warnings() -> None:
    """Prints every :class:`DumbbellWarning` as one line on stderr,
    ``dumbbell: warning: FIELD: MESSAGE`` (the command line's form); other
    warnings keep Python's format."""
    previous = warnings.showwarning

    def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        if isinstance(category, type) and issubclass(category, DumbbellWarning):
            print(f"dumbbell: warning: {message}", file=file or sys.stderr)
        else:
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show
