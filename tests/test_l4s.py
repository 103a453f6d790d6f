"""L4S from Python: the DualPI2 queue and TCP Prague by name, their errors,
and the `l4s` experiment's physics at quick scale (issue 26)."""

from __future__ import annotations

import math

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.experiments.l4s import experiment as l4s

from .helpers.claims_check import check_claims, check_count_line


def _path(queue, flows, duration_s=3.0):
    s = db.dumbbell(["snd"], ["rcv"], 1e9, 100e6, bottleneck_delay=0.01, queue=queue, duration_s=duration_s)
    for f in flows:
        s.add_flow(f)
    return s


def test_prague_on_a_flow_without_ecn_is_refused_naming_the_field():
    s = _path(db.DualPi2(), [db.TcpFlow(name="p", src="snd", dst="rcv", cc="prague")])
    with pytest.raises(ConfigError) as e:
        db.run(s)
    assert "flows[0].tcp.ecn" in str(e.value)


@pytest.mark.parametrize("field, value", [("step_thresh_s", 0.0), ("k", 0.0)])
def test_a_dualpi2_step_of_zero_or_a_k_of_zero_is_refused_naming_the_field(field, value):
    with pytest.raises(Exception) as e:
        db.DualPi2(**{field: value})
    assert field in str(e.value)


def test_prague_through_dualpi2_sends_ect1_and_keeps_its_queue_short():
    s = _path(db.DualPi2(), [db.TcpFlow(name="p", src="snd", dst="rcv", cc="prague", tcp=db.TcpOptions(ecn=True))],
              duration_s=6.0)
    s.record.flow_sample_s = 0.001
    r = db.run(s)
    port = r.queues.filter((r.queues["node"] == "r1") & (r.queues["peer"] == "r2")).row(0, named=True)
    assert port["marked_pkts"] > 0 and port["drops_dualpi2"] == 0
    v = r.table("cc_vars")
    rtt = v.filter((v["var"] == "rtt_sample_ms") & (v["time_ps"] > 2e12))["value"].to_numpy()
    assert float((rtt - 20.0).max()) < 5.0


def test_the_l4s_experiment_at_quick_scale():
    res = l4s.run("quick", seed=1)
    rows = {(r["queue"], r["n_prague"], r["n_cubic"]): r for r in res.rows.iter_rows(named=True)}
    assert set(rows) == {(q, p, c) for q in l4s.QUEUES for p, c in l4s.MIXES["quick"]}
    alone = rows[("dualpi2", 1, 0)]
    assert alone["l4s_qdelay_p99_ms"] <= 2.0 and alone["utilization"] > 0.95
    for p, c in ((1, 1), (4, 4)):
        mixed = rows[("dualpi2", p, c)]
        assert 0.5 < mixed["rate_ratio"] < 2.0
        assert mixed["l4s_qdelay_p99_ms"] < 2.0 < mixed["classic_qdelay_p50_ms"]
        assert mixed["prague_classic"] == 0.0
    # The classic queue near PI2's 15 ms target beside L4S traffic.
    assert 10.0 < rows[("dualpi2", 1, 4)]["classic_qdelay_p50_ms"] < 20.0
    assert all(r["conservation_ok"] for r in rows.values())
    assert all(math.isnan(r["l4s_qdelay_p99_ms"]) for k, r in rows.items() if k[1] == 0)
    assert res.paper.height == len(l4s.PAPER)
    text = l4s.report(res)
    assert "E6 l4s" in text and "RFC 9332" in text
    check_count_line(text, res.paper.to_dicts())
    check_claims(res.paper.to_dicts(), text)
