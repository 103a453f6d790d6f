"""The senders' RTT samples (``record.rtt_samples``) and ``Result.plot_rtt``
drawn from them: each sample at least the path's base RTT, ``srtt`` the
RFC 6298 average of the samples, ``min_rtt`` their running minimum."""

from __future__ import annotations

import polars as pl
import pytest

import dumbbell as db

RATE = 20_000_000
ONE_WAY_S = 2 * 100e-6 + 5e-3  # two access links and the bottleneck


def _scenario(duration_s: float = 1.0) -> db.Scenario:
    s = db.dumbbell(1, 1, access_rate="1Gbps", bottleneck_rate=RATE, access_delay="100us",
                    bottleneck_delay="5ms", duration_s=duration_s, name="rtt")
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc="cubic"))
    s.record = db.Record(rtt_samples=True)
    return s


@pytest.fixture(scope="module")
def run() -> db.Result:
    return db.run(_scenario(), seed=1)


def test_samples_are_physical_and_smoothed_as_rfc_6298_says(run):
    rs = run.table("rtt_samples").sort("time_ps", maintain_order=True)
    assert rs.height > 100 and set(rs["flow"].unique()) == {0}
    rtt = rs["rtt_ps"].to_list()
    # never below the propagation delay there and back; the least (the
    # handshake's small packets) above it by less than a data packet's
    # serialization at the bottleneck
    base = 2 * ONE_WAY_S * 1e12
    assert base <= min(rtt) < base + 1500 * 8 / RATE * 1e12
    # a full buffer: the queue pushes the RTT well above its base
    assert max(rtt) > 2 * base
    # the running minimum
    running = []
    m = None
    for x in rtt:
        m = x if m is None else min(m, x)
        running.append(m)
    assert rs["min_rtt_ps"].to_list() == running
    # SRTT = 7/8 SRTT + 1/8 R, starting at the first sample (integer ps)
    srtt = rs["srtt_ps"].to_list()
    assert srtt[0] == rtt[0]
    agree = sum(srtt[i] == (7 * srtt[i - 1] + rtt[i]) // 8 for i in range(1, len(rtt)))
    assert agree == len(rtt) - 1
    f = run.flows.row(0, named=True)
    assert srtt[-1] == f["srtt_ps"] and running[-1] == f["min_rtt_ps"]


def test_plot_rtt_draws_samples_srtt_and_min_rtt(run, tmp_path):
    fig = run.plot_rtt(tmp_path / "rtt.png")
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    name = run.flows["name"][0]
    assert labels == [f"{name} rtt samples", f"{name} srtt", f"{name} min_rtt"]
    assert (tmp_path / "rtt.png").stat().st_size > 0


def test_off_by_default_and_observation_only():
    s = _scenario(0.3)
    with_rtt = db.run(s, seed=2)
    s.record = db.Record()
    without = db.run(s, seed=2)
    assert "rtt_samples" not in without.tables
    assert with_rtt.summary["events"] == without.summary["events"]
    assert with_rtt.flows.equals(without.flows)
    assert with_rtt.table("rtt_samples").filter(pl.col("rtt_ps") == 0).height == 0


def test_plot_all_draws_the_rtt_samples_without_flow_samples(run, tmp_path):
    paths = run.plot_all(tmp_path)
    assert [p.name for p in paths] == ["rtt.png"]
