"""tools/paper_changes.py: what changed between two ``paper`` tables, on two tiny
synthetic tables whose changes are known by construction."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

COLUMNS = ["part", "case", "metric", "relation", "value", "ours", "sensitivity", "verdict", "cause", "reason"]

BEFORE = [
    # moves by +50 % and changes verdict
    ["cases", "A", "goodput_bps", "~", "100", "50", "", "differs", "model", "half the paper's"],
    # moves by -10 %, keeps its verdict
    ["cases", "B", "goodput_bps", "~", "100", "200", "", "differs", "testbed", "twice"],
    # unchanged
    ["cases", "C", "goodput_bps", "~", "100", "101", "", "agrees", "", "within 20 %"],
    # same number, cause changes
    ["cases", "D", "goodput_bps", "~", "100", "300", "", "differs", "ours", "a bug"],
    # gone after
    ["cases", "E", "goodput_bps", "~", "100", "1", "", "differs", "model", "gone"],
]
AFTER = [
    ["cases", "A", "goodput_bps", "~", "100", "75", "", "agrees", "", "within 30 %"],
    ["cases", "B", "goodput_bps", "~", "100", "180", "", "differs", "testbed", "nearly twice"],
    ["cases", "C", "goodput_bps", "~", "100", "101", "", "agrees", "", "within 20 %"],
    ["cases", "D", "goodput_bps", "~", "100", "300", "buffer 64: 110, 1024: 300", "differs", "model", "the buffer"],
    # new after
    ["cases", "F", "goodput_bps", "<", "5", "9", "", "differs", "paper", "the paper's own equation"],
]


def tool():
    spec = importlib.util.spec_from_file_location("_tool_paper_changes", ROOT / "tools" / "paper_changes.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write(path: Path, rows: list[list[str]]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    with (path / "paper.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    return path


@pytest.fixture
def output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    before = write(tmp_path / "before" / "toy", BEFORE)
    after = write(tmp_path / "after" / "toy", AFTER)
    assert tool().main([str(before), str(after)]) == 0
    return capsys.readouterr().out


def section(text: str, title: str) -> str:
    start = text.index(f"### {title}")
    end = text.find("\n### ", start + 1)
    return text[start : end if end >= 0 else None]


def test_counts_by_cause_before_and_after(output: str) -> None:
    counts = section(output, "Verdict counts by cause")
    assert "| agrees | 1 | 2 | +1 |" in counts
    assert "| differs (model) | 2 | 1 | -1 |" in counts
    assert "| differs (ours) | 1 | 0 | -1 |" in counts
    assert "| differs (paper) | 0 | 1 | +1 |" in counts
    assert "| differs (testbed) | 1 | 1 | 0 |" in counts
    assert "| **rows** | 5 | 5 | +0 |" in counts
    assert "Before: 1 agrees, 4 differ (2 model, 1 ours, 1 testbed) (5 rows)." in counts
    assert "After: 2 agree, 3 differ (1 model, 1 paper, 1 testbed) (5 rows)." in counts


def test_moved_rows_with_relative_change_and_verdict(output: str) -> None:
    moved = section(output, "Rows that moved")
    assert moved.startswith("### Rows that moved or changed verdict (3)")
    lines = [line for line in moved.splitlines() if line.startswith("| goodput_bps")]
    # verdict changes first, then the rest by size of move
    assert "case=A" in lines[0] and "+50.0%" in lines[0] and "**agrees**" in lines[0]
    assert "case=D" in lines[1] and "+0.0%" in lines[1] and "**differs (model)**" in lines[1]
    assert "case=B" in lines[2] and "-10.0%" in lines[2] and "**" not in lines[2]
    assert "case=C" not in moved


def test_new_and_gone_rows(output: str) -> None:
    assert "case=F" in section(output, "Rows only after")
    assert "differs (paper)" in section(output, "Rows only after")
    assert "case=E" in section(output, "Rows only before")
    assert "case=E" not in section(output, "Rows only after")


def test_remaining_model_rows_carry_their_sensitivity(output: str) -> None:
    model = section(output, "Remaining `model` differences")
    assert "case=D" in model and "buffer 64: 110, 1024: 300" in model
    # the gone row's model difference is not a remaining one
    assert "case=E" not in model


def test_min_rel_hides_small_moves_that_keep_their_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path / "b", BEFORE)
    after = write(tmp_path / "a", AFTER)
    tool().main([str(before / "paper.csv"), str(after / "paper.csv"), "--min-rel", "0.2"])
    moved = section(capsys.readouterr().out, "Rows that moved")
    assert "case=B" not in moved  # -10 %, same verdict
    assert "case=A" in moved and "case=D" in moved  # verdict or cause changed


def test_directories_of_experiments_pair_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "b" / "one", BEFORE)
    write(tmp_path / "b" / "two", BEFORE)
    write(tmp_path / "a" / "one", AFTER)
    write(tmp_path / "a" / "three", AFTER)
    tool().main([str(tmp_path / "b"), str(tmp_path / "a")])
    out = capsys.readouterr().out
    assert "## one" in out and "## two" not in out and "## three" not in out


def test_a_missing_directory_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tool().main([str(tmp_path / "nowhere"), str(tmp_path)])
    assert "nowhere does not exist" in capsys.readouterr().err
