"""The CLI's own failures and interruptions (issues: robustness, nothing
misleading left behind): one line and exit 2 for every bad input, checked
before the simulation starts; ``--out`` written atomically with the run's
seed; Ctrl-C returns what was computed with exit 130; an internal error
leaves the scenario in a file for a bug report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import dumbbell as db
from dumbbell import cli as cli_module
from dumbbell.sweep.outdir import MARKER, check_out_dir

from .conftest import MINIMAL_TOML, write_toml


def _one_line_error(res, *words: str) -> None:
    assert res.code == 2, (res.code, res.stderr)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("dumbbell: error: "), lines[0]
    assert "╭" not in res.stderr and "Traceback" not in res.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert "running" not in res.stderr


@pytest.fixture
def scenario_file(tmp_path):
    return write_toml(tmp_path, MINIMAL_TOML.format(rate="100Mbps", cc="cubic"))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["run", "--seed", "x", "S"], ["--seed", "not a valid integer"]),
        (["run", "--bogus", "S"], ["--bogus"]),
        (["run"], ["SCENARIO.toml"]),
        (["reproduce", "--scale"], ["--scale"]),
        (["frobnicate"], ["frobnicate"]),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(cli, scenario_file, args, words):
    _one_line_error(cli(*[str(scenario_file) if a == "S" else a for a in args]), *words)


def test_out_is_checked_before_the_run(cli, scenario_file, tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    stranger = tmp_path / "mine"
    stranger.mkdir()
    (stranger / "thesis.tex").write_text("precious")
    for out, words in [
        (a_file, ["--out", "not a directory"]),
        (a_file / "sub", ["--out", "not a directory"]),
        ("", ["--out", "empty"]),
        ("   ", ["--out", "empty"]),
        (stranger, ["--out", "did not write"]),
    ]:
        _one_line_error(cli("run", str(scenario_file), "--out", str(out)), *words)
    assert (stranger / "thesis.tex").read_text() == "precious"


def test_an_unwritable_out_is_refused(tmp_path, monkeypatch):
    """`os.access` decides (root may write anywhere, so it is stubbed here)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked)
    with pytest.raises(db.ConfigError) as info:
        check_out_dir(locked / "out")
    assert info.value.field == "--out" and "not writable" in info.value.message


def test_out_replaces_an_earlier_output_whole_and_keeps_the_seed(cli, scenario_file, tmp_path):
    out = tmp_path / "out"
    first = cli("run", str(scenario_file), "--seed", "5", "--out", str(out))
    assert first.code == 0, first.stderr
    second = cli("run", str(scenario_file), "--seed", "3", "--out", str(out))
    assert second.code == 0, second.stderr
    assert (out / MARKER).exists()
    assert json.loads((out / "config.json").read_text())["seed"] == 3
    saved = db.Scenario.from_toml(out / "scenario.toml")
    assert saved.seed == 3
    # Nothing of a temporary or earlier directory is left beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", scenario_file.name])
    # The saved scenario reruns to identical tables.
    again = tmp_path / "again"
    res = cli("run", str(out / "scenario.toml"), "--out", str(again))
    assert res.code == 0, res.stderr
    for table in sorted(p.name for p in out.glob("*.parquet")):
        assert pl.read_parquet(out / table).equals(pl.read_parquet(again / table)), table
    assert json.loads((again / "config.json").read_text()) == json.loads((out / "config.json").read_text())


def test_a_closed_or_full_stdout_is_one_line(scenario_file):
    cmd = [sys.executable, "-m", "dumbbell", "run", str(scenario_file), "--json"]
    closed = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.close(1), timeout=300)
    assert closed.returncode == 2, closed.stderr
    assert closed.stderr.strip().startswith("dumbbell: error: stdout:") and "running" not in closed.stderr
    if not Path("/dev/full").exists():
        return
    with open("/dev/full", "w") as full:
        res = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("dumbbell: error: stdout: cannot write")


def test_errors_the_core_finds_come_before_the_announcement(cli, tmp_path):
    """A scenario pydantic accepts but the core refuses (a recording estimate
    beyond the budget) is refused before "running ..." is printed."""
    text = MINIMAL_TOML.format(rate="100Mbps", cc="cubic").replace("duration_s = 0.2", "duration_s = 100.0")
    text = text.replace('[[flows]]', '[record]\nflow_sample_s = 1e-9\n\n[[flows]]')
    _one_line_error(cli("run", str(write_toml(tmp_path, text))), "record.flow_sample_s", "GiB")


def test_ctrl_c_returns_the_partial_run_and_exits_130(tmp_path):
    text = MINIMAL_TOML.format(rate="1Gbps", cc="cubic").replace("duration_s = 0.2", "duration_s = 1000.0")
    path = write_toml(tmp_path, text)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "dumbbell", "run", str(path), "--json", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    line = proc.stderr.readline()
    assert "running" in line, line
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert time.monotonic() - sent < 30
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("dumbbell: stopped by Ctrl-C at t = ")
    doc = json.loads(stdout)
    assert doc["status"] == "stopped" and doc["summary"]["stopped"] is True
    assert 0 < doc["summary"]["sim_time_ps"] < 1000 * 10**12
    summary = pl.read_parquet(out / "summary.parquet")
    assert summary["stopped"][0] is True and (out / MARKER).exists()


def test_an_internal_error_leaves_the_scenario_for_a_bug_report(scenario_file, monkeypatch, capsys, tmp_path):
    def broken(*args, **kwargs):
        raise db.SimulationError("packet conservation violated (simulated)")

    monkeypatch.setattr(sys.modules["dumbbell.run.runner"], "run", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        cli_module.main(["run", str(scenario_file), "--seed", "9"])
    assert info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("dumbbell: internal error: packet conservation violated") and "saved in" in err
    report = Path(err.split("saved in ")[1].split(" for a bug report")[0])
    assert db.Scenario.from_toml(report).seed == 9
    assert "packet conservation violated" in report.read_text()


def test_progress_line_shows_simulated_time_rate_and_time_left(monkeypatch):
    class Tty:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    a = cli_module._Announcer("dumbbell: running 'x' ...")
    P = db.Progress
    a(P("running", 0, 10 * 10**12, 0, 0.1))
    a(P("running", 2 * 10**12, 10 * 10**12, 20_000_000, 1.1))
    a(P("running", 4 * 10**12, 10 * 10**12, 40_000_000, 2.1))
    a.done()
    assert tty.text.startswith("dumbbell: running 'x' ...\n")
    assert "t = 4 of 10 s simulated (40 %)" in tty.text and "20.0 M events/s" in tty.text
    assert "about 3 s left" in tty.text
    assert tty.text.endswith("\r\x1b[K")


def test_reproduce_checks_out_before_running(cli, tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    _one_line_error(cli("reproduce", "dctcp-queue", "--out", str(a_file)), "--out", "not a directory")
    _one_line_error(cli("reproduce", "dctcp-queue", "--out", ""), "--out", "empty")
