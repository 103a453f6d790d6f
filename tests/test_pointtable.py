"""The table `dumbbell sweep` prints: plain, narrow, no 1.85e-8 for a zero
interval (dumbbell.sweep.pointtable)."""

from __future__ import annotations

import polars as pl

from dumbbell.sweep.pointtable import interval, number, points_text

from .conftest import run_cli, two_flow_star


def test_numbers_and_intervals():
    assert number(48_580_000.0 / 1e6) == "48.58"
    assert number(0.000123456) == "1.235e-04"
    assert number(272.0) == "272" and number(None) == "-" and number(float("nan")) == "-"
    assert interval(48.58, 1.85e-8 / 1e6) == "48.58 ± 0"  # rounding noise of equal values
    assert interval(48.58, 0.4321) == "48.58 ± 0.43"
    assert interval(48.58, float("nan")) == "48.58"  # one repetition: no interval


def test_long_parameters_are_cut():
    pts = pl.DataFrame({"links[0].queue_ba": ['{"kind":"red","min_th":30000,"max_th":35000}'], "ok": [1], "failed": [0],
                        "goodput_bps": [1e6], "goodput_bps_ci": [None], "fairness": [1.0], "retransmits": [0.0],
                        "packets_dropped": [3.0]})
    text = points_text(pts, ["links[0].queue_ba"])
    assert max(len(line) for line in text.splitlines()) <= 80
    assert '{"kind":"red","min_th...' in text


def test_the_sweep_table_fits_and_shows_a_zero_interval(tmp_path):
    # No random element (no loss, no jitter): every seed gives the same
    # goodput, so the interval over repetitions is exactly zero.
    s = two_flow_star(duration_s=0.2)
    s.record.queues.clear()
    s.record.drop_log = False
    path = tmp_path / "star.toml"
    path.write_text(s.to_toml())
    r = run_cli("sweep", str(path), "--grid", "links[c-s1].rate_bps=20Mbps,50Mbps", "--grid", "flows[*].cc=reno,cubic",
                "--repeats", "2", "--store", str(tmp_path / "st"))
    assert r.code == 0, r.stderr
    lines = r.stderr.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("links[c-s1].rate_bps"))
    table = lines[head:head + 6]
    assert "goodput Mb/s" in table[0] and "fairness" in table[0]
    assert all(len(line) <= 80 for line in lines[head:head + 8]), table  # the table and its legend
    rows = table[2:]
    assert len(rows) == 4 and all(" ± 0 " in row for row in rows), table
    assert not any("e-" in row for row in rows), table
    # goodput below each link's rate
    for row in rows:
        rate = 20.0 if row.startswith("20Mbps") else 50.0
        mean = float(row.split("±")[0].split()[-1])
        assert 0.8 * rate < mean <= rate, row


def test_dumbbell_run_prints_goodput_in_mbps_within_80_columns(tmp_path):
    s = two_flow_star(duration_s=0.2)
    path = tmp_path / "star.toml"
    path.write_text(s.to_toml())
    r = run_cli("run", str(path))
    assert r.code == 0, r.stderr
    lines = r.stderr.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("flow "))
    assert all(len(line) <= 80 for line in lines[head:]), lines[head:]
    rows = lines[head + 2: head + 4]
    assert [row.split()[0] for row in rows] == ["a->c", "b->c"]
    assert sum(float(row.split()[4]) for row in rows) <= 100  # Mb/s, on a 100 Mb/s link
    assert any(line.startswith("summary: events=") for line in lines) and "conservation_ok=True" in r.stderr
