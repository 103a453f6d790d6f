"""`dumbbell reproduce NAME --tcp KEY=VALUE` (issue 29): a TCP option set on
every connection of every run, through the sweep engine, before the runs'
identities are computed (python/dumbbell/sweep/tcpset.py)."""

from __future__ import annotations

import json

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.sweep.engine import RunSpec, execute, simulator_version, using
from dumbbell.sweep.tcpset import parse_tcp

from .conftest import two_flow_star
from .test_cli import assert_bad_input


def _mixed(mss: int | None = None) -> db.Scenario:
    """Two bulk TCP flows, a UDP flow and a workload of file transfers."""
    s = two_flow_star(duration_s=0.05)
    if mss is not None:
        s.flows[1].tcp = db.TcpOptions(mss_bytes=mss)
    s.add_flow(db.UdpFlow(name="u", src="b", dst="a", rate_bps=1e6))
    s.workloads.append(db.Workload(clients=["a"], servers=["c"], sizes={"kind": "files", "bytes": [20_000, 30_000]},
                                   arrivals={"kind": "all_at_once"}))
    return s


def test_unknown_key_names_it_with_the_closest_name():
    with pytest.raises(ConfigError) as e:
        parse_tcp(["gso_max_byte=65536"])
    assert e.value.field == "--tcp gso_max_byte"
    assert "did you mean 'gso_max_bytes'" in e.value.message


@pytest.mark.parametrize("item, field, words", [
    ("gso_max_bytes=100", "--tcp gso_max_bytes", "must hold one MSS"),  # the model's own cross-field rule
    ("gso_max_bytes=-1", "--tcp gso_max_bytes", "at least 0"),
    ("gso_max_bytes=lots", "--tcp gso_max_bytes", "integer"),
    ("init_cwnd_pkts=0", "--tcp init_cwnd_pkts", "at least 1"),
    ("profile=linux-2.4", "--tcp profile", "set the options themselves"),
    ("gso_max_bytes", "--tcp", "KEY=VALUE"),
])
def test_bad_value_gets_the_fields_own_error(item, field, words):
    with pytest.raises(ConfigError) as e:
        parse_tcp([item])
    assert e.value.field == field and words in e.value.message, str(e.value)


def test_a_key_given_twice_is_refused():
    with pytest.raises(ConfigError, match="given twice"):
        parse_tcp(["gso_max_bytes=65536", "gso_max_bytes=0"])


def test_values_take_the_cores_names_and_units():
    t = parse_tcp(["min_rto_s=0.01", "gso_max_bytes=65536", "delayed_ack=false"])
    assert dict(t.core) == {"min_rto_ps": 10_000_000_000, "gso_max_bytes": 65536, "delayed_ack": False}
    assert t.as_dict() == {"min_rto_s": 0.01, "gso_max_bytes": 65536, "delayed_ack": False}
    assert t.describe() == ("TCP options min_rto_s = 0.01, gso_max_bytes = 65536, delayed_ack = false set on every "
                            "connection, over the experiment's own setting")
    assert not parse_tcp([])


def test_the_setting_reaches_every_tcp_connection_and_nothing_else():
    s = _mixed(mss=9000)
    before = s.to_core(3)
    after = parse_tcp(["gso_max_bytes=65536"]).apply(before)
    kinds = [f["kind"] for f in after["flows"]]
    assert kinds == ["tcp", "tcp", "udp"]
    for f in after["flows"]:
        assert (f.get("tcp") or {}).get("gso_max_bytes") == (65536 if f["kind"] == "tcp" else None)
    assert after["workloads"][0]["tcp"]["gso_max_bytes"] == 65536
    # over what the experiment set: the connection's other options stay
    assert after["flows"][1]["tcp"] == {**before["flows"][1]["tcp"], "gso_max_bytes": 65536}
    assert after["flows"][1]["tcp"]["mss_bytes"] == 9000
    # the input document is left as it was
    assert before == s.to_core(3)
    assert "gso_max_bytes" not in json.dumps(before)


def test_a_connection_that_conflicts_is_refused_naming_its_field():
    cfg = _mixed(mss=9000).to_core(1)
    with pytest.raises(ConfigError) as e:
        parse_tcp(["gso_max_bytes=8000"]).apply(cfg)
    assert e.value.field == "--tcp (flows[1].tcp.gso_max_bytes)"
    assert "must hold one MSS" in e.value.message
    s = _mixed()
    s.workloads[0].tcp = db.TcpOptions(tlp=True)
    with pytest.raises(ConfigError) as e:
        parse_tcp(["sack=false"]).apply(s.to_core(1))
    assert e.value.field == "--tcp (workloads[0].tcp.tlp)" and "needs SACK" in e.value.message


def test_the_setting_changes_the_run_id_and_none_leaves_it():
    version = simulator_version()
    spec = RunSpec.of(_mixed(), 5, {"experiment": "t"}, version)
    on = spec.with_tcp(parse_tcp(["gso_max_bytes=65536"]), version)
    assert on.run_id != spec.run_id and on.seed == spec.seed and on.labels == spec.labels
    assert spec.with_tcp(parse_tcp([]), version) is spec
    other = spec.with_tcp(parse_tcp(["gso_max_bytes=32768"]), version)
    assert len({spec.run_id, on.run_id, other.run_id}) == 3


def test_execute_runs_every_document_with_the_setting(tmp_path):
    """Through the engine, as `reproduce` runs: the stored runs' documents
    hold the setting on every connection, the store keeps both variants, and
    without a setting the ids are RunSpec's own (what they were)."""
    version = simulator_version()
    specs = [RunSpec.of(_mixed(), seed, {"experiment": "t"}, version) for seed in (1, 2)]
    store = tmp_path / "store"
    with using(store=store, workers=1):
        plain = execute(specs, label="t")
    with using(store=store, workers=1, tcp=parse_tcp(["gso_max_bytes=65536"])):
        tso = execute(specs, label="t")
        again = db.sweep(_mixed(), store=store)  # a nested sweep keeps the block's setting
    assert [r.run_id for r in plain] == [s.run_id for s in specs]
    assert all(r.ok for r in plain + tso)
    assert not {r.run_id for r in plain} & {r.run_id for r in tso}
    from dumbbell.sweep.store import Store

    st = Store(store)
    for rec in tso + again.records:
        cfg = st.config_of(rec.run_id)  # the exact core document that was run
        conns = [f["tcp"] for f in cfg["flows"] if f["kind"] == "tcp"] + [w["tcp"] for w in cfg["workloads"]]
        assert len(conns) == 3 and all(t["gso_max_bytes"] == 65536 for t in conns)
    # the bursts change what the senders did: one skb of up to 64 KB at a time
    assert [r.summary for r in plain] != [r.summary for r in tso]


def test_reproduce_refuses_a_bad_setting_before_anything_runs(cli, tmp_path):
    out = tmp_path / "out"
    assert_bad_input(cli("reproduce", "dctcp-queue", "--tcp", "gso_max_byts=65536", "--out", str(out)),
                     "--tcp gso_max_byts", "gso_max_bytes")
    assert_bad_input(cli("reproduce", "all", "--tcp", "gso_max_bytes=12", "--out", str(out)),
                     "--tcp gso_max_bytes", "MSS")
    assert not out.exists()


def test_reproduce_says_the_runs_used_the_setting(cli, tmp_path):
    out = tmp_path / "e1"
    res = cli("reproduce", "dctcp-queue", "--scale", "quick", "--tcp", "gso_max_bytes=0", "--json", "--out", str(out))
    assert res.code == 0, res.stderr
    note = "TCP option gso_max_bytes = 0 set on every connection, over the experiment's own setting"
    doc = json.loads(res.stdout)
    assert doc["tcp"] == {"gso_max_bytes": 0} and doc["note"] == note
    assert json.loads((out / "result.json").read_text())["tcp"] == {"gso_max_bytes": 0}
    meta = json.loads((out / "meta.json").read_text())
    assert meta["tcp"] == {"gso_max_bytes": 0} and meta["note"] == note
    assert f"note: {note}" in res.stderr
    assert doc["rows"] and doc["paper"] and all("verdict" in p for p in doc["paper"])


def test_the_html_report_says_so(tmp_path):
    from dumbbell.sweep.report import write_report

    d = tmp_path / "out" / "dctcp-queue"
    d.mkdir(parents=True)
    note = parse_tcp(["gso_max_bytes=65536"]).describe()
    (d / "meta.json").write_text(json.dumps({"experiment": "dctcp-queue", "note": note, "tcp": {"gso_max_bytes": 65536}}))
    (d / "result.json").write_text(json.dumps({"experiment": "dctcp-queue", "scale": "quick", "seed": 1,
                                               "rows": [], "paper": []}))
    write_report(tmp_path / "out")
    import html

    assert html.escape(note) in (d / "index.html").read_text()


def test_an_outcomes_result_holds_the_document_as_it_ran(tmp_path):
    from dumbbell.experiments.repeat import Job, run_jobs

    with using(store=tmp_path / "store", workers=1, tcp=parse_tcp(["gso_max_bytes=65536"])):
        (out,) = run_jobs([Job(("t", 0), _mixed(), 1)], label="t")
        config = out.result().config
    assert [f["tcp"]["gso_max_bytes"] for f in config["flows"] if f["kind"] == "tcp"] == [65536, 65536]
    assert config["workloads"][0]["tcp"]["gso_max_bytes"] == 65536
