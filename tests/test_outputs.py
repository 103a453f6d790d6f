"""What `dumbbell reproduce` and `dumbbell sweep` leave behind (issue
"nothing misleading left behind"), tried for real with subprocesses:

- two reproductions with the same seed are byte-identical in every file but
  timings.json (figures included);
- `--out` is checked before any work, and written atomically: a SIGKILL at
  any moment over an earlier result leaves the earlier result intact or the
  new one complete, never a mix;
- the first Ctrl-C (SIGINT) cancels the runs, writes nothing and exits 130
  within a second or two.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dumbbell as db
from dumbbell.sweep.outdir import MARKER

from .conftest import run_cli

TIMING_FILES = ("timings.json",)


def _digests(d: Path) -> dict[str, str]:
    """Every file of an output directory but its timings, by content."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())
            if p.is_file() and p.name not in TIMING_FILES}


def _reproduce(out: Path, store: Path, *extra: str):
    res = run_cli("reproduce", "dctcp-queue", "--scale", "quick", "--out", str(out), "--store", str(store), *extra)
    assert res.code == 0, res.stderr
    return res


@pytest.fixture(scope="module")
def two_reproductions(tmp_path_factory):
    """`reproduce dctcp-queue --scale quick` twice, each computing every run
    in its own store (nothing shared but the seed)."""
    root = tmp_path_factory.mktemp("twice")
    for k in ("A", "B"):
        _reproduce(root / k, root / f"store{k}")
    return root


def test_two_reproductions_are_byte_identical_but_for_timings(two_reproductions):
    a, b = _digests(two_reproductions / "A"), _digests(two_reproductions / "B")
    assert {"rows.parquet", "rows.csv", "paper.parquet", "paper.csv", "result.json", "meta.json", MARKER} <= set(a)
    assert any(n.endswith(".png") for n in a), "figures are part of the identity claim"
    assert a == b
    # The clock is only in timings.json: both computed everything, at different speeds.
    ta = json.loads((two_reproductions / "A" / "timings.json").read_text())
    assert ta["computed"] == ta["runs"] > 0 and ta["wall_s"] > 0
    for name in ("meta.json", "result.json"):
        assert "wall" not in (two_reproductions / "A" / name).read_text()


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda t: (t / "f.txt").write_text("x") and t / "f.txt", ["--out", "not a directory"]),
        (lambda t: (t / "f.txt").write_text("x") and t / "f.txt" / "sub", ["--out", "not a directory"]),
        (lambda t: "", ["--out", "empty"]),
        (lambda t: (t / "mine").mkdir() or (t / "mine" / "thesis.tex").write_text("x") and t / "mine",
         ["--out", "did not write"]),
    ],
    ids=["a-file", "under-a-file", "empty", "a-stranger-directory"],
)
def test_reproduce_checks_out_before_any_work(tmp_path, make, words):
    out = make(tmp_path)
    res = run_cli("reproduce", "dctcp-queue", "--out", str(out), "--store", str(tmp_path / "store"))
    assert res.code == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dumbbell: error: "), res.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "store").exists(), "nothing ran"


def test_a_sigkill_at_any_moment_leaves_the_earlier_result_or_the_new_one(two_reproductions, tmp_path):
    """DIR holds seed 1's result; `reproduce --seed 2 --out DIR` is killed
    with SIGKILL (no cleanup runs) at several moments: while starting and
    simulating, as its temporary directory appears, and while it renders
    into it (the figures take seconds). After each kill DIR is exactly seed
    1's result; the last attempt runs to its end and DIR is then exactly
    seed 2's, with the killed writers' leftovers cleaned away."""
    import shutil

    earlier = _digests(two_reproductions / "A")
    d = tmp_path / "D"
    shutil.copytree(two_reproductions / "A", d)
    store = tmp_path / "store"
    cmd = [sys.executable, "-m", "dumbbell", "reproduce", "dctcp-queue", "--scale", "quick", "--seed", "2",
           "--out", str(d), "--store", str(store)]

    def attempt(kill: tuple[str, float] | None) -> None:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill is not None:
            when, delay = kill
            if when == "tmp":  # wait for the temporary directory beside DIR
                while not list(tmp_path.glob(".D.tmp-*")):
                    assert proc.poll() is None, "finished before its temporary directory was seen"
                    time.sleep(0.005)
            time.sleep(delay)
            assert proc.poll() is None, f"finished before the kill at {kill}"
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=300)

    for kill in (("start", 1.0), ("tmp", 0.0), ("tmp", 0.5), ("tmp", 2.0)):
        attempt(kill)
        assert _digests(d) == earlier, f"DIR changed after a kill at {kill}"
        assert all(p.name.startswith(".") for p in tmp_path.iterdir() if p.name not in ("D", "store"))
    assert list(tmp_path.glob(".D.tmp-*")), "the kills landed while the new output was being written"
    attempt(None)
    new = _digests(d)
    assert new != earlier and json.loads((d / "meta.json").read_text())["seed"] == 2
    assert set(new) == set(earlier)  # the same files, other contents
    assert not list(tmp_path.glob(".D.*")), "leftovers of the killed writers are removed by the next write"


def _wait_for(proc: subprocess.Popen, pattern: str, timeout: float = 120) -> str:
    """Reads stderr lines until one contains ``pattern``."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if pattern in line:
            return line
    proc.kill()
    raise AssertionError(f"never saw {pattern!r}: {''.join(seen)}")


def test_ctrl_c_in_reproduce_exits_130_at_once_and_writes_nothing(tmp_path):
    """`reproduce lossy-cc --scale paper` runs for hours on this machine; the
    first SIGINT, sent while its runs are in progress, ends it with status
    130 within 2 s and leaves no --out directory (nor a hidden temporary)."""
    out = tmp_path / "D"
    with subprocess.Popen([sys.executable, "-m", "dumbbell", "reproduce", "lossy-cc", "--scale", "paper",
                           "--workers", "2", "--out", str(out), "--store", str(tmp_path / "store")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as proc:
        took, rest = _interrupt(proc)
    print(f"reproduce lossy-cc --scale paper: exit {proc.returncode} {took:.2f} s after SIGINT")
    assert proc.returncode == 130, rest
    assert took < 2.0, took
    assert rest.strip().splitlines()[-1] == "dumbbell: interrupted"
    assert not out.exists() and not any(p.name.startswith(".D.") for p in tmp_path.iterdir())


def _interrupt(proc: subprocess.Popen) -> tuple[float, str]:
    """Waits until runs are simulating, sends SIGINT; returns the seconds
    from the signal to the exit, and the rest of stderr."""
    _wait_for(proc, "at a time")
    time.sleep(1.5)  # the runs are simulating
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return time.monotonic() - sent, proc.stderr.read()


def test_ctrl_c_in_sweep_exits_130_at_once(tmp_path):
    """Six one-hour runs (minutes of wall time each), two at a time: the
    first SIGINT stops the two running, cancels the four waiting, stores
    nothing and exits 130 within 2 s."""
    s = db.star(["a", "b", "c"], rate="1Gbps", delay="75us", duration_s=3600.0, name="long")
    for h in ("a", "b"):
        s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="cubic"))
    path = tmp_path / "long.toml"
    path.write_text(s.to_toml())
    with subprocess.Popen([sys.executable, "-m", "dumbbell", "sweep", str(path), "--repeats", "6",
                           "--workers", "2", "--store", str(tmp_path / "store")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as proc:
        took, rest = _interrupt(proc)
    print(f"sweep: exit {proc.returncode} {took:.2f} s after SIGINT")
    assert proc.returncode == 130, rest
    assert took < 2.0, took
    # Nothing stopped early was stored as a result.
    from dumbbell.sweep.store import Store

    runs = Store(tmp_path / "store").query("SELECT count(*) AS n FROM runs")
    assert runs["n"][0] == 0


def test_a_ctrl_c_that_duckdb_turned_into_its_own_error_still_exits_130():
    """A SIGINT landing while the store's catalog runs a DuckDB query comes
    back as DuckDB's "Query interrupted" error, not KeyboardInterrupt (seen
    on a quiet machine in `reproduce lossy-cc --scale paper`); it is still
    Ctrl-C: exit 130, "dumbbell: interrupted". Any other error stays an
    internal error (exit 1)."""
    code = (
        "import sys, duckdb\n"
        "from dumbbell.cli import _exit_codes\n"
        "errors = {'duckdb': duckdb.InterruptException('Query interrupted'),\n"
        "          'runtime': RuntimeError('Query interrupted'), 'other': RuntimeError('disk full')}\n"
        "with _exit_codes():\n"
        "    raise errors[sys.argv[1]]\n"
    )
    for kind, want_code, want_line in (("duckdb", 130, "dumbbell: interrupted"),
                                       ("runtime", 130, "dumbbell: interrupted"),
                                       ("other", 1, "dumbbell: internal error (RuntimeError): disk full")):
        p = subprocess.run([sys.executable, "-c", code, kind], capture_output=True, text=True, timeout=60)
        assert p.returncode == want_code, (kind, p.stderr)
        # (outside the CLI app the exit-1 path surfaces as click's Exit; the
        # message line comes first either way)
        assert p.stderr.strip().splitlines()[0 if want_code == 1 else -1] == want_line, (kind, p.stderr)
