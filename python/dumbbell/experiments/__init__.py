"""The seed papers' experiments, one module each, with the published numbers.

Each experiment module provides ``NAME``, ``run(scale="quick"|"paper",
seed=1, progress=None) -> ExperimentResult``, ``figures(result, out_dir)``
and ``report(result)`` (a human table, the paper's numbers beside ours).
``dumbbell reproduce NAME`` calls them.

Registered so far:

- ``dctcp-queue`` (E1, seed 002): :mod:`dumbbell.experiments.dctcp_queue`;
- ``hysteresis`` (E2, hysteresis marking and packet return on a software
  switch): :mod:`dumbbell.experiments.hysteresis`;
- ``lossy-cc`` (E3, seed 001): :mod:`dumbbell.experiments.lossy_cc`;
- ``highspeed`` (E5, seed 004): :mod:`dumbbell.experiments.highspeed`.

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
from typing import Any

import polars as pl

from ..errors import ConfigError

__all__ = ["EXPERIMENTS", "SCALES", "ExperimentResult", "get", "check_scale", "check_parts", "Progress"]

EXPERIMENTS: dict[str, str] = {
    "dctcp-queue": "dumbbell.experiments.dctcp_queue",
    "hysteresis": "dumbbell.experiments.hysteresis",
    "lossy-cc": "dumbbell.experiments.lossy_cc",
    "highspeed": "dumbbell.experiments.highspeed",
}
"""Experiment name → module."""

SCALES = ("quick", "paper")

Progress = Callable[[str], None]
"""Receives one line of progress (the CLI prints it on stderr)."""


def get(name: str) -> ModuleType:
    """The experiment module called ``name``; :class:`ConfigError` if unknown."""
    try:
        return importlib.import_module(EXPERIMENTS[name])
    except KeyError:
        raise ConfigError("NAME", f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})") from None


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
    value of that metric for that point, null if none) and ``source``.
    """

    experiment: str
    scale: str
    seed: int
    rows: pl.DataFrame
    paper: pl.DataFrame
    data: dict[str, Any] = field(default_factory=dict, repr=False)

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
        ``paper.csv`` and ``result.json`` into ``out_dir``."""
        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        for name, df in (("rows", self.rows), ("paper", self.paper)):
            df.write_parquet(d / f"{name}.parquet")
            df.write_csv(d / f"{name}.csv")
            written += [d / f"{name}.parquet", d / f"{name}.csv"]
        (d / "result.json").write_text(json.dumps(self.to_json_doc(), indent=2, allow_nan=False) + "\n")
        written.append(d / "result.json")
        return written
