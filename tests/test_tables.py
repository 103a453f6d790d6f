"""A run's tables are converted from the core's columns only when read
(issue 30): ``dumbbell run --json`` converts flows, queues and summary and
nothing else; converted or not, every table is the same bytes as before."""

from __future__ import annotations

import io

import polars as pl

import dumbbell as db
from dumbbell.sweep import compute
from dumbbell.run.tables import Tables

from .conftest import two_flow_star


def _bytes(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_parquet(buf)
    return buf.getvalue()


def test_tables_are_converted_when_first_read_and_equal_an_eager_conversion():
    s = two_flow_star(duration_s=0.1, loss=0.01)
    res = db.run(s)
    tables = res.tables
    assert isinstance(tables, Tables) and tables.converted() == []
    names = list(tables)
    assert {"flows", "queues", "summary", "flow_samples", "queue_trace", "dequeues", "drops"} <= set(names)
    assert res.flows.height == 2 and res.summary["conservation_ok"]
    assert set(tables.converted()) == {"flows"}  # the summary dict is read from the core's buffers
    # what the sweep engine stores: every table, one at a time, same bytes as reading them all
    out = compute(s.to_core())
    assert sorted(out["tables"]) == sorted(names)
    again = db.run(s)
    for n in names:
        assert pl.read_parquet(io.BytesIO(out["tables"][n])).equals(again.table(n)), n
        assert _bytes(again.table(n)) == _bytes(res.table(n)), n


def test_writing_every_table_keeps_none_converted(tmp_path):
    res = db.run(two_flow_star(duration_s=0.05))
    res.to_parquet(tmp_path / "out")
    assert res.tables.converted() == []
    back = db.Result.load(tmp_path / "out")
    for n in res.tables:
        assert back.table(n).equals(res.table(n)), n


def test_tables_is_a_mutable_mapping():
    res = db.run(two_flow_star(duration_s=0.05))
    t = res.tables
    n = len(t)
    assert "flows" in t and "nope" not in t and t.get("nope") is None
    t["extra"] = pl.DataFrame({"x": [1]})
    assert len(t) == n + 1 and list(t)[-1] == "extra"
    del t["drops"]
    assert "drops" not in t and len(t) == n
    assert dict(t.items())["extra"]["x"].to_list() == [1]


def test_run_json_converts_only_what_it_prints(capsys):
    import json

    from dumbbell.cli import _report_run

    s = two_flow_star(duration_s=0.05)
    res = db.run(s)
    _report_run(s, res, None, json_out=True)
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"scenario", "seed", "status", "summary", "flows", "queues"} and len(doc["flows"]) == 2
    # what it prints is read as rows from the core's buffers: nothing converted
    assert res.tables.converted() == []
    assert doc["flows"] == res.flows.to_dicts() and doc["queues"] == res.queues.to_dicts()
    assert doc["summary"] == res.table("summary").row(0, named=True)
    assert len(res.tables) > 6


def test_rows_read_from_the_core_equal_the_converted_tables_value_for_value():
    """Tables.rows (no polars) gives what polars gives: every table, string
    columns dictionary-encoded or not, time_s bit for bit, the same Python
    types; and reading rows converts nothing."""
    s = two_flow_star(duration_s=0.1, loss=0.01)
    res = db.run(s)
    rows = {n: res.tables.rows(n) for n in res.tables}
    assert res.tables.converted() == []
    assert len(rows["flow_samples"]) > 10 and len(rows["queue_trace"]) > 10 and rows["drops"]
    for n, got in rows.items():
        want = res.table(n).to_dicts()
        assert [list(r) for r in got] == [list(r) for r in want], n  # columns, in order
        assert repr(got) == repr(want), n  # values, floats to the last digit
        assert all(type(a) is type(b) for g, w in zip(got, want) for a, b in zip(g.values(), w.values())), n
        assert res.tables.rows(n) == got  # a converted table gives the same rows


def test_a_run_that_reads_only_summary_and_flows_rows_imports_no_table_library():
    import json
    import subprocess
    import sys

    code = (
        "import json, sys, dumbbell as db\n"
        "s = db.star(['a', 'b'], rate='1Gbps', delay='1ms', duration_s=0.05)\n"
        "s.add_flow(db.TcpFlow(src='a', dst='b'))\n"
        "res = db.run(s)\n"
        "ok = res.summary['conservation_ok'] and res.rows('flows')[0]['bytes_delivered'] > 0\n"
        "print(json.dumps([ok, sorted(m for m in ('polars', 'numpy') if m in sys.modules)]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [True, []]


def test_dictionary_encoded_strings_decode_to_the_same_column():
    import struct

    from dumbbell.run import tables_from_native

    plain = tables_from_native({"t": {"s": ("str", ["a->c", "b->c", "a->c", ""])}})["t"]
    coded = tables_from_native({"t": {"s": ("strdict", (struct.pack("=4I", 0, 1, 0, 2), ["a->c", "b->c", ""]))}})["t"]
    assert coded.equals(plain) and coded.schema == plain.schema
    assert _bytes(coded) == _bytes(plain)


def test_a_run_that_may_outgrow_its_budget_handing_tables_over_is_warned_before_it_runs(cli, tmp_path):
    from dumbbell.sweep.budget import HANDOVER_FACTOR, peak_warning

    def scenario(duration_s: float) -> db.Scenario:
        s = two_flow_star(duration_s=duration_s)
        s.record.flow_sample_s = 1e-4
        s.record.max_bytes = 4 * 2**20
        return s

    assert peak_warning(scenario(0.1).to_core()) is None  # about 0.4 MiB of samples: fits 4x over
    line = peak_warning(scenario(0.4).to_core())  # about 1.6 MiB: fits the budget, not 4x over
    assert line is not None and line.startswith("dumbbell: warning: record.flow_sample_s:")
    assert f"{HANDOVER_FACTOR}x" in line and "record.max_bytes = 4 MiB" in line
    toml = tmp_path / "s.toml"
    toml.write_text(scenario(0.4).to_toml())
    res = cli("run", str(toml), "--json")
    assert res.code == 0, res.stderr
    lines = res.stderr.splitlines()
    assert lines[0] == line and lines[1].startswith("dumbbell: running")  # before the run


def test_seconds_are_polars_own_division_bit_for_bit():
    """time_s is computed in place, and must equal what polars' division
    gives (the stored tables are byte-identical to before)."""
    import numpy as np

    from dumbbell.run.tables import _seconds
    from dumbbell.scenario.units import PS_PER_S

    rng = np.random.default_rng(5)
    ps = np.concatenate([rng.integers(0, 2**63, 100_000, dtype=np.uint64),
                         rng.integers(0, 10**14, 100_000, dtype=np.uint64),
                         np.array([0, 1, 999_999_999_999, 2**64 - 1], dtype=np.uint64)])
    s = pl.Series("time_ps", ps)
    want = (s.cast(pl.Float64) / PS_PER_S).to_numpy()
    got = _seconds(s)
    assert got.name == "time_s" and got.dtype == pl.Float64
    assert np.array_equal(got.to_numpy().view(np.uint64), want.view(np.uint64))
    assert not np.array_equal((ps.astype(np.float64) / PS_PER_S).view(np.uint64), want.view(np.uint64))
