"""Type stubs for the native module built from crates/dumbbell-py."""

from typing import Literal, TypeAlias

NumericDtype: TypeAlias = Literal["u64", "i64", "f64", "u32", "bool"]
Column: TypeAlias = tuple[NumericDtype, bytes] | tuple[Literal["str"], list[str]]
"""A numeric column is its native-endian buffer; a string column a list."""

class NativeConfigError(ValueError):
    """Bad configuration; ``args == (field, message)``."""

class NativeLimitError(ValueError):
    """A limit named by a field was reached while running; ``args == (field, message)``."""

class NativeInternalError(RuntimeError):
    """An invariant broke during the run, or the core panicked; ``args == (message,)``."""

class RunHandle:
    """A handle on one run: stop it from any thread, read its progress."""

    def __init__(self, event_limit: int | None = None, instant_limit: int | None = None) -> None:
        """``event_limit``: also stop by itself after about that many events;
        ``instant_limit``: events at one instant after which the run is
        declared stuck (default 2^24)."""
    def stop(self) -> None:
        """Asks the run to stop; it returns what it has within milliseconds."""
    @property
    def stop_requested(self) -> bool: ...
    def progress(self) -> tuple[Literal["building", "running", "done"], int, int, int]:
        """``(phase, now_ps, end_ps, events)``, updated every 1 024 events."""

def run_json(config: str, handle: RunHandle | None = None) -> dict[str, dict[str, Column]]:
    """Runs a ``config.rs`` JSON document (GIL released) and returns
    ``{table: {column: (dtype, data)}}``; the summary has a ``stopped`` column."""

def check_config(config: str) -> None:
    """Decodes a ``config.rs`` JSON document and builds its world without
    running it; raises :class:`NativeConfigError` for anything a run would
    refuse before simulating."""

def request_stop() -> int:
    """Stops every run of this process in progress; returns how many."""

def version() -> str:
    """The core's version."""

def source_hash() -> str:
    """A hash of the simulator's source files at build time (16 hex digits)."""
