"""``lossy-cc`` (Madeira and Mattos) at quick scale: what the physics says.

Alone on a clean link every control but Vegas fills it (the paper's ≈ 96 %
is the payload share of a 1500-byte packet); Reno under random loss follows
the Mathis relation; past about 25 ms of RTT at 1 Gb/s the 3 MiB receive
window bounds every control; under 20 % loss the proposals, which cut the
window by 10–20 % at most once per window, keep far more throughput than
Reno and Cubic; and against loss-based controls that fill the router's
buffer, Vegas starves (the paper's x ≈ 20).
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from dumbbell.errors import ConfigError
from dumbbell.experiments import lossy_cc as e3

PAYLOAD = e3.MSS_BYTES / (e3.MSS_BYTES + e3.HEADER_BYTES)


@pytest.fixture(scope="module")
def quick():
    return e3.run(scale="quick", seed=1)


def g(rows: pl.DataFrame, **where) -> dict:
    f = rows
    for k, v in where.items():
        f = f.filter(pl.col(k) == v)
    assert f.height == 1, (where, f)
    return f.row(0, named=True)


def test_rows_carry_the_issue_keys(quick):
    keys = {"part", "cc", "rate_bps", "loss", "delay_ms", "rtt_ms", "goodput_bps", "ci99_bps", "rounds",
            "cc_a", "cc_b", "server_cc", "x"}
    assert keys <= set(quick.rows.columns)
    assert set(quick.rows["part"]) == set(e3.PARTS)
    assert set(quick.rows.filter(pl.col("part") == "loss")["cc"]) == set(e3.CC)
    assert (quick.rows["rounds"] == e3.POINTS["quick"]["rounds"]).all()


def test_alone_on_a_clean_link_every_control_but_vegas_fills_it(quick):
    for r in quick.rows.filter(pl.col("part") == "bandwidth").iter_rows(named=True):
        share = r["goodput_bps"] / r["rate_bps"]
        assert share <= PAYLOAD * 1.001, r
        if r["cc"] != "vegas":
            assert share >= 0.93 * PAYLOAD, r


def test_reno_follows_mathis_under_random_loss(quick):
    """Mathis et al. describe the steady state; a quick run is 4 s, and the
    slow start before the first random loss is a geometric gamble: in seed
    1's second run at 20 ms no loss falls in the first ~600 packets (chance
    about 0.99^600 ≈ 0.2 %), the window reaches 446 packets, and half the
    run's bytes arrive in its first 0.3 s (traced: flow_samples and the drop
    log), so the whole-run goodput is 2.4 × Mathis. The relation is tested
    on the same runs (same scenario and seeds: the same realization, as the
    first assertion shows) measured after a 1 s warm-up (50 RTTs, long past
    slow start). At 100 ms a 4 s run holds about three sawtooth cycles, too
    few for the relation (the two-run mean ranged 1.0–2.0 × Mathis over
    seeds 1–5), so only what holds whatever the draws is asserted there."""
    import statistics

    import dumbbell as db

    def mathis(rtt_ms: float, loss: float) -> float:
        rtt = rtt_ms / 1e3 + 4 * e3.ACCESS_DELAY_S
        return e3.MSS_BYTES * 8 * math.sqrt(1.5) / (rtt * math.sqrt(loss))

    row = g(quick.rows, part="loss-rtt", cc="reno", rtt_ms=20.0, loss=0.01)
    jobs = [j for j in e3._jobs("quick", quick.seed, ("loss-rtt",), ("reno",)) if j.key[2] == (20, 0.01)]
    assert len(jobs) == row["rounds"]
    whole, steady = [], []
    for job in jobs:
        s = job.scenario.model_copy(deep=True)
        s.record.warmup_s = 1.0
        f = db.run(s, seed=job.seed).flows.row(0, named=True)
        whole.append(f["goodput_bps"])
        steady.append(f["steady_goodput_bps"])
    assert statistics.mean(whole) == pytest.approx(row["goodput_bps"], rel=1e-9)
    # Linux counts ACKed packets and loss is random, not periodic: our Rust
    # Mathis test finds 1.08-1.22 x; 60 s runs of this network 0.92-1.03 x.
    assert 0.7 < statistics.mean(steady) / mathis(20.0, 0.01) < 1.4, (steady, mathis(20.0, 0.01))
    # 100 ms: slow start only adds bytes, so the run is not below the
    # relation's lower side, and five times the RTT gives a lower rate.
    slow = g(quick.rows, part="loss-rtt", cc="reno", rtt_ms=100.0, loss=0.01)
    assert 0.7 * mathis(100.0, 0.01) < slow["goodput_bps"] < row["goodput_bps"], (slow, row)


def test_netem_limit_bounds_every_control_at_100ms(quick):
    """With 100 ms in netem's delay line, its 1000-packet limit lets at most
    1000 packets through per 100 ms (116 Mb/s of payload), below what the
    3 MiB receive window allows (251 Mb/s)."""
    rwnd_bound = e3.RWND_BYTES * 8 / 0.1001
    netem_bound = e3.NETEM_LIMIT_PKTS * e3.MSS_BYTES * 8 / 0.100
    assert netem_bound < rwnd_bound
    for r in quick.rows.filter((pl.col("part") == "delay") & (pl.col("delay_ms") == 100.0)).iter_rows(named=True):
        assert r["goodput_bps"] <= netem_bound * 1.001, r
    assert g(quick.rows, part="delay", cc="cubic", delay_ms=100.0)["goodput_bps"] > 0.6 * netem_bound


def test_proposals_keep_throughput_under_heavy_loss(quick):
    for part, where in (("loss", {"loss": 0.2}), ("loss-rtt", {"loss": 0.2, "rtt_ms": 20.0})):
        classic = max(g(quick.rows, part=part, cc=cc, **where)["goodput_bps"] for cc in ("reno", "cubic"))
        for cc in ("expolinear", "linear"):
            assert g(quick.rows, part=part, cc=cc, **where)["goodput_bps"] > 3 * classic, (part, cc)


def test_linear_variants_order_by_reduction_under_loss(quick):
    """A smaller cut per loss keeps more window: 10 % > 20 % > 50 %. At
    20 % loss the windows are a few packets, where 10 % and 20 % of them
    differ by a packet at most: 6 seeds of 5 s (on-the-wire loss) gave
    19.2 ± 2.8, 16.6 ± 2.5 and 9.6 ± 1.8 Mb/s (mean ± sd), and a SYN lost
    at 20 % costs a 2-second quick run half its time, so two quick rounds
    order only 10 % against 50 % reliably there."""
    v = {cc: g(quick.rows, part="loss", cc=cc, loss=0.01)["goodput_bps"] for cc in ("linear", "linear-20", "linear-50")}
    assert v["linear"] > v["linear-20"] > v["linear-50"], v
    v = {cc: g(quick.rows, part="loss", cc=cc, loss=0.2)["goodput_bps"] for cc in ("linear", "linear-20", "linear-50")}
    assert v["linear"] > 1.3 * v["linear-50"], v


def test_vegas_starves_against_loss_based_controls(quick):
    cord = quick.rows.filter(pl.col("part") == "cordiality")
    assert cord.height == (len(e3.PROPOSED) * len(e3.FINAL) * len(e3.POINTS["quick"]["cordiality"]["servers"])
                           * len(e3.SETUPS))
    for r in cord.filter(pl.col("cc_b") == "vegas").iter_rows(named=True):
        assert r["x"] > 5, r
    for r in cord.iter_rows(named=True):
        # Both clients share one bottleneck: together they fill it.
        assert r["goodput_bps"] + r["goodput_b_bps"] >= 0.9 * PAYLOAD * r["rate_bps"], r


def test_lossless_fifo_shares_by_window(quick):
    """On a lossless deep FIFO both clients are bounded by their receive
    windows, and the loss-based controls that reach them share the link
    about equally (x near 1, as the paper's Tables 1 and 2 for Reno and the
    proposals among themselves); Vegas, which keeps only a few packets
    queued, starves."""
    cord = quick.rows.filter((pl.col("part") == "cordiality") & (pl.col("setup") == "lossless"))
    for col in e3.PROPOSED:
        for row in ("reno", "expolinear", "linear"):
            x = g(cord, cc_a=col, cc_b=row)["x"]
            assert 0.75 < x < 1.35, (col, row, x)
        assert g(cord, cc_a=col, cc_b="vegas")["x"] > 20


def test_paper_tables_and_claims_sit_beside_ours(quick):
    p = quick.paper
    tables = p.filter(pl.col("part") == "cordiality")
    # One claim per cell of the paper's two tables (not one per setup of
    # ours): scored on the lossless FIFO, the drop-tail x beside it.
    assert tables.height == 2 * 21 and set(tables["setup"]) == {e3.SCORED_SETUP}
    assert tables.filter(pl.col("server_cc") == "cubic")["ours_droptail"].null_count() == 0
    # Agreements that hold by the setup are not counted as agreement: the
    # same control on both clients, and window-limited pairs on the lossless
    # FIFO.
    for r in tables.filter(pl.col("verdict") == "by construction").iter_rows(named=True):
        assert r["cc"] == r["cc_b"] or r["cc_b"] in e3.WINDOW_LIMITED, r
    assert not tables.filter((pl.col("cc") == pl.col("cc_b")) & (pl.col("verdict") == "agrees")).height
    c2 = p.filter(pl.col("metric") == "linear / best other Linear variant")
    assert c2.height and set(c2["verdict"]) <= {"by construction", "differs", "not run at this scale"}
    # C8, C10, C13, C16 are scored; C17 and C19 are listed as not scored.
    metrics = set(p["metric"])
    assert {"max over controls of goodput(longest delay) / goodput(shortest)",
            "min(linear, expolinear) decay / max decay of bbr, cubic, reno, vegas",
            "linear / best other final control", "bbr / min(expolinear, linear)"} <= metrics
    text = e3.report(quick)
    assert "(C17)" in text and "(C19)" in text and "not scored" in text
    vegas = tables.filter((pl.col("cc") == "expolinear") & (pl.col("cc_b") == "vegas") & (pl.col("server_cc") == "bbr"))
    assert vegas["value"][0] == 21.02 and vegas["value_ci"][0] == 2.049
    ours = tables.filter(pl.col("server_cc") == "cubic")
    assert ours["ours"].null_count() == 0, "every Table 2 entry has our x beside it"
    claim = p.filter((pl.col("part") == "loss-rtt") & (pl.col("metric") == "expolinear / bbr"))
    assert claim.height == 1 and claim["ours"][0] is not None


def test_figures_and_report(quick, tmp_path):
    paths = e3.figures(quick, tmp_path)
    assert {p.name for p in paths} == {"fig2b_bandwidth.png", "fig3a_loss_linear.png", "fig3b_loss.png",
                                       "fig4a_delay_linear.png", "fig4b_delay.png", "fig5a_loss_rtt20.png",
                                       "fig5b_loss_rtt100.png"}
    text = e3.report(quick)
    assert "[cordiality] x = a/b, server cubic" in text and "E3 lossy-cc" in text


def test_module_hook_collapses_a_fresh_expolinear_connection():
    """The run behind the module docs' numbers (``cc/loss_phases.rs``, E3 docs):
    E3's network, a clean 1 Gb/s link with 20 ms added to the round trip,
    seed 1. With the modules' ``ssthresh`` hook the first loss (a router
    overflow at the end of slow start) sends a fresh connection's window to
    b_r = 1, where Expolinear stays at 2 to 3 packets: 2.4 Mb/s in 20 s
    against 343 Mb/s with the paper's reduction; 185 against 965 Mb/s at
    the base round trip of 0.1 ms; 0.9 against 70 Mb/s at 100 ms (netem's
    1000-packet limit bounds the latter two; ``python
    examples/lossy_cc_evidence.py module-hook``). Here 4 s at 20 ms."""
    import dumbbell as db

    def goodput(hook: bool) -> float:
        s = e3.network(1e9, rtt_add_s=0.020, duration_s=4.0)
        s.add_flow(db.TcpFlow(name="a", src="a", dst="srv", cc=db.Expolinear(module_hook=hook), tcp=e3._tcp()))
        return float(db.run(s.validated(), seed=1).flows["goodput_bps"][0])

    paper, hook = goodput(False), goodput(True)
    assert paper > 300e6, paper
    assert hook < 0.02 * paper, (hook, paper)


def test_adaptive_linear_reduction_per_window_round_and_ack():
    """The paper's R = 15 + 35·lost/sent counted over two rounds of data
    stays near 15 + 35·p (p the loss rate): about 19 % at 5 % loss; over the
    current window (eq. 3's words, the default) the losses reported so far
    in it over its packets, near it too. Counted on the loss-reporting ACK
    alone, which with SACK reveals one hole for each segment it delivers, it
    stays near 15 + 35/2 = 32.5 %. None reaches the 50 % the paper infers
    (the ACK interpretation would only if that ACK delivered nothing). 3 s
    at 5 % loss."""
    r_window, n_window, _ = e3.adaptive_reduction(0.05, "window", duration_s=3.0)
    r_round, n_round, _ = e3.adaptive_reduction(0.05, "round", duration_s=3.0)
    r_ack, n_ack, _ = e3.adaptive_reduction(0.05, "ack", duration_s=3.0)
    assert n_window > 100 and n_round > 100 and n_ack > 100
    assert 15.0 < r_window < 25.0, r_window
    assert 15.0 < r_round < 25.0, r_round
    assert 30.0 < r_ack < 40.0, r_ack


def test_base_rtt_part_sets_the_propagation_round_trip(quick):
    """The ``base-rtt`` part reruns the loss part's 20 % cell at 10 Gb/s
    with the propagation round trip at 0.2, 0.5 and 1 ms: the router–server
    link's delay is B/2 less the clients' 25 µs, the rows carry the base RTT,
    and the claims it moves (C5, C7) name ours under each."""
    s = e3.scenario("linear", 10e9, loss=0.2, base_rtt_s=1e-3)
    assert s.link("r", "srv").delay_s == pytest.approx(0.5e-3 - e3.ACCESS_DELAY_S)
    assert s.link("a", "r").delay_s == e3.ACCESS_DELAY_S
    with pytest.raises(ConfigError) as err:
        e3.network(10e9, base_rtt_s=50e-6)
    assert err.value.field == "base_rtt_s"
    b = quick.rows.filter(pl.col("part") == "base-rtt")
    p = e3.POINTS["quick"]["base-rtt"]
    assert set(b["base_rtt_ms"]) == set(p["base_rtts_ms"]) and set(b["loss"]) == set(p["losses"])
    # Quick scale's one loss, 20 %, is read by C5 and C7: all seven controls.
    assert set(b["cc"]) == set(e3.FINAL) and b.height == len(e3.FINAL) * len(p["base_rtts_ms"]) * len(p["losses"])
    assert b.height == len(p["base_rtts_ms"]) * sum(len(e3.base_rtt.controls(x, e3.FINAL)) for x in p["losses"])
    assert quick.rows.filter(pl.col("part") != "base-rtt")["base_rtt_ms"].is_null().all()
    for metric in ("worst proposal / best of cubic, reno, vegas", "linear / bbr"):
        c = quick.paper.filter((pl.col("metric") == metric) & (pl.col("point") == "loss=0.2")).row(0, named=True)
        assert all(f"{r:g} ms: " in c["sensitivity"] for r in p["base_rtts_ms"]), c["sensitivity"]
        assert c["sensitivity_lo"] <= c["ours"] <= c["sensitivity_hi"]
        assert "Sensitivity, base RTT" in c["reason"]
    # Linear under each base RTT, as the claim computes it.
    for r in p["base_rtts_ms"]:
        lin, bbr = (g(b, cc=cc, base_rtt_ms=r, loss=0.2)["goodput_bps"] for cc in ("linear", "bbr"))
        c = quick.paper.filter(pl.col("metric") == "linear / bbr").row(0, named=True)
        assert f"{r:g} ms: {lin / bbr:.3g}" in c["sensitivity"]


def test_claims_carry_verdicts(quick):
    import json

    from .helpers.claims_check import check_claims, check_count_line

    text = e3.report(quick)
    rows = quick.paper.to_dicts()
    check_count_line(text, rows)
    # Two rounds per point at quick scale: their means show the two rounds'
    # range, not a 99 % interval, and those intervals do not make agreement.
    assert "goodput in Mb/s, mean [the two rounds]" in text and "99 % CI over" not in text
    assert quick.rows["rounds"].max() == 2 and " [" in text and "±" not in text.split("[bandwidth]")[1].split("[cordiality]")[0]
    check_claims(rows, text, json.dumps(quick.to_json_doc()))


def test_netem_gso_part_reruns_its_cells_per_skb(quick):
    """The ``netem-gso`` part reruns the delay cells, the loss-rtt cells at
    100 ms and the drop-tail cordiality cells with netem counting skbs; per
    packet netem's 1000-packet limit caps every control at +100 ms to 1000
    packets per 100 ms (120 Mb/s), per skb it does not, and the claims of
    those parts name ours per skb."""
    rows = quick.rows
    gso = rows.filter(pl.col("part") == "netem-gso")
    q = e3.POINTS["quick"]
    assert (gso["netem_unit"] == "gso").all()
    assert rows.filter(pl.col("part") != "netem-gso")["netem_unit"].is_null().all()
    assert set(gso["gso_part"]) == {"delay", "loss-rtt", "cordiality"}
    d = gso.filter(pl.col("gso_part") == "delay")
    assert set(d["delay_ms"]) == set(q["delay"]["delays_ms"]) and set(d["cc"]) == set(e3.FINAL)
    assert set(gso.filter(pl.col("gso_part") == "loss-rtt")["rtt_ms"]) == {100.0}
    c = gso.filter(pl.col("gso_part") == "cordiality")
    assert set(c["setup"]) == {"droptail"} and c.height == len(e3.PROPOSED) * len(e3.FINAL)
    cap_bps = e3.NETEM_LIMIT_PKTS * (e3.MSS_BYTES + e3.HEADER_BYTES) * 8 / 0.100
    per_packet = rows.filter((pl.col("part") == "delay") & (pl.col("delay_ms") == 100.0))["goodput_bps"]
    per_skb = d.filter(pl.col("delay_ms") == 100.0)["goodput_bps"]
    assert per_packet.max() < cap_bps
    assert per_skb.max() > 1.2 * cap_bps
    # The router queue leaves netem's skbs to bind: room for 1000 full skbs.
    assert e3.network(1e9, netem_unit="gso").link("r", "srv").queue_ab.limit_pkts == 1000 * (65536 // e3.MSS_BYTES)
    for part in ("delay", "loss-rtt", "cordiality"):
        claims = quick.paper.filter(pl.col("part") == part)
        if part == "loss-rtt":
            claims = claims.filter(pl.col("point").str.starts_with("rtt_ms=100"))
        if part == "cordiality":
            claims = claims.filter(pl.col("server_cc") == "cubic")
        # The claims this scale measures (quick runs two of the five losses).
        claims = claims.filter(pl.col("ours_droptail" if part == "cordiality" else "ours").is_not_null())
        assert claims.height and all("per skb" in t for t in claims["sensitivity"]), part


def test_adaptive_count_part_counts_eq3_over_two_rounds(quick):
    """The ``adaptive-count`` part runs the adaptive Linear counting eq. 3's
    lost/sent over two rounds of data on the loss part's cells (its seeds,
    its run length), and both C3 claims name the ratio to Linear-50 under
    every count: per window and per ACK from the loss part, per two rounds
    from this part, computed as the claim is (mean over the losses)."""
    from dumbbell.experiments.lossy_cc import adaptive_count as ac

    rows = quick.rows
    a = rows.filter(pl.col("part") == ac.PART)
    q = e3.POINTS["quick"]
    assert set(a["cc"]) == {ac.LABEL} and set(a["loss"]) == set(q["loss"]["losses"])
    assert (a["duration_s"] == q["loss"]["duration_s"]).all() and (a["rate_bps"] == q["loss"]["rate_bps"]).all()
    # Counted over two rounds, R stays near 15 + 35·p: a smaller cut than
    # Linear-50's, so more goodput at every loss.
    for r in a.iter_rows(named=True):
        assert r["goodput_bps"] > g(rows, part="loss", cc="linear-50", loss=r["loss"])["goodput_bps"], r
    fifty = rows.filter((pl.col("part") == "loss") & (pl.col("cc") == "linear-50"))["goodput_bps"].mean()
    per_round = a["goodput_bps"].mean() / fifty
    claims = quick.paper.filter(pl.col("metric").is_in(ac.METRICS))
    assert claims.height == 2
    window, ack = (claims.filter(pl.col("metric") == m)["ours"][0] for m in ac.METRICS)
    for c in claims.iter_rows(named=True):
        assert f"per two rounds of data {per_round:.3g}" in c["sensitivity"], c["sensitivity"]
        assert f"per window (eq. 3's current window) {window:.3g}" in c["sensitivity"]
        assert f"per loss-reporting ACK {ack:.3g}" in c["sensitivity"]
        assert c["sensitivity_lo"] == pytest.approx(min(window, ack, per_round))
        assert c["sensitivity_hi"] == pytest.approx(max(window, ack, per_round))
        assert c["verdict"] == "differs" and c["cause"] == "model"
        assert "Sensitivity, how eq. 3 counts" in c["reason"] and "part adaptive-count" not in c["reason"]


def test_run_length_part_shows_bbr_collapsing_as_runs_lengthen(quick):
    """The ``run-length`` part reruns the loss-rtt cell at 20 ms and 20 %
    loss for the final controls at longer runs, up to the paper's 50 s: BBR's
    mean falls as its collapse under random loss lasts longer, Linear's and
    Expolinear's much less, and the two claims of that cell that compare
    with BBR name ours at each run length."""
    from dumbbell.experiments.lossy_cc import run_length as rl

    rows = quick.rows
    b = rows.filter(pl.col("part") == rl.PART)
    durations = rl.POINTS["quick"]["durations_s"]
    assert set(b["duration_s"]) == set(durations) and set(b["cc"]) == set(e3.FINAL)
    assert (b["rtt_ms"] == rl.RTT_MS).all() and (b["loss"] == rl.LOSS).all()
    cell = dict(part="loss-rtt", rtt_ms=rl.RTT_MS, loss=rl.LOSS)
    longest = max(durations)
    bbr_short, bbr_long = g(rows, cc="bbr", **cell)["goodput_bps"], g(b, cc="bbr", duration_s=longest)["goodput_bps"]
    lin_short, lin_long = (g(rows, cc="linear", **cell)["goodput_bps"],
                           g(b, cc="linear", duration_s=longest)["goodput_bps"])
    assert bbr_long < 0.5 * bbr_short, (bbr_short, bbr_long)
    assert bbr_long / bbr_short < lin_long / lin_short
    point = f"rtt_ms={rl.RTT_MS:g}, loss={rl.LOSS:g}"
    for metric in rl.KEY_METRICS:
        c = quick.paper.filter((pl.col("metric") == metric) & (pl.col("point") == point)).row(0, named=True)
        assert all(f"{d:g} s: " in c["sensitivity"] for d in durations), c["sensitivity"]
        assert c["sensitivity_lo"] <= c["ours"] <= c["sensitivity_hi"]
        assert c["verdict"] == "differs" and c["cause"] == "model" and "part run-length" in c["reason"]
    expo = g(b, cc="expolinear", duration_s=longest)["goodput_bps"]
    c = quick.paper.filter((pl.col("metric") == "expolinear / bbr") & (pl.col("point") == point)).row(0, named=True)
    assert f"{longest:g} s: {expo / bbr_long:.3g}" in c["sensitivity"]


@pytest.mark.parametrize("metric, point, scale, set_to", [
    # An adaptive count at or below Linear-50: "above under every count" fails.
    ("linear-adaptive / linear-50", "mean over losses", "quick", {"sensitivity_lo": 0.9}),
    # No longer run reaching the paper's bound: "the run length crosses it" fails.
    ("linear / best other final control", "rtt_ms=20, loss=0.2", "quick", {"sensitivity_hi": 0.9}),
    # A longer run at ten times BBR: "still below ten" fails, at either scale.
    ("expolinear / bbr", "rtt_ms=20, loss=0.2", "quick", {"sensitivity_hi": 12.0}),
    ("expolinear / bbr", "rtt_ms=20, loss=0.2", "paper", {"sensitivity_hi": 12.0}),
])
def test_sensitivity_accounts_fail_when_their_condition_does_not(quick, metric, point, scale, set_to):
    from dumbbell.experiments.claims import judge

    paper = quick.paper.filter((pl.col("metric") == metric) & (pl.col("point") == point))
    assert paper.height == 1
    assert judge(e3.NAME, scale, paper)["cause"][0] == "model"
    moved = paper.with_columns(*(pl.lit(v, dtype=pl.Float64).alias(k) for k, v in set_to.items()))
    j = judge(e3.NAME, scale, moved).row(0, named=True)
    assert j["verdict"] == "differs" and j["cause"] == "ours", j["reason"]


@pytest.mark.parametrize("metric, point", [("linear-adaptive / linear-50", "mean over losses"),
                                           ("linear / best other final control", "rtt_ms=20, loss=0.2"),
                                           ("expolinear / bbr", "rtt_ms=20, loss=0.2")])
def test_without_its_sensitivity_part_a_row_says_the_part_did_not_run(quick, metric, point):
    """``--parts`` without adaptive-count or run-length: the row keeps its
    traced account, which names the part that would show how far the
    setting moves it."""
    from dumbbell.experiments.claims import judge

    paper = quick.paper.filter((pl.col("metric") == metric) & (pl.col("point") == point)).with_columns(
        pl.lit(None, dtype=pl.String).alias("sensitivity"), pl.lit(None, dtype=pl.Float64).alias("sensitivity_lo"),
        pl.lit(None, dtype=pl.Float64).alias("sensitivity_hi"))
    j = judge(e3.NAME, "quick", paper).row(0, named=True)
    assert j["cause"] == "model" and "Sensitivity," not in j["reason"], j["reason"]
    assert "not run here" in j["reason"], j["reason"]
