"""Congestion controls written in Python (`dumbbell.controls`), run by the
core's stack through its `external` controls (`crates/dumbbell-py/src/control.rs`).

- Reno written in Python gives the same tables, bit for bit, as the core's
  Rust Reno on a lossy scenario where losses and recoveries happen, for
  flows and for the connections of tasks; so does a control that overrides
  every hook with the default (the socket's copy-back changes nothing).
- The hooks are called in the order `docs/controls.md` documents, and a
  control's writes to the window take effect (a fixed window gives the
  throughput W·MSS/RTT predicts).
- A hook that raises stops the run with a ControlError naming the flow's
  field, the control and the hook; bad `cc=` values are ConfigErrors naming
  the field before anything runs; TOML and Dask refuse Python controls by name.
- Moving a control to Rust: docs/controls.md's worked example, Scalable TCP
  in Python (examples/scalable.py) and in Rust (cc/scalable.rs, one line in
  the registry), gives the same tables bit for bit; registered controls are
  named in Python and TOML, their parameters checked by the core.
- The docs' and the README's control examples run as written.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import polars as pl
import pytest

import dumbbell as db
from dumbbell.run import run_config
from dumbbell.controls import (
    INFINITE_SSTHRESH,
    CaEvent,
    CaState,
    CongestionControl,
    RenoPy,
    tcp_reno_cong_avoid,
    tcp_reno_ssthresh,
)

REPO = Path(__file__).resolve().parent.parent


def lossy(cc: object, *, workload: bool = False) -> db.Scenario:
    """Four Reno flows (staggered) through a 20 Mb/s bottleneck with 1 %
    random loss and a 60-packet drop-tail; optionally a workload of short
    transfers on the same path. Everything traced: cwnd on every ACK,
    per-flow samples, the bottleneck's queue."""
    s = db.dumbbell(4, 4, "100Mbps", "20Mbps", access_delay="1ms", bottleneck_delay="5ms",
                    queue=db.DropTail(limit_pkts=60), bottleneck_loss=0.01, duration_s=3.0, name="lossy")
    for i in range(4):
        s.add_flow(db.TcpFlow(src=f"snd{i + 1}", dst=f"rcv{i + 1}", start_s=0.1 * i, cc=cc))
    if workload:
        s.add_workload(db.Workload(
            clients=["rcv1", "rcv2"], servers=["snd3", "snd4"], sizes=db.Files(bytes=[30_000, 120_000]),
            arrivals=db.ClosedLoop(concurrency=2), cc=cc,
        ))
    s.record = db.Record(flow_sample_s=0.01, cwnd_every_ack=True,
                         queues=[db.QueueRecord(node="r1", peer="r2", sample_s=0.001)])
    return s


def _without_names(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Tables with the control's name blanked (the one column that must differ)."""
    return {k: (df.with_columns(pl.lit("").alias("cc")) if "cc" in df.columns else df) for k, df in tables.items()}


def _assert_same_tables(a: db.Result, b: db.Result) -> None:
    ta, tb = _without_names(a.tables), _without_names(b.tables)
    assert sorted(ta) == sorted(tb)
    for name in ta:
        assert ta[name].columns == tb[name].columns, name
        assert ta[name].dtypes == tb[name].dtypes, name
        assert ta[name].equals(tb[name]), f"table {name} differs"


class EveryHookReno(RenoPy):
    """Reno with every optional hook overridden by the default: each ACK
    crosses into Python several times and the socket is copied back after
    each writing hook."""

    name = "every_hook_reno"

    def init(self, tp):
        pass

    def set_state(self, tp, new_state):
        pass

    def cwnd_event(self, tp, ev):
        pass

    def in_ack_event(self, tp, flags):
        pass

    def pkts_acked(self, tp, sample):
        pass

    def undo_cwnd(self, tp):
        return max(tp.snd_cwnd, tp.prior_cwnd)


@pytest.fixture(scope="module")
def rust_reno() -> db.Result:
    return db.run(lossy("reno", workload=True))


def test_reno_in_python_equals_rust_reno_bit_for_bit(rust_reno):
    py = db.run(lossy(RenoPy(), workload=True))
    flows = rust_reno.flows.filter(pl.col("name") != "")
    # losses and recoveries actually happened, in every bulk flow and in tasks
    assert (flows["retransmits"] > 0).all(), flows.select("name", "retransmits")
    assert (flows["recoveries"] > 0).all()
    assert rust_reno.table("tasks").height > 5
    assert set(rust_reno.flows["cc"]) == {"reno"}
    assert set(py.flows["cc"]) == {"reno_py"}
    _assert_same_tables(rust_reno, py)


def test_every_hook_through_python_changes_nothing(rust_reno):
    py = db.run(lossy(EveryHookReno(), workload=True))
    assert set(py.flows["cc"]) == {"every_hook_reno"}
    _assert_same_tables(rust_reno, py)


# ---------------------------------------------------------------- hook order


class Recorder(CongestionControl):
    """Reno that logs every hook call: (hook, ca_state seen, argument)."""

    name = "recorder"

    def __init__(self, log: list) -> None:
        self.log = log

    def clone(self):
        # one connection only in these tests: share the log on purpose
        return self

    def init(self, tp):
        self.log.append(("init", tp.ca_state, None))

    def ssthresh(self, tp):
        self.log.append(("ssthresh", tp.ca_state, tp.snd_cwnd))
        return tcp_reno_ssthresh(tp)

    def cong_avoid(self, tp, ack, acked):
        self.log.append(("cong_avoid", tp.ca_state, acked))
        tcp_reno_cong_avoid(tp, acked)

    def set_state(self, tp, new_state):
        self.log.append(("set_state", tp.ca_state, new_state))

    def cwnd_event(self, tp, ev):
        self.log.append(("cwnd_event", tp.ca_state, ev))

    def in_ack_event(self, tp, flags):
        self.log.append(("in_ack_event", tp.ca_state, flags))

    def pkts_acked(self, tp, sample):
        self.log.append(("pkts_acked", tp.ca_state, sample.pkts_acked))


def test_hooks_are_called_in_the_documented_order():
    log: list = []
    s = db.dumbbell(1, 1, "100Mbps", "10Mbps", access_delay="1ms", bottleneck_delay="5ms",
                    queue=db.DropTail(limit_pkts=20), bottleneck_loss=0.02, duration_s=3.0)
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc=Recorder(log)))
    r = db.run(s)
    assert int(r.flows["recoveries"][0]) > 0
    hooks = [h for h, _, _ in log]
    # init first, once; then the first segment leaves with nothing in flight
    assert hooks[0] == "init" and hooks.count("init") == 1
    assert log[1] == ("cwnd_event", CaState.OPEN, CaEvent.TX_START)
    assert "in_ack_event" not in hooks[:2]
    # per ACK: in_ack_event first; pkts_acked, if any, right after it; at
    # most one cong_avoid, after them
    since_ack: list[str] = []
    for h in hooks[2:]:
        if h == "in_ack_event":
            since_ack = []
        elif h == "pkts_acked":
            assert since_ack == ["in_ack_event"], since_ack
        elif h == "cong_avoid":
            assert "cong_avoid" not in since_ack
        since_ack.append(h)
    # a reduction: ssthresh, then set_state to the new state while tp.ca_state
    # is still the old one (an RTO raises cwnd_event(LOSS) between them)
    reductions = 0
    for i, (h, state, _) in enumerate(log):
        if h != "ssthresh":
            continue
        reductions += 1
        nxt = log[i + 1]
        if nxt[0] == "cwnd_event":
            assert nxt[2] == CaEvent.LOSS
            nxt = log[i + 2]
            assert nxt[0] == "set_state" and nxt[2] == CaState.LOSS
        else:
            assert nxt[0] == "set_state" and nxt[2] in (CaState.CWR, CaState.RECOVERY), nxt
        assert nxt[1] == state  # tp.ca_state has not changed yet
    assert reductions >= int(r.flows["recoveries"][0])
    for h, state, new in log:
        if h == "set_state" and new != CaState.LOSS:
            assert state != new
    # a recovery ends with set_state(OPEN) then cwnd_event(COMPLETE_CWR)
    ends = [i for i, (h, st, new) in enumerate(log) if h == "set_state" and new == CaState.OPEN and st == CaState.RECOVERY]
    assert ends
    assert all(log[i + 1][0] == "cwnd_event" and log[i + 1][2] == CaEvent.COMPLETE_CWR for i in ends)
    # cong_avoid never runs inside a reduction (the stack runs PRR there)
    assert all(st in (CaState.OPEN, CaState.DISORDER) for h, st, _ in log if h == "cong_avoid")


# ---------------------------------------------------------------- writes take effect


class FixedWindow(CongestionControl):
    """A window of ``w`` packets, whatever happens."""

    name = "fixed"

    def __init__(self, w: int) -> None:
        self.w = w

    def init(self, tp):
        tp.snd_cwnd = self.w
        tp.snd_ssthresh = self.w

    def ssthresh(self, tp):
        return self.w

    def cong_avoid(self, tp, ack, acked):
        tp.snd_cwnd = self.w


@pytest.mark.parametrize("w", [8, 16])
def test_a_fixed_window_gives_the_throughput_it_predicts(w):
    # snd -1 Gb/s, 1 ms- r -1 Gb/s, 1 ms- rcv: the window, not the links, limits
    mss, wire = 1448, 1488
    s = db.chain(1, "1Gbps", "1ms", hosts=("snd", "rcv"), duration_s=2.5)
    s.add_flow(db.TcpFlow(src="snd", dst="rcv", cc=FixedWindow(w)))
    s.record = db.Record(warmup_s=0.5, flow_sample_s=0.01)
    r = db.run(s)
    f = r.flows.row(0, named=True)
    assert f["retransmits"] == 0 and f["cwnd_pkts"] == w
    # RTT: 4 ms of propagation, a data segment serialized twice, an ACK twice
    rtt_s = 4e-3 + 2 * wire * 8 / 1e9 + 2 * 40 * 8 / 1e9
    predicted = w * mss * 8 / rtt_s
    assert f["steady_goodput_bps"] == pytest.approx(predicted, rel=0.01)
    cwnd = r.flow_samples.filter(pl.col("time_s") > 0.1)["cwnd_pkts"]
    assert set(cwnd.to_list()) == {w}


def test_each_connection_gets_its_own_copy():
    class Counting(RenoPy):
        name = "counting"

        def __init__(self):
            self.acks = 0

        def in_ack_event(self, tp, flags):
            self.acks += 1

    template = Counting()
    s = db.dumbbell(2, 2, "100Mbps", "20Mbps", access_delay="1ms", duration_s=0.3)
    for i in (1, 2):
        s.add_flow(db.TcpFlow(src=f"snd{i}", dst=f"rcv{i}", cc=template))
    r = db.run(s)
    assert template.acks == 0  # the template itself never ran
    assert r.flows["cc"].to_list() == ["counting", "counting"]


def test_rng_is_the_connections_own_and_reproducible():
    seen: dict[str, list[float]] = {}

    class Draws(RenoPy):
        name = "draws"

        def init(self, tp):
            seen.setdefault(f"{tp.snd_nxt}", [])
            self.mine = [self.rng.random() for _ in range(3)]
            seen.setdefault("all", []).append(tuple(self.mine))

    s = db.dumbbell(2, 2, "100Mbps", "20Mbps", duration_s=0.1)
    for i in (1, 2):
        s.add_flow(db.TcpFlow(src=f"snd{i}", dst=f"rcv{i}", cc=Draws()))
    db.run(s, seed=7)
    first = list(seen["all"])
    seen.clear()
    db.run(s, seed=7)
    assert seen["all"] == first and first[0] != first[1]
    seen.clear()
    db.run(s, seed=8)
    assert seen["all"] != first


# ---------------------------------------------------------------- errors


def _one_flow(cc: object, duration_s: float = 0.5) -> db.Scenario:
    s = db.dumbbell(2, 2, "100Mbps", "20Mbps", access_delay="1ms", duration_s=duration_s)
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc="reno"))
    s.add_flow(db.TcpFlow(src="snd2", dst="rcv2", cc=cc))
    return s


def test_an_exception_in_a_hook_stops_the_run_naming_field_control_and_hook():
    class Broken(RenoPy):
        name = "broken"

        def cong_avoid(self, tp, ack, acked):
            if tp.snd_cwnd > 20:
                raise ZeroDivisionError("my bug")
            super().cong_avoid(tp, ack, acked)

    with pytest.raises(db.ControlError) as ei:
        db.run(_one_flow(Broken(), duration_s=60.0), timeout_s=120)
    e = ei.value
    assert (e.field, e.control, e.hook) == ("flows[1].cc", "broken", "cong_avoid")
    assert isinstance(e.__cause__, ZeroDivisionError)
    assert "my bug" in str(e) and "flows[1].cc" in str(e) and "cong_avoid" in str(e)
    assert 0 < e.time_s < 1.0  # it stopped at once, not after 60 simulated seconds
    assert isinstance(e, db.SimulationError)


@pytest.mark.parametrize(
    ("hook_body", "hook", "cause"),
    [
        ("ssthresh", "ssthresh", TypeError),  # returns 2.5
        ("readonly", "cong_avoid", AttributeError),  # writes tp.srtt_ps
        ("zero", "cong_avoid", ValueError),  # writes snd_cwnd = 0
        ("in_ssthresh", "ssthresh", AttributeError),  # writes in ssthresh
    ],
)
def test_bad_returns_and_writes_are_hook_errors(hook_body, hook, cause):
    class Bad(RenoPy):
        name = "bad"

        def ssthresh(self, tp):
            if hook_body == "ssthresh":
                return 2.5
            if hook_body == "in_ssthresh":
                tp.snd_cwnd = 4
            return super().ssthresh(tp)

        def cong_avoid(self, tp, ack, acked):
            if hook_body == "readonly":
                tp.srtt_ps = 1
            if hook_body == "zero":
                tp.snd_cwnd = 0
            super().cong_avoid(tp, ack, acked)

    s = _one_flow(Bad(), duration_s=5.0)
    s.link("r1", "r2").loss_ab = 0.02
    with pytest.raises(db.ControlError) as ei:
        db.run(s)
    assert ei.value.hook == hook and ei.value.field == "flows[1].cc"
    assert isinstance(ei.value.__cause__, cause), repr(ei.value.__cause__)


class NoSsthresh(CongestionControl):
    def cong_avoid(self, tp, ack, acked):
        pass


class OnlyCongControl(CongestionControl):
    def ssthresh(self, tp):
        return 2

    def cong_control(self, tp, ack, rs):
        tp.snd_cwnd = 10


@pytest.mark.parametrize(
    ("cc", "words"),
    [
        (object(), "CongestionControl"),
        (RenoPy, "pass an instance"),
        (NoSsthresh(), "does not implement ssthresh"),
        (42, "CongestionControl"),
    ],
)
def test_bad_cc_objects_are_config_errors_naming_the_field(cc, words):
    with pytest.raises(db.ConfigError) as ei:
        db.TcpFlow(src="a", dst="b", cc=cc)
    assert ei.value.field == "cc" and words in ei.value.message
    s = db.dumbbell(1, 1, "100Mbps", "20Mbps", duration_s=0.1)
    with pytest.raises(db.ConfigError) as ei:
        db.Scenario.from_dict({**s.model_dump(), "flows": [{"src": "snd1", "dst": "rcv1", "cc": cc}]})
    assert ei.value.field == "flows[0].cc"


def test_cong_control_alone_is_enough():
    r = db.run(_one_flow(OnlyCongControl()))
    f = r.flows.row(1, named=True)
    assert f["cc"] == "onlycongcontrol" and f["cwnd_pkts"] == 10 and f["bytes_delivered"] > 0


def test_python_controls_cannot_be_written_to_toml():
    s = _one_flow(RenoPy())
    with pytest.raises(db.ConfigError) as ei:
        s.to_toml()
    assert ei.value.field == "flows[1].cc" and "TOML" in ei.value.message
    # the core document names it by that path
    core = s.to_core()
    assert core["flows"][1]["cc"] == {"kind": "external", "id": "flows[1].cc"}
    assert list(s.python_controls()) == ["flows[1].cc"]


def test_the_core_refuses_an_external_control_it_was_not_given():
    s = _one_flow(RenoPy())
    with pytest.raises(db.ConfigError) as ei:
        run_config(s.to_core())
    assert ei.value.field == "flows[1].cc.id" and "external" in ei.value.message


def test_sweeps_run_python_controls_locally_and_refuse_dask(tmp_path):
    s = _one_flow(RenoPy(), duration_s=0.3)
    # a store of its own: store=None would be ./dumbbell-results of the checkout
    res = db.sweep(s, grid={"links[2].loss_ab": [0.0, 0.01]}, repeats=1, executor="local", store=tmp_path / "store")
    assert [r.status for r in res.records] == ["ok", "ok"]
    # the sweep's run at loss 0 is the direct run, bit for bit
    direct = db.run(s)
    swept = res.table("flows").filter(pl.col("links[2].loss_ab") == 0.0).select(direct.flows.columns)
    assert swept.equals(direct.flows)
    assert swept["cc"][1] == "reno_py"
    lossy_point = res.table("flows").filter(pl.col("links[2].loss_ab") == 0.01)
    assert int(lossy_point["retransmits"][1]) > 0
    with pytest.raises(db.ConfigError) as ei:
        db.sweep(s, grid={"links[2].loss_ab": [0.0]}, executor="dask", store=tmp_path / "store")
    assert ei.value.field == "flows[1].cc" and "dask" in ei.value.message.lower()


def test_the_core_crate_has_no_python():
    core = REPO / "crates" / "dumbbell-core"
    assert "pyo3" not in (core / "Cargo.toml").read_text()
    for p in (core / "src").rglob("*.rs"):
        assert not re.search(r"\bpyo3\b|Python::", p.read_text()), p


def test_constants_match_the_core():
    assert INFINITE_SSTHRESH == 0x7FFFFFFF
    assert [c.value for c in CaState] == [0, 1, 2, 3, 4]


def test_a_run_with_a_python_control_saves_its_tables_and_says_why_it_cannot_reload(tmp_path):
    r = db.run(_one_flow(RenoPy(), duration_s=0.2))
    r.to_parquet(tmp_path)
    assert 'control = "python:dumbbell.controls.RenoPy"' in (tmp_path / "scenario.toml").read_text()
    assert pl.read_parquet(tmp_path / "flows.parquet").equals(r.flows)
    with pytest.raises(db.ConfigError) as ei:
        db.Result.load(tmp_path)
    assert ei.value.field.endswith("flows[1].cc") and "written in Python" in ei.value.message


# ---------------------------------------------------------------- moved to Rust


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", REPO / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_worked_example_and_its_rust_port_agree_bit_for_bit(rust_reno):
    """docs/controls.md's example: Scalable TCP written in Python
    (examples/scalable.py) and moved to Rust (cc/scalable.rs, one line in
    the registry) gives the same tables; small ai_cnt and md_shift 2 so the
    run is in the regime where Scalable is not Reno."""
    ex = _example("scalable")
    py = db.run(lossy(ex.ScalablePy(ai_cnt=8, md_shift=2), workload=True))
    rust = db.run(lossy({"kind": "scalable", "ai_cnt": 8, "md_shift": 2}, workload=True))
    assert set(rust.flows["cc"]) == {"scalable"} and set(py.flows["cc"]) == {"scalable_py"}
    assert int(rust.table("cwnd")["cwnd_pkts"].max()) > 8
    assert (rust.flows["recoveries"] > 0).all()
    assert not _without_names(rust.tables)["flows"].equals(_without_names(rust_reno.tables)["flows"])
    _assert_same_tables(py, rust)


def test_registered_controls_by_name_in_python_and_toml(tmp_path):
    assert "scalable" in db.scenario.CONTROLS and "scalable" in db.scenario.REGISTERED
    f = db.TcpFlow(src="a", dst="b", cc="scalable")
    assert f.cc.kind == "scalable" and f.to_core(0)["cc"] == {"kind": "registered", "name": "scalable", "params": {}}
    f = db.TcpFlow(src="a", dst="b", cc={"kind": "scalable", "ai_cnt": 50})
    assert f.to_core(0)["cc"]["params"] == {"ai_cnt": 50}
    s = _one_flow({"kind": "scalable", "ai_cnt": 50})
    path = tmp_path / "s.toml"
    path.write_text(s.to_toml())
    assert db.Scenario.from_toml(path).to_core() == s.to_core()
    with pytest.raises(db.ConfigError) as ei:
        db.TcpFlow(src="a", dst="b", cc="scalabel")
    assert ei.value.field == "cc" and "scalable" in ei.value.message
    # the core checks the parameters before the run, naming them
    for bad, where in (({"ai_cnt": 0}, "flows[1].cc.params.ai_cnt"), ({"beta": 1}, "flows[1].cc.params")):
        with pytest.raises(db.ConfigError) as ei:
            db.run(_one_flow({"kind": "scalable", **bad}))
        assert ei.value.field == where, ei.value


# ---------------------------------------------------------------- the docs as written


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_the_docs_first_control_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(_python_blocks(REPO / "docs" / "controls.md")[0], ns)  # noqa: S102 - the doc's own code
    r = ns["r"]
    assert r.flows["cc"].to_list() == ["aimd", "cubic"]
    assert int(r.flows["recoveries"][0]) > 0 and (tmp_path / "cwnd.png").stat().st_size > 1000


def test_the_readme_control_runs_in_the_readme_scenario():
    blocks = _python_blocks(REPO / "README.md")
    ns: dict = {}
    exec(blocks[0].split("r = db.run(")[0], ns)  # noqa: S102 - the README's own code
    gentle = next(b for b in blocks if "class Gentle" in b)
    exec(gentle, ns)  # noqa: S102
    s = ns["s"]
    s.duration_s = 0.5
    r = db.run(s)
    row = r.flows.filter(pl.col("cc") == "gentle").row(0, named=True)
    assert row["src"] == "b" and row["bytes_delivered"] > 0


# ---------------------------------------------------------------- state after the run


def test_the_result_holds_each_connections_control_as_it_ended():
    class Tracing(RenoPy):
        name = "tracing"

        def __init__(self):
            self.cwnds: list[tuple[int, int]] = []

        def cong_avoid(self, tp, ack, acked):
            super().cong_avoid(tp, ack, acked)
            self.cwnds.append((tp.now_ps, tp.snd_cwnd))

    template = Tracing()
    s = lossy(template, workload=True)
    s.duration_s = 1.0
    r = db.run(s)
    assert sorted(r.controls) == ["flows[0].cc", "flows[1].cc", "flows[2].cc", "flows[3].cc", "workloads[0].cc"]
    assert template.cwnds == []
    (first,) = r.controls["flows[0].cc"]
    assert first is not template and first.cwnds
    # what the control saw is what the stack traced on every ACK
    cwnd = r.table("cwnd").filter(pl.col("flow") == 0)
    traced = set(zip(cwnd["time_ps"].to_list(), cwnd["cwnd_pkts"].to_list()))
    assert set(first.cwnds) <= traced
    # a workload: one copy per connection, in the order they were made
    tasks = r.table("tasks")
    assert len(r.controls["workloads[0].cc"]) == tasks.height >= 2


def test_a_clone_that_fails_is_a_control_error():
    class NoCopy(RenoPy):
        name = "nocopy"

        def clone(self):
            raise RuntimeError("cannot copy")

    with pytest.raises(db.ControlError) as ei:
        db.run(_one_flow(NoCopy()))
    e = ei.value
    assert (e.field, e.hook, e.control) == ("flows[1].cc", "clone", "test_a_clone_that_fails_is_a_control_error.<locals>.NoCopy")
    assert isinstance(e.__cause__, RuntimeError)
