"""A full disk (issue 30): at whatever point a sweep, a reproduction or --out
runs out of space, the command prints one line naming the path and saying
the disk is full, exits 2, loses nothing stored before and leaves no
temporary folder. Tested on a small tmpfs (needs root to mount one)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dumbbell.sweep.store import Store

from .conftest import run_cli, two_flow_star


@pytest.fixture
def disk(tmp_path):
    """A 4 MiB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs to fill needs root and mount(8)")
    d = tmp_path / "disk"
    d.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(d)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {p.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """Fills the disk but ``leave`` bytes."""
    filler = disk / "filler"
    st = os.statvfs(disk)
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "runs").rglob("*")) if p.is_file()}


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if "error" in line]
    assert len(errors) == 1, stderr
    return errors[0]


def test_a_sweep_that_fills_the_disk_names_it_keeps_the_store_and_resumes(disk, tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(two_flow_star(duration_s=0.05, loss=0.01).to_toml())
    store = disk / "st"
    first = run_cli("sweep", str(toml), "--grid", "flows[*].cc=reno,cubic", "--store", str(store), "--workers", "1")
    assert first.code == 0, first.stderr
    kept = _snapshot(store)
    grid = ["--grid", "flows[*].cc=reno,cubic,dctcp,bbr", "--grid", "links[c-s1].loss_ba=0.001,0.002"]
    for leave in (0, 8_000, 64_000, 200_000):  # out of space at different points of the sweep
        filler = _fill(disk, leave)
        res = run_cli("sweep", str(toml), *grid, "--store", str(store), "--workers", "1")
        assert res.code == 2, (leave, res.stderr)
        line = _one_error_line(res.stderr)
        assert line.startswith(f"dumbbell: error: {store}") and "the disk is full" in line, line
        assert list((store / "tmp").iterdir()) == []  # no temporary folder left
        now = _snapshot(store)
        assert {k: now[k] for k in kept} == kept  # nothing stored before was lost
        filler.unlink()
        assert Store(store).verify()["bad"] == []
    done = run_cli("sweep", str(toml), *grid, "--store", str(store), "--workers", "1", "--json")
    assert done.code == 0, done.stderr
    assert Store(store).query("SELECT count(*) FILTER (status = 'ok') FROM runs").item() == 10


def test_run_out_on_a_full_disk_keeps_the_earlier_output(disk, tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(two_flow_star(duration_s=0.05).to_toml())
    out = disk / "out"
    assert run_cli("run", str(toml), "--out", str(out)).code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for leave in (0, 20_000):
        filler = _fill(disk, leave)
        res = run_cli("run", str(toml), "--seed", "7", "--out", str(out))
        assert res.code == 2, res.stderr
        line = _one_error_line(res.stderr)
        assert line.startswith(f"dumbbell: error: {out}") and "the disk is full" in line, line
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "out"]  # no .out.tmp-* left
        filler.unlink()


def test_reproduce_out_on_a_full_disk_names_it(disk, tmp_path):
    out = disk / "e1"
    _fill(disk, 0)
    res = run_cli("reproduce", "dctcp-queue", "--out", str(out))
    assert res.code == 2, res.stderr
    line = _one_error_line(res.stderr)
    assert line.startswith(f"dumbbell: error: {out}") and "the disk is full" in line, line
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]
