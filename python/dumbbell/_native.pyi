"""Type stubs for the native module built from crates/dumbbell-py."""

from typing import Literal, TypeAlias

NumericDtype: TypeAlias = Literal["u64", "i64", "f64", "u32", "bool"]
Column: TypeAlias = tuple[NumericDtype, bytes] | tuple[Literal["str"], list[str]]
"""A numeric column is its native-endian buffer; a string column a list."""

class NativeConfigError(ValueError):
    """Bad configuration; ``args == (field, message)``."""

class NativeInternalError(RuntimeError):
    """An invariant broke during the run; ``args == (message,)``."""

def run_json(config: str) -> dict[str, dict[str, Column]]:
    """Runs a ``config.rs`` JSON document (GIL released) and returns
    ``{table: {column: (dtype, data)}}``."""

def check_config(config: str) -> None:
    """Decodes a ``config.rs`` JSON document without running it; raises
    :class:`NativeConfigError` if the core's decoder rejects it."""

def version() -> str:
    """The core's version."""

def source_hash() -> str:
    """A hash of the simulator's source files at build time (16 hex digits)."""
