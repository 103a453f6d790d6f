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

Experiments with many runs share :mod:`dumbbell.experiments.repeat`
(parallel runs on local cores, repetitions, Student-t intervals).
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .registry import body_of, rooms

if TYPE_CHECKING:  # polars is loaded by the experiments, not by naming them (`dumbbell --help`)
    import polars as pl

__all__ = ["EXPERIMENTS", "PAPERS", "SCALES", "ExperimentResult", "get", "check_scale", "check_parts", "Progress"]

EXPERIMENTS: dict[str, str] = {name: body_of(room) for name, room in rooms().items()}
"""Experiment name → the module of its body (``run``, ``figures``,
``report``), from the registry (:mod:`dumbbell.experiments.registry`)."""

SCALES = ("quick", "paper")

PAPERS: dict[str, dict[str, str]] = {
    name: {"id": room.PAPER.label, "title": room.PAPER.title, "paper": room.PAPER.citation}
    for name, room in rooms().items()
}
"""Experiment name → its label (E1, E2, ...), a short title, and the citation
of the paper it reproduces (each declared by the experiment's package)."""

Progress = Callable[[str], None]
"""Receives one line of progress (the CLI prints it on stderr)."""


def get(name: str) -> ModuleType:
    """The experiment module called ``name``; :class:`ConfigError` if unknown."""
    try:
        return importlib.import_module(EXPERIMENTS[name])
    except KeyError:
        from ..suggest import did_you_mean

        raise ConfigError("NAME", f"unknown experiment {name!r}{did_you_mean(name, EXPERIMENTS)} "
                                  f"(known: {', '.join(EXPERIMENTS)})") from None


def check_scale(scale: str) -> str:
    if scale not in SCALES:
        raise ConfigError("--scale", f"unknown scale {scale!r} (known: {', '.join(SCALES)})")
    return scale


def check_parts(parts: tuple[str, ...], known: tuple[str, ...]) -> None:
    """Raises ``ValueError`` naming the parts an experiment does not have."""
    unknown = [p for p in parts if p not in known]
    if unknown:
        raise ValueError(f"unknown parts {unknown} (known: {', '.join(known)})")


def _clean(v: Any) -> Any:
    """JSON-safe: NaN and infinities become null."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _records(df: pl.DataFrame) -> list[dict[str, Any]]:
    return [{k: _clean(v) for k, v in row.items()} for row in df.iter_rows(named=True)]


@dataclass
class ExperimentResult:
    """Rows measured by dumbbell, the paper's numbers, and raw data for figures.

    ``rows``: one row per measured point, units in the column names.
    ``paper``: one row per published number: ``metric`` (a column of
    ``rows``, or a quantity we cannot measure), ``cc``, ``rate_bps``,
    ``relation`` (``=``, ``~``, ``<=``, ``>``), ``value``, ``ours`` (our
    value of that metric for that point, null if none) and ``source``; and
    the verdict :func:`dumbbell.experiments.claims.judge` adds: ``verdict``, ``reason``,
    ``doc``.
    """

    experiment: str
    scale: str
    seed: int
    rows: pl.DataFrame
    paper: pl.DataFrame
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    params: dict[str, Any] = field(default_factory=dict)
    """The experiment's parameters at this scale (shown in the HTML report)."""

    def __post_init__(self) -> None:
        # Every claim carries its verdict (agrees, differs with a reason and
        # a doc section, not measurable, not run at this scale): in the
        # printed report, in result.json and in paper.csv alike.
        if {"relation", "value", "ours"} <= set(self.paper.columns):
            from .claims import judge, samples_of

            self.paper = judge(self.experiment, self.scale, self.paper, samples=samples_of(self.rows))

    def to_json_doc(self) -> dict[str, Any]:
        """The SPEC §7 JSON document."""
        return {
            "experiment": self.experiment,
            "scale": self.scale,
            "seed": self.seed,
            "rows": _records(self.rows),
            "paper": _records(self.paper),
        }

    def write(self, out_dir: str | Path) -> list[Path]:
        """Writes ``rows.parquet``, ``rows.csv``, ``paper.parquet``,
        ``paper.csv`` and ``result.json`` into ``out_dir``, each atomically
        (a reader never sees half a file)."""
        import io

        from ..sweep.store import atomic_write_bytes, atomic_write_text

        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        for name, df in (("rows", self.rows), ("paper", self.paper)):
            buf = io.BytesIO()
            df.write_parquet(buf)
            atomic_write_bytes(d / f"{name}.parquet", buf.getvalue())
            atomic_write_text(d / f"{name}.csv", df.write_csv())
            written += [d / f"{name}.parquet", d / f"{name}.csv"]
        atomic_write_text(d / "result.json", json.dumps(self.to_json_doc(), indent=2, allow_nan=False) + "\n")
        written.append(d / "result.json")
        return written


def __getattr__(name: str) -> ModuleType:
    # `dumbbell.experiments.dctcp_queue` works after a bare `import dumbbell`:
    # each experiment module is imported on first use.
    modules = {room.__name__.rsplit(".", 1)[1] for room in rooms().values()} | {
        "repeat", "papers", "claims", "fairshare", "filebase", "plots", "known", "registry"}
    if name in modules:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
