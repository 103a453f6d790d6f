"""What every experiment shares: its result (:class:`ExperimentResult`,
with the claims' verdicts and the files it writes), the checks of
``--scale`` and ``--parts``, the head and the aligned tables of its printed
report, and its figures' canvas and atomic save.

An experiment's ``experiment.py`` builds its runs and rows; the rest comes
from here (``DESIGN.md``, "Adding things": an experiment). Light: polars and
matplotlib are imported by what uses them, not by importing this module
(the registry and ``dumbbell --help`` import it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:  # polars is loaded by the experiments, not by naming them (`dumbbell --help`)
    import polars as pl
    from matplotlib.figure import Figure

__all__ = ["SCALES", "Progress", "ExperimentResult", "check_scale", "check_parts", "head", "text_table",
           "claims_section", "output_dir", "new_figure", "save_figure"]

SCALES = ("quick", "paper")

Progress = Callable[[str], None]
"""Receives one line of progress (the CLI prints it on stderr)."""


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
    tcp: dict[str, Any] = field(default_factory=dict)
    """TCP options set on every connection over the experiment's own
    (``dumbbell reproduce --tcp``); empty: the experiment's setting."""
    tcp_note: str = ""
    """That setting in one sentence, for the report and result.json."""

    def __post_init__(self) -> None:
        # Every claim carries its verdict (agrees, differs with a reason and
        # a doc section, not measurable, not run at this scale): in the
        # printed report, in result.json and in paper.csv alike.
        if {"relation", "value", "ours"} <= set(self.paper.columns):
            from .claims import judge, samples_of

            self.paper = judge(self.experiment, self.scale, self.paper, samples=samples_of(self.rows))

    def to_json_doc(self) -> dict[str, Any]:
        """The SPEC §7 JSON document (with ``tcp`` and ``note`` when
        ``reproduce --tcp`` set TCP options)."""
        doc: dict[str, Any] = {
            "experiment": self.experiment,
            "scale": self.scale,
            "seed": self.seed,
        }
        if self.tcp:
            doc["tcp"] = dict(self.tcp)
            doc["note"] = self.tcp_note
        return {**doc, "rows": _records(self.rows), "paper": _records(self.paper)}

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


# ---------------------------------------------------------------- the printed report


def head(result: ExperimentResult, units: str) -> list[str]:
    """The first lines of an experiment's printed report: the experiment and
    its paper on one line, the full citation, then the scale, the seed and
    ``units`` (what the numbers below are in)."""
    from .papers import cite, citation

    lines = [cite(result.experiment), f"  {citation(result.experiment)}",
             f"scale {result.scale}, run seed {result.seed}; {units}"]
    if result.tcp_note:
        lines.append(f"note: {result.tcp_note}")
    return lines


def text_table(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Rows of cells (the first row the header) as lines, each column
    right-aligned to its widest cell, columns two spaces apart."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]


def claims_section(result: ExperimentResult, **kw: Any) -> list[str]:
    """The paper's claims beside ours, with their verdicts, the claims not
    scored and the count line (:func:`dumbbell.experiments.claims.claims_lines`)."""
    from .claims import claims_lines

    return claims_lines(result.paper, experiment=result.experiment, **kw)


# ---------------------------------------------------------------- figures


def output_dir(out_dir: str | Path) -> Path:
    """``out_dir``, created if missing."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return out


def new_figure(rows: int, cols: int, size: tuple[float, float]) -> tuple[Figure, Any]:
    """A figure on the Agg canvas (no pyplot, no global state) and its
    ``rows`` × ``cols`` axes (always a 2-D array)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False)


def save_figure(fig: Figure, path: str | Path, dpi: int = 110) -> Path:
    """Saves a PNG atomically (rendered in memory, then renamed into place:
    a reader never sees half a figure)."""
    import io

    from ..sweep.store import atomic_write_bytes

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    atomic_write_bytes(Path(path), buf.getvalue())
    return Path(path)
