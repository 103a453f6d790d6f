"""``TcpOptions(gro=...)``: a receiver that takes each TSO skb whole (Linux
GRO, a virtio guest's whole GSO packets): the option in the model, a bad
value named at its field, ``--tcp gro=true`` reaching the core document,
and what it does to a run's ACKs (crates/dumbbell-core/src/tcp/receiver/gro.rs)."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.sweep.tcpset import parse_tcp

from .conftest import two_flow_star
from .test_scenario import BASE, edited, error_of


def test_the_option_reaches_the_core_and_is_unset_by_default():
    assert db.TcpOptions(gro=True).to_core()["gro"] is True
    assert db.TcpOptions(gro=False).to_core()["gro"] is False
    assert "gro" not in db.TcpOptions().to_core()
    assert "gro" not in db.TcpOptions(profile="linux-2.4").to_core()


def test_a_bad_value_is_named_at_its_field():
    err = error_of(edited(lambda d: d["flows"][0]["tcp"].update(gro="sometimes")))
    assert err.field == "flows[0].tcp.gro", str(err)
    with pytest.raises(ConfigError) as e:
        parse_tcp(["gro=sometimes"])
    assert e.value.field == "--tcp gro"
    assert BASE["flows"][0]["tcp"].get("gro") is None


def test_tcp_gro_true_reaches_every_tcp_connection_of_the_core_document():
    t = parse_tcp(["gso_max_bytes=65536", "gro=true"])
    assert dict(t.core) == {"gso_max_bytes": 65536, "gro": True}
    doc = t.apply(two_flow_star(duration_s=0.05).to_core(1))
    tcp = [f["tcp"] for f in doc["flows"] if f["kind"] == "tcp"]
    assert tcp and all(c["gro"] is True and c["gso_max_bytes"] == 65536 for c in tcp)


def _acks_per_data_packet(**tcp) -> float:
    s = two_flow_star(duration_s=0.3)
    for f in s.flows:
        f.tcp = db.TcpOptions(**tcp)
        f.cc = "bbr"
    summary = db.run(s, seed=1).summary
    return summary["ack_packets_sent"] / summary["data_packets_sent"]


def test_with_tso_the_receiver_acks_skbs_not_segment_pairs():
    per_segment = _acks_per_data_packet(gso_max_bytes=65536)
    per_skb = _acks_per_data_packet(gso_max_bytes=65536, gro=True)
    assert 0.4 < per_segment < 0.6
    # BBR's skbs here hold several segments each: far fewer ACKs
    assert per_skb < per_segment / 3, (per_skb, per_segment)
    # without TSO the option changes nothing
    assert _acks_per_data_packet(gro=True) == _acks_per_data_packet()
