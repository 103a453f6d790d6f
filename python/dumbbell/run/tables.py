"""A run's tables, converted from the core's columns only when asked for.

The native module hands a run's tables over as ``{table: {column: (dtype,
data)}}``: numeric columns as native-endian buffers moved out of the core
(``_native.Buffer``, no copy), string columns dictionary-encoded as
``("strdict", (u32 codes, distinct values))`` (a plain ``("str", list)``
is read too). :class:`Tables` holds that and converts a table to a
polars DataFrame the first time it is read, releasing each column's native
data as soon as its Series is built; a table never read is never converted.
:meth:`Tables.rows` reads a table's rows straight from those buffers,
without polars or numpy: ``dumbbell.run``'s own checks, ``Result.summary``
and ``dumbbell run``'s printout (``--json`` too) convert nothing, and the
sweep engine, which turns each table into Parquet
bytes in turn (:meth:`Tables.pop`), holds at most one converted table
beside the native data still to convert (docs/output.md, "Memory").

Numeric columns are wrapped without a copy (``numpy.frombuffer``; polars
keeps the buffer), so the core's numbers are never held twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from ..errors import SimulationError
from ..scenario.units import PS_PER_S

# polars and numpy are imported when a table is first converted: a run whose
# caller reads only the summary and the flows as rows (Tables.rows: what
# `db.run`'s own checks and `dumbbell run`'s printout read) never imports them.
if TYPE_CHECKING:
    import polars as pl

__all__ = ["Tables", "convert_table"]

_NUMPY = {"u64": "uint64", "i64": "int64", "f64": "float64", "u32": "uint32", "bool": "bool"}


def _series(name: str, dtype: str, data: Any) -> pl.Series:
    import numpy as np
    import polars as pl

    if dtype == "str":
        return pl.Series(name, data, dtype=pl.String)
    if dtype == "strdict":
        # dictionary-encoded strings: (u32 codes as bytes, the distinct
        # values); a wire form that costs 4 bytes a row instead of a Python
        # str per row (docs/output.md, "Memory")
        codes, values = data
        return pl.Series(name, values, dtype=pl.String).gather(
            pl.Series(np.frombuffer(codes, dtype="uint32"))).alias(name)
    try:
        np_dtype = _NUMPY[dtype]
    except KeyError:
        raise SimulationError(f"column {name!r} has an unknown type {dtype!r}") from None
    return pl.Series(name, np.frombuffer(data, dtype=np_dtype))


def _seconds(time_ps: pl.Series) -> pl.Series:
    """``time_s`` from ``time_ps``: exactly polars' ``cast(Float64) /
    PS_PER_S`` (which multiplies by the reciprocal; a true division would
    differ in the last bit, and stored tables must stay byte-identical), but
    computed in place in one new buffer instead of two (docs/output.md,
    "Memory")."""
    import numpy as np
    import polars as pl

    x = time_ps.to_numpy().astype(np.float64)
    np.multiply(x, 1.0 / PS_PER_S, out=x)
    return pl.Series("time_s", x)


def convert_table(cols: MutableMapping[str, tuple[str, Any]]) -> pl.DataFrame:
    """One native table as a DataFrame, with ``time_s`` after ``time_ps``.
    Consumes ``cols``: each column's native data is released once its
    Series exists."""
    series: list[pl.Series] = []
    names = list(cols)
    for cname in names:
        dtype, data = cols.pop(cname)
        s = _series(cname, dtype, data)
        del data
        series.append(s)
        if cname == "time_ps" and "time_s" not in names:
            series.append(_seconds(s))
    import polars as pl

    return pl.DataFrame(series)


class Tables(MutableMapping[str, "pl.DataFrame"]):
    """A run's tables by name (a mapping of polars DataFrames), each
    converted from the core's columns on first access."""

    def __init__(self, raw: Mapping[str, Mapping[str, tuple[str, Any]]] | None = None,
                 frames: Mapping[str, pl.DataFrame] | None = None) -> None:
        self._raw: dict[str, dict[str, tuple[str, Any]]] = {k: dict(v) for k, v in (raw or {}).items()}
        self._frames: dict[str, pl.DataFrame] = dict(frames or {})
        self._order: list[str] = [*self._raw, *(k for k in self._frames if k not in self._raw)]

    def __getitem__(self, name: str) -> pl.DataFrame:
        if name not in self._frames:
            if name not in self._raw:
                raise KeyError(name)
            self._frames[name] = convert_table(self._raw.pop(name))
        return self._frames[name]

    def __setitem__(self, name: str, df: pl.DataFrame) -> None:
        self._raw.pop(name, None)
        if name not in self._order:
            self._order.append(name)
        self._frames[name] = df

    def __delitem__(self, name: str) -> None:
        if name not in self._frames and name not in self._raw:
            raise KeyError(name)
        self._frames.pop(name, None)
        self._raw.pop(name, None)
        self._order.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._frames or name in self._raw

    def __repr__(self) -> str:
        return f"Tables({', '.join(self._order)})"

    def converted(self) -> list[str]:
        """The names of the tables converted so far."""
        return [n for n in self._order if n in self._frames]

    def peek(self, name: str) -> pl.DataFrame:
        """Table ``name`` without keeping the conversion (nor releasing the
        native data): for writing every table once, one at a time."""
        if name in self._frames:
            return self._frames[name]
        if name not in self._raw:
            raise KeyError(name)
        return convert_table(dict(self._raw[name]))

    def rows(self, name: str) -> list[dict[str, Any]]:
        """Table ``name`` as a list of rows (column → Python value), exactly
        as polars' ``iter_rows(named=True)`` gives them, ``time_s`` included.
        A table not converted yet is read straight from the native buffers
        (no polars, no numpy, nothing kept): for the small tables a run
        checks and prints (summary, flows)."""
        if name in self._frames:
            return list(self._frames[name].iter_rows(named=True))
        if name not in self._raw:
            raise KeyError(name)
        return rows_of(self._raw[name])


_FORMAT = {"u64": "Q", "i64": "q", "f64": "d", "u32": "I", "bool": "?"}


def _values(name: str, dtype: str, data: Any) -> list[Any]:
    """One native column as a list of Python values (the ones polars gives)."""
    if dtype == "str":
        return list(data)
    if dtype == "strdict":
        codes, values = data
        return [values[i] for i in memoryview(codes).cast("B").cast("I")]
    try:
        fmt = _FORMAT[dtype]
    except KeyError:
        raise SimulationError(f"column {name!r} has an unknown type {dtype!r}") from None
    return memoryview(data).cast("B").cast(fmt).tolist()


def rows_of(cols: Mapping[str, tuple[str, Any]]) -> list[dict[str, Any]]:
    """A native table's rows without polars or numpy (``cols`` is left as
    is), with ``time_s`` after ``time_ps`` computed as :func:`_seconds` does
    (the float of the integer, times the reciprocal of ``PS_PER_S``)."""
    names: list[str] = []
    columns: list[list[Any]] = []
    for cname, (dtype, data) in cols.items():
        names.append(cname)
        columns.append(_values(cname, dtype, data))
        if cname == "time_ps" and "time_s" not in cols:
            names.append("time_s")
            columns.append([float(v) * (1.0 / PS_PER_S) for v in columns[-1]])
    return [dict(zip(names, vals)) for vals in zip(*columns)]
