"""What keeps ``dumbbell run``'s start cheap (issue 29): component models
built only when a scenario names them, the collector held off during the
start, and the command line built for the command named. The errors stay
those of a pydantic discriminated union (``tests/test_shorthand_errors.py``,
``tests/test_schema.py`` hold the rest)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap

import pytest

import dumbbell as db
from dumbbell import startup_gc
from dumbbell.cli import _only_named, app

_FRESH = textwrap.dedent(
    """
    import json, sys
    from dumbbell.scenario import models, queues, tcp, twoclass, workloads
    s = models.Scenario.model_validate({
        "name": "x", "duration_s": 1.0,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "links": [{"a": "a", "b": "b", "rate_bps": 10**9, "delay_s": 0.01, "queue_ab": {"kind": "red",
                   "min_th": 5000, "max_th": 15000, "max_p": 0.1, "burst_pkts": 5}}],
        "flows": [{"src": "a", "dst": "b", "cc": "dctcp"}],
    })
    built = {c.__name__: c.__pydantic_complete__ for m in (queues, tcp, twoclass, workloads)
             for c in vars(m).values() if isinstance(c, type) and issubclass(c, models._Model)
             and c.__module__ == m.__name__ and not c.__name__.startswith("_")}
    print(json.dumps(built))
    """
)


def test_only_the_named_components_are_built() -> None:
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True).stdout
    built = json.loads(out)
    assert built["Red"] and built["Dctcp"] and built["TcpOptions"]
    unused = ["DropTail", "Codel", "FqCodel", "Pie", "Cake", "DualPi2", "Bbr", "Cubic", "Linear", "Vegas",
              "Rafle", "Drr", "Cdf", "Poisson"]
    assert [name for name in unused if built[name]] == []


def test_a_member_error_keeps_its_place_below_the_field() -> None:
    link = {"a": "a", "b": "b", "rate_bps": 10**9, "delay_s": 0.01}
    with pytest.raises(db.ConfigError) as e:
        db.Link(**link, queue_ab={"kind": "codel", "target_s": -1.0})
    assert e.value.field == "queue_ab.target_s"
    with pytest.raises(db.ConfigError) as e:
        db.Link(**link, queue_ab={"kind": "step", "k_pkts": 3, "classifier": {"kind": "rafle", "bogus": 1}})
    assert e.value.field == "queue_ab.classifier.bogus"
    with pytest.raises(db.ConfigError) as e:
        db.Link(**link, queue_ab={"kind": "codle"})
    assert e.value.field == "queue_ab.kind"
    assert "did you mean 'codel'" in e.value.message and "known: droptail, red," in e.value.message


def test_a_member_instance_is_taken_as_it_is_and_dumped_as_before() -> None:
    q = db.Codel(target_s=0.002)
    link = db.Link(a="a", b="b", rate_bps=10**9, delay_s=0.01, queue_ab=q)
    assert link.queue_ab is q
    dumped = link.model_dump(mode="json", exclude_none=True)["queue_ab"]
    assert dumped["kind"] == "codel" and dumped["target_s"] == 0.002
    link.queue_ab = {"kind": "pie"}  # validate_assignment goes through the same union
    assert type(link.queue_ab).__name__ == "Pie"


def test_startup_gc_holds_the_collector_and_freezes_what_it_made() -> None:
    assert gc.isenabled()
    before = gc.get_freeze_count()
    try:
        with startup_gc.paused():
            assert not gc.isenabled()
            made = [[i] for i in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(made)
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with startup_gc.paused():
            pass
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_command_line_builds_only_the_command_named() -> None:
    only = _only_named(app, ["run", "x.toml"])
    assert [c.name for c in only.registered_commands] == ["run"] and only.registered_groups == []
    assert len(app.registered_commands) > 1  # the app itself is untouched
    for args in ([], ["--help"], ["--version"], ["store", "ls"], ["rn", "x.toml"]):
        assert _only_named(app, args) is app


def test_the_json_schema_is_the_discriminated_unions() -> None:
    schema = db.Scenario.model_json_schema()
    defs = schema["$defs"]
    queues = ["DropTail", "Red", "Step", "Hysteresis", "Codel", "FqCodel", "Pie", "Cake", "DualPi2"]
    for where in (defs["Link"]["properties"]["queue_ab"], defs["DropTail"]["properties"]["long_queue"]):
        union = where["anyOf"][0]["oneOf"]
        assert union == [{"$ref": f"#/$defs/{name}"} for name in queues]
    assert set(queues) | {"Cubic", "Bbr", "TcpFlow", "UdpFlow", "Rafle", "Cdf"} <= set(defs)
