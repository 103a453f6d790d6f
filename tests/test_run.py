"""One run end to end: the tables of docs/output.md, determinism, packet
conservation, the Result API and the binding's column transfer."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import dumbbell as db
from dumbbell.run import tables_from_native

from .conftest import REPO, two_flow_star

DTYPES = {"u64": pl.UInt64, "u32": pl.UInt32, "i64": pl.Int64, "f64": pl.Float64, "bool": pl.Boolean, "str": pl.String}


def documented_schema() -> dict[str, dict[str, pl.DataType]]:
    """Table → column → dtype, read from docs/output.md."""
    text = (REPO / "docs" / "output.md").read_text()
    schema: dict[str, dict[str, pl.DataType]] = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|[^|]*\|(.*)\|\s*$", line)
        if not m:
            continue
        table, cols = m.group(1), m.group(2)
        same = re.search(r"same columns as `(\w+)`", cols)
        if same:
            schema[table] = dict(schema[same.group(1)])
            continue
        schema[table] = {c: DTYPES[t] for c, t in re.findall(r"`(\w+)` (u64|u32|i64|f64|bool|str)\b", cols)}
    return schema


@pytest.fixture(scope="module")
def result() -> db.Result:
    # 2 s: a lost SYN waits for the 1 s initial RTO. A warm-up, so that the
    # flows table has every documented column.
    s = two_flow_star(duration_s=2.0, loss=0.01)
    s.record.warmup_s = 1.0
    # and the recorders whose tables exist only when asked for
    s.record.pcap = [db.PcapPoint(host="a")]
    s.record.packets = [db.PacketRecord(node="s1", peer="c")]
    s.record.rtt_samples = True
    return db.run(s, seed=1)


def test_every_documented_table_with_its_columns(result):
    schema = documented_schema()
    assert set(schema) >= {"summary", "flows", "flow_samples", "cwnd", "cc_vars", "queues", "queue_trace", "dequeues", "drops",
                           "captures", "packets", "rtt_samples"}
    for table, cols in schema.items():
        df = result.tables[table]
        got = {c: df.schema[c] for c in df.columns if c != "time_s"}
        assert got == cols, table
        if "time_ps" in df.columns:
            assert df.columns[df.columns.index("time_ps") + 1] == "time_s"
            assert df.schema["time_s"] == pl.Float64
            np.testing.assert_allclose(df["time_s"].to_numpy(), df["time_ps"].to_numpy() / 1e12)


def test_packet_conservation(result):
    s = result.summary
    assert s["conservation_ok"] is True
    assert s["packets_created"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    assert s["sim_time_ps"] == 2_000_000_000_000
    assert s["events"] > 0 and s["data_packets_sent"] > 0


def test_the_run_moves_data(result):
    flows = result.flows
    assert flows["name"].to_list() == ["a->c", "b->c"]
    assert (flows["bytes_delivered"] > 0).all()
    assert result.flow_samples.height > 0
    q = result.queue("s1", "c")
    assert q.height > 0 and q["port"].n_unique() == 1
    assert result.dequeues("s1", "c").height > 0
    # 1 % loss on s1 -> c shows up as link-loss drops there.
    port = result.queues.filter((pl.col("node") == "s1") & (pl.col("peer") == "c"))
    assert port["drops_link_loss"][0] > 0
    with pytest.raises(KeyError):
        result.queue("a", "c")


def test_same_seed_same_tables():
    a = db.run(two_flow_star(duration_s=0.3, loss=0.01), seed=5)
    b = db.run(two_flow_star(duration_s=0.3, loss=0.01), seed=5)
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        assert a.tables[name].equals(b.tables[name]), name


def test_another_seed_other_losses():
    a = db.run(two_flow_star(duration_s=0.3, loss=0.01), seed=5)
    b = db.run(two_flow_star(duration_s=0.3, loss=0.01), seed=6)
    assert not a.tables["drops"].equals(b.tables["drops"])
    assert not a.tables["queue_trace"].equals(b.tables["queue_trace"])


def test_to_parquet(result, tmp_path):
    out = result.to_parquet(tmp_path / "run")
    for name, df in result.tables.items():
        assert pl.read_parquet(out / f"{name}.parquet").equals(df)
    assert (out / "config.json").exists()


def test_run_accepts_dicts_and_toml_paths(tmp_path):
    s = two_flow_star(duration_s=0.05)
    p = tmp_path / "s.toml"
    p.write_text(s.to_toml())
    r1 = db.run(p, seed=2)
    r2 = db.run(s.model_dump(mode="json"), seed=2)
    assert r1.tables["flows"].equals(r2.tables["flows"])


def test_tables_from_native_decodes_every_dtype():
    """The binding's wire format: native-endian buffers, strings as lists."""
    raw = {
        "t": {
            "time_ps": ("u64", struct.pack("=3Q", 1, 2_000_000_000_000, 2**64 - 1)),
            "i": ("i64", struct.pack("=3q", -1, 0, 5)),
            "x": ("f64", struct.pack("=3d", 0.5, -1.0, 1e300)),
            "n": ("u32", struct.pack("=3I", 0, 7, 2**32 - 1)),
            "ok": ("bool", bytes([1, 0, 1])),
            "s": ("str", ["a", "", "ü"]),
        }
    }
    df = tables_from_native(raw)["t"]
    assert df.columns == ["time_ps", "time_s", "i", "x", "n", "ok", "s"]
    assert df["time_ps"].to_list() == [1, 2_000_000_000_000, 2**64 - 1]
    assert df["time_s"][1] == 2.0
    assert df["i"].to_list() == [-1, 0, 5]
    assert df["x"].to_list() == [0.5, -1.0, 1e300]
    assert df["n"].to_list() == [0, 7, 2**32 - 1]
    assert df["ok"].to_list() == [True, False, True]
    assert df["s"].to_list() == ["a", "", "ü"]


def test_native_run_returns_buffers():
    """Numeric columns come as read-only buffers moved out of the core,
    string columns dictionary-encoded (docs/output.md, "Memory")."""
    s = two_flow_star(duration_s=0.05)
    s.record.flow_sample_s = 1e-3
    s.record.tcp_vars = True
    raw = db._native.run_json(s.to_json())
    dtype, data = raw["summary"]["events"]
    view = memoryview(data)
    assert dtype == "u64" and isinstance(data, db._native.Buffer) and len(data) == view.nbytes == 8
    assert view.readonly and np.frombuffer(data, dtype="uint64")[0] > 0
    with pytest.raises(TypeError):
        view.cast("B")[0] = 0
    dtype, (codes, names) = raw["flows"]["name"]
    assert dtype == "strdict" and names == ["a->c", "b->c"]
    assert np.frombuffer(codes, dtype="uint32").tolist() == [0, 1]
    # a name on every row: four bytes a row, each distinct value once
    dtype, (codes, names) = raw["cc_vars"]["var"]
    idx = np.frombuffer(codes, dtype="uint32")
    assert dtype == "strdict" and len(idx) > 10 * len(names) > 0 and len(set(names)) == len(names)
    assert int(idx.max()) < len(names) and any(n.startswith("tcp.") for n in names)


def test_core_config_errors_become_config_error():
    from dumbbell.run import run_config

    core = two_flow_star(duration_s=0.01).to_core()
    core["links"][0]["surprise"] = 1
    with pytest.raises(db.ConfigError) as info:
        run_config(core)
    assert info.value.field == "links[0].surprise" and "surprise" in info.value.message


def test_core_rejects_out_of_range_control_parameters():
    """The core checks the control's parameters itself (for callers that
    bypass the Python model) and names the field."""
    from dumbbell.run import run_config

    for cc, field in [
        ({"kind": "vegas", "alpha": 9}, "flows[0].cc.beta"),
        ({"kind": "highspeed", "high_decrease": 0.9}, "flows[0].cc.high_decrease"),
        ({"kind": "highspeed", "low_window": 100, "high_window": 50}, "flows[0].cc.high_window"),
    ]:
        core = two_flow_star(duration_s=0.01).to_core()
        core["flows"][0]["cc"] = cc
        with pytest.raises(db.ConfigError) as info:
            run_config(core)
        assert info.value.field == field, str(info.value)


@pytest.mark.parametrize(
    "cc, names",
    [
        ("highspeed", {"hs_a", "hs_b", "hs_w"}),
        (db.HighSpeed(mode="linux_table"), {"hs_a", "hs_b", "hs_row"}),
        ("vegas", {"vegas_enabled", "base_rtt_us", "min_rtt_us", "cnt_rtt", "diff_pkts"}),
    ],
)
def test_highspeed_and_vegas_run_and_trace_their_state(cc, names):
    r = db.run(two_flow_star(duration_s=0.2, cc=cc), seed=1)
    kind = cc if isinstance(cc, str) else cc.kind
    assert r.flows["cc"].to_list() == [kind, kind]
    assert all(b > 100_000 for b in r.flows["bytes_delivered"].to_list())
    assert set(r.tables["cc_vars"]["var"].unique().to_list()) == names


def test_tcp_vars_trace_the_senders_recovery_and_agree_with_the_flows_table():
    """record.tcp_vars adds the sender's counters to cc_vars at each sample;
    the counts never decrease and the last sample's are at most the flows
    table's at the end."""
    s = two_flow_star(duration_s=1.0, loss=0.02, cc="reno")
    s.record = db.Record(flow_sample_s="100ms", tcp_vars=True)
    r = db.run(s, seed=3)
    v = r.tables["cc_vars"]
    tcp = v.filter(pl.col("var").str.starts_with("tcp."))
    assert set(tcp["var"].unique().to_list()) == {
        "tcp.retransmits", "tcp.timeouts", "tcp.recoveries", "tcp.loss_probes", "tcp.dsack_dups", "tcp.undos",
        "tcp.spurious_rtos", "tcp.reordering", "tcp.rack_reord_seen", "tcp.rack_reo_wnd_steps",
        "tcp.rack_reo_wnd_persist", "tcp.rack_reo_wnd_us",
    }
    for flow in (0, 1):
        series = tcp.filter((pl.col("flow") == flow) & (pl.col("var") == "tcp.retransmits")).sort("time_ps")
        values = series["value"].to_list()
        assert values == sorted(values), "a count never decreases"
        assert 0 < values[-1] <= r.flows["retransmits"][flow]
    # Without the option, no tcp.* rows.
    s.record = db.Record(flow_sample_s="100ms")
    r = db.run(s, seed=3)
    assert not r.tables["cc_vars"]["var"].str.starts_with("tcp.").any()


def test_native_stub_matches_the_module():
    """python/dumbbell/_native.pyi names exactly what the native module exports."""
    import ast

    stub = ast.parse((REPO / "python" / "dumbbell" / "_native.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    exported = {n for n in dir(db._native) if not n.startswith("_")}
    assert declared == exported
