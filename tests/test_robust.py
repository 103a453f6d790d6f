"""Robustness of the scenario model and the run API (issue: robustness):
strict numbers with ranges on every field, the same ranges in Python and in
the core, and runs that can be stopped (timeout, handle, every run, Ctrl-C)
returning what they computed. The CLI's side is in ``test_cli_robust.py``.
"""

from __future__ import annotations

import _thread
import copy
import math
import threading
import time
import types
import typing
from typing import Any

import annotated_types as at
import pytest

import dumbbell as db
import dumbbell.scenario as sc
from dumbbell import _native
from dumbbell.run import check_config
from dumbbell.scenario.doc import _tightest

from .helpers import fuzzing
from .helpers.fresh_process import in_fresh_process


def _models() -> list[type]:
    out: list[type] = []

    def walk(c: type) -> None:
        for s in c.__subclasses__():
            if not s.__name__.startswith("_"):
                out.append(s)
            walk(s)

    walk(sc._Model)
    return sorted(set(out), key=lambda m: (m.__module__, m.__name__))


# Smallest valid input of each model, to which one field is then added.
REQUIRED: dict[str, dict[str, Any]] = {
    "Node": {"name": "a"},
    "Link": {"a": "a", "b": "b", "rate_bps": 1000},
    "DropTail": {},
    "Red": {"min_th": 1000, "max_th": 3000},
    "Step": {"k_pkts": 20},
    "Hysteresis": {"upper_pkts": 42, "lower_pkts": 36},
    "Codel": {},
    "FqCodel": {},
    "Pie": {},
    "Cake": {},
    "DualPi2": {},
    "Reno": {},
    "Cubic": {},
    "Dctcp": {},
    "Linear": {},
    "Fractional": {},
    "Expolinear": {},
    "Bbr": {},
    "HighSpeed": {},
    "Vegas": {},
    "PythonCc": {"control": db.RenoPy()},
    "Registered": {"kind": "scalable"},
    "KernelModuleCc": {"module": "tcp_cubic.c"},
    "TcpOptions": {},
    "Netem": {},
    "TcpFlow": {"src": "a", "dst": "b"},
    "UdpFlow": {"src": "a", "dst": "b", "rate_bps": 1000},
    "QueueRecord": {"node": "a", "peer": "b"},
    "PcapPoint": {"host": "a"},
    "PacketRecord": {"node": "a", "peer": "b"},
    "Record": {},
    "Scenario": {"duration_s": 1, "hosts": ["a"]},
    "Pipeline": {"capacity_pps": 1000.0, "buffer_pkts": 64},
    "Return": {"k_pkts": 20},
    "Ideal": {},
    "Run2c": {},
    "Rafle": {},
    "StrictPriority": {},
    "RoundRobin": {},
    "Drr": {},
    "Files": {"bytes": [1000]},
    "Cdf": {"points": [[0, 0.0], [100, 1.0]]},
    "AllAtOnce": {},
    "ClosedLoop": {"concurrency": 3},
    "Poisson": {"rate_per_s": 10.0},
    "Control": {},
    "Workload": {"clients": ["a"], "servers": ["b"], "sizes": {"kind": "files", "bytes": [1000]},
                 "arrivals": {"kind": "all_at_once"}},
    "Pipeline": {"capacity_pps": 1000.0, "buffer_pkts": 64},
    "Return": {"k_pkts": 20},
}


def _numeric_kind(tp: Any) -> type | None:
    """int or float if the annotation is a number (possibly optional,
    annotated, or a list of numbers); None otherwise."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _numeric_kind(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType, list):
        kinds = {_numeric_kind(a) for a in typing.get_args(tp)} - {None}
        return kinds.pop() if len(kinds) == 1 else None
    if tp is bool:
        return None
    return tp if tp in (int, float) else None


def _bounds(tp: Any, extra: list[Any]) -> tuple[Any, Any]:
    """(lower, upper) constraints found in the annotation and field metadata."""
    found = list(extra)

    def walk(t: Any) -> None:
        if typing.get_origin(t) is typing.Annotated:
            args = typing.get_args(t)
            found.extend(args[1:])
            walk(args[0])
        elif typing.get_origin(t) in (typing.Union, types.UnionType, list):
            for a in typing.get_args(t):
                walk(a)

    walk(tp)
    return _tightest(found)  # a field's own range and its type's (``Seconds``): the tighter bound counts


NUMERIC_FIELDS = [
    (model, name, kind)
    for model in _models()
    for name, info in model.model_fields.items()
    if (kind := _numeric_kind(info.annotation)) is not None
]


def test_every_model_has_a_minimal_example():
    """New models (from any branch) must be listed in REQUIRED, so the checks
    below cover their fields."""
    assert {m.__name__ for m in _models()} <= set(REQUIRED)


@pytest.mark.parametrize(("model", "name", "kind"), NUMERIC_FIELDS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_every_numeric_field_has_a_range(model, name, kind):
    info = model.model_fields[name]
    lo, hi = _bounds(info.annotation, info.metadata)
    assert lo is not None and hi is not None, f"{model.__name__}.{name} needs both bounds in its Field"
    if kind is float:
        assert getattr(hi, "le", getattr(hi, "lt", None)) < 1e300


def _validate(model: type, name: str, value: Any) -> None:
    data = {**copy.deepcopy(REQUIRED[model.__name__]), name: value}
    if typing.get_origin(model.model_fields[name].annotation) is list or "list" in str(model.model_fields[name].annotation):
        data[name] = [value]
    model.model_validate(data)


@pytest.mark.parametrize(("model", "name", "kind"), NUMERIC_FIELDS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_booleans_infinities_and_strings_are_not_numbers(model, name, kind):
    info = model.model_fields[name]
    # Rates and times also take strings with units ("3ms"; "3" without one
    # is refused) and whole floats ("2.0" bit/s); never booleans or infinities.
    with_units = "parse_rate_bps" in repr(info.annotation) + repr(info.metadata) or "parse_seconds" in repr(
        info.annotation
    ) + repr(info.metadata)
    bad: list[Any] = [True, False, "3"]
    if kind is float:
        bad += [math.inf, -math.inf, math.nan, 1e300]
    elif not with_units:
        bad += [2.0]
    for value in bad:
        with pytest.raises(db.ConfigError) as info:
            _validate(model, name, value)
        assert info.value.field.startswith(name), (value, str(info.value))


# ---------------------------------------------------------------- Python and core agree


def _leaves(doc: Any, here: tuple = ()) -> list[tuple]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _leaves(v, here + (k,))]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in _leaves(v, here + (i,))]
    return [(here, doc)]


def _path(steps: tuple) -> str:
    out = ""
    for s in steps:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out


def _core_place(steps: tuple, core: dict[str, Any]) -> tuple | None:
    """Where a user field lives in the core's document (``_s`` → ``_ps``, a
    queue's discipline parameters under ``aqm``), or None."""
    name = steps[-1]
    prefix = list(steps[:-1])
    cname = name[:-2] + "_ps" if isinstance(name, str) and name.endswith("_s") and name != "min_rtt_win_s" else name
    candidates = [tuple(prefix) + (cname,)]
    if len(prefix) >= 3 and prefix[-1] in ("queue_ab", "queue_ba"):
        candidates.append(tuple(prefix) + ("aqm", cname))
    for c in candidates:
        try:
            parent = core
            for s in c[:-1]:
                parent = parent[s]
            if c[-1] in parent:
                return c
        except (KeyError, IndexError, TypeError):
            continue
    return None


def _outside(steps: tuple, value: Any, s: db.Scenario) -> list[Any]:
    """Values just outside the range of the field at ``steps``."""
    obj: Any = s
    for step in steps[:-1]:
        obj = obj[step] if isinstance(step, int) else getattr(obj, step)
    info = type(obj).model_fields[steps[-1]]
    lo, hi = _bounds(info.annotation, info.metadata)
    out = []
    if isinstance(hi, at.Lt):
        out.append(hi.lt * 2 if hi.lt > 0 else hi.lt + 1)
    elif hi is not None:
        out.append(hi.le * 2 if isinstance(value, float) or isinstance(hi.le, float) else hi.le + 1)
    if lo is not None:
        bottom = getattr(lo, "ge", getattr(lo, "gt", 0))
        out.append(-1 if bottom <= 0 else (bottom / 2 if isinstance(bottom, float) else bottom - 1))
    return out


def test_python_and_the_core_refuse_the_same_values():
    """Every numeric field of the kitchen-sink scenario, set just outside its
    range: Python refuses it naming the field, and so does the core given
    the same value in its own document (for callers that bypass Python)."""
    s = fuzzing.kitchen_sink()
    user = s.model_dump(mode="python", exclude_none=True)
    core = s.to_core()
    checked = 0
    for steps, value in _leaves(user):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(steps[-1], int):
            continue
        place = _core_place(steps, core)
        for bad in _outside(steps, value, s):
            doc = copy.deepcopy(user)
            parent = doc
            for step in steps[:-1]:
                parent = parent[step]
            parent[steps[-1]] = bad
            with pytest.raises(db.ConfigError) as info:
                db.Scenario.from_dict(doc)
            assert info.value.field == _path(steps), (bad, str(info.value))
            if place is None:
                continue
            cdoc = copy.deepcopy(core)
            cparent = cdoc
            for step in place[:-1]:
                cparent = cparent[step]
            cbad = bad
            if str(place[-1]).endswith("_ps") and isinstance(bad, (int, float)):
                cbad = round(bad * 10**12) if bad >= 0 else -1
            cparent[place[-1]] = cbad
            with pytest.raises(db.ConfigError) as cinfo:
                check_config(cdoc)
            assert cinfo.value.field == _path(steps), (steps, cbad, str(cinfo.value))
            checked += 1
    assert checked > 60, checked


# ---------------------------------------------------------------- stopping runs


def _long(duration_s: float = 1000.0) -> db.Scenario:
    s = db.star(["a", "b", "c"], rate="1Gbps", delay="50us", duration_s=duration_s, name="long")
    for h in ("a", "b"):
        s.add_flow(db.TcpFlow(name=h, src=h, dst="c", cc="cubic"))
    s.record.flow_sample_s = 0.01
    return s


def _assert_partial(r: db.Result, duration_s: float) -> None:
    assert r.stopped and r.status == "stopped"
    assert 0 < r.summary["sim_time_ps"] < duration_s * 1e12
    assert r.summary["conservation_ok"] is True
    assert (r.flows["bytes_delivered"] > 0).all()
    # The samples stop where the run stopped.
    assert r.flow_samples["time_ps"].max() <= r.summary["sim_time_ps"]


def test_a_timeout_stops_the_run_and_returns_what_it_has():
    t0 = time.monotonic()
    r = db.run(_long(), timeout_s=0.3)
    assert time.monotonic() - t0 < 5  # stops within the poll interval, not after 1000 s
    _assert_partial(r, 1000.0)


def test_a_handle_stops_its_run_from_another_thread():
    handle = db.RunHandle()
    threading.Timer(0.3, handle.stop).start()
    r = db.run(_long(), handle=handle)
    _assert_partial(r, 1000.0)
    assert handle.stop_requested and handle.progress()[0] == "done"


def test_request_stop_stops_running_runs_only():
    results: list[db.Result] = []
    worker = threading.Thread(target=lambda: results.append(db.run(_long())))
    worker.start()
    deadline = time.monotonic() + 30
    while _native.request_stop() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)  # until the run is registered, then it is asked to stop
    worker.join(30)
    assert results and results[0].stopped
    # A run started afterwards is not affected.
    assert not db.run(_long(0.01)).stopped


@in_fresh_process
def test_ctrl_c_stops_the_run_and_keeps_its_result():
    # The Ctrl-C comes once data flows (10 ms of simulated time), not at a
    # wall time: on a loaded machine a fixed delay could land before the run
    # started, or before any byte was delivered.
    armed = threading.Event()

    def arm(p: db.Progress) -> None:
        if p.now_ps >= 10_000_000_000 and not armed.is_set():
            armed.set()
            threading.Timer(0.1, _thread.interrupt_main).start()

    with pytest.raises(db.Interrupted) as info:
        db.run(_long(), progress=arm, progress_every_s=0.02)
    assert armed.is_set()
    assert isinstance(info.value, KeyboardInterrupt)
    _assert_partial(info.value.result, 1000.0)


def test_progress_reports_simulated_time_and_events():
    seen: list[db.Progress] = []
    db.run(_long(0.5), progress=seen.append, progress_every_s=0.02)
    assert seen[-1].phase == "done" and seen[-1].now_ps == 500_000_000_000
    times = [p.now_ps for p in seen]
    assert times == sorted(times) and seen[-1].events > 0
    assert seen[-1].fraction == 1.0


def test_a_recording_budget_reached_while_running_names_the_recorder():
    s = _long(0.5)
    s.record.cwnd_every_ack = True
    s.record.max_bytes = 2**20
    with pytest.raises(db.LimitError) as info:
        db.run(s)
    assert info.value.field == "record.cwnd_every_ack"
    assert "record.max_bytes" in info.value.message
    assert isinstance(info.value, db.ConfigError)


def test_a_panic_in_the_core_is_an_ordinary_exception_with_its_message():
    with pytest.raises(Exception) as info:  # not PanicException, a BaseException
        _native._panic_for_tests("invariant broken")
    assert isinstance(info.value, _native.NativeInternalError)
    assert "panic: invariant broken at " in str(info.value) and "lib.rs" in str(info.value)
    # What a run raises for it: dumbbell's SimulationError, an Exception,
    # carrying the panic's message (the CLI reports it as an internal error).
    from dumbbell.run import _native_errors

    mapped = _native_errors(info.value)
    assert isinstance(mapped, db.SimulationError) and isinstance(mapped, Exception)
    assert "panic: invariant broken at " in str(mapped)


def test_the_scenario_reference_is_generated_from_the_models():
    """docs/scenario.md lists every field with its range; it is the
    generator's output (after changing a model: python -m dumbbell.scenario.doc --write)."""
    from dumbbell import scenario_doc

    assert scenario_doc.DOC_PATH.read_text() == scenario_doc.markdown(), (
        "docs/scenario.md is stale: run `python -m dumbbell.scenario.doc --write`"
    )
    text = scenario_doc.markdown()
    for model, name, _kind in NUMERIC_FIELDS:
        assert f"## {model.__name__}\n" in text and f"| `{name}` |" in text
