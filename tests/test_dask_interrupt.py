"""Ctrl-C under Dask (issue 30): the terminal sends SIGINT to the whole
process group, LocalCluster's worker processes included; the user sees one
line and exit status 130, never the workers' KeyboardInterrupt tracebacks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import dumbbell as db

pytest.importorskip("distributed", reason="the dask executor needs distributed")


@pytest.mark.parametrize("after_s", [1.5, 8.0])  # while the cluster starts; while runs simulate
def test_ctrl_c_under_dask_prints_one_line(after_s, tmp_path):
    s = db.star(["a", "b", "c"], rate="1Gbps", delay="75us", duration_s=3600.0, name="long")
    for h in ("a", "b"):
        s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="cubic"))
    toml = tmp_path / "long.toml"
    toml.write_text(s.to_toml())
    p = subprocess.Popen([sys.executable, "-m", "dumbbell", "sweep", str(toml), "--repeats", "4", "--executor", "dask",
                          "--workers", "2", "--store", str(tmp_path / "st")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(after_s)
    os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    lines = [line for line in err.splitlines() if not line.endswith("at a time ...")]
    assert lines == ["dumbbell: interrupted"], err
