"""The fast start of a plain ``dumbbell run`` (``dumbbell/entry.py``, issue
29): it reads only command lines that click reads the same way, and ends
with the same output and exit status as the click app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dumbbell.entry import plain_run

from .conftest import MINIMAL_TOML

_THROUGH_CLICK = "import sys; from dumbbell.cli import main; main(sys.argv[1:])"
_FAST = "import sys; from dumbbell.entry import main; main(sys.argv[1:])"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "x.toml"], {"scenario": "x.toml"}),
        (["run", "--json", "x.toml", "--seed", "007"], {"scenario": "x.toml", "json_out": True, "seed": 7}),
        (["run", "x.toml", "--seed=5", "--out", "o", "--plot"],
         {"scenario": "x.toml", "seed": 5, "out": "o", "plot": True}),
        (["run", "x.toml", "--out=o"], {"scenario": "x.toml", "out": "o"}),
    ],
)
def test_plain_command_lines_are_read_as_click_reads_them(args: list[str], expected: dict) -> None:
    assert plain_run(args) == expected


@pytest.mark.parametrize(
    "args",
    [
        [], ["--version"], ["run"], ["run", "--help"], ["run", "-h", "x.toml"], ["rn", "x.toml"], ["sweep", "x.toml"],
        ["run", "a.toml", "b.toml"], ["run", "x.toml", "--seed"], ["run", "x.toml", "--seed", "-1"],
        ["run", "x.toml", "--seed", "+1"], ["run", "x.toml", "--seed", "1_0"], ["run", "x.toml", "--seed", " 1"],
        ["run", "x.toml", "--seed", "\u0663"], ["run", "x.toml", "--seed", "1", "--seed", "2"],
        ["run", "x.toml", "--json", "--json"], ["run", "x.toml", "--json=1"], ["run", "x.toml", "--out="],
        ["run", "x.toml", "--out", "--json"], ["run", "--", "x.toml"], ["run", "-"], ["run", "x.toml", "--jsn"],
    ],
)
def test_anything_else_goes_to_the_click_app(args: list[str]) -> None:
    assert plain_run(args) is None


def _both(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    def one(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, timeout=300)

    return one(_THROUGH_CLICK), one(_FAST)


def test_the_fast_start_ends_as_the_click_app(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(MINIMAL_TOML.format(rate="100Mbps", cc="cubic").replace("duration_s = 0.2", "duration_s = 0.02"))
    bad = tmp_path / "bad.toml"
    bad.write_text(MINIMAL_TOML.format(rate="100Mbps", cc="cubci"))
    cases = [
        ["run", str(good), "--seed", "3", "--json"],
        ["run", str(good)],
        ["run", str(good), "--out", str(tmp_path / "out"), "--json"],
        ["run", str(tmp_path / "missing.toml")],
        ["run", str(bad), "--json"],
        ["run", str(good), "--seed=18446744073709551616"],
        ["run", str(good), "--plot"],
        ["run", str(good), "--out", str(good)],
    ]
    codes = set()
    for args in cases:
        assert plain_run(args) is not None, args
        click, fast = _both(args, tmp_path)
        assert (fast.returncode, fast.stdout, fast.stderr) == (click.returncode, click.stdout, click.stderr), args
        codes.add(click.returncode)
    assert codes == {0, 2}


def test_the_fast_start_loads_neither_click_nor_typer(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(MINIMAL_TOML.format(rate="100Mbps", cc="reno").replace("duration_s = 0.2", "duration_s = 0.01"))
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in ('click', 'typer') if m in sys.modules), file=sys.stderr))\n"
        + _FAST
    )
    p = subprocess.run([sys.executable, "-c", code, "run", str(good), "--json"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stderr.splitlines()[-1] == "[]", p.stderr
    p = subprocess.run([sys.executable, "-c", code, "run", str(good), "--jsn"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 2 and "No such option: --jsn" in p.stderr
    assert p.stderr.splitlines()[-1] == "['click', 'typer']"


def test_an_internal_error_ends_both_ways_alike(tmp_path: Path, monkeypatch, capsys) -> None:
    """Status 1 and the bug-report line, through click and straight (here
    click is loaded, so the straight start gets click's ``Exit``)."""
    import dumbbell as db
    from dumbbell import cli, entry

    def broken(*args, **kwargs):
        raise db.SimulationError("packet conservation violated (simulated)")

    good = tmp_path / "good.toml"
    good.write_text(MINIMAL_TOML.format(rate="100Mbps", cc="reno"))
    monkeypatch.setattr(sys.modules["dumbbell.run.runner"], "run", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    ends = []
    for main in (cli.main, entry.main):
        with pytest.raises(SystemExit) as info:
            main(["run", str(good), "--seed", "9"])
        ends.append((info.value.code, capsys.readouterr().err))
    assert ends[0] == ends[1]
    assert ends[0][0] == 1 and "dumbbell: internal error: packet conservation violated" in ends[0][1]
