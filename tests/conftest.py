"""Shared fixtures: small scenarios and a CLI runner (a real subprocess, so
exit codes, stdout and stderr are exactly what a user sees)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from collections.abc import Iterator
from pathlib import Path

import pytest

import dumbbell as db

REPO = Path(__file__).resolve().parent.parent

# Commands that run simulations keep them in a results store (default
# ./dumbbell-results); the tests' commands share one unless a test passes its
# own --store. It lives in pytest's base temporary directory, which pytest
# prunes to its last few sessions, so a killed session leaves nothing behind
# for good (a TemporaryDirectory here was never removed when pytest was killed).
_STORE: Path | None = None


@pytest.fixture(scope="session", autouse=True)
def _test_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    global _STORE
    _STORE = tmp_path_factory.mktemp("store")
    return _STORE


@pytest.fixture(scope="session", autouse=True)
def _nothing_left_behind() -> Iterator[None]:
    """Tests leave nothing behind (issue 27): at the end of the session the
    checkout has no new top-level entry and neither the checkout's
    ``./dumbbell-results``, the working directory's, nor the user's
    ``$DUMBBELL_STORE`` changed. A test that writes there fails the session
    (an error at teardown naming the place); write under ``tmp_path``."""
    from .leftovers import changes, snapshot

    before = snapshot(REPO)
    yield
    changed = changes(before, snapshot(REPO))
    assert not changed, f"tests wrote into the checkout or the user's store: {changed}"


# The reproduction tests: they run whole experiments at quick scale and take
# most of the suite's time. Marked `slow` here (not in each file, which the
# experiments' owners edit); they run by default, `pytest -m "not slow"`
# leaves them out while editing.
SLOW_MODULES = frozenset({"test_dctcp_queue", "test_hysteresis", "test_lossy_cc", "test_rafle", "test_highspeed", "test_reproduce_store",
                          "test_outputs", "test_evidence"})
SLOW_TESTS = frozenset({"test_reproduce_highspeed_json_contract"})  # in test_cli.py


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        if module in SLOW_MODULES or item.name in SLOW_TESTS or "reproduced" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None) -> CliResult:
    if _STORE is None:
        raise RuntimeError("run_cli needs pytest's session store (the _test_store fixture)")
    store = _STORE
    p = subprocess.run(
        [sys.executable, "-m", "dumbbell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        # the session's store, never the user's (DUMBBELL_STORE set in their shell)
        env={**os.environ, "DUMBBELL_STORE": str(store)},
    )
    return CliResult(p.returncode, p.stdout, p.stderr)


@pytest.fixture
def cli():
    return run_cli


def two_flow_star(duration_s: float = 0.5, loss: float = 0.0, cc: str = "cubic") -> db.Scenario:
    """a, b → c through s1 at 100 Mb/s; optional random loss on s1 → c."""
    s = db.star(["a", "b", "c"], rate="100Mbps", delay="75us", duration_s=duration_s, name="two-flow-star")
    s.link("c", "s1").loss_ba = loss
    for h in ("a", "b"):
        s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc=cc))
    s.record.queues.append(db.QueueRecord(node="s1", peer="c", dequeue_times=True))
    s.record.flow_sample_s = duration_s / 50
    s.record.drop_log = True
    return s


@pytest.fixture
def star_scenario() -> db.Scenario:
    return two_flow_star()


MINIMAL_TOML = """\
name = "minimal"
duration_s = 0.2
hosts = ["a", "b"]
switches = ["s1"]

[[links]]
a = "a"
b = "s1"
rate_bps = "{rate}"
delay_s = "50us"

[[links]]
a = "b"
b = "s1"
rate_bps = "100Mbps"
delay_s = "50us"

[[flows]]
src = "a"
dst = "b"
cc = "{cc}"
"""


def one_row(rows, **where) -> dict:
    """The single row of a polars table matching every ``column=value``."""
    import polars as pl

    f = rows
    for k, v in where.items():
        f = f.filter(pl.col(k) == v)
    assert f.height == 1, (where, f)
    return f.row(0, named=True)


def write_toml(tmp_path: Path, text: str, name: str = "scenario.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p
