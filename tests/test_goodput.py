"""Goodput that cannot exceed the link: the catalog's per-flow and aggregate
goodput over one window, and Jain's fairness index (dumbbell.run.goodput)."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.run.goodput import jain_index, window_goodput

RATE = 50_000_000


def test_jain_index_bounds():
    assert jain_index([10.0, 10.0, 10.0]) == pytest.approx(1.0)
    assert jain_index([30.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    assert jain_index([3.0, 1.0]) == pytest.approx(16 / 20)
    assert jain_index([]) is None and jain_index([0.0, 0.0]) is None


def _staggered(duration_s: float = 2.0) -> db.Scenario:
    # Two Cubic flows through one 50 Mb/s bottleneck; the second starts halfway.
    s = db.dumbbell(2, 2, access_rate="1Gbps", bottleneck_rate=RATE, access_delay="100us",
                    bottleneck_delay="1ms", duration_s=duration_s, name="staggered")
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc="cubic"))
    s.add_flow(db.TcpFlow(src="snd2", dst="rcv2", cc="cubic", start_s=duration_s / 2))
    return s


def test_a_staggered_sweep_stores_goodput_that_fits_the_link(tmp_path):
    s = _staggered()
    res = db.sweep(s, grid={"seed": [1]}, store=tmp_path / "store")
    flows = res.table("flows")
    own = flows["goodput_bps"].to_list()
    # Each flow's own average: the late flow's rate counts only its half, so
    # their sum exceeds the link (the catalog used to store this sum).
    assert sum(own) > RATE
    row = res.store.query("SELECT goodput_bps, flow_goodput_bps, fairness FROM runs").row(0, named=True)
    assert 0.85 * RATE < row["goodput_bps"] <= RATE
    assert sum(row["flow_goodput_bps"]) == pytest.approx(row["goodput_bps"])
    # the first flow had the link alone for half the window: it delivered more
    assert row["flow_goodput_bps"][0] > row["flow_goodput_bps"][1] > 0
    assert row["fairness"] == pytest.approx(jain_index(own))
    assert 0.5 < row["fairness"] <= 1.0
    assert res.points()["fairness"][0] == pytest.approx(row["fairness"])


def test_window_goodput_of_flows_on_one_window():
    r = db.run(_staggered(1.0), seed=1)
    g = window_goodput(r.flows)
    assert g["window_s"] == pytest.approx(1.0)
    delivered = r.flows["bytes_delivered"].to_list()
    assert g["flow_goodput_bps"] == pytest.approx([b * 8 / 1.0 for b in delivered])
    assert g["goodput_bps"] <= RATE


def test_the_goodput_figure_says_it_is_the_in_order_delivery_rate(tmp_path):
    from dumbbell.run.plots import GOODPUT_NOTE

    s = _staggered(0.5)
    s.record.flow_sample_s = 0.01
    r = db.run(s, seed=1)
    fig = r.plot_goodput(tmp_path / "goodput.png")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "in-order delivery rate (Mb/s)"
    assert GOODPUT_NOTE in [t.get_text() for t in fig.texts]
    assert "exceed the link" in GOODPUT_NOTE
    assert (tmp_path / "goodput.png").stat().st_size > 0


def test_plot_rtt_shows_srtt_above_min_rtt(tmp_path):
    s = _staggered(0.5)
    s.record.flow_sample_s = 0.005
    r = db.run(s, seed=1)
    fig = r.plot_rtt(tmp_path / "rtt.png")
    lines = fig.axes[0].get_lines()
    labels = [ln.get_label() for ln in lines]
    assert labels == ["tcp0 srtt", "tcp0 min_rtt", "tcp1 srtt", "tcp1 min_rtt"]
    # base RTT: 2 x (2 x 100 us + 1 ms) = 2.4 ms; srtt never below min_rtt, queueing raises it
    min_rtt_ms = lines[1].get_ydata()[0]
    assert 2.4 <= min_rtt_ms < 2.6
    srtt = lines[0].get_ydata()
    assert srtt.min() >= min_rtt_ms * 0.99 and srtt.max() > min_rtt_ms * 1.2
    assert (tmp_path / "rtt.png").stat().st_size > 0


def test_plot_rtt_of_udp_alone_says_there_is_no_rtt():
    s = db.star(["a", "b"], rate="100Mbps", delay="50us", duration_s=0.1)
    s.add_flow(db.UdpFlow(src="a", dst="b", rate_bps="10Mbps"))
    s.record.flow_sample_s = 0.01
    r = db.run(s, seed=1)
    with pytest.raises(ValueError, match="no TCP flow measured one"):
        r.plot_rtt()
