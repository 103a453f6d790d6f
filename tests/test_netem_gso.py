"""``db.Netem(unit="gso")``: netem's loss and limit per GSO skb. The model
writes the new fields only when set (per-packet documents stay as they
were), checks them by name, and a run through Python shows the skb limit
admitting more segments than the same limit per packet; lossy-cc's network
passes the unit to its router's stage."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.experiments import lossy_cc as e3


def test_the_model_writes_the_unit_only_when_set():
    assert db.Netem().to_core() == {"loss": 0.0, "delay_ps": 0, "limit_pkts": 1000}
    assert db.Netem(unit="gso").to_core()["unit"] == "gso"
    assert db.Netem(unit="gso", gso_max_bytes=2896).to_core()["gso_max_bytes"] == 2896
    with pytest.raises(ConfigError) as e:
        db.Netem(unit="skb")
    assert e.value.field == "unit"
    with pytest.raises(ConfigError) as e:
        db.Netem(unit="gso", gso_max_bytes=0)
    assert e.value.field == "gso_max_bytes"


def _max_queue(unit: str) -> int:
    s = db.Scenario(duration_s=1.0,
                    nodes=[db.Node(name="a", kind="host"), db.Node(name="r", kind="switch"),
                           db.Node(name="b", kind="host")],
                    links=[db.Link(a="a", b="r", rate_bps=1e9),
                           db.Link(a="r", b="b", rate_bps=1e8, delay_s=0.005,
                                   queue_ab=db.DropTail(limit_pkts=5000),
                                   netem_ab=db.Netem(limit_pkts=10, unit=unit))])
    s.add_flow(db.TcpFlow(name="f", src="a", dst="b", cc="cubic"))
    q = db.run(s, seed=1).queues
    return int(q.filter((q["node"] == "r") & (q["peer"] == "b"))["max_pkts"][0])


def test_a_limit_of_skbs_admits_many_segments():
    per_packet, per_skb = _max_queue("packet"), _max_queue("gso")
    assert per_packet <= 10
    assert per_skb >= 5 * per_packet


def test_lossy_cc_network_passes_the_unit():
    s = e3.network(1e9, 0.02, netem_unit="gso")
    assert s.link("r", "srv").netem_ab.unit == "gso"
    assert e3.network(1e9, 0.02).link("r", "srv").netem_ab.unit == "packet"
    assert "netem-gso" in e3.PARTS
