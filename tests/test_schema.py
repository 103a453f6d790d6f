"""The core's parameter schema (``_native.schema()``) against the Python models.

Each control and queue discipline declares its parameters once, in its own
file of the core (name, type, default, range; ``crates/dumbbell-core/src/
param.rs``). The Python models read them from the schema
(``scenario/core_params.py``) and restate none: these tests hold every
control and queue listed, every parameter a field made from the schema, and
nothing of a model's own beside it but the defaults it gives reasons for.
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


QUEUE_MODELS = {
    "none": (db.DropTail, {}),
    "red": (db.Red, {"min_th": 1000.0, "max_th": 3000.0, "wlog": 9}),
    "step": (db.Step, {"k_pkts": 20}),
    "hysteresis": (db.Hysteresis, {"upper_pkts": 20, "lower_pkts": 10}),
    "codel": (db.Codel, {}),
    "fq_codel": (db.FqCodel, {}),
    "pie": (db.Pie, {}),
    "cake": (db.Cake, {}),
    "dualpi2": (db.DualPi2, {}),
}


def _kind(model: type) -> str:
    return model.model_fields["kind"].default


def _bounds(field) -> dict[str, float | int]:
    """The numeric bounds a pydantic field states in its ``Field``."""
    found: dict[str, float] = {}
    for m in field.metadata:  # the field's own, not its type's (``Seconds``, ``Rate``)
        for name in ("ge", "gt", "le", "lt"):
            if isinstance(m, getattr(at, name.capitalize())):
                found[name] = getattr(m, name)
    return found


def test_every_control_and_queue_is_listed_once_with_its_registered_names():
    assert {_kind(m) for m in CC_MODELS} == {c["name"] for c in SCHEMA["controls"] if not c["registered"]}
    assert set(db.scenario.REGISTERED) == {c["name"] for c in SCHEMA["controls"] if c["registered"]}
    assert set(QUEUES) == {"none", "red", "step", "hysteresis", "codel", "fq_codel", "pie", "cake", "dualpi2"}
    for entry in SCHEMA["controls"] + SCHEMA["queues"]:
        assert entry["about"].endswith("."), entry["name"]
        names = [p["name"] for p in entry["params"]]
        assert len(names) == len(set(names)), entry["name"]
        for p in entry["params"]:
            assert p["about"] and p["type"], (entry["name"], p["name"])
            assert p["required"] == (p["default"] is None and not p["type"].startswith("optional")), p


def _core_fields(model: type) -> dict[str, str]:
    """The model's fields made from the core's schema, by the core's name."""
    out = {}
    for name, f in model.model_fields.items():
        extra = f.json_schema_extra or {}
        if "core" in extra:
            kind, core_name = extra["core"].split(".")
            assert kind == _kind(model) or (kind, _kind(model)) == ("none", "droptail"), (model, name)
            out[core_name] = name
    return out


def _expected_bounds(p: dict, seconds: bool) -> dict[str, float]:
    rng = p["range"]
    if rng is None or p["type"].startswith("list"):
        return {}
    lo, hi = (rng["min"] / 1e12, rng["max"] / 1e12) if seconds else (rng["min"], rng["max"])
    return {"gt" if rng.get("min_open") else "ge": lo, "lt" if rng.get("max_open") else "le": hi}


# A model's own default where the core has none or Python has a reason: RED's
# max_p (tc's default; required in the core), its wlog (derived from
# burst_pkts when unset) and bandwidth (unset: the link's rate, the core's 0).
OWN_DEFAULTS = {("red", "max_p"): 0.02, ("red", "wlog"): None, ("red", "bandwidth_bps"): None}


@pytest.mark.parametrize("model", CC_MODELS + [m for m, _ in QUEUE_MODELS.values()], ids=_kind)
def test_every_parameter_field_is_made_from_the_schema_and_states_nothing_of_its_own(model):
    """Each parameter of a control or a queue is a field made from the core's
    schema (``scenario/core_params.py``): its bounds are exactly the core's
    (times in seconds), its default the core's (a control's unset, None,
    leaves the core's), its choices the core's; no model restates one."""
    kind = _kind(model)
    entry = CONTROLS[kind] if kind in CONTROLS else QUEUES["none" if kind == "droptail" else kind]
    core = {p["name"]: p for p in entry["params"]}
    made = _core_fields(model)
    assert set(made) == set(core)
    if model in CC_MODELS:  # a control's fields are its parameters and nothing else
        assert set(model.model_fields) - {"kind"} == set(made.values())
    for core_name, name in made.items():
        p, f = core[core_name], model.model_fields[name]
        seconds = core_name != name
        assert seconds == (core_name.endswith("_ps") and name == core_name[:-3] + "_s"), name
        assert _bounds(f) == _expected_bounds(p, seconds), (name, _bounds(f), p["range"])
        if p["type"].startswith("choice"):
            choices = p["type"][len("choice["):-1].split("|")
            assert set(choices) == {a for arg in typing.get_args(f.annotation) for a in typing.get_args(arg) or [arg]} - {type(None)}
        if model in CC_MODELS:
            assert f.default is None, name
        elif (kind, name) in OWN_DEFAULTS:
            assert f.default == OWN_DEFAULTS[(kind, name)], name
        elif p["required"]:
            assert f.is_required(), name
        else:
            expected = p["default"] / 1e12 if seconds and p["default"] is not None else p["default"]
            assert f.default == expected, name


def test_a_parameter_the_core_does_not_have_is_refused_by_name():
    from dumbbell.scenario import core_params

    with pytest.raises(KeyError, match="no parameter 'betta'"):
        core_params.field("cubic", "betta")
    with pytest.raises(TypeError, match="not a choice"):
        core_params.choice("cubic", "beta")
    assert core_params.core_default("codel", "target_s") == 0.005  # the core's 5 ms, in seconds
    assert core_params.core_default("vegas", "beta") == 4




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
