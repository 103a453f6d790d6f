"""Valid but implausible values: one warning naming the field, the value used
(dumbbell.scenario.plausible); strings without units are refused (dumbbell.scenario.units)."""

from __future__ import annotations

import warnings

import pytest

import dumbbell as db

from .conftest import MINIMAL_TOML, write_toml


def _pair(duration_s: float = 0.2) -> db.Scenario:
    s = db.star(["a", "b"], rate="100Mbps", delay="50us", duration_s=duration_s, name="pair")
    s.add_flow(db.TcpFlow(src="a", dst="b", cc="reno"))
    return s


def test_a_plausible_run_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = db.run(_pair(), seed=1)
    assert r.flows["bytes_delivered"][0] > 0


def test_a_rate_below_1_kbps_is_used_with_one_warning_naming_it():
    s = _pair()
    s.link("a", "s1").rate_bps = 50  # meant 50 Mb/s
    with pytest.warns(db.DumbbellWarning) as caught:
        r = db.run(s, seed=1)
    fields = [str(w.message).split(":")[0] for w in caught]
    # the rate, then the consequence: one 1500-byte packet takes 4 minutes at 50 b/s
    assert fields == ["links[0].rate_bps", "flows"], [str(w.message) for w in caught]
    assert "'50Mbps'" in str(caught[0].message)
    assert r.config["links"][0]["rate_bps"] == 50  # accepted as given
    assert r.flows["bytes_delivered"][0] == 0


def test_a_delay_above_10_s_is_used_with_one_warning_naming_it():
    s = _pair(duration_s=60)
    s.link("b", "s1").delay_s = 13  # meant 13 ms
    with pytest.warns(db.DumbbellWarning) as caught:
        r = db.run(s, seed=1)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith("links[1].delay_s: 13 s is above 10 s"), messages
    assert r.config["links"][1]["delay_ps"] == 13 * 10**12
    # 60 s is enough for the handshake (26 s) and data (13 s more): no "nothing delivered"
    assert r.flows["bytes_delivered"].min() > 0


def test_a_run_that_delivers_nothing_warns_naming_flows():
    # Plausible values, but the round trip (2 x 2 x 2 s) is longer than the run.
    s = _pair(duration_s=1.0)
    s.link("a", "s1").delay_s = 2
    s.link("b", "s1").delay_s = 2
    with pytest.warns(db.DumbbellWarning, match=r"^flows: no flow delivered any data in 1 s"):
        r = db.run(s, seed=1)
    assert r.flows["bytes_delivered"].sum() == 0


def test_implausible_values_walks_every_model():
    from dumbbell.scenario.plausible import implausible_values

    s = _pair()
    s.add_flow(db.TcpFlow(src="b", dst="a", tcp=db.TcpOptions(max_rate_bps=999)))
    s.link("a", "s1").jitter_s = 11
    s.set_queue("s1", "b", db.DropTail(limit_pkts=100))
    assert [f for f, _ in implausible_values(s)] == ["links[0].jitter_s", "flows[1].tcp.max_rate_bps"]


def test_the_command_line_prints_one_warning_line_and_runs(cli, tmp_path):
    path = write_toml(tmp_path, MINIMAL_TOML.format(rate="500bps", cc="reno"))
    r = cli("run", str(path))
    assert r.code == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "warning" in line]
    assert lines[0].startswith("dumbbell: warning: links[0].rate_bps: 500 bit/s is below 1 kb/s"), r.stderr
    assert lines[1].startswith("dumbbell: warning: flows: no flow delivered any data"), r.stderr
    assert len(lines) == 2, r.stderr


def test_a_toml_string_without_a_unit_is_refused_naming_the_field(cli, tmp_path):
    path = write_toml(tmp_path, MINIMAL_TOML.format(rate="50", cc="reno"))
    r = cli("run", str(path))
    assert r.code == 2
    assert "links[0].rate_bps: the rate '50' has no unit: write e.g. '50Mbps'" in r.stderr


def test_a_sweep_warns_once_per_implausible_value_naming_its_points(tmp_path):
    s = _pair(duration_s=0.1)
    with pytest.warns(db.DumbbellWarning) as caught:
        res = db.sweep(s, grid={"links[0].rate_bps": [50, "50Mbps"], "flows[0].cc": ["reno", "cubic"]},
                       store=tmp_path / "store")
    messages = [str(w.message) for w in caught]
    # one warning for the value, naming both points that hold it
    assert messages == ["links[0].rate_bps: 50 bit/s is below 1 kb/s; did you mean '50Mbps'? (the value is used as "
                        "given) (at grid point links[0].rate_bps=50, flows[0].cc='reno'; links[0].rate_bps=50, "
                        "flows[0].cc='cubic')"], messages
    assert res.runs["status"].to_list() == ["ok"] * 4


def test_a_sweep_of_plausible_values_is_silent(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        db.sweep(_pair(duration_s=0.1), grid={"links[0].rate_bps": ["10Mbps", "50Mbps"]}, store=tmp_path / "store")
