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
- ``rafle`` (E4, Mussi and Ribeiro's RAFLE paper): :mod:`dumbbell.experiments.rafle`;
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

__all__ = ["EXPERIMENTS", "PAPERS", "SCALES", "ExperimentResult", "get", "check_scale", "check_parts", "Progress"]

EXPERIMENTS: dict[str, str] = {
    "dctcp-queue": "dumbbell.experiments.dctcp_queue",
    "hysteresis": "dumbbell.experiments.hysteresis",
    "lossy-cc": "dumbbell.experiments.lossy_cc",
    "rafle": "dumbbell.experiments.rafle",
    "highspeed": "dumbbell.experiments.highspeed",
}
"""Experiment name → module."""

SCALES = ("quick", "paper")

PAPERS: dict[str, dict[str, str]] = {
    "dctcp-queue": {
        "id": "E1",
        "title": "DCTCP queue occupancy",
        "paper": "N. Handigol, B. Heller, V. Jeyakumar and B. Lantz, the Mininet-HiFi reproduction of the "
                 "DCTCP queue-occupancy micro-benchmark of M. Alizadeh et al., \"Data Center TCP (DCTCP)\", "
                 "ACM SIGCOMM 2010",
    },
    "hysteresis": {
        "id": "E2",
        "title": "DCTCP with hysteresis marking and packet return in P4 switches",
        "paper": "V. L. G. Silva, M. A. M. Vieira and J. A. M. Nacif, \"Data Center TCP com Histerese em "
                 "Switches P4\" (UFV, UFMG)",
    },
    "lossy-cc": {
        "id": "E3",
        "title": "Linear, Fractional and Expolinear under loss and delay",
        "paper": "M. V. da Costa Madeira and D. M. F. Mattos, \"Algoritmos de Controle de Congestionamento "
                 "Justos e Eficientes para Aplicações TCP em Redes Sensíveis a Perda de Pacotes e a Atrasos\" (UFF)",
    },
    "rafle": {
        "id": "E4",
        "title": "RAFLE: stateless short/long flow differentiation",
        "paper": "S. S. Mussi and M. R. N. Ribeiro, \"RAFLE: Uma Proposta para Diferenciação de Fluxos sem "
                 "Manutenção de Estados em Roteadores\" (UFES)",
    },
    "highspeed": {
        "id": "E5",
        "title": "HighSpeed TCP against TCP at 1 Gb/s",
        "paper": "J. F. de Rezende, L. H. M. K. Costa and M. G. Rubinstein, \"Avaliação Experimental e "
                 "Simulação do Protocolo TCP em Redes de Alta Velocidade\"",
    },
}
"""Experiment name → its label (E1..E5), a short title, and the paper it
reproduces (authors and title, as our copies give them; venues and years
are not printed in those copies)."""

Progress = Callable[[str], None]
"""Receives one line of progress (the CLI prints it on stderr)."""


def get(name: str) -> ModuleType:
    """The experiment module called ``name``; :class:`ConfigError` if unknown."""
    try:
        return importlib.import_module(EXPERIMENTS[name])
    except KeyError:
        raise ConfigError("NAME", f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})") from None


def check_parts(parts: tuple[str, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    """``parts`` if every one is in ``known``; ``ValueError`` naming the others."""
    unknown = [p for p in parts if p not in known]
    if unknown:
        raise ValueError(f"unknown parts {unknown} (known: {', '.join(known)})")
    return parts


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
    params: dict[str, Any] = field(default_factory=dict)
    """The experiment's parameters at this scale (shown in the HTML report)."""

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

        from ..store import atomic_write_bytes, atomic_write_text

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
