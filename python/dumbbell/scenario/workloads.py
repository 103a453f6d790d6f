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

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator

from ..errors import ConfigError
from .base import U32_MAX, U64_MAX, Model, kind_of

__all__ = ["Files", "Cdf", "AllAtOnce", "ClosedLoop", "Poisson", "Control", "Sizes", "Arrivals",
           "load_cdf", "CDFS", "permutation", "incast", "poisson_load"]


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


Sizes = Annotated[Union[Annotated[Files, Tag("files")], Annotated[Cdf, Tag("cdf")]], Discriminator(kind_of("files"))]
"""Task sizes: a file base or an empirical CDF, tagged by ``kind``."""

Arrivals = Annotated[
    Union[Annotated[AllAtOnce, Tag("all_at_once")], Annotated[ClosedLoop, Tag("closed_loop")],
          Annotated[Poisson, Tag("poisson")]],
    Discriminator(kind_of("all_at_once")),
]
"""When tasks start, tagged by ``kind``."""

CDFS = {
    "websearch": "data/websearch_cdf.csv",
    "datamining": "data/datamining_cdf.csv",
}
"""The shipped flow-size distributions (see the files' headers for their sources)."""


def load_cdf(name_or_path: str | Path) -> Cdf:
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


# ---------------------------------------------------------------- fabric traffic
#
# Traffic patterns of datacenter studies, as flows and workloads to add to a
# scenario (a fabric of :mod:`dumbbell.scenario.fabric` or any topology): a
# permutation of long flows, incast rounds, and Poisson arrivals of flow
# sizes drawn from a CDF at a given load.


def _hosts_of(scenario: Any) -> list[str]:
    return [n.name for n in scenario.nodes if n.kind == "host"]


def permutation(
    scenario: Any, *, seed: int = 1, bytes: int | None = None, start_s: float = 0.0, **flow: Any
) -> list[Any]:
    """Permutation traffic: every host sends one TCP flow (unlimited, or
    ``bytes`` long) to another host, each host receiving exactly one flow
    (a random derangement, the same for the same ``seed``). ``flow`` holds
    further :class:`~dumbbell.scenario.TcpFlow` fields (``cc``, ``tcp``).
    Returns the flows (named ``perm<i>``), already added to ``scenario``."""
    import random

    from .models import TcpFlow

    hosts = _hosts_of(scenario)
    if len(hosts) < 2:
        raise ConfigError("scenario", f"a permutation needs at least two hosts, got {len(hosts)}")
    rng = random.Random(f"permutation:{seed}")
    dst = list(hosts)
    while True:
        rng.shuffle(dst)
        if all(a != b for a, b in zip(hosts, dst)):
            break
    flows = [
        TcpFlow(name=f"perm{i}", src=a, dst=b, bytes=bytes, start_s=start_s, **flow)
        for i, (a, b) in enumerate(zip(hosts, dst))
    ]
    scenario.flows.extend(flows)
    return flows


def incast(
    scenario: Any,
    requester: str,
    n: int,
    bytes_each: int,
    *,
    rate_per_s: float | None = None,
    rounds: int = 1,
    start_s: float = 0.0,
    seed: int = 1,
    **flow: Any,
) -> list[Any]:
    """Incast: ``n`` senders (drawn from the other hosts, the same for the
    same ``seed``) each answer ``requester`` with ``bytes_each`` bytes at
    the same instant, ``rounds`` times, a round every ``1/rate_per_s``
    seconds from ``start_s`` (the request itself is not simulated: the
    answers start together, as in the partition-aggregate pattern of the
    DCTCP paper, §2.3). Returns the flows (``incast<round>_<i>``), already
    added to ``scenario``; ``flow`` holds further TcpFlow fields."""
    import random

    from .models import TcpFlow

    hosts = _hosts_of(scenario)
    if requester not in hosts:
        raise ConfigError("requester", f"{requester!r} is not a host of the scenario")
    others = [h for h in hosts if h != requester]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError("n", f"must be a positive integer, got {n!r}")
    if n > len(others):
        raise ConfigError("n", f"{n} senders, but the scenario has only {len(hosts)} hosts ({len(others)} besides the requester)")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError("rounds", f"must be a positive integer, got {rounds!r}")
    if rounds > 1 and (rate_per_s is None or not rate_per_s > 0):
        raise ConfigError("rate_per_s", "repeated rounds need a positive rate (rounds per second)")
    senders = random.Random(f"incast:{seed}").sample(others, n)
    flows = []
    for r in range(rounds):
        t = start_s + (r / rate_per_s if rate_per_s else 0.0)
        flows += [
            TcpFlow(name=f"incast{r}_{i}", src=s, dst=requester, bytes=bytes_each, start_s=t, **flow)
            for i, s in enumerate(senders)
        ]
    scenario.flows.extend(flows)
    return flows


def poisson_load(
    scenario: Any,
    sizes: Cdf | str,
    load: float,
    host_rate: float | str,
    *,
    name: str = "poisson",
    **workload: Any,
) -> list[Any]:
    """Poisson arrivals of flows whose sizes follow ``sizes`` (a :class:`Cdf`
    or a shipped name, ``"websearch"`` or ``"datamining"``) between random
    pairs of hosts, at ``load`` (0 < load < 1) of the hosts' access capacity:
    the total arrival rate is ``load * host_rate * hosts / (8 * mean size)``
    (the convention of pFabric and Homa). Every host serves flows to every
    other: one :class:`~dumbbell.scenario.Workload` per server (named
    ``<name>_<host>``) with a share of the rate. ``workload`` holds further
    Workload fields (``cc``, ``tcp``, ``stop_s``, ``max_tasks``). Returns
    them, already added to ``scenario``."""
    from .models import Workload
    from .units import parse_rate_bps

    cdf = load_cdf(sizes) if isinstance(sizes, str) else sizes
    if isinstance(load, bool) or not isinstance(load, (int, float)) or not 0 < load < 1:
        raise ConfigError("load", f"must be in (0, 1), got {load!r}")
    try:
        rate = parse_rate_bps(host_rate)
    except (ValueError, TypeError) as e:
        raise ConfigError("host_rate", str(e)) from None
    hosts = _hosts_of(scenario)
    if len(hosts) < 2:
        raise ConfigError("scenario", f"Poisson traffic between hosts needs at least two, got {len(hosts)}")
    total = load * rate * len(hosts) / (8 * cdf.mean_bytes())
    out = [
        Workload(
            name=f"{name}_{h}",
            clients=[c for c in hosts if c != h],
            servers=[h],
            sizes=cdf,
            arrivals=Poisson(rate_per_s=total / len(hosts)),
            **workload,
        )
        for h in hosts
    ]
    scenario.workloads.extend(out)
    return out
