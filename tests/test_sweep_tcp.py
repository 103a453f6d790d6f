"""`dumbbell sweep SCENARIO.toml --tcp KEY=VALUE` (issue 29): a TCP option on
every TCP connection of every run of a sweep, flows and workloads, checked
before anything runs; the variant's runs sit beside the plain ones in one
store, under a catalog label of their own; without it, nothing changes
(python/dumbbell/cli.py, python/dumbbell/sweep/tcpset.py)."""

from __future__ import annotations

import json

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.sweep.store import Store

from .test_cli import assert_bad_input
from .test_tcpset import _mixed

GRID = ("--grid", "flows[0].cc=reno,cubic")


def _toml(tmp_path, mss: int | None = None) -> str:
    path = tmp_path / "mixed.toml"
    path.write_text(_mixed(mss).to_toml())
    return str(path)


def _connections(cfg: dict) -> list[dict]:
    """Every TCP connection's core options of a run document."""
    return [f.get("tcp") or {} for f in cfg["flows"] if f["kind"] == "tcp"] + \
        [w.get("tcp") or {} for w in cfg.get("workloads") or []]


def test_the_setting_reaches_every_connection_and_both_variants_share_a_store(cli, tmp_path):
    scenario, store = _toml(tmp_path), tmp_path / "st"
    plain = cli("sweep", scenario, *GRID, "--store", str(store), "--workers", "1", "--json")
    assert plain.code == 0, plain.stderr
    tso = cli("sweep", scenario, *GRID, "--store", str(store), "--workers", "1", "--json",
              "--tcp", "gso_max_bytes=65536", "--tcp", "delayed_ack=false")
    assert tso.code == 0, tso.stderr
    p, t = json.loads(plain.stdout), json.loads(tso.stdout)
    assert t["tcp"] == {"gso_max_bytes": 65536, "delayed_ack": False} and "tcp" not in p
    assert p["sweep"] == "sweep:two-flow-star"
    assert t["sweep"] == "sweep:two-flow-star+tcp:gso_max_bytes=65536,delayed_ack=false"
    assert "TCP options gso_max_bytes = 65536, delayed_ack = false set on every connection" in tso.stderr
    plain_ids, tso_ids = [r["run_id"] for r in p["runs"]], [r["run_id"] for r in t["runs"]]
    assert len(set(plain_ids)) == len(set(tso_ids)) == 2 and not set(plain_ids) & set(tso_ids)
    assert not any(r["cached"] for r in t["runs"])  # computed, not the plain runs found again
    st = Store(store)
    for rid in tso_ids:
        conns = _connections(st.config_of(rid))  # the exact core document that ran
        assert len(conns) == 3  # two bulk flows and the workload; the UDP flow has none
        assert all(c["gso_max_bytes"] == 65536 and c["delayed_ack"] is False for c in conns), conns
    for rid in plain_ids:
        assert all("gso_max_bytes" not in c for c in _connections(st.config_of(rid)))
    # the bursts and the ACK per packet change what the senders did
    assert [r["data_packets_sent"] for r in p["runs"]] != [r["data_packets_sent"] for r in t["runs"]] or \
        [r["goodput_bps"] for r in p["runs"]] != [r["goodput_bps"] for r in t["runs"]]
    # each variant is a sweep of its own in the catalog, reported apart
    report = cli("report", str(store), "--sweep", t["sweep"], "--out", str(tmp_path / "rep"))
    assert report.code == 0, report.stderr
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "+tcp:gso_max_bytes=65536" in page
    # again with the setting: every run from the store
    again = cli("sweep", scenario, *GRID, "--store", str(store), "--workers", "1", "--json",
                "--tcp", "gso_max_bytes=65536", "--tcp", "delayed_ack=false")
    assert [r["run_id"] for r in json.loads(again.stdout)["runs"]] == tso_ids
    assert all(r["cached"] for r in json.loads(again.stdout)["runs"])


def test_without_the_setting_the_run_ids_are_the_sweeps_own(cli, tmp_path):
    """No --tcp: the same run ids as the Python sweep of the same grid, which
    knows nothing of the option."""
    scenario = _toml(tmp_path)
    res = cli("sweep", scenario, *GRID, "--store", str(tmp_path / "st"), "--workers", "1", "--json")
    assert res.code == 0, res.stderr
    ids = [r["run_id"] for r in json.loads(res.stdout)["runs"]]
    py = db.sweep(_mixed(), grid={"flows[0].cc": ["reno", "cubic"]}, store=False, workers=1)
    assert ids == [r.run_id for r in py.records]


def test_a_bad_setting_is_refused_before_anything_runs(cli, tmp_path):
    scenario, store = _toml(tmp_path), tmp_path / "st"
    assert_bad_input(cli("sweep", scenario, *GRID, "--store", str(store), "--tcp", "gso_max_byts=65536"),
                     "--tcp gso_max_byts", "did you mean 'gso_max_bytes'")
    assert_bad_input(cli("sweep", scenario, *GRID, "--store", str(store), "--tcp", "gso_max_bytes=12"),
                     "--tcp gso_max_bytes", "MSS")
    assert_bad_input(cli("sweep", scenario, "--store", str(store), "--tcp", "init_cwnd_pkts=lots"),
                     "--tcp init_cwnd_pkts")
    assert not store.exists()
    # a setting that a grid point's own options refuse: named at that
    # connection, before any run of the sweep
    res = cli("sweep", _toml(tmp_path, mss=1448), "--grid", "flows[1].tcp.mss_bytes=1448,9000", "--store", str(store),
              "--tcp", "gso_max_bytes=8000")
    assert_bad_input(res, "--tcp (flows[1].tcp.gso_max_bytes)", "MSS")
    assert not store.exists() or Store(store).query("SELECT count(*) FROM runs").item() == 0


def test_the_python_sweep_takes_the_same_setting_as_the_command(cli, tmp_path):
    """``db.sweep(..., tcp={...})`` is ``dumbbell sweep --tcp``: the same run
    ids, the same documents, the same catalog label."""
    scenario = _toml(tmp_path)
    res = cli("sweep", scenario, *GRID, "--store", str(tmp_path / "st"), "--workers", "1", "--json",
              "--tcp", "gso_max_bytes=65536", "--tcp", "delayed_ack=false")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    st = tmp_path / "py"
    py = db.sweep(_mixed(), grid={"flows[0].cc": ["reno", "cubic"]}, store=st, workers=1,
                  tcp={"gso_max_bytes": 65536, "delayed_ack": False})
    assert [r.run_id for r in py.records] == [r["run_id"] for r in doc["runs"]]
    assert py.name == doc["sweep"] == "sweep:two-flow-star+tcp:gso_max_bytes=65536,delayed_ack=false"
    conns = _connections(Store(st).config_of(py.records[0].run_id))
    assert len(conns) == 3 and all(c["gso_max_bytes"] == 65536 and c["delayed_ack"] is False for c in conns)
    # an empty mapping is no setting: the plain sweep's ids
    plain = db.sweep(_mixed(), grid={"flows[0].cc": ["reno", "cubic"]}, store=False, workers=1, tcp={})
    assert plain.name == "sweep:two-flow-star"
    assert not {r.run_id for r in plain.records} & {r.run_id for r in py.records}


@pytest.mark.parametrize("tcp, field, words", [
    ({"gso_max_byts": 65536}, "tcp.gso_max_byts", "did you mean 'gso_max_bytes'"),
    ({"gso_max_bytes": 12}, "tcp.gso_max_bytes", "MSS"),
    ({"init_cwnd_pkts": "lots"}, "tcp.init_cwnd_pkts", "integer"),
    ({"profile": "linux-6.8"}, "tcp.profile", "set the options themselves"),
    (["gso_max_bytes=65536"], "tcp", "mapping"),
])
def test_the_python_sweep_refuses_a_bad_setting_before_anything_runs(tmp_path, tcp, field, words):
    store = tmp_path / "st"
    with pytest.raises(ConfigError) as e:
        db.sweep(_mixed(), grid={"flows[0].cc": ["reno", "cubic"]}, store=store, workers=1, tcp=tcp)
    assert e.value.field == field and words in e.value.message, (e.value.field, e.value.message)
    assert not store.exists()


def test_a_setting_is_given_in_one_place(tmp_path):
    from dumbbell.sweep.tcpset import parse_tcp

    from dumbbell.sweep import using

    with using(store=tmp_path / "st", workers=1, tcp=parse_tcp(["delayed_ack=false"])):
        with pytest.raises(ConfigError) as e:
            db.sweep(_mixed(), store=False, tcp={"gso_max_bytes": 65536})
    assert e.value.field == "tcp" and "one place" in e.value.message


def test_using_takes_the_mapping_too(tmp_path):
    from dumbbell.sweep import using

    with using(store=tmp_path / "st", workers=1, tcp={"gso_max_bytes": 65536}):
        res = db.sweep(_mixed())
    direct = db.sweep(_mixed(), store=tmp_path / "st2", workers=1, tcp={"gso_max_bytes": 65536})
    assert [r.run_id for r in res.records] == [r.run_id for r in direct.records]
    assert res.name == direct.name == "sweep:two-flow-star+tcp:gso_max_bytes=65536"
    with pytest.raises(ConfigError) as e:
        with using(store=tmp_path / "st3", workers=1, tcp={"gso_max_byts": 1}):
            pass
    assert e.value.field == "tcp.gso_max_byts"
