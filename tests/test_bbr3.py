"""BBRv3 (`cc = "bbr3"`) from Python: listed by `dumbbell list`, named in
a scenario or a TOML file, its parameters checked before the run with the
field named, and its state (`inflight_hi`, mode, phase) in `cc_vars`.
The physics is tested in Rust (crates/dumbbell-core/tests/bbr3.rs)."""

from __future__ import annotations

import polars as pl
import pytest

import dumbbell as db
from dumbbell.listing import listing


def _scenario(cc: object, *, loss: float = 0.0, duration_s: float = 3.0) -> db.Scenario:
    s = db.dumbbell(1, 1, "1Gbps", "20Mbps", access_delay="1ms", bottleneck_delay="9ms",
                    queue=db.DropTail(limit_pkts=100), bottleneck_loss=loss, duration_s=duration_s)
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc=cc))
    s.record = db.Record(flow_sample_s=0.05)
    return s


def test_bbr3_is_listed_beside_bbr():
    controls = {c["name"]: c["about"] for c in listing()["controls"]}
    assert "bbr3" in controls and "bbr" in controls
    assert "inflight_hi" in controls["bbr3"]


def test_bbr3_runs_by_name_and_traces_its_bounds(tmp_path):
    s = _scenario({"kind": "bbr3", "beta": 0.5}, loss=0.05)
    path = tmp_path / "s.toml"
    path.write_text(s.to_toml())
    assert db.Scenario.from_toml(path).to_core() == s.to_core()
    r = db.run(s)
    assert r.flows["cc"].to_list() == ["bbr3"]
    v = r.tables["cc_vars"]
    hi = v.filter(pl.col("var") == "inflight_hi")["value"]
    mode = v.filter(pl.col("var") == "mode")["value"]
    # Startup ends and ProbeBW begins; 5 % loss is above the 2 % threshold,
    # so a probe bounds inflight_hi (-1 while unbounded) below the BDP
    # (20 Mb/s x 20 ms = 34 packets).
    assert 2.0 in mode.to_list()
    assert hi[-1] > 0 and hi[-1] < 34


@pytest.mark.parametrize(("bad", "field"), [
    ({"beta": 1.0}, "flows[0].cc.params.beta"),
    ({"loss_thresh": 0.0}, "flows[0].cc.params.loss_thresh"),
    ({"probe_down_gain": 1.2}, "flows[0].cc.params.probe_down_gain"),
])
def test_bad_bbr3_parameters_are_refused_naming_the_field(bad, field):
    with pytest.raises(db.ConfigError) as ei:
        db.run(_scenario({"kind": "bbr3", **bad}, duration_s=0.1))
    assert ei.value.field == field, ei.value
