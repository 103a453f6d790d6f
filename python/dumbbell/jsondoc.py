"""JSON documents: :func:`json_safe`, the one conversion every JSON file and
``--json`` output of dumbbell goes through (the store's manifests and
catalog, experiments' ``meta.json``, sweep points, the CLI's documents)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def json_safe(v: Any) -> Any:
    """``v`` as plain JSON data: NaN and infinities become ``None`` (JSON has
    neither), mappings get string keys, tuples become lists, numpy scalars
    their Python value, and anything else its ``repr``."""
    if isinstance(v, float) and v != v:  # NaN
        return None
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return None
    if isinstance(v, Mapping):
        return {str(k): json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    if isinstance(v, float):
        return v
    if hasattr(v, "item"):  # numpy scalars
        return json_safe(v.item())
    return repr(v)
