"""The per-packet trace (``record.packets``): one row per enqueue, dequeue,
drop and mark at the chosen ports, agreeing with the port's counters, the
dequeue times and Little's law; held to ``record.max_bytes``."""

from __future__ import annotations

import polars as pl
import pytest

import dumbbell as db
from dumbbell.errors import LimitError

RATE = 20_000_000


def _scenario(duration_s: float = 1.0, ecn: bool = False) -> db.Scenario:
    queue = db.Step(k_pkts=15, limit_pkts=60) if ecn else db.DropTail(limit_pkts=40)
    s = db.dumbbell(2, 2, access_rate="1Gbps", bottleneck_rate=RATE, access_delay="100us",
                    bottleneck_delay="2ms", bottleneck_loss=0.0 if ecn else 0.002, duration_s=duration_s,
                    name="packets", queue=queue)
    for i in (1, 2):
        s.add_flow(db.TcpFlow(src=f"snd{i}", dst=f"rcv{i}", cc="dctcp" if ecn else "cubic"))
    s.record = db.Record(packets=[db.PacketRecord(node="r1", peer="r2")],
                         queues=[db.QueueRecord(node="r1", peer="r2", dequeue_times=True)])
    return s


@pytest.fixture(scope="module")
def lossy() -> db.Result:
    return db.run(_scenario(), seed=5)


def test_events_agree_with_the_port_counters(lossy, tmp_path):
    r = lossy
    pk = r.table("packets")
    assert set(pk["node"].unique()) == {"r1"} and set(pk["peer"].unique()) == {"r2"}
    q = r.queues.filter((pl.col("node") == "r1") & (pl.col("peer") == "r2")).row(0, named=True)
    count = dict(pk.group_by("event").len().iter_rows())
    assert count["enqueue"] == q["enqueued_pkts"]
    assert count["dequeue"] == q["dequeued_pkts"]
    drops = dict(pk.filter(pl.col("event") == "drop").group_by("reason").len().iter_rows())
    assert drops == {"overflow": q["drops_overflow"], "link_loss": q["drops_link_loss"]}
    assert q["drops_overflow"] > 0 and q["drops_link_loss"] > 0
    # a transmission starts at every dequeue: the dequeues table's times
    deq = pk.filter(pl.col("event") == "dequeue")
    assert deq["time_ps"].to_list() == r.dequeues("r1", "r2")["time_ps"].to_list()
    assert deq["size_bytes"].to_list() == r.dequeues("r1", "r2")["size_bytes"].to_list()
    # saved as Parquet with the other tables
    d = r.to_parquet(tmp_path)
    assert pl.read_parquet(d / "packets.parquet").height == pk.height


def test_sojourn_times_obey_the_fifo_and_littles_law(lossy):
    r = lossy
    pk = r.table("packets")
    deq = pk.filter(pl.col("event") == "dequeue")
    enq = pk.filter(pl.col("event") == "enqueue")
    # FIFO: the k-th dequeue is the k-th enqueue, and it waited the difference
    n = deq.height
    assert enq["seq"][:n].to_list() == deq["seq"].to_list()
    assert (deq["time_ps"] - enq["time_ps"][:n]).to_list() == deq["sojourn_ps"].to_list()
    # no packet waits longer than a full buffer takes to drain
    assert deq["sojourn_ps"].max() <= 40 * 1500 * 8 / RATE * 1e12
    # Little's law: time-averaged backlog = dequeue rate x mean sojourn
    tr = r.queue("r1", "r2")
    t = tr["time_ps"].to_list() + [r.summary["sim_time_ps"]]
    backlog = sum(p * (t[i + 1] - t[i]) for i, p in enumerate(tr["pkts"].to_list())) / t[-1]
    little = deq.height / t[-1] * deq["sojourn_ps"].mean()
    assert backlog > 5 and little == pytest.approx(backlog, rel=0.02)


def test_marks_are_rows_too():
    r = db.run(_scenario(0.4, ecn=True), seed=1)
    pk = r.table("packets")
    q = r.queues.filter((pl.col("node") == "r1") & (pl.col("peer") == "r2")).row(0, named=True)
    marks = pk.filter(pl.col("event") == "mark")
    assert marks.height == q["marked_pkts"] > 0
    # step marking at enqueue: each mark follows its packet's enqueue at once
    enq = pk.filter(pl.col("event") == "enqueue").select("time_ps", "flow", "seq")
    assert marks.select("time_ps", "flow", "seq").join(enq, on=["time_ps", "flow", "seq"]).height == marks.height


def test_the_trace_is_held_to_the_budget():
    s = _scenario(15.0)  # about 75 000 rows of 56 bytes: 4 MiB
    s.record.queues = []
    s.record.max_bytes = 2**20
    with pytest.raises(LimitError, match=r"record\.packets"):
        db.run(s, seed=1)


def test_an_unknown_port_is_refused_naming_the_field():
    s = _scenario(0.1)
    s.record.packets = [db.PacketRecord(node="r1", peer="rcv1")]
    with pytest.raises(db.ConfigError, match=r"record\.packets\[0\]\.peer"):
        db.run(s)
