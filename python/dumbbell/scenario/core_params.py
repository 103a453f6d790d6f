"""The parameters of each congestion control and queue discipline as the
core declares them, once, in the component's own file (name, type, default,
range and one line about it: ``crates/dumbbell-core/src/param.rs``), made
into the pydantic fields of the scenario models, so that no model states a
range, a default or a choice of its own.

The schema is read from the extension once (``_native.schema()``, one call,
cached) when the first model that needs it is defined. A model field names
its parameter by the core's name, or for a time by the core's name in
seconds (``target_s`` for the core's ``target_ps``)::

    class Codel(_DelayAqm):
        target_s: Seconds = core_params.field("codel", "target_s")

:func:`field` gives the default (the core's, in the model's unit, unless
the model passes its own, e.g. ``None`` for "the core's default"), the
bounds (``ge``/``gt``/``le``/``lt``), and the description (the core's line
about it, unless the model passes one); :func:`choice` the ``Literal`` of
a parameter's names; :func:`item` an element of a list parameter, with the
bounds. ``tests/test_schema.py`` holds every model field of a control or a
queue to the schema.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal

from pydantic import Field
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

__all__ = ["param", "core_name", "core_default", "field", "choice", "item", "kinds", "PS_PER_S"]

PS_PER_S = 10**12
_CORE = object()  # "the core's default"


@functools.cache
def _schema() -> tuple[dict[str, list[str]], dict[tuple[str, str], dict[str, Any]]]:
    """(kind -> its parameters' names in order, (kind, name) -> parameter),
    for every control and queue kind of ``_native.schema()``."""
    from .. import _native

    schema = json.loads(_native.schema())
    names: dict[str, list[str]] = {}
    params: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in schema["controls"] + schema["queues"]:
        names[entry["name"]] = [p["name"] for p in entry["params"]]
        for p in entry["params"]:
            params[(entry["name"], p["name"])] = p
    return names, params


def kinds() -> dict[str, list[str]]:
    """Every control and queue kind of the core, with its parameters' names."""
    return _schema()[0]


def core_name(kind: str, name: str) -> str:
    """The core's name of a model field: itself, or ``x_ps`` for ``x_s``."""
    params = _schema()[1]
    if (kind, name) in params:
        return name
    if name.endswith("_s") and (kind, name[:-2] + "_ps") in params:
        return name[:-2] + "_ps"
    raise KeyError(f"the core's {kind!r} has no parameter {name!r}")


def param(kind: str, name: str) -> dict[str, Any]:
    """The schema's entry of a parameter (by the core's name or the model's)."""
    return _schema()[1][(kind, core_name(kind, name))]


def _in_seconds(kind: str, name: str) -> bool:
    return core_name(kind, name) != name


def core_default(kind: str, name: str) -> Any:
    """The core's default of a parameter, in the model's unit (seconds for
    a ``_s`` field); None for a required parameter."""
    d = param(kind, name)["default"]
    return d / PS_PER_S if d is not None and _in_seconds(kind, name) else d


def _bounds(kind: str, name: str) -> dict[str, Any]:
    p = param(kind, name)
    rng = p["range"]
    if rng is None:
        return {}
    lo, hi = rng["min"], rng["max"]
    if _in_seconds(kind, name):
        lo, hi = lo / PS_PER_S, hi / PS_PER_S
    else:  # whole bounds as integers, for messages and the documentation ("at most 16")
        lo, hi = (int(v) if float(v).is_integer() and abs(v) < 2**53 or "int" in p["type"] else v for v in (lo, hi))
    return {"gt" if rng.get("min_open") else "ge": lo, "lt" if rng.get("max_open") else "le": hi}


def field(kind: str, name: str, *, default: Any = _CORE, description: str | None = None, **extra: Any) -> FieldInfo:
    """The pydantic field of a parameter: its default (the core's unless
    given; a required parameter has none), its bounds (those of a list's
    items go in :func:`item`) and its description (the core's unless
    given). ``extra`` goes to ``Field`` (``min_length=1``)."""
    p = param(kind, name)
    if default is _CORE:
        default = PydanticUndefined if p["required"] else core_default(kind, name)
    bounds = {} if p["type"].startswith("list") else _bounds(kind, name)
    return Field(
        default,
        description=p["about"] if description is None else description,
        json_schema_extra={"core": f"{kind}.{core_name(kind, name)}"},
        **bounds,
        **extra,
    )


def choice(kind: str, name: str) -> Any:
    """The ``Literal`` of a parameter that is one of some names."""
    ty = param(kind, name)["type"]
    if not ty.startswith("choice["):
        raise TypeError(f"the core's {kind}.{name} is a {ty}, not a choice")
    return Literal[tuple(ty[len("choice[") : -1].split("|"))]


def item(kind: str, name: str) -> Any:
    """An element of a list parameter, with the parameter's bounds."""
    ty = param(kind, name)["type"]
    if ty != "list[int]":
        raise TypeError(f"the core's {kind}.{name} is a {ty}, not a list of integers")
    return Annotated[int, Field(**_bounds(kind, name))]
