"""The scenario fuzzer's parts: seed scenarios, mutations, the rule, and the
file of cases it ever found (``tests/fuzz_cases.jsonl``).

Seeds are the example file, scenarios of the experiments (E1 `dctcp-queue`,
E3 `lossy-cc`, E5 `highspeed`) and a kitchen sink that uses every queue
discipline, every control with parameters, UDP and every recorder; their
simulated durations are cut to a few tens of milliseconds. A mutation
replaces a value by a hostile one (0, −1, NaN, ±inf, 1e300, 2^63, 2^64,
booleans, strings, wrong units, null, empty containers), removes a field,
adds an unknown one, or duplicates a list element (nodes, links, flows).

The rule every mutated scenario must satisfy (:func:`outcome`): a
:class:`~dumbbell.ConfigError` naming a field on one line, or a run that
finishes or is stopped (by a wall-time budget) — never a traceback, a
panic, an abort or a hang.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

import dumbbell as db
from dumbbell import _native

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "fuzz_cases.jsonl"
LAST = REPO / "tests" / ".fuzz-last-case.json"

RUN_BUDGET_S = 0.3
"""Wall time a fuzzed run may take before it is stopped."""
INSTANT_LIMIT = 200_000
"""Events at one instant that count as a stuck loop in a fuzzed run (the
seeds have a few dozen), low enough to be reached within the budget."""
SAVE = bool(os.environ.get("DUMBBELL_FUZZ_SAVE"))
"""`make fuzz`: keep every case that breaks the rule in :data:`CASES`."""

NASTY: list[Any] = [
    0, -1, 1, 7, 0.5, -0.5, 1e-12, 1e-300, 1e300, -1e300, math.nan, math.inf, -math.inf,
    2**31, 2**32, 2**63, 2**64 - 1, 2**64, 10**15, 10**19,
    True, False, "", "x", "1e3", "-5Mbps", "75 parsecs", "100Mbps", "1ps", "1e7s", "0.0001ms",
    None, [], {}, [1, 2], {"kind": "westwood"}, {"kind": "red"},
]


def _short(s: db.Scenario, duration_s: float = 0.03) -> dict[str, Any]:
    s.duration_s = duration_s
    for f in s.flows:
        f.start_s = min(f.start_s, duration_s / 3)
        if f.stop_s is not None:
            f.stop_s = duration_s / 2
    for q in s.record.queues:
        q.from_s, q.to_s = 0.0, None
    return s.model_dump(mode="python", exclude_none=True)


def kitchen_sink() -> db.Scenario:
    """Every queue discipline (a two-class port too), every control with
    parameters, UDP, file-transfer tasks, every recorder."""
    s = db.dumbbell(["a", "b"], ["c", "d"], access_rate="1Gbps", bottleneck_rate="100Mbps",
                    access_delay="100us", bottleneck_delay="1ms", duration_s=0.03, name="kitchen-sink")
    s.set_queue("r1", "r2", db.Red(limit_pkts=300, min_th=30000, max_th=90000, max_p=0.1, ecn=True, gentle=True))
    s.set_queue("r2", "c", db.Hysteresis(upper_pkts=42, lower_pkts=36))
    s.set_queue("r2", "d", db.DropTail(limit_pkts=200, classifier=db.Rafle(n=40), scheduler=db.Drr(),
                                       long_queue=db.DropTail(limit_pkts=100)))
    s.set_queue("a", "r1", db.DropTail(limit_bytes=200_000))
    s.set_queue("r1", "a", db.Codel(target_s=0.004, interval_s=0.08, ecn=True))
    s.set_queue("r1", "b", db.FqCodel(limit_pkts=500, flows=256, quantum_bytes=1000, target_s=0.004))
    s.set_queue("c", "r2", db.Pie(target_s=0.01, tupdate_s=0.02, alpha=0.2, beta=1.5, max_burst_s=0.1, ecn=True))
    s.link("b", "r1").loss_ab = 0.001
    s.nodes[-1].pipeline = db.Pipeline(capacity_pps=200_000.0, buffer_pkts=512)
    s.set_queue("r2", "r1", db.Step(limit_pkts=100, k_pkts=20, at="dequeue", service_pps=50_000.0,
                                    feedback=db.Return(upper_pkts=42, lower_pkts=36)))
    s.link("a", "r1").jitter_s = 1e-6
    tcp = db.TcpOptions(mss_bytes=1448, min_rto_s=0.2, max_rto_s=120, init_rto_s=1, delack_timeout_s=0.04,
                        tsq_bytes=131072, rwnd_bytes=1_000_000, init_cwnd_pkts=10, dupthresh=3, gso_max_bytes=65536)
    controls = [
        db.Cubic(beta=0.7, c=0.4, hystart_low_window=16), db.Dctcp(shift_g=4, alpha_init=1.0),
        db.Bbr(high_gain=2.885, min_rtt_win_s=10), db.HighSpeed(low_window=38, high_p=1e-7),
        db.Vegas(alpha=2, beta=4), db.Linear(ss_alpha=2.0, adaptive=True), db.Fractional(gamma_r=[0, 4, 5, 1]),
        db.Expolinear(sigma_per_ms=0.25), db.Reno(),
    ]
    pairs = [("a", "c"), ("b", "d"), ("c", "a"), ("d", "b")]
    for i, cc in enumerate(controls):
        src, dst = pairs[i % len(pairs)]
        s.add_flow(db.TcpFlow(name=f"f{i}", src=src, dst=dst, cc=cc, tcp=tcp,
                              bytes=300_000 if i == 1 else None, stop_s=0.02 if i == 5 else None))
    s.add_flow(db.UdpFlow(name="cbr", src="b", dst="a", rate_bps="10Mbps", start_s=0.001, stop_s=0.01))
    s.workloads.append(db.Workload(name="ftp", clients=["d"], servers=["b"],
                                   sizes=db.Files(bytes=[20_000, 5_000, 100_000]),
                                   arrivals=db.ClosedLoop(concurrency=3), control=db.Control(), cc="reno"))
    s.record.flow_sample_s = 0.001
    s.record.cwnd_every_ack = True
    s.record.drop_log = True
    s.record.queues += [db.QueueRecord(node="r1", peer="r2", dequeue_times=True),
                        db.QueueRecord(node="r2", peer="c", sample_s=1e-4, from_s=0.001, to_s=0.02)]
    return s


def seeds() -> list[dict[str, Any]]:
    """The documents the fuzzer mutates (plain data, as from a TOML file)."""
    from dumbbell.experiments import dctcp_queue, highspeed, lossy_cc

    return [
        _short(db.Scenario.from_toml(REPO / "examples" / "dctcp_star.toml")),
        _short(dctcp_queue.scenario("dctcp", 100_000_000, 1.0)),
        _short(lossy_cc.scenario("linear", 100_000_000, loss=0.01, cc_b="bbr")),
        _short(highspeed.single_scenario("highspeed", 20.0, 1e-5, 1.0)),
        _short(kitchen_sink()),
    ]


def _places(doc: Any, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _places(v, here + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _places(v, here + (i,))
    return out


def _at(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def mutate(doc: dict[str, Any], pick: int, op: int, value: int) -> None:
    """One mutation: ``op`` chooses what, ``pick`` where, ``value`` which value."""
    places = _places(doc)
    path = places[pick % len(places)]
    if op <= 1:  # replace a value (not the whole document)
        if path:
            _at(doc, path[:-1])[path[-1]] = copy.deepcopy(NASTY[value % len(NASTY)])
    elif op == 2:  # remove a field or an element
        if path:
            parent = _at(doc, path[:-1])
            del parent[path[-1]]
    elif op == 3:  # an unknown field
        target = _at(doc, path)
        if isinstance(target, dict):
            target["surprise"] = copy.deepcopy(NASTY[value % len(NASTY)])
    else:  # duplicate an element: two nodes, links or flows of one name
        target = _at(doc, path)
        if isinstance(target, list) and target:
            target.append(copy.deepcopy(target[0]))


def _clean(e: db.ConfigError) -> None:
    text = str(e)
    assert e.field and e.message, repr(e)
    assert "\n" not in text and text.startswith(e.field + ": "), repr(text)
    assert "Traceback" not in text and "panic" not in text.lower(), text


def outcome(doc: dict[str, Any]) -> str:
    """Applies the rule; returns "refused", "finished" or "stopped". Anything
    else (another exception, a panic) propagates: the case breaks the rule."""
    try:
        s = db.Scenario.from_dict(doc)
    except db.ConfigError as e:
        _clean(e)
        return "refused"
    handle = _native.RunHandle(instant_limit=INSTANT_LIMIT)
    # Mutated values are often implausible (a rate of 3 bit/s) and the runs
    # short: dumbbell's warnings are expected, each one line naming a field;
    # any other warning breaks the rule as an error would.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = db.run(s, handle=handle, timeout_s=RUN_BUDGET_S)
        except db.ConfigError as e:
            _clean(e)
            return "refused by the core"
    for w in caught:
        assert issubclass(w.category, db.DumbbellWarning), f"{w.category.__name__}: {w.message}"
        text = str(w.message)
        assert "\n" not in text and re.match(r"^[a-z_]+(\[\d+\])?(\.[a-z_]+(\[\d+\])?)*: ", text), text
    assert r.summary["conservation_ok"] is True
    return r.status


def _to_json(doc: Any) -> str:
    return json.dumps(doc, allow_nan=True, default=repr)


def record_case(doc: dict[str, Any], why: str) -> None:
    """Appends a case that broke the rule to :data:`CASES` (make fuzz)."""
    line = json.dumps({"why": why, "expect": "clean", "scenario": doc}, allow_nan=True)
    with CASES.open("a") as f:
        f.write(line + "\n")


def checked(doc: dict[str, Any]) -> str:
    """:func:`outcome`, keeping the case if it breaks the rule (or kills the
    process: the case is written first and removed after) in save mode."""
    if not SAVE:
        return outcome(doc)
    LAST.write_text(_to_json(doc))
    try:
        result = outcome(doc)
    except BaseException as e:
        record_case(doc, f"{type(e).__name__}: {str(e)[:300]}")
        LAST.unlink(missing_ok=True)
        raise
    LAST.unlink(missing_ok=True)
    return result


def adopt_leftover() -> None:
    """A case left by a process that died while running it (an abort) is
    kept as a regression case."""
    if LAST.exists():
        try:
            doc = json.loads(LAST.read_text())
            record_case(doc, "the process died while running this case")
        finally:
            LAST.unlink(missing_ok=True)


def load_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
