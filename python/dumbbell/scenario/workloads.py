"""File-transfer tasks: what a workload transfers and when its tasks start.

A :class:`~dumbbell.scenario.Workload` (in ``Scenario.workloads``) moves
files from its servers to its clients, one task per file. These are its
parts:

- sizes: :class:`Files` (a file base, such as the RAFLE paper's 564 files
  of :func:`dumbbell.experiments.filebase.load`) or :class:`Cdf` (an empirical
  flow-size distribution; :func:`load_cdf` reads the shipped DCTCP
  web-search and VL2 data-mining ones);
- arrivals: :class:`AllAtOnce` (every file at the start),
  :class:`ClosedLoop` (exactly ``concurrency`` tasks active, a random file
  started whenever one completes) or :class:`Poisson`;
- :class:`Control`: the FTP-like dialogue before each file (greeting,
  ``rounds`` request/reply exchanges, RETR, then the data connection from
  the server); without it a task is one web-like connection.

A task's completion time runs from its start to the file's last byte at the
client; the run's ``tasks`` table has one row per task (``docs/output.md``).
"""

import csv
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator

from ..errors import ConfigError
from .base import U32_MAX, U64_MAX, Model, kind_of
from .lazy_union import lazy_union

__all__ = ["Files", "Cdf", "AllAtOnce", "ClosedLoop", "Poisson", "Control", "Sizes", "Arrivals",
           "load_cdf", "CDFS"]


MAX_FLOW_BYTES = 2**62
"""Largest file (sequence numbers are 64-bit offsets); the core's `validate.rs` agrees."""
MAX_CONCURRENCY = 10**6
"""Most tasks a closed loop keeps active."""
MAX_ARRIVAL_RATE_PER_S = 1e6
"""Fastest Poisson arrival rate, tasks per second."""
MAX_TASKS = 10**8
"""Most tasks one workload starts (``max_tasks``)."""


def _pair(v: Any) -> Any:
    """A ``[size, probability]`` point as TOML writes it (a list)."""
    return tuple(v) if isinstance(v, list) else v


class Files(Model):
    """A file base: sizes in bytes (each >= 1)."""

    kind: Literal["files"] = "files"
    bytes: Annotated[list[Annotated[int, Field(ge=1, le=MAX_FLOW_BYTES, description="File size, bytes.")]], Field(min_length=1)]

    def to_core(self) -> dict[str, Any]:
        return {"kind": "files", "bytes": list(self.bytes)}


class Cdf(Model):
    """An empirical CDF: ``[size_bytes, probability]`` points, both
    non-decreasing, the last probability 1; sampled by inverse transform
    with linear interpolation (the pFabric and Homa convention)."""

    kind: Literal["cdf"] = "cdf"
    points: Annotated[
        list[
            Annotated[
                tuple[
                    Annotated[float, Field(ge=0, le=MAX_FLOW_BYTES, description="Size, bytes.")],
                    Annotated[float, Field(ge=0, le=1, description="Cumulative probability.")],
                ],
                BeforeValidator(_pair),
            ]
        ],
        Field(min_length=2),
    ]

    @field_validator("points")
    @classmethod
    def _monotone(cls, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        for i, (x, p) in enumerate(pts):
            if not (x >= 0 and x < float("inf")):
                raise ValueError(f"points[{i}]: sizes must be finite and non-negative")
            if not 0 <= p <= 1:
                raise ValueError(f"points[{i}]: probabilities must be in [0, 1]")
            if i and (x < pts[i - 1][0] or p < pts[i - 1][1]):
                raise ValueError(f"points[{i}]: sizes and probabilities must be non-decreasing")
        if pts[-1][1] != 1.0:
            raise ValueError("the last probability must be 1")
        return pts

    def mean_bytes(self) -> float:
        """Mean of the interpolated distribution (the core's ``EmpiricalCdf::mean``)."""
        m = self.points[0][0] * self.points[0][1]
        for (x0, p0), (x1, p1) in zip(self.points, self.points[1:]):
            m += (p1 - p0) * (x0 + x1) / 2
        return m

    def to_core(self) -> dict[str, Any]:
        return {"kind": "cdf", "points": [[float(x), float(p)] for x, p in self.points]}


class AllAtOnce(Model):
    """Every task at the workload's start (each file once, in order)."""

    kind: Literal["all_at_once"] = "all_at_once"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "all_at_once"}


class ClosedLoop(Model):
    """Exactly ``concurrency`` tasks active: a new one starts the instant one completes."""

    kind: Literal["closed_loop"] = "closed_loop"
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY, description="Tasks kept active.")]

    def to_core(self) -> dict[str, Any]:
        return {"kind": "closed_loop", "concurrency": self.concurrency}


class Poisson(Model):
    """A Poisson process of ``rate_per_s`` tasks per second."""

    kind: Literal["poisson"] = "poisson"
    rate_per_s: Annotated[float, Field(gt=0, le=MAX_ARRIVAL_RATE_PER_S, description="Task arrivals per second.")]

    def to_core(self) -> dict[str, Any]:
        return {"kind": "poisson", "rate_per_s": float(self.rate_per_s)}


class Control(Model):
    """The FTP-like control dialogue (RFC 959, active mode). Defaults: a
    24-byte greeting, 4 rounds (USER, PASS, TYPE, PORT) of 16-byte requests
    and 32-byte replies, then RETR and a 150 reply."""

    banner_bytes: Annotated[int, Field(ge=1, le=U32_MAX)] = 24
    rounds: Annotated[int, Field(ge=0, le=U32_MAX)] = 4
    request_bytes: Annotated[int, Field(ge=1, le=U32_MAX)] = 16
    response_bytes: Annotated[int, Field(ge=1, le=U32_MAX)] = 32

    def to_core(self) -> dict[str, Any]:
        return self.model_dump()


Sizes = lazy_union({"files": Files, "cdf": Cdf}, kind_of("files"))
"""Task sizes: a file base or an empirical CDF, tagged by ``kind``."""

Arrivals = lazy_union({"all_at_once": AllAtOnce, "closed_loop": ClosedLoop, "poisson": Poisson}, kind_of("all_at_once"))
"""When tasks start, tagged by ``kind``."""

CDFS = {
    "websearch": "data/websearch_cdf.csv",
    "datamining": "data/datamining_cdf.csv",
}
"""The shipped flow-size distributions (see the files' headers for their sources)."""


def load_cdf(name_or_path: str | Path) -> "Cdf":
    """A shipped CDF by name (``"websearch"``, ``"datamining"``) or a CSV
    file of ``size_bytes,cdf`` rows (``#`` starts a comment)."""
    if isinstance(name_or_path, str) and name_or_path in CDFS:
        text = resources.files("dumbbell").joinpath(CDFS[name_or_path]).read_text()
        where = name_or_path
    else:
        p = Path(name_or_path)
        try:
            text = p.read_text()
        except OSError as e:
            raise ConfigError(str(p), f"cannot read the CDF file: {e}") from None
        where = str(p)
    rows = [r for r in csv.reader(line for line in text.splitlines() if line.strip() and not line.startswith("#"))]
    if rows and rows[0] and not _is_number(rows[0][0]):
        rows = rows[1:]  # header
    try:
        points = [(float(r[0]), float(r[1])) for r in rows]
    except (ValueError, IndexError):
        raise ConfigError(where, "expected `size_bytes,cdf` rows of numbers") from None
    try:
        return Cdf(points=points)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e.field}", e.message) from None


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True
