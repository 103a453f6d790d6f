"""`dumbbell report STORE --sweep NAME`: any sweep's metrics against its
parameters, as a reader sees them in headless Chromium 1400 px wide
(dumbbell.sweep.sweepreport)."""

from __future__ import annotations

import struct

import pytest

from dumbbell.sweep.store import Store
from dumbbell.sweep.sweepreport import sweep_points

from .browser import Browser, chromium_path
from .conftest import run_cli, two_flow_star

RATES = {"20Mbps": 20e6, "50Mbps": 50e6, "80Mbps": 80e6}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A 3 x 2 sweep with two repetitions: (store, scenario file)."""
    root = tmp_path_factory.mktemp("sweep-report")
    s = two_flow_star(duration_s=0.3, loss=0.001)
    s.name = "pair"
    s.record.queues.clear()
    s.record.drop_log = False
    path = root / "pair.toml"
    path.write_text(s.to_toml())
    store = root / "store"
    r = run_cli("sweep", str(path), "--grid", f"links[c-s1].rate_bps={','.join(RATES)}", "--grid",
                "flows[*].cc=reno,cubic", "--repeats", "2", "--store", str(store))
    assert r.code == 0, r.stderr
    return store


def test_the_points_hold_every_run_and_goodput_fits_each_link(swept):
    params, rows = sweep_points(Store(swept), "sweep:pair")
    assert params == ["links[c-s1].rate_bps", "flows[*].cc"]
    assert len(rows) == 6 and all(r["runs"] == 2 and r["failed"] == 0 for r in rows)
    # ordered by rate (as a rate, not as text), then by control
    assert [r["links[c-s1].rate_bps"] for r in rows][::2] == list(RATES)
    for r in rows:
        rate = RATES[r["links[c-s1].rate_bps"]]
        assert 0.5 * rate < r["goodput_bps"] <= rate, r
        assert 0.5 <= r["fairness"] <= 1.0
        assert r["goodput_bps_ci"] >= 0  # two seeds of a lossy run: an interval


def test_report_of_a_sweep_in_headless_chromium_at_1400_px(swept, tmp_path):
    out = tmp_path / "report"
    r = run_cli("report", str(swept), "--sweep", "pair", "--out", str(out))
    assert r.code == 0, r.stderr
    assert (out / "index.html").is_file() and f"report written to {out / 'index.html'}" in r.stderr
    figures = sorted(p.name for p in out.glob("*.png"))
    assert figures == ["fairness.png", "goodput_bps.png", "packets_dropped.png", "retransmits.png", "timeouts.png"]
    exe = chromium_path()
    if exe is None:
        pytest.skip("chromium is not installed and could not be (`make chromium` needs root and apt-get)")
    with Browser(exe) as b:
        b.set_width(1400)
        page = b.open((out / "index.html").as_uri())
        assert page["console_errors"] == []
        assert page["title"] == "dumbbell: sweep:pair"
        assert [t["rows"] for t in page["tables"]] == [6]
        assert len(page["imgs"]) == 5
        for img in page["imgs"]:
            assert img["complete"] and img["naturalWidth"] > 100 and img["width"] > 0, img
        assert b.overflows() == []
        shot = tmp_path / "sweep-1400.png"
        b.screenshot(shot)
    width, height = struct.unpack(">II", shot.read_bytes()[16:24])  # the PNG header's IHDR
    assert width == 1400 and height > 0


def test_an_unknown_sweep_is_one_line_with_the_closest_name(swept):
    r = run_cli("report", str(swept), "--sweep", "pari")
    assert r.code == 2
    assert "--sweep: no sweep 'pari'" in r.stderr and "(did you mean 'pair'?)" in r.stderr, r.stderr
    assert not (swept / "reports").exists()
    r = run_cli("report", str(swept), "--out", str(swept / "x"))
    assert r.code == 2 and "--out: needs --sweep" in r.stderr


def test_a_catalog_from_before_fairness_still_reports(swept, tmp_path):
    import shutil

    import duckdb

    old = tmp_path / "old-store"
    shutil.copytree(swept, old)
    con = duckdb.connect(str(old / "catalog.duckdb"))
    con.execute("ALTER TABLE runs DROP COLUMN fairness")
    con.execute("ALTER TABLE runs DROP COLUMN flow_goodput_bps")
    con.close()
    r = run_cli("report", str(old), "--sweep", "pair", "--out", str(tmp_path / "report"))
    assert r.code == 0, r.stderr
    assert not (tmp_path / "report" / "fairness.png").exists()  # nothing to draw
    assert (tmp_path / "report" / "goodput_bps.png").is_file()


def test_parameters_are_ordered_by_magnitude_and_job_keys_are_one_parameter():
    from dumbbell.sweep.sweepreport import _magnitude, _point, _x_param

    assert [_magnitude(v) for v in ("10Mbps", "1Gbps", "75us", 3, "reno", True)] == [1e7, 1e9, 75e-6, 3.0, None, None]
    assert sorted(["1Gbps", "80Mbps", "200Mbps"], key=_magnitude) == ["80Mbps", "200Mbps", "1Gbps"]
    # an experiment's runs are keyed by a list (its job key): one parameter, shown as JSON
    assert _point('["dctcp", "red", 100000000]') == {"point": '["dctcp", "red", 100000000]'}
    rows = [{"a": "reno", "b": "10Mbps"}, {"a": "cubic", "b": "20Mbps"}, {"a": "reno", "b": "30Mbps"}]
    assert _x_param(["a", "b"], rows) == "b"  # the most values
