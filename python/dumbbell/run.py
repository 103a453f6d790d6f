"""One run: scenario in, :class:`Result` (polars tables) out.

The scenario is validated and serialized once (:meth:`Scenario.to_core`),
handed to the core, which runs with the GIL released; each output column
comes back as one buffer and becomes a polars Series through
``numpy.frombuffer`` (no per-row conversion). Tables and columns are those of
``docs/output.md``; a ``time_s`` column (float seconds) is added after every
``time_ps`` column.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from . import _native
from .errors import ConfigError, SimulationError
from .scenario import Scenario
from .units import PS_PER_S

__all__ = ["run", "run_config", "Result", "tables_from_native"]

_NUMPY = {"u64": np.uint64, "i64": np.int64, "f64": np.float64, "u32": np.uint32, "bool": np.bool_}


def _series(name: str, dtype: str, data: Any) -> pl.Series:
    if dtype == "str":
        return pl.Series(name, data, dtype=pl.String)
    try:
        np_dtype = _NUMPY[dtype]
    except KeyError:
        raise SimulationError(f"column {name!r} has an unknown type {dtype!r}") from None
    return pl.Series(name, np.frombuffer(data, dtype=np_dtype))


def tables_from_native(raw: Mapping[str, Mapping[str, tuple[str, Any]]]) -> dict[str, pl.DataFrame]:
    """The native module's ``{table: {column: (dtype, data)}}`` as DataFrames,
    with ``time_s`` added after ``time_ps``."""
    out: dict[str, pl.DataFrame] = {}
    for tname, cols in raw.items():
        series = [_series(cname, dtype, data) for cname, (dtype, data) in cols.items()]
        df = pl.DataFrame(series)
        if "time_ps" in df.columns and "time_s" not in df.columns:
            at = df.columns.index("time_ps") + 1
            df = df.insert_column(at, (df["time_ps"].cast(pl.Float64) / PS_PER_S).alias("time_s"))
        out[tname] = df
    return out


def _user_field(core_field: str) -> str:
    """A core field path in the scenario's names (``delay_ps`` → ``delay_s``)."""
    parts = core_field.split(".")
    fixed = []
    for p in parts:
        head, bracket, rest = p.partition("[")
        if head.endswith("_ps"):
            head = head[:-3] + "_s"
        fixed.append(head + bracket + rest)
    return ".".join(fixed)


def run_config(config: Mapping[str, Any]) -> dict[str, pl.DataFrame]:
    """Runs a core configuration (the ``config.rs`` document as a dict) and
    returns its tables. Raises :class:`ConfigError` or :class:`SimulationError`."""
    text = json.dumps(config, allow_nan=False)
    try:
        raw = _native.run_json(text)
    except _native.NativeConfigError as e:
        fld, msg = (e.args[0], e.args[1]) if len(e.args) >= 2 else ("config", str(e))
        raise ConfigError(_user_field(str(fld)), str(msg)) from None
    except _native.NativeInternalError as e:
        raise SimulationError(str(e.args[0]) if e.args else "internal error") from None
    return tables_from_native(raw)


@dataclass
class Result:
    """The outcome of one run.

    ``tables`` holds every table of ``docs/output.md`` as a polars DataFrame;
    the properties below are shortcuts.
    """

    scenario: Scenario
    seed: int
    config: dict[str, Any]
    tables: dict[str, pl.DataFrame] = field(repr=False)

    def table(self, name: str) -> pl.DataFrame:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r} in this result (have: {', '.join(self.tables)})") from None

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow: bytes, retransmissions, goodput, ..."""
        return self.table("flows")

    @property
    def flow_samples(self) -> pl.DataFrame:
        """Per-flow samples every ``record.flow_sample_s``."""
        return self.table("flow_samples")

    @property
    def queues(self) -> pl.DataFrame:
        """One row per egress port: counters, utilization, maxima."""
        return self.table("queues")

    @property
    def summary(self) -> dict[str, Any]:
        """The one-row ``summary`` table as a dict (events, packet counts,
        ``conservation_ok``, ...)."""
        df = self.table("summary")
        if df.height != 1:
            raise SimulationError(f"summary table has {df.height} rows, expected 1")
        return df.row(0, named=True)

    def port(self, node: str, peer: str) -> int:
        """The port id of ``node``'s egress toward ``peer``."""
        q = self.queues.filter((pl.col("node") == node) & (pl.col("peer") == peer))
        if q.height == 0:
            raise KeyError(f"no port of {node!r} toward {peer!r}")
        return int(q["port"][0])

    def queue(self, node: str, peer: str) -> pl.DataFrame:
        """The ``queue_trace`` rows of ``node``'s port toward ``peer`` (traced
        only if listed in ``record.queues``)."""
        port = self.port(node, peer)
        return self.table("queue_trace").filter(pl.col("port") == port)

    def dequeues(self, node: str, peer: str) -> pl.DataFrame:
        """The ``dequeues`` rows (transmission starts) of that port (recorded
        with ``dequeue_times = true``)."""
        port = self.port(node, peer)
        return self.table("dequeues").filter(pl.col("port") == port)

    def to_parquet(self, directory: str | Path) -> Path:
        """Writes every table as ``<name>.parquet`` and the core configuration
        as ``config.json`` into ``directory``; returns it."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            df.write_parquet(d / f"{name}.parquet")
        (d / "config.json").write_text(json.dumps(self.config, indent=2) + "\n")
        return d


def _as_scenario(scenario: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, Path)):
        return Scenario.from_toml(scenario)
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(dict(scenario))
    raise TypeError(f"expected a Scenario, a dict or a TOML path, got {type(scenario).__name__}")


def run(scenario: Scenario | Mapping[str, Any] | str | Path, seed: int | None = None) -> Result:
    """Runs one scenario (a :class:`Scenario`, plain data, or a TOML path).

    ``seed`` overrides the scenario's seed. Raises :class:`ConfigError` for bad
    input (before anything runs) and :class:`SimulationError` if the run fails.
    """
    s = _as_scenario(scenario)
    config = s.to_core(seed)
    tables = run_config(config)
    return Result(scenario=s, seed=config["seed"], config=config, tables=tables)
