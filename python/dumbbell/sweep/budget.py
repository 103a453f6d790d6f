"""The recording budget against the whole process, checked before a run.

``record.max_bytes`` bounds the recorded tables as the core holds them; the
core refuses a run whose periodic recorders (flow samples, queue samples)
it estimates above it. The process holds more than that once the tables
are Python's: the core's columns are handed over without a copy, but the
DataFrames add a ``time_s`` column and 16 bytes a row for each string
column (which the core holds as 4-byte codes), up to about twice the core's
bytes in all (:data:`HANDOVER_FACTOR`, measured in docs/output.md,
"Memory"). :func:`peak_warning` asks the core whether the
periodic recorders would fit in ``max_bytes / HANDOVER_FACTOR`` (its own
estimate, the same check that refuses a run, run once more with the smaller
budget) and, if they would not, returns one line saying the process may
need more memory than the budget, naming the recorder. The run is not
refused: the core still holds the tables to the budget while it runs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["HANDOVER_FACTOR", "peak_warning"]

HANDOVER_FACTOR = 3
"""Peak memory of a run over its recorded tables as the core counts them,
rounded up from the worst case measured (2.4x, a sweep worker writing
per-ACK windows with their variable names; docs/output.md)."""


def _fmt(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def peak_warning(config: Mapping[str, Any], controls: Mapping[str, Any] | None = None) -> str | None:
    """One line if the run of core document ``config`` may need more memory
    than its ``record.max_bytes`` while handing its tables over; else None."""
    from ..errors import ConfigError
    from ..run.runner import check_config
    from ..scenario.models import DEFAULT_RECORD_MAX_BYTES, MIN_RECORD_MAX_BYTES

    record = config.get("record") or {}
    budget = int(record.get("max_bytes") or DEFAULT_RECORD_MAX_BYTES)
    if not (record.get("flow_sample_ps") or record.get("queues")):
        return None  # no periodic recorder: nothing the core estimates
    smaller = budget // HANDOVER_FACTOR
    if smaller < MIN_RECORD_MAX_BYTES:
        return None
    probe = copy.deepcopy(dict(config))
    probe["record"] = {**record, "max_bytes": smaller}
    try:
        check_config(probe, controls)
    except ConfigError as e:
        if "record.max_bytes" not in e.message:
            return None  # refused for another reason: the real check says so
        try:
            check_config(config, controls)
        except ConfigError:
            return None  # refused at the budget itself: the real check says so, alone
        return (f"dumbbell: warning: {e.field}: the periodic recorders would hold more than {_fmt(smaller)}; "
                f"handing the tables to Python takes up to {HANDOVER_FACTOR}x that, so the run may need more "
                f"than record.max_bytes = {_fmt(budget)} of memory (docs/output.md, Memory)")
    return None
