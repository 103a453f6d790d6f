"""The core's parameter schema (``_native.schema()``) against the Python models.

Each control and queue discipline declares its parameters once, in its own
file of the core (name, type, default, range; ``crates/dumbbell-core/src/
param.rs``). The Python models (``scenario.py``) still restate them; these
tests hold the two together, so that the models can be switched to read the
schema: every control and queue is listed, with the same parameter names,
and wherever a model states a default or a bound it is the core's.
"""

from __future__ import annotations

import json
import typing

import annotated_types as at
import pytest

import dumbbell as db
from dumbbell import _native

SCHEMA = json.loads(_native.schema())
CONTROLS = {c["name"]: c for c in SCHEMA["controls"]}
QUEUES = {q["name"]: q for q in SCHEMA["queues"]}

CC_MODELS = [db.Reno, db.Cubic, db.Dctcp, db.Linear, db.Fractional, db.Expolinear, db.Bbr, db.HighSpeed, db.Vegas]


def _kind(model: type) -> str:
    return model.model_fields["kind"].default


def _bounds(field) -> dict[str, float]:
    """The numeric bounds a pydantic field states (through `X | None` too)."""
    found: dict[str, float] = {}
    metas = list(field.metadata)
    for arg in typing.get_args(field.annotation):
        for inner in typing.get_args(arg)[1:]:
            metas.extend(getattr(inner, "metadata", []))
    for m in metas:
        for name in ("ge", "gt", "le", "lt"):
            if isinstance(m, getattr(at, name.capitalize())):
                found[name] = float(getattr(m, name))
    return found


def test_every_control_and_queue_is_listed_once_with_its_registered_names():
    assert {_kind(m) for m in CC_MODELS} == {c["name"] for c in SCHEMA["controls"] if not c["registered"]}
    assert set(db.scenario.REGISTERED) == {c["name"] for c in SCHEMA["controls"] if c["registered"]}
    assert set(QUEUES) == {"none", "red", "step", "hysteresis", "codel", "fq_codel", "pie"}
    for entry in SCHEMA["controls"] + SCHEMA["queues"]:
        assert entry["about"].endswith("."), entry["name"]
        names = [p["name"] for p in entry["params"]]
        assert len(names) == len(set(names)), entry["name"]
        for p in entry["params"]:
            assert p["about"] and p["type"], (entry["name"], p["name"])
            assert p["required"] == (p["default"] is None and not p["type"].startswith("optional")), p


@pytest.mark.parametrize("model", CC_MODELS, ids=_kind)
def test_control_models_name_the_core_parameters_and_agree_on_defaults_and_bounds(model):
    core = {p["name"]: p for p in CONTROLS[_kind(model)]["params"]}
    fields = {n: f for n, f in model.model_fields.items() if n != "kind"}
    assert set(fields) == set(core)
    for name, f in fields.items():
        p = core[name]
        if f.default is not None:  # a model's None leaves the core's default
            assert f.default == p["default"], name
        rng = p["range"]
        bounds = _bounds(f)
        if rng is None or not bounds or "unit" in rng and rng["unit"] == "ps":
            continue
        # The model's bounds never admit what the core refuses.
        assert _within(bounds, rng, integer=p["type"] == "int"), (name, bounds, rng)


def _within(bounds: dict[str, float], rng: dict, integer: bool) -> bool:
    """The values `bounds` admit are all in the core's `rng`."""
    if integer:  # x > a is x >= a + 1, x < b is x <= b - 1
        bounds = {**bounds}
        if "gt" in bounds:
            bounds["ge"] = bounds.pop("gt") + 1
        if "lt" in bounds:
            bounds["le"] = bounds.pop("lt") - 1
    lo_ok = hi_ok = True
    if "ge" in bounds:
        lo_ok = bounds["ge"] > rng["min"] or (bounds["ge"] == rng["min"] and not rng.get("min_open"))
    if "gt" in bounds:
        lo_ok = bounds["gt"] >= rng["min"]
    if "le" in bounds:
        hi_ok = bounds["le"] < rng["max"] or (bounds["le"] == rng["max"] and not rng.get("max_open"))
    if "lt" in bounds:
        hi_ok = bounds["lt"] <= rng["max"]
    return lo_ok and hi_ok


QUEUE_MODELS = {
    "none": (db.DropTail, {}),
    "red": (db.Red, {"min_th": 1000.0, "max_th": 3000.0, "wlog": 9}),
    "step": (db.Step, {"k_pkts": 20}),
    "hysteresis": (db.Hysteresis, {"upper_pkts": 20, "lower_pkts": 10}),
    "codel": (db.Codel, {}),
    "fq_codel": (db.FqCodel, {}),
    "pie": (db.Pie, {}),
}


@pytest.mark.parametrize("kind", sorted(QUEUE_MODELS))
def test_queue_models_send_the_core_parameters_with_its_defaults(kind):
    model, required = QUEUE_MODELS[kind]
    aqm = model(**required).to_core()["aqm"]
    assert aqm.pop("kind") == kind
    core = {p["name"]: p for p in QUEUES[kind]["params"]}
    assert set(aqm) == set(core)
    for name, value in aqm.items():
        p = core[name]
        if name in required or p["required"]:
            continue
        assert value == p["default"], name
