"""Two-class ports: the short/long flow classifiers and the schedulers.

A queue of a scenario (``DropTail``, ``Red``, ...) becomes a two-class
port when it is given a ``classifier``: arrivals are split between a
short-flow queue (the queue itself) and a long-flow queue (``long_queue``,
by default a copy of it), and a ``scheduler`` (default strict priority)
picks which sends next. As in the RAFLE paper (Mussi and Ribeiro, "RAFLE:
Uma Proposta para Diferenciação de Fluxos sem Manutenção de Estados em
Roteadores"):

- :class:`Ideal`: the application's tag — every packet of a flow or task
  that transfers more than ``Scenario.short_flow_max_bytes`` (16 KB) is
  long, control connection included;
- :class:`Run2c`: RuN2C (Avrachenkov, Brown and Nyberg, INFOCOM 2004),
  short while the packet's sequence offset is below ``threshold_bytes``;
- :class:`Rafle`: a random probe of the flow ids of the last ``n`` packets
  (N = 40 by default);
- :class:`StrictPriority` (``"prio"``), :class:`RoundRobin` (``"rr"``,
  packet by packet) and :class:`Drr` (``"drr"``, deficit round robin by
  bytes with a quantum per class).

Names work as shorthands: ``classifier="rafle"``, ``scheduler="rr"``.
The run's ``classification`` table counts every decision against the truth
(PA_c, PE_c, PA_l, PE_l and PA_c·PA_l, the paper's Table 1).
"""

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from .base import U32_MAX, U64_MAX, Model, kind_of
from .lazy_union import lazy_union
from ..suggest import did_you_mean

__all__ = [
    "Ideal",
    "Run2c",
    "Rafle",
    "StrictPriority",
    "RoundRobin",
    "Drr",
    "Classifier",
    "Scheduler",
    "CLASSIFIERS",
    "SCHEDULERS",
]


MAX_RAFLE_N = 2**20
"""Largest RAFLE memory, slots (the paper tries 10 to 100); the core agrees."""


class Ideal(Model):
    """The oracle: the application's ground-truth tag."""

    kind: Literal["ideal"] = "ideal"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "ideal"}


class Run2c(Model):
    """RuN2C: short while the sequence offset is below TH (default 16 KB)."""

    kind: Literal["run2c"] = "run2c"
    threshold_bytes: Annotated[int, Field(ge=0, le=U64_MAX, description="TH, bytes (>= 0).")] = 16 * 1024

    def to_core(self) -> dict[str, Any]:
        return {"kind": "run2c", "threshold_bytes": self.threshold_bytes}


class Rafle(Model):
    """RAFLE with a memory of the last ``n`` packets' flow ids (N >= 1)."""

    kind: Literal["rafle"] = "rafle"
    n: Annotated[int, Field(ge=1, le=MAX_RAFLE_N, description="Memory slots N (>= 1), packets.")] = 40

    def to_core(self) -> dict[str, Any]:
        return {"kind": "rafle", "n": self.n}


class StrictPriority(Model):
    """Short first; long only when the short queue is empty."""

    kind: Literal["prio"] = "prio"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "prio"}


class RoundRobin(Model):
    """One packet from each non-empty queue in turn."""

    kind: Literal["rr"] = "rr"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "rr"}


class Drr(Model):
    """Deficit round robin: bytes shared in the ratio of the quanta."""

    kind: Literal["drr"] = "drr"
    quantum_short_bytes: Annotated[int, Field(ge=1, le=U32_MAX)] = 1514
    quantum_long_bytes: Annotated[int, Field(ge=1, le=U32_MAX)] = 1514

    def to_core(self) -> dict[str, Any]:
        return {"kind": "drr", "quantum_short_bytes": self.quantum_short_bytes,
                "quantum_long_bytes": self.quantum_long_bytes}


CLASSIFIERS = ("ideal", "run2c", "rafle")
SCHEDULERS = ("prio", "rr", "drr")


def _shorthand(known: tuple[str, ...], what: str):
    def expand(v: Any) -> Any:
        kind = v if isinstance(v, str) else (v.get("kind") if isinstance(v, dict) else getattr(v, "kind", None))
        if kind is None:
            raise ValueError(f"missing `kind` (one of {', '.join(known)})")
        if kind not in known:
            raise ValueError(f"unknown {what} {kind!r}{did_you_mean(kind, known)} (known: {', '.join(known)})")
        return {"kind": v} if isinstance(v, str) else v

    return expand


Classifier = lazy_union(
    {"ideal": Ideal, "run2c": Run2c, "rafle": Rafle}, kind_of(None), BeforeValidator(_shorthand(CLASSIFIERS, "classifier"))
)
"""A classifier: a name (``"rafle"``) or a table with ``kind`` and parameters."""

Scheduler = lazy_union(
    {"prio": StrictPriority, "rr": RoundRobin, "drr": Drr}, kind_of(None), BeforeValidator(_shorthand(SCHEDULERS, "scheduler"))
)
"""A scheduler: ``"prio"``, ``"rr"`` or ``"drr"`` (or a table with parameters)."""
