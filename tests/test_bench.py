"""`dumbbell bench`: the scenarios and the JSON report (never wall times)."""

from __future__ import annotations

import json

from dumbbell import bench


def test_benchmark_scenarios():
    c1 = bench.scenario_for("cubic-1g").to_core()
    assert c1["duration_ps"] == 60 * 10**12
    access, bott = c1["links"]
    assert (access["rate_bps"], access["delay_ps"]) == (10**10, 0)
    assert (bott["a"], bott["b"], bott["rate_bps"], bott["delay_ps"]) == ("r", "rcv", 10**9, 10**10)
    assert bott["queue_ab"]["limit_pkts"] == 1667  # one BDP: 1 Gb/s x 20 ms / 1500 B
    assert c1["flows"][0]["cc"]["kind"] == "cubic"
    c10 = bench.scenario_for("cubic-10g").to_core()
    assert c10["links"][0]["rate_bps"] == 4 * 10**10 and c10["links"][1]["queue_ab"]["limit_pkts"] == 16667
    d = bench.scenario_for("dctcp-100m").to_core()
    assert d["duration_ps"] == 20 * 10**12 and d["record"]["queues"] == [] and d["record"]["flow_sample_ps"] == 0


def test_bench_json(cli):
    res = cli("bench", "--only", "dctcp-100m", "--json")
    assert res.code == 0, res.stderr
    (r,) = json.loads(res.stdout)
    assert r["name"] == "dctcp-100m"
    for key in ("events", "wall_s", "events_per_s", "sim_packets_per_s", "peak_rss_bytes"):
        assert r[key] > 0, key
    assert r["peak_rss_bytes"] > 10 * 2**20  # a Python process with numpy and polars
    assert "dctcp-100m" in res.stderr
