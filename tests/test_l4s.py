"""L4S from Python: the DualPI2 queue and TCP Prague by name, their errors,
and the `l4s` experiment's physics at quick scale (issue 26)."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.experiments.l4s import experiment as l4s
from dumbbell.experiments.claims import judge
from dumbbell.experiments.l4s import rates
from dumbbell.experiments.l4s import sensitivity as sens

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


def _bursts(gso_max_bytes):
    """Per flow name, the sizes of the bursts its packets reach the
    bottleneck in (back to back at the 1 Gb/s access rate), 1p1c through
    DualPI2 for 4 s."""
    import numpy as np

    s = l4s.scenario("dualpi2", 1, 1, 4.0)
    for f in s.flows:
        f.tcp.gso_max_bytes = gso_max_bytes
    s.record.packets = [db.PacketRecord(node="r1", peer="r2")]
    r = db.run(s.validated(), 1)
    names = dict(zip(r.flows["flow"].to_list(), r.flows["name"].to_list()))
    p = r.table("packets").filter((pl.col("event") == "enqueue") & (pl.col("time_ps") > 1e12))
    gap_ps = 1.1 * l4s.WIRE_BYTES * 8e12 / l4s.ACCESS_BPS
    out = {}
    for (fid,), g in p.group_by("flow"):
        t = np.sort(g["time_ps"].to_numpy())
        starts = np.concatenate([[True], np.diff(t) > gap_ps])
        out[names[int(fid)]] = np.bincount(np.cumsum(starts))[1:]
    return out


def test_the_hosts_send_tso_sized_skbs_prague_sized_by_its_own_hook():
    """E6's senders have TSO on (Linux's defaults). Cubic, unpaced, sends
    skbs of Linux's autosize (about 1 ms of its pacing rate, several
    segments), which reach DualPI2 as back-to-back bursts; TCP Prague sizes
    its own at about 0.25 ms of its rate, one segment at its ~50 Mb/s, so
    its packets still arrive one by one. Per segment, Cubic's bursts are the
    two or three segments a delayed ACK releases."""
    s = l4s.scenario("dualpi2", 1, 1, 1.0)
    assert {f.tcp.gso_max_bytes for f in s.flows} == {l4s.GSO_MAX_BYTES} == {65536}
    on, off = _bursts(l4s.GSO_MAX_BYTES), _bursts(0)
    assert on["prague0"].max() == 1 and off["prague0"].max() == 1
    assert off["cubic0"].max() <= 3
    assert on["cubic0"].mean() > 1.3 * off["cubic0"].mean() and on["cubic0"].max() > 4, (on, off)


@pytest.fixture(scope="module")
def quick():
    return l4s.run("quick", seed=1)


def test_the_l4s_experiment_at_quick_scale(quick):
    res = quick
    rows = {(r["queue"], r["n_prague"], r["n_cubic"]): r
            for r in res.rows.filter(pl.col("part") == "mixes").iter_rows(named=True)}
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


def test_the_sensitivity_parts_run_their_settings_through_dualpi2(quick):
    part = quick.rows.filter(pl.col("part") == "pi2-target")
    assert {(r["target_ms"], r["n_prague"], r["n_cubic"]) for r in part.iter_rows(named=True)} == {
        (t, p, c) for t in sens.TARGETS_MS for p, c in sens.TARGET_MIXES}
    assert set(part["queue"]) == {"dualpi2"}
    flows = quick.rows.filter(pl.col("part") == "classic-flows")
    assert sorted(flows["n_cubic"]) == [2, 4] and set(flows["n_prague"]) == {0}
    # PI2 holds the classic queue at whichever target it is given: the
    # classic median follows the target (beside L4S traffic, 4 + 4 flows).
    by_target = {r["target_ms"]: r["classic_qdelay_p50_ms"] for r in part.filter(pl.col("n_prague") == 4)
                 .iter_rows(named=True)}
    assert by_target[1.0] < by_target[5.0] < by_target[30.0]
    assert by_target[30.0] > 20.0 and by_target[5.0] < 10.0
    # More classic flows alone bring the classic queue's median to the target.
    alone = {r["n_cubic"]: r["classic_qdelay_p50_ms"] for r in quick.rows.filter(
        (pl.col("queue") == "dualpi2") & (pl.col("n_prague") == 0)).iter_rows(named=True)}
    assert alone[1] < alone[4] and abs(alone[4] - 15.0) < 3.0
    # A case through another queue than DualPI2 has no PI2 target.
    with pytest.raises(ValueError, match="target_s"):
        l4s.scenario("fq_codel", 1, 1, 1.0, target_s=0.005)


def test_the_claims_the_parts_move_carry_ours_under_each_setting(quick):
    rows = quick.rows
    claims = {(c["metric"], c["mix"]): c for c in quick.paper.iter_rows(named=True)}
    for mix in ("1p1c", "4p4c"):
        c = claims[("rate_ratio", mix)]
        p, n = int(mix[0]), int(mix[2])
        got = [rows.filter((pl.col("part") == "pi2-target") & (pl.col("target_ms") == t)
                           & (pl.col("n_prague") == p) & (pl.col("n_cubic") == n))["rate_ratio"][0]
               for t in sens.TARGETS_MS]
        for t, v in zip(sens.TARGETS_MS, got):
            assert f"{t:g} ms: {v:.3g}" in c["sensitivity"], c["sensitivity"]
        assert c["sensitivity_lo"] == min([*got, c["ours"]]) and c["sensitivity_hi"] == max([*got, c["ours"]])
        assert "Sensitivity, PI2's target" in c["reason"]
    c = claims[("classic_qdelay_p50_ms", "0p1c")]
    for k in (2, 4):
        v = rows.filter((pl.col("part") == "classic-flows") & (pl.col("n_cubic") == k))["classic_qdelay_p50_ms"][0]
        assert f"{k}: {v:.3g} ms" in c["sensitivity"]
    # Claims no part moves carry none.
    assert claims[("utilization", "1p0c")]["sensitivity"] is None



def test_figures_include_the_rate_against_pi2_target(quick, tmp_path):
    paths = l4s.figures(quick, tmp_path)
    assert {p.name for p in paths} == {"qdelay_cdf_dualpi2.png", "qdelay_cdf_fq_codel.png", "l4s_share.png",
                                          "rate_ratio_vs_pi2_target.png"}
    assert all(p.stat().st_size > 10_000 for p in paths)
    # Without the part, no such figure.
    main = l4s.ExperimentResult(experiment="l4s", scale="quick", seed=1,
                                rows=quick.rows.filter(pl.col("part") == "mixes"), paper=quick.paper,
                                data=quick.data)
    assert "rate_ratio_vs_pi2_target.png" not in {p.name for p in l4s.figures(main, tmp_path / "main")}


def test_the_sensitivity_parts_at_paper_scale_reuse_the_main_mixes():
    cases = sens.cases(l4s.MIXES["paper"])
    assert {(t, p, c) for part, t, p, c in cases if part == "pi2-target"} == {
        (t, p, c) for t in sens.TARGETS_MS for p, c in sens.TARGET_MIXES}
    # Paper scale runs every mix of 0-4 flows: 0p2c and 0p4c are the main part's.
    assert not [x for x in cases if x[0] == "classic-flows"]
    assert [x for x in sens.cases(l4s.MIXES["quick"]) if x[0] == "classic-flows"] == [
        ("classic-flows", 15.0, 0, 2), ("classic-flows", 15.0, 0, 4)]


def _judged_rate_claims(rows):
    """The rate claims of ``rows`` (an experiment's rows), through the
    sensitivity part's columns and the accounts."""
    frame = sens.attach(l4s._paper_frame(rows, "quick"), rows, l4s.BASE_RTT_MS)
    return {r["mix"]: r for r in judge("l4s", "quick", frame).iter_rows(named=True) if r["metric"] == "rate_ratio"}


def test_the_rate_fit_recovers_the_physics_and_flags_a_flat_ratio():
    # Rates exactly as the account's physics: window ratio 0.82 times the RTT ratio.
    delays = [(1.2, 0.2), (5.2, 0.2), (15.0, 0.2), (30.0, 0.2)]
    exact = [(rates.WINDOW_RATIO * rates.rtt_ratio(c, l, 20.0), c, l) for c, l in delays]
    slope, window = rates.fit(exact, 20.0)
    assert slope == pytest.approx(1.0) and window == pytest.approx(rates.WINDOW_RATIO)
    assert rates.follows_rtt({"rtt_slope": slope, "rtt_window": window})
    # A ratio that does not move with the classic queue's delay: slope 0.
    slope, window = rates.fit([(1.5, c, l) for c, l in delays], 20.0)
    assert slope == pytest.approx(0.0, abs=1e-12)
    assert not rates.follows_rtt({"rtt_slope": slope, "rtt_window": window})
    # The right slope at twice the window ratio: too far from the prediction.
    slope, window = rates.fit([(2 * r, c, l) for r, c, l in exact], 20.0)
    assert slope == pytest.approx(1.0) and not rates.follows_rtt({"rtt_slope": slope, "rtt_window": window})
    # Fewer than three targets with numbers: no fit, and the account does not apply.
    assert rates.fit([exact[0], (None, 5.2, 0.2), exact[2]], 20.0) == (None, None)
    assert not rates.follows_rtt({"rtt_slope": None, "rtt_window": None})
    assert rates.SLOPE_BAND[0] > 0.0 and rates.WINDOW_BAND[0] < rates.WINDOW_RATIO < rates.WINDOW_BAND[1] < 1.1


def test_the_rate_claims_carry_the_fit_of_their_own_runs(quick):
    rows = quick.rows
    claims = {c["mix"]: c for c in quick.paper.iter_rows(named=True) if c["metric"] == "rate_ratio"}
    for mix, (p, n) in (("1p1c", (1, 1)), ("4p4c", (4, 4))):
        runs = rows.filter((pl.col("queue") == "dualpi2") & (pl.col("n_prague") == p) & (pl.col("n_cubic") == n))
        assert sorted(runs["target_ms"]) == sorted([*sens.TARGETS_MS, sens.OURS_TARGET_MS])
        pts = [(r["rate_ratio"], r["classic_qdelay_p50_ms"], r["l4s_qdelay_p50_ms"]) for r in runs.iter_rows(named=True)]
        slope, window = rates.fit(pts, l4s.BASE_RTT_MS)
        c = claims[mix]
        assert c["rtt_slope"] == pytest.approx(slope) and c["rtt_window"] == pytest.approx(window)
        main = runs.filter(pl.col("part") == "mixes").row(0, named=True)
        assert c["rtt_predicted"] == pytest.approx(rates.WINDOW_RATIO * (20 + main["classic_qdelay_p50_ms"])
                                                   / (20 + main["l4s_qdelay_p50_ms"]))
        # The physics the account states: Prague's rate rises with the classic queue's delay.
        assert c["rtt_slope"] > 0.2, c
    # Other claims carry none.
    assert all(c["rtt_slope"] is None for c in quick.paper.iter_rows(named=True) if c["metric"] != "rate_ratio")


def test_a_rate_that_does_not_follow_the_rtt_ratio_is_left_untraced(quick):
    # The rate account explains a ratio above 1 that goes as each run's RTT
    # ratio at k = 2's window ratio. Were 4p4c's ratio the same at every
    # PI2 target (flat, slope 0), or at twice the prediction at every target,
    # it would not apply and the difference would be untraced.
    rows = quick.rows
    is44 = (pl.col("n_prague") == 4) & (pl.col("n_cubic") == 4) & (pl.col("queue") == "dualpi2")
    assert _judged_rate_claims(rows)["4p4c"]["cause"] == "model"
    flat = rows.with_columns(pl.when(is44).then(pl.lit(1.5)).otherwise(pl.col("rate_ratio")).alias("rate_ratio"))
    row = _judged_rate_claims(flat)["4p4c"]
    assert row["verdict"] == "differs" and row["cause"] == "ours", row
    assert abs(row["rtt_slope"]) < 1e-9
    assert "RTT ratio" in row["reason"] and "which this run does not show" in row["reason"]
    # The reason gives this run's fit: a slope of about 0.
    fit = re.search(r"slope (\S+) and window ratio (\S+) ", row["reason"])
    assert fit and abs(float(fit.group(1))) < 1e-9, row["reason"]
    far = rows.with_columns(pl.when(is44).then(2.0 * rates.WINDOW_RATIO * (20 + pl.col("classic_qdelay_p50_ms"))
                                               / (20 + pl.col("l4s_qdelay_p50_ms")))
                            .otherwise(pl.col("rate_ratio")).alias("rate_ratio"))
    row = _judged_rate_claims(far)["4p4c"]
    assert row["cause"] == "ours" and row["rtt_slope"] == pytest.approx(1.0), row
    # Without the part's runs there is nothing to fit: untraced too.
    row = _judged_rate_claims(rows.filter(pl.col("part") != "pi2-target"))["4p4c"]
    assert row["cause"] == "ours" and row["rtt_slope"] is None, row


def test_an_account_whose_sensitivity_does_not_reach_the_target_gives_ours(quick):
    # The account of the classic queue alone, were more Cubic flows to leave it below the target.
    frame = quick.paper.drop("verdict", "cause", "reason", "doc")
    low = frame.with_columns(pl.when((pl.col("metric") == "classic_qdelay_p50_ms") & (pl.col("mix") == "0p1c"))
                             .then(pl.lit(12.0)).otherwise(pl.col("sensitivity_hi")).alias("sensitivity_hi"))
    row = {(r["metric"], r["mix"]): r for r in judge("l4s", "quick", low).iter_rows(named=True)}[
        ("classic_qdelay_p50_ms", "0p1c")]
    assert row["verdict"] == "differs" and row["cause"] == "ours", row
    assert "Cubic flows alone" in row["reason"]
