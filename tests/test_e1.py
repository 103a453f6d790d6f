"""E1 (seed 002) at quick scale: what the physics says.

At 100 Mb/s with K = 20 packets, DCTCP holds the bottleneck queue near K
while Reno's drop-tail queue saws up to the 425-packet buffer; both keep the
link busy. dumbbell's links are exact, so back-to-back dequeues are exactly
one serialization time apart.
"""

from __future__ import annotations

import pytest

from dumbbell.experiments import dctcp_queue


@pytest.fixture(scope="module")
def e1():
    return dctcp_queue.run(scale="quick", seed=1, rates_bps=(100_000_000,))


def row(result, cc):
    (r,) = [r for r in result.rows.iter_rows(named=True) if r["cc"] == cc and r["rate_bps"] == 100_000_000]
    return r


def test_dctcp_queue_stays_near_k(e1):
    r = row(e1, "dctcp")
    assert r["k_pkts"] == 20
    # The paper's hardware and Mininet-HiFi both kept it within ~2 packets of K.
    assert 16 <= r["queue_p50_pkts"] <= 24, r
    assert r["queue_p95_pkts"] < 30, r
    assert r["marked_pkts"] > 0
    assert r["dropped_pkts"] == 0, "ECN marks, it never needs to drop"


@pytest.fixture(scope="module")
def e1_fast():
    return dctcp_queue.run(scale="quick", seed=1, rates_bps=(1_000_000_000, 10_000_000_000))


@pytest.mark.parametrize("rate", [1_000_000_000, 10_000_000_000])
def test_dctcp_holds_k_and_the_link_at_high_rates(e1_fast, rate):
    (d,) = [r for r in e1_fast.rows.iter_rows(named=True) if r["cc"] == "dctcp" and r["rate_bps"] == rate]
    (t,) = [r for r in e1_fast.rows.iter_rows(named=True) if r["cc"] == "reno" and r["rate_bps"] == rate]
    k = d["k_pkts"]
    assert k - 6 <= d["queue_p50_pkts"] <= k + 4, d
    assert d["utilization"] > 0.95 and t["utilization"] > 0.95, (d, t)
    assert t["queue_p95_pkts"] > 4 * d["queue_p95_pkts"], (d, t)


def test_reno_queue_fills_the_buffer(e1):
    r = row(e1, "reno")
    assert r["queue_p95_pkts"] > 200, r
    assert r["queue_max_pkts"] == 425, r
    assert r["dropped_pkts"] > 0


@pytest.mark.parametrize("cc", ["reno", "dctcp"])
def test_full_utilization(e1, cc):
    r = row(e1, cc)
    assert r["utilization"] > 0.95, r
    assert 0.90 * 100e6 * 1460 / 1500 < r["goodput_bps"] <= 100e6 * 1460 / 1500 * 1.001, r
    assert r["conservation_ok"]


@pytest.mark.parametrize("cc", ["reno", "dctcp"])
def test_exact_link(e1, cc):
    r = row(e1, cc)
    assert r["dequeue_pairs"] > 10_000
    assert r["dequeue_interval_p50_s"] == pytest.approx(120e-6)
    assert r["dequeue_dev_p99_pct"] < 1.0
    assert r["dequeue_dev_frac_over_10pct"] < 0.001


def test_paper_rows(e1):
    paper = e1.paper
    assert {"metric", "cc", "rate_bps", "relation", "value", "ours", "source"} <= set(paper.columns)
    k = paper.filter((paper["metric"] == "k_pkts"))
    assert k["value"][0] == 20 and k["ours"][0] == 20
    assert all("002" in s for s in paper["source"])


def test_same_seed_same_rows():
    a = dctcp_queue.run(scale="quick", seed=3, rates_bps=(100_000_000,))
    b = dctcp_queue.run(scale="quick", seed=3, rates_bps=(100_000_000,))
    assert a.rows.equals(b.rows)


def test_figures(e1, tmp_path):
    paths = dctcp_queue.figures(e1, tmp_path)
    assert [p.name for p in paths] == ["queue_100Mbps.png", "dequeue_ccdf.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
    assert "The paper beside ours" in dctcp_queue.report(e1)
