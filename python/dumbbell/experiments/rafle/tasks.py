"""E4 ``rafle``: a run's tasks table in the experiment's terms (its 100 KB
bin, completion time and completion instant in seconds), shared by the
experiment's parts (:mod:`.experiment`, :mod:`.closed_loop`)."""

from __future__ import annotations

from typing import Any

import polars as pl

from .. import filebase

__all__ = ["BIN_BYTES", "bin_label", "tasks_of"]

BIN_BYTES = filebase.BIN_BYTES


def bin_label(b: int) -> str:
    """``0-100`` for bin 0 (sizes in (0, 100] KB), ``100-200`` for bin 1, ..."""
    kb = BIN_BYTES // 1000
    return f"{b * kb}-{(b + 1) * kb}"


def _bins(size: pl.Expr) -> pl.Expr:
    return ((size + BIN_BYTES - 1) // BIN_BYTES - 1).clip(lower_bound=0).cast(pl.Int64)


def tasks_of(o: Any) -> pl.DataFrame:
    """The run's ``tasks`` table with ``bin`` (0 for the first 100 KB),
    ``fct_s`` and ``done_s`` (null for a task that did not complete)."""
    t = o.table("tasks")
    return t.with_columns(
        _bins(pl.col("size_bytes").cast(pl.Int64)).alias("bin"),
        pl.when(pl.col("fct_ps") >= 0).then(pl.col("fct_ps") / 1e12).otherwise(None).alias("fct_s"),
        pl.when(pl.col("completion_ps") >= 0).then(pl.col("completion_ps") / 1e12).otherwise(None).alias("done_s"),
    )
