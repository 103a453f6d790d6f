"""TSO-sized bursts of a paced sender (``TcpOptions(gso_max_bytes=...)``,
off by default): the option reaches the core, a value below one MSS is
refused naming the field by Python and by the core, and a paced BBR flow
sends whole skbs through its NIC at the rate it has without them."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.run import check_config


def _scenario(gso: int | None) -> db.Scenario:
    s = db.dumbbell(1, 1, "10Gbps", "1Gbps", access_delay="100us", bottleneck_delay="2ms", duration_s=0.3)
    s.add_flow(db.TcpFlow(name="f", src="snd1", dst="rcv1", cc="bbr", tcp=db.TcpOptions(gso_max_bytes=gso)))
    s.record.packets.append(db.PacketRecord(node="snd1", peer="r1"))
    return s


def test_option_reaches_the_core_and_is_off_by_default():
    assert "gso_max_bytes" not in db.TcpOptions().to_core()
    assert db.TcpOptions(gso_max_bytes=65536).to_core() == {"gso_max_bytes": 65536}


def test_below_one_mss_is_refused_naming_the_field():
    with pytest.raises(db.ConfigError) as info:
        db.TcpOptions(gso_max_bytes=1000)
    assert info.value.field == "gso_max_bytes"
    core = _scenario(65536).to_core()
    core["flows"][0]["tcp"]["gso_max_bytes"] = 1000
    with pytest.raises(db.ConfigError) as cinfo:
        check_config(core)
    assert cinfo.value.field == "flows[0].tcp.gso_max_bytes"


def _skb_sizes(r: db.Result) -> list[int]:
    """Data segments the sender's NIC received at each instant."""
    p = r.table("packets")
    p = p.filter((p["event"] == "enqueue") & (p["size_bytes"] > 100) & (p["time_ps"] > 100 * 10**9))
    return p.group_by("time_ps").len()["len"].to_list()


def test_paced_bbr_sends_whole_skbs_at_the_same_rate():
    on, off = db.run(_scenario(65536), seed=1), db.run(_scenario(None), seed=1)
    # 1 Gb/s: 122 KB per 1024th of a second, capped at 64 KB: 45 segments.
    sizes = _skb_sizes(on)
    assert max(sizes) == 45 and sum(s for s in sizes if s == 45) >= 0.9 * sum(sizes)
    assert set(_skb_sizes(off)) == {1}
    g_on, g_off = on.flows["goodput_bps"][0], off.flows["goodput_bps"][0]
    assert abs(g_on / g_off - 1) < 0.02, (g_on, g_off)
