"""The scenario format as a Markdown reference, generated from the models.

Every field of every scenario model with its type, its range (read from the
``Field`` constraints, the same ones validation enforces), its unit, its
default and its description. ``docs/scenario.md`` is this module's output;
a test keeps the two equal. After changing a model::

    python -m dumbbell.scenario_doc --write
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types as at
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from . import scenario as sc

__all__ = ["markdown", "DOC_PATH"]

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "scenario.md"

_UNITS = [
    ("_bps", "bit/s"),
    ("_per_s", "per s"),
    ("_s", "s"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_bytes", "bytes"),
    ("_pkts", "packets"),
    ("_pct", "%"),
    ("_percent", "%"),
    ("_per_ms", "per ms"),
]

_INTRO = """# Scenario format

Every field of a scenario (TOML file, `dumbbell.Scenario`, or plain data),
generated from the models in `python/dumbbell/scenario.py` by
`python -m dumbbell.scenario_doc --write`; do not edit by hand.

Rules for every field: unknown fields are errors; numbers are strict (`true`
is not 1, `"3"` is not 3, `2.0` is not an integer); every float is finite;
every number has the range below, which the core (`validate.rs`) enforces
too, for documents that do not come through Python. Rates (`*_bps`) also
take strings with units (`"100Mbps"`), times (`*_s`) strings such as
`"75us"`. A value outside its range is refused before anything runs, with
one error naming the field (`links[2].rate_bps: must be at most ...`).

Two checks concern the whole run, in the core, before it starts: the
**horizon** (the duration plus the longest delay anything can schedule: a
link's propagation, jitter and serialization, an RTO, a delayed-ACK timer, a
sampling period) must fit in the simulated clock, 2^64 ps (about 213 days);
and the **recording estimate** (periodic recorders: `record.flow_sample_s`,
`record.queues[].sample_s`) must fit in `record.max_bytes`. Recorders whose
size depends on the traffic are held to the same budget while the run goes.
"""


def _unit(name: str) -> str:
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return unit
    return ""


def _num(x: Any) -> str:
    if isinstance(x, float):
        if x == int(x) and abs(x) < 1e6:
            return f"{int(x):,}".replace(",", " ")
        return f"{x:g}"
    if isinstance(x, int) and x >= 10**6 and 10 ** (len(str(x)) - 1) == x:
        return f"10^{len(str(x)) - 1}"
    if isinstance(x, int) and x >= 2**20:
        for k in range(20, 65):
            if x == 2**k:
                return f"2^{k}"
            if x == 2**k - 1:
                return f"2^{k} − 1"
    return f"{x:,}".replace(",", " ") if isinstance(x, int) else str(x)


def _bounds(tp: Any, extra: list[Any]) -> tuple[Any, Any]:
    found = list(extra)

    def walk(t: Any) -> None:
        origin = typing.get_origin(t)
        if origin is typing.Annotated:
            args = typing.get_args(t)
            found.extend(args[1:])
            walk(args[0])
        elif origin in (typing.Union, types.UnionType, list):
            for a in typing.get_args(t):
                walk(a)

    walk(tp)
    lo = hi = None
    for m in found:
        for item in getattr(m, "metadata", [m]):
            if isinstance(item, (at.Ge, at.Gt)):
                lo = item
            if isinstance(item, (at.Le, at.Lt)):
                hi = item
    return lo, hi


def _range(tp: Any, extra: list[Any]) -> str:
    lo, hi = _bounds(tp, extra)
    if lo is None and hi is None:
        return ""
    left = "[" if isinstance(lo, at.Ge) else "("
    right = "]" if isinstance(hi, at.Le) else ")"
    lv = _num(lo.ge if isinstance(lo, at.Ge) else lo.gt) if lo is not None else "−∞"
    hv = _num(hi.le if isinstance(hi, at.Le) else hi.lt) if hi is not None else "∞"
    return f"{left}{lv}, {hv}{right}"


def _type(tp: Any) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _type(args[0])
    if origin in (typing.Union, types.UnionType):
        parts = [_type(a) for a in args if a is not type(None)]
        return " or ".join(dict.fromkeys(parts))
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type(args[0])}"
    if origin is tuple:
        return "[" + ", ".join(f"{_type(a)} {_range(a, [])}".strip() for a in args) + "]"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return getattr(tp, "__name__", str(tp))


def _default(info: Any) -> str:
    if info.default is PydanticUndefined:
        return "required" if info.default_factory is None else "(empty)"
    if info.default is None:
        return "unset"
    d = info.default
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, str):
        return f'"{d}"'
    return _num(d)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _models() -> list[type[BaseModel]]:
    """Every public scenario model (every subclass of the shared base): the
    scenario first, then those of ``scenario.__all__`` in its order, then
    the others (classifiers, schedulers, workloads) by module and name."""
    found: set[type[BaseModel]] = set()

    def walk(c: type) -> None:
        for sub in c.__subclasses__():
            if not sub.__name__.startswith("_"):
                found.add(sub)
            walk(sub)

    walk(sc._Model)
    order = {n: i for i, n in enumerate(sc.__all__)}
    return sorted(
        found,
        key=lambda m: (m is not sc.Scenario, order.get(m.__name__, 10**6), m.__module__, m.__name__),
    )


def markdown() -> str:
    out = [_INTRO]
    for model in _models():
        doc = " ".join((model.__doc__ or "").split("\n\n")[0].split())
        out.append(f"\n## {model.__name__}\n\n{doc}\n")
        out.append("| field | type | range | unit | default | description |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for name, info in model.model_fields.items():
            if name == "kind" and typing.get_origin(info.annotation) is typing.Literal:
                out.append(f"| `kind` | {_type(info.annotation)} | | | | the tag of this table |")
                continue
            out.append(
                "| `{}` | {} | {} | {} | {} | {} |".format(
                    name,
                    _cell(_type(info.annotation)),
                    _range(info.annotation, info.metadata),
                    _unit(name),
                    _default(info),
                    _cell(info.description or ""),
                )
            )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    text = markdown()
    if "--write" in args:
        DOC_PATH.write_text(text)
        print(f"wrote {DOC_PATH}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
