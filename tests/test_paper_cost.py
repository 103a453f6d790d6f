"""tools/paper_cost.py: runs served from a store without computing them (by
the run id each had under the store's simulator version), the parts they
count against, runs asked twice, and the makespan model."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from dumbbell.sweep import RunSpec, execute, simulator_version, using

from .conftest import two_flow_star

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("paper_cost", ROOT / "tools" / "paper_cost.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["paper_cost"] = mod
    spec.loader.exec_module(mod)
    return mod


def _specs() -> list[RunSpec]:
    v = simulator_version()
    out = []
    for part, d in (("short", 0.1), ("long", 0.3), ("again", 0.1)):
        out.append(RunSpec.of(two_flow_star(duration_s=d), 3, {"experiment": "x", "point": [part, d], "rep": 0}, v))
    return out


def test_makespan_and_the_packet_quantile_sample(tool):
    assert tool.makespan([1, 1, 4], 2) == 5.0  # the long run starts last
    assert tool.makespan([4, 1, 1], 2) == 4.0  # longest first
    assert tool.makespan([], 2) == 0.0
    runs = [tool.Served("x", "p", f"r{i}", 1.0, pk, 1.0, 0.0, f"r{i}") for i, pk in enumerate((1, 1, 1, 97))]
    # a sample in proportion to packets: the run holding 97 % of them is the one picked
    assert [r.run_id for r in tool._quantile_pick(runs, 3)] == ["r3"]
    assert tool._part(("loss", "bbr", 0.1, 2), ("loss",)) == "loss"
    assert tool._part(("reno", "droptail", 1e9, 0), ("loss",)) == "(all)"


def test_runs_are_served_from_the_store_by_part_and_a_repeat_is_counted_once(tool, tmp_path, capsys):
    specs = _specs()
    with using(store=tmp_path / "st"):
        made = execute(specs, label="x")
    assert [r.ok for r in made] == [True] * 3
    from dumbbell.sweep.store import Store

    ledger = tool.Ledger()
    serve = tool._serve([(Store(tmp_path / "st"), tool._versions(tmp_path / "st"))], ledger, "x",
                        ("short", "long", "again"))
    got = serve(specs)
    assert [r.run_id for r in got] == [r.run_id for r in made]
    assert [s.part for s in ledger.runs] == ["short", "long", "again"]
    assert [s.packets for s in ledger.runs] == [int(r.summary["data_packets_sent"]) for r in made]
    assert ledger.runs[0].run_id == ledger.runs[2].run_id and ledger.runs[1].sim_s == pytest.approx(0.3)
    tool._print(ledger, 2)
    text = capsys.readouterr().out
    assert "| x/short | x/again | 1 |" in text
    assert "| **all** | | 3 | 2 |" in text
    # a run the store does not hold stops the experiment, counted by part
    other = RunSpec.of(two_flow_star(duration_s=0.2), 3, {"experiment": "x", "point": ["long", 0.2], "rep": 0},
                       simulator_version())
    with pytest.raises(tool.Missing):
        serve([other])
    assert ledger.missing == {"x/long": 1}
