"""The reproduced papers' experiments, one package each, with the published numbers.

Each experiment is a package ``dumbbell/experiments/<module>/``: its light
``__init__.py`` declares its name, its paper, its parts and its accounts of
known differences (read by :mod:`dumbbell.experiments.registry`, which finds
the packages on disk), and its ``experiment.py`` provides
``run(scale="quick"|"paper", seed=1, progress=None) -> ExperimentResult``,
``figures(result, out_dir)`` and ``report(result)`` (a human table, the
paper's numbers beside ours). ``dumbbell reproduce NAME`` calls them;
``dumbbell list`` names them (``EXPERIMENTS``, ``PAPERS``).

Registered so far: ``dctcp-queue`` (the Mininet-HiFi reproduction of DCTCP's
queue micro-benchmark), ``hysteresis`` (Silva, Vieira and Nacif: hysteresis
marking and packet return on a software switch), ``lossy-cc`` (Madeira and
Mattos: Linear, Fractional, Expolinear), ``rafle`` (Mussi and Ribeiro's
RAFLE paper), ``highspeed`` (de Rezende, Costa and Rubinstein: HighSpeed
TCP) and ``l4s`` (TCP Prague and Cubic through DualPI2, beside RFC 9332 and
the PI2 paper).

What every experiment shares (its result, the checks of scale and parts, the
printed report's head and tables, figures) is in
:mod:`dumbbell.experiments.base`; experiments with many runs share
:mod:`dumbbell.experiments.repeat` (parallel runs on local cores,
repetitions, Student-t intervals).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import ConfigError
from .base import SCALES, ExperimentResult, Progress, check_parts, check_scale
from .registry import body_of, rooms

__all__ = ["EXPERIMENTS", "PAPERS", "SCALES", "ExperimentResult", "get", "check_scale", "check_parts", "Progress"]

EXPERIMENTS: dict[str, str] = {name: body_of(room) for name, room in rooms().items()}
"""Experiment name → the module of its body (``run``, ``figures``,
``report``), from the registry (:mod:`dumbbell.experiments.registry`)."""

PAPERS: dict[str, dict[str, str]] = {
    name: {"id": room.PAPER.label, "title": room.PAPER.title, "paper": room.PAPER.citation}
    for name, room in rooms().items()
}
"""Experiment name → its label (E1, E2, ...), a short title, and the citation
of the paper it reproduces (each declared by the experiment's package)."""


def get(name: str) -> ModuleType:
    """The experiment module called ``name``; :class:`ConfigError` if unknown."""
    found = rooms()
    if name not in found:
        from ..suggest import did_you_mean

        raise ConfigError("NAME", f"unknown experiment {name!r}{did_you_mean(name, found)} "
                                  f"(known: {', '.join(found)})")
    return importlib.import_module(body_of(found[name]))


def __getattr__(name: str) -> ModuleType:
    # `dumbbell.experiments.dctcp_queue` works after a bare `import dumbbell`:
    # each experiment module is imported on first use.
    modules = {room.__name__.rsplit(".", 1)[1] for room in rooms().values()} | {
        "repeat", "papers", "claims", "fairshare", "filebase", "plots", "known", "registry", "base"}
    if name in modules:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
