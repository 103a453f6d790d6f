"""The experiments' registry: every package in ``dumbbell/experiments/``
that declares an experiment.

An experiment is one package, ``dumbbell/experiments/<module>/``, whose light
``__init__.py`` declares (without importing numpy or polars):

- ``NAME``: the experiment's name (``dumbbell reproduce NAME``);
- ``PAPER``: the paper it reproduces (a :class:`dumbbell.experiments.papers.Paper`);
- ``KNOWN``: its accounts of known differences (:class:`dumbbell.experiments.known.Known`);
- ``NOT_SCORED``: the paper's claims it does not score, each with why;
- ``PARTS`` (if it has parts): the parts ``--parts`` may name;

and whose ``experiment.py`` holds the experiment itself: ``run``,
``figures`` and ``report``. Nothing here keeps a list of names: the
registry finds the packages on disk (:func:`discover`), so a new experiment
is one package plus its docs and tests (``DESIGN.md``, "Adding an
experiment"). The CLI's help, ``dumbbell list``, the HTML report, the claims'
verdicts (:func:`dumbbell.experiments.claims.judge`) and the PGO training
set read it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

__all__ = ["REQUIRED", "BODY", "discover", "rooms", "body_of"]

REQUIRED = ("NAME", "PAPER", "KNOWN", "NOT_SCORED")
"""What an experiment's package declares."""

BODY = "experiment"
"""The module of an experiment's package that holds ``run``, ``figures`` and ``report``."""

_HOME = Path(__file__).resolve().parent
_rooms: dict[str, ModuleType] | None = None


def _order(room: ModuleType) -> tuple[int, str, str]:
    """Experiments in the order of their papers' labels (E1, E2, ..., E10)."""
    label = room.PAPER.label
    digits = re.sub(r"\D", "", label)
    return (int(digits) if digits else 1 << 30, label, room.NAME)


def discover(path: str | Path = _HOME, package: str = __package__ or "dumbbell.experiments") -> dict[str, ModuleType]:
    """Experiment name -> its package, for every package in ``path`` (the
    directory of the importable ``package``) that declares ``NAME``; in the
    order of their papers' labels. A package that declares ``NAME`` but not
    the rest of :data:`REQUIRED`, or a name declared twice, is an error
    naming the package."""
    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules([str(path)]), key=lambda i: i.name):
        if not info.ispkg:
            continue
        room = importlib.import_module(f"{package}.{info.name}")
        if not hasattr(room, "NAME"):
            continue
        missing = [k for k in REQUIRED if k not in vars(room)]
        if missing:
            raise ImportError(f"experiment package {room.__name__} does not declare {', '.join(missing)}")
        if room.NAME in found:
            raise ImportError(f"experiment {room.NAME!r} is declared twice: by {found[room.NAME].__name__} "
                              f"and {room.__name__}")
        found[room.NAME] = room
    return dict(sorted(found.items(), key=lambda kv: _order(kv[1])))


def rooms() -> dict[str, ModuleType]:
    """Experiment name -> its package (light: its paper, parts and accounts),
    found once per process."""
    global _rooms
    if _rooms is None:
        _rooms = discover()
    return _rooms


def body_of(room: ModuleType) -> str:
    """The module path of an experiment's body (``run``, ``figures``, ``report``)."""
    return f"{room.__name__}.{BODY}"
