"""The command line: exit codes, one-line errors naming the field, and the
JSON contract of SPEC §7 (one document on stdout, logs on stderr)."""

from __future__ import annotations

import json

import pytest

from .conftest import MINIMAL_TOML, REPO, write_toml


def assert_bad_input(res, *words: str) -> None:
    assert res.code == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert res.stdout == ""


def test_help(cli):
    for args in ([], ["run"], ["reproduce"], ["bench"]):
        res = cli(*args, "--help")
        assert res.code == 0, res.stderr
        assert "Usage" in res.stdout
    assert "SCENARIO.toml" in cli("run", "--help").stdout
    assert "--scale" in cli("reproduce", "--help").stdout
    assert "--only" in cli("bench", "--help").stdout


def test_missing_file(cli, tmp_path):
    assert_bad_input(cli("run", str(tmp_path / "nope.toml")), "nope.toml", "no such file")


def test_malformed_toml(cli, tmp_path):
    p = write_toml(tmp_path, 'duration_s = 1\nhosts = ["a"\n')
    assert_bad_input(cli("run", str(p)), str(p), "malformed TOML")


def test_unknown_control(cli, tmp_path):
    p = write_toml(tmp_path, MINIMAL_TOML.format(rate="100Mbps", cc="bbr9"))
    assert_bad_input(cli("run", str(p)), "flows[0].cc", "bbr9", "reno")


def test_negative_rate(cli, tmp_path):
    p = write_toml(tmp_path, MINIMAL_TOML.format(rate="-100Mbps", cc="reno"))
    assert_bad_input(cli("run", str(p)), "links[0].rate_bps", "positive")


def test_disconnected_topology(cli, tmp_path):
    text = MINIMAL_TOML.format(rate="100Mbps", cc="reno").replace('hosts = ["a", "b"]', 'hosts = ["a", "b", "island"]')
    p = write_toml(tmp_path, text)
    assert_bad_input(cli("run", str(p)), "links", "disconnected", "island")


def test_hysteresis_thresholds(cli, tmp_path):
    text = MINIMAL_TOML.format(rate="100Mbps", cc="dctcp").replace(
        '[[flows]]',
        '[links.queue_ba]\nkind = "hysteresis"\nupper_pkts = 36\nlower_pkts = 42\n\n[[flows]]',
    )
    p = write_toml(tmp_path, text)  # the queue belongs to the second link, b-s1
    assert_bad_input(cli("run", str(p)), "links[1].queue_ba.lower_pkts", "L_I")


def test_bad_seed(cli, tmp_path):
    p = write_toml(tmp_path, MINIMAL_TOML.format(rate="100Mbps", cc="reno"))
    assert_bad_input(cli("run", str(p), "--seed", "-3"), "--seed")


def test_unknown_experiment(cli):
    assert_bad_input(cli("reproduce", "no-such-thing"), "unknown experiment", "dctcp-queue")


def test_unknown_scale(cli):
    assert_bad_input(cli("reproduce", "dctcp-queue", "--scale", "huge"), "--scale", "quick", "paper")


def test_unknown_benchmark(cli):
    assert_bad_input(cli("bench", "--only", "nope"), "--only", "dctcp-100m", "cubic-1g", "cubic-10g")


def test_run_json(cli, tmp_path):
    p = write_toml(tmp_path, MINIMAL_TOML.format(rate="100Mbps", cc="cubic"))
    res = cli("run", str(p), "--seed", "4", "--json", "--out", str(tmp_path / "out"))
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert set(doc) == {"scenario", "seed", "status", "summary", "flows", "queues"}
    assert doc["seed"] == 4 and doc["scenario"] == "minimal" and doc["status"] == "finished"
    assert doc["summary"]["conservation_ok"] is True
    assert doc["flows"][0]["cc"] == "cubic"
    for name in ("summary", "flows", "queues", "queue_trace"):
        assert (tmp_path / "out" / f"{name}.parquet").exists()
    assert (tmp_path / "out" / "scenario.toml").exists()


def test_example_scenario_runs(cli):
    res = cli("run", str(REPO / "examples" / "dctcp_star.toml"), "--json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [f["cc"] for f in doc["flows"]] == ["dctcp", "dctcp"]


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    from .conftest import run_cli

    out = tmp_path_factory.mktemp("e1")
    return out, run_cli("reproduce", "dctcp-queue", "--scale", "quick", "--seed", "1", "--json", "--out", str(out))


def test_reproduce_json_contract(reproduced):
    out, res = reproduced
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)  # exactly one JSON document, nothing else
    assert set(doc) == {"experiment", "scale", "seed", "rows", "paper"}
    assert (doc["experiment"], doc["scale"], doc["seed"]) == ("dctcp-queue", "quick", 1)
    # E1's six cases, and TCP under CoDel, FQ-CoDel and PIE at 100 Mb/s.
    assert len(doc["rows"]) == 9
    for row in doc["rows"]:
        for key in (
            "cc",
            "queue",
            "rate_bps",
            "queue_p5_pkts",
            "queue_p50_pkts",
            "queue_p95_pkts",
            "queue_max_pkts",
            "utilization",
            "goodput_bps",
            "dequeue_dev_p99_pct",
            "dequeue_dev_frac_over_10pct",
        ):
            assert key in row
    assert {(r["cc"], r["queue"], r["rate_bps"]) for r in doc["rows"]} == {
        (cc, q, rate) for cc, q in (("reno", "droptail"), ("dctcp", "red")) for rate in (10**8, 10**9, 10**10)
    } | {("reno", q, 10**8) for q in ("codel", "fq_codel", "pie")}
    assert doc["paper"] and all({"metric", "cc", "rate_bps", "value", "source"} <= set(p) for p in doc["paper"])
    # The human table goes to stderr.
    assert "The paper beside ours" in res.stderr


def test_reproduce_writes_tables_and_figures(reproduced):
    out, res = reproduced
    assert res.code == 0, res.stderr
    for name in ("rows.parquet", "rows.csv", "paper.parquet", "paper.csv", "result.json"):
        assert (out / name).stat().st_size > 0, name
    # Exact links: every inter-dequeue deviation is 0, so no empty CCDF.
    assert not (out / "dequeue_ccdf.png").exists() and "no CCDF figure is written" in res.stderr
    pngs = sorted(p.name for p in out.glob("queue_*.png"))
    assert pngs == ["queue_100Mbps.png", "queue_10Gbps.png", "queue_1Gbps.png", "queue_aqm_comparison_100Mbps.png"]
    assert json.loads((out / "result.json").read_text()) == json.loads(res.stdout)


def test_reproduce_highspeed_json_contract(tmp_path):
    """E5 through the CLI: one JSON document on stdout with the issue's row
    keys, tables, figures and the JSON file on disk."""
    from .conftest import run_cli

    res = run_cli("reproduce", "highspeed", "--json", "--out", str(tmp_path))
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (doc["experiment"], doc["scale"], doc["seed"]) == ("highspeed", "quick", 1)
    keys = {"part", "cc", "latency_ms", "loss", "sender_cap_bps", "flows", "goodput_bps", "ci95_bps", "samples"}
    assert doc["rows"] and all(keys <= set(r) for r in doc["rows"])
    assert {r["part"] for r in doc["rows"]} == {"single", "wan", "growth"}
    assert all(r["sender_cap_bps"] in (None, 700_000_000) for r in doc["rows"])
    assert json.loads((tmp_path / "result.json").read_text()) == doc
    assert (tmp_path / "wan_goodput_vs_flows.png").stat().st_size > 0
    assert "The paper's claims beside ours" in res.stderr


def test_reproduce_lossy_cc_rejects_a_bad_scale_before_running(cli):
    assert_bad_input(cli("reproduce", "lossy-cc", "--scale", "huge"), "--scale", "quick", "paper")


def test_reproduce_hysteresis_rejects_a_bad_scale_before_running(cli):
    assert_bad_input(cli("reproduce", "hysteresis", "--scale", "huge"), "--scale", "quick", "paper")
    assert "hysteresis (E2)" in cli("reproduce", "--help").stdout
