""""Did you mean": a misspelt field, control, queue kind or node name gets
the closest known one, in Python and from TOML (dumbbell.suggest)."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.suggest import closest

from .conftest import MINIMAL_TOML, write_toml


def test_closest_picks_a_near_name_and_nothing_for_a_far_one():
    assert closest("dealy_s", ["rate_bps", "delay_s", "jitter_s"]) == "delay_s"
    assert closest("Cubic", ["reno", "cubic"]) == "cubic"
    assert closest("zzzz", ["reno", "cubic"]) is None
    assert closest("reno", ["reno", "cubic"]) is None  # known: nothing to suggest


def _scenario_data() -> dict:
    s = db.star(["a", "b"], rate="100Mbps", delay="75us", duration_s=0.2)
    s.add_flow(db.TcpFlow(src="a", dst="b"))
    return s.model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda d: d["links"][1].update(dealy_s=0.1), "links[1].dealy_s: unknown field (did you mean 'delay_s'?)"),
        (lambda d: d["links"][1].update(queue_ba={"kind": "droptial"}), "links[1].queue_ba.kind: unknown kind 'droptial' (did you mean 'droptail'?)"),
        (lambda d: d["links"][1].update(queue_ba={"kind": "red", "min_th": 1, "max_th": 2, "max_p": 1, "limt_pkts": 3}),
         "links[1].queue_ba.limt_pkts: unknown field (did you mean 'limit_pkts'?)"),
        (lambda d: d["flows"][0].update(cc="cubc"), "flows[0].cc: unknown congestion control 'cubc' (did you mean 'cubic'?)"),
        (lambda d: d["flows"][0].update(cc={"kind": "cubic", "hystrat": False}), "flows[0].cc.hystrat: unknown field (did you mean 'hystart'?)"),
        (lambda d: d["flows"][0].update(tcp={"mss_byte": 1000}), "flows[0].tcp.mss_byte: unknown field (did you mean 'mss_bytes'?)"),
        (lambda d: d["flows"][0].update(dst="bb"), "flows[0].dst: unknown node 'bb' (did you mean 'b'?)"),
        (lambda d: d.update(switchs=["s2"]), "switchs: unknown field (did you mean 'switches'?)"),
        (lambda d: d.update(recrod={}), "recrod: unknown field (did you mean 'record'?)"),
    ],
)
def test_an_unknown_name_suggests_the_closest(edit, error):
    data = _scenario_data()
    edit(data)
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.model_validate(data)
    assert str(info.value).startswith(error), str(info.value)


def test_no_suggestion_when_nothing_is_close():
    data = _scenario_data()
    data["links"][0]["qwertyuiop"] = 1
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.model_validate(data)
    assert str(info.value) == "links[0].qwertyuiop: unknown field"


def test_python_keywords_and_assignments_suggest_too():
    with pytest.raises(db.ConfigError, match=r"^dealy_s: unknown field \(did you mean 'delay_s'\?\)$"):
        db.Link(a="a", b="s1", rate_bps="1Gbps", dealy_s=1)
    s = db.star(["a", "b"], rate="100Mbps", delay="75us", duration_s=0.2)
    with pytest.raises(db.ConfigError, match=r"^dealy_s: unknown field \(did you mean 'delay_s'\?\)$"):
        s.link("a", "s1").dealy_s = 1
    with pytest.raises(db.ConfigError, match=r"did you mean 'dctcp'\?"):
        db.TcpFlow(src="a", dst="b", cc="dctpc")


def test_a_toml_typo_is_one_line_with_the_suggestion(cli, tmp_path):
    text = MINIMAL_TOML.format(rate="100Mbps", cc="renoo").replace('delay_s = "50us"', 'dealy_s = "50us"', 1)
    path = write_toml(tmp_path, text)
    r = cli("run", str(path))
    assert r.code == 2
    assert "links[0].dealy_s: unknown field (did you mean 'delay_s'?)" in r.stderr, r.stderr
    text = MINIMAL_TOML.format(rate="100Mbps", cc="renoo")
    r = cli("run", str(write_toml(tmp_path, text, "cc.toml")))
    assert r.code == 2
    assert "flows[0].cc: unknown congestion control 'renoo' (did you mean 'reno'?)" in r.stderr, r.stderr


def test_command_line_names_suggest_too(cli, tmp_path):
    r = cli("reproduce", "dctcp-queu", "--out", str(tmp_path / "out"))
    assert r.code == 2 and "unknown experiment 'dctcp-queu' (did you mean 'dctcp-queue'?)" in r.stderr, r.stderr
    r = cli("bench", "--only", "reno-1gg")
    assert r.code == 2 and "(did you mean 'reno-1g'?)" in r.stderr, r.stderr
    path = write_toml(tmp_path, MINIMAL_TOML.format(rate="100Mbps", cc="reno"))
    r = cli("sweep", str(path), "--grid", "links[0].dealy_s=1ms,2ms", "--store", str(tmp_path / "st"))
    assert r.code == 2 and "links[0].dealy_s: unknown field (did you mean 'delay_s'?)" in r.stderr, r.stderr
    r = cli("sweep", str(path), "--executor", "dsak", "--store", str(tmp_path / "st"))
    assert r.code == 2 and "(did you mean 'dask'?)" in r.stderr, r.stderr
