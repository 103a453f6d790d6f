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
    m = bench.scenario_for("many-10g").to_core()
    assert m["links"] == c10["links"] and m["duration_ps"] == 5 * 10**12
    assert len(m["flows"]) == 1000 and len({f["name"] for f in m["flows"]}) == 1000
    assert [f["start_ps"] for f in m["flows"][:3]] == [0, 10**8, 2 * 10**8]  # 0.1 ms apart
    assert {f["cc"]["kind"] for f in m["flows"]} == {"cubic"}
    # Reno in Rust and in Python: the same path and flow, only the control differs
    rust, py = bench.scenario_for("reno-1g"), bench.scenario_for("reno-py-1g")
    assert rust.to_core()["links"] == c1["links"] and rust.duration_s == 10.0
    assert rust.to_core()["flows"][0]["cc"] == {"kind": "reno"}
    assert py.to_core()["flows"][0]["cc"] == {"kind": "external", "id": "flows[0].cc"}
    assert type(py.python_controls()["flows[0].cc"]).__name__ == "RenoPy"
    strip = lambda d: {**d, "flows": [{**f, "cc": None} for f in d["flows"]]}  # noqa: E731
    assert strip(py.to_core()) == strip(rust.to_core())
    d = bench.scenario_for("dctcp-100m").to_core()
    assert d["duration_ps"] == 20 * 10**12 and d["record"]["queues"] == [] and d["record"]["flow_sample_ps"] == 0


def test_bench_json(cli):
    res = cli("bench", "--only", "dctcp-100m", "--json")
    assert res.code == 0, res.stderr
    (r,) = json.loads(res.stdout)
    assert r["name"] == "dctcp-100m"
    for key in ("events", "wall_s", "cpu_s", "events_per_s", "sim_packets_per_s", "ns_per_packet", "peak_rss_bytes"):
        assert r[key] > 0, key
    # The per-packet figures are the totals' ratios.
    assert r["events_per_packet"] == r["events"] / r["data_packets_sent"]
    assert r["ns_per_packet"] == r["cpu_s"] * 1e9 / r["data_packets_sent"]
    assert r["events_per_packet"] > 2  # a departure and an arrival per hop, an ACK
    assert r["peak_rss_bytes"] > 10 * 2**20  # a Python process with pydantic and the core's tables
    assert "dctcp-100m" in res.stderr
    # How the extension was compiled is said and recorded, as the binding
    # reports it (make setup builds it profile-guided where it can).
    from dumbbell import _native

    assert r["build"] == _native.build()
    assert r["build"] == "plain" or r["build"].startswith("profile-guided (dumbbell-")
    assert f"extension built {r['build']}" in res.stderr


def test_reno_in_python_beside_rust(cli):
    """The pair runs the same packets; the Python one's record says what it costs more."""
    res = cli("bench", "--only", "reno-1g,reno-py-1g", "--json")
    assert res.code == 0, res.stderr
    rust, py = json.loads(res.stdout)
    assert (rust["name"], py["name"]) == ("reno-1g", "reno-py-1g")
    assert py["same_packets_as_rust"] and py["events"] == rust["events"]
    assert py["ns_per_packet_over_rust"] == py["ns_per_packet"] - rust["ns_per_packet"]
    assert py["cpu_vs_rust"] == py["cpu_s"] / rust["cpu_s"]
    assert "Reno in Python costs" in res.stderr


def test_python_path_against_the_core_alone():
    """The Python path's record: the same run through dumbbell.run and the
    core alone, its ratios the quotients of its own figures (no timing is
    asserted: the machine's load moves them)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "dumbbell.bench_pypath", "2", "reno-1g"],
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    assert (r["name"], r["scenario"], r["runs"]) == ("python-path-1g", "reno-1g", 2)
    assert r["same_events"] and r["events"] > 10**6  # 10 s at 1 Gb/s: about six events per data packet
    assert len(r["core_cpu_s_all"]) == len(r["run_cpu_s_all"]) == 2 and min(r["core_cpu_s_all"]) > 0
    assert r["first_run_cpu_s"] == r["run_cpu_s_all"][0] and r["later_run_cpu_s"] == r["run_cpu_s_all"][1]
    assert r["first_vs_core"] == r["first_run_cpu_s"] / r["core_cpu_s"]
    assert r["later_vs_core"] == r["later_run_cpu_s"] / r["core_cpu_s"]
    assert len(r["command_cpu_s_all"]) == 2 and r["command_cpu_s"] > r["import_cpu_s"] > 0
    assert r["command_vs_core"] == (r["command_cpu_s"] - r["import_cpu_s"]) / r["core_cpu_s"]
    line = bench.python_path_line(r)
    assert f"({r['first_vs_core']:.2f}x the core)" in line and "same events: True" in line
    assert f"dumbbell run {r['command_cpu_s']:.3f} s, {r['command_vs_core']:.2f}x the core" in line


def test_python_path_is_named_only_on_request():
    assert bench.PYTHON_PATH == "python-path-1g"
    assert "python-path-1g" not in bench.BENCHMARKS and "python-path-1g" not in bench._default_names()


def test_htsim_equal_work_against_a_stand_in(tmp_path, monkeypatch, cli):
    """The equal-work record: our core on compare.sh's scenario with one ACK
    per data packet, against whatever htsim_compare reports (a stand-in
    printing htsim's line, 250 ns per packet)."""
    from dumbbell import bench_htsim

    fake = tmp_path / "htsim_compare"
    fake.write_text("#!/bin/sh\necho \"htsim $1 data_pkts 702448 cpu 0.175s cpu_ns_per_pkt 250.0\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("DUMBBELL_HTSIM", str(fake))
    assert bench_htsim.htsim_binary() == fake
    r = bench_htsim.measure(fake, runs=2, scenarios=("dctcp-100m",))
    (row,) = r["scenarios"]
    assert row["htsim_ns_per_packet"] == 250.0 and row["data_packets"]["htsim"] == 702448
    assert row["ratio"] == row["ours_ns_per_packet"] / 250.0
    assert row["ratio_min"] <= row["ratio"] <= row["ratio_max"]
    # One ACK per data packet, no TxDone at any port (the sender's NIC
    # raises one only while TCP small queues hold its sender, which this
    # path's fast NIC seldom does): 2 events per data packet and 2 per ACK.
    assert 3.9 < row["ours_events_per_packet"] < 4.1
    assert row["data_packets"]["ours"] > 800_000
    monkeypatch.setenv("DUMBBELL_HTSIM", str(tmp_path / "none"))
    res = cli("bench", "--only", "htsim-equal-work")
    assert res.code == 2 and "--only" in res.stderr and "htsim_compare" in res.stderr
