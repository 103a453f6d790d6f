"""CAKE (Høiland-Jørgensen, Täht and Morton, "Piece of CAKE", IEEE LANMAN
2018; Linux ``sch_cake``) through the scenario model: host isolation at a
TCP bottleneck, queue conservation, the configuration reaching the core,
and bad input refused naming the field.

The bench: ``snd1`` runs eight CUBIC flows to ``rcv1``, ``snd2`` one to
``rcv2``, through ``r1`` → ``r2`` (20 Mb/s, CAKE); 1 Gb/s access links;
base RTT 10 ms (1 + 3 + 1 ms each way). The shaper, the sparse-flow delay
and COBALT's target are asserted in the core's ``tests/cake.rs``, packet by
packet behaviour in ``queue/cake/tests.rs``.
"""

from __future__ import annotations

import polars as pl
import pytest

import dumbbell as db
from dumbbell.errors import ConfigError

RATE_BPS = 20e6


def _hosts(queue, *, seed: int = 1) -> db.Result:
    s = db.dumbbell(2, 2, "1Gbps", "20Mbps", access_delay="1ms", bottleneck_delay="3ms", queue=queue,
                    duration_s=10.0, name="cake-hosts")
    for i in range(8):
        s.add_flow(db.TcpFlow(name=f"many{i}", src="snd1", dst="rcv1", cc="cubic"))
    s.add_flow(db.TcpFlow(name="one", src="snd2", dst="rcv2", cc="cubic"))
    s.record.queues.append(db.QueueRecord(node="r1", peer="r2", sample_s=0.01))
    s.record.warmup_s = 3.0
    return db.run(s, seed=seed)


@pytest.fixture(scope="module")
def triple() -> db.Result:
    return _hosts(db.Cake())


def _host_goodput(r: db.Result) -> tuple[float, float]:
    f = r.flows
    many = f.filter(pl.col("name").str.starts_with("many"))["steady_goodput_bps"].sum()
    one = f.filter(pl.col("name") == "one")["steady_goodput_bps"].sum()
    return float(many), float(one)


def test_triple_isolate_gives_each_host_an_equal_share(triple):
    """Eight flows on one host, one on the other: equal host shares under
    triple-isolate (within 10 %), the link filled; FQ-CoDel, fair per flow,
    gives the eight-flow host most of the link."""
    many, one = _host_goodput(triple)
    assert abs(many / one - 1) <= 0.10, (many, one)
    assert many + one > 0.9 * RATE_BPS
    many_fq, one_fq = _host_goodput(_hosts(db.FqCoDel()))
    assert many_fq / (many_fq + one_fq) > 0.8, (many_fq, one_fq)


def test_every_packet_is_accounted_for(triple):
    """What entered CAKE left, was dropped from inside (COBALT at dequeue),
    or is still there at the end; the buffer (Linux's, 4 MiB at 20 Mb/s)
    never overflowed."""
    r = triple
    assert r.summary["conservation_ok"] is True
    port = r.queues.filter((pl.col("node") == "r1") & (pl.col("peer") == "r2")).row(0, named=True)
    held = int(r.queue("r1", "r2")["pkts"][-1])
    assert port["drops_overflow"] == 0
    assert port["drops_codel"] > 0
    assert port["enqueued_pkts"] == port["dequeued_pkts"] + port["drops_codel"] + held


def test_linux_defaults_reach_the_core():
    assert db.Cake().to_core() == {
        "limit_pkts": 10240, "limit_bytes": None,
        "aqm": {"kind": "cake", "rate_bps": 0, "flow_mode": "triple_isolate", "target_ps": 5 * 10**9,
                "interval_ps": 100 * 10**9, "overhead_bytes": 0, "mpu_bytes": 0, "ack_filter": "none"},
    }
    assert db.Cake(rate_bps="50Mbps").to_core()["aqm"]["rate_bps"] == 50_000_000


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"rate_bps": -1}, "rate_bps"),
    ({"flow_mode": "per_packet"}, "flow_mode"),
    ({"mpu_bytes": 1000}, "mpu_bytes"),
    ({"target_s": 0}, "target_s"),
    ({"ack_filter": "always"}, "ack_filter"),
])
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(ConfigError) as e:
        db.Cake(**kwargs)
    assert e.value.field.endswith(field), str(e.value)


def test_cake_is_listed_and_a_whole_discipline():
    from dumbbell.listing import listing

    assert "cake" in {q["name"] for q in listing()["queues"]}
    with pytest.raises(ConfigError) as e:
        db.DropTail(classifier=db.Ideal(), long_queue=db.Cake())
    assert "long_queue" in str(e.value)
