"""Kernel-era TCP profiles (``TcpOptions(profile=...)``, ``dumbbell.scenario.tcp_profiles``):
each sets what it claims in the run document the core receives, an option
set explicitly wins, the default is the core's defaults, and a bad name is
one error naming the field with the closest name."""

from __future__ import annotations


import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.scenario.tcp_profiles import PROFILES, TCP_RMEM, TCP_WMEM, rcvbuf_window, rfc3390_iw



def _core(**kw) -> dict:
    return db.TcpOptions(**kw).to_core()


_MODERN_BUFFERS = {"rwnd_bytes": 3 << 20, "sndbuf_bytes": 4 << 20}


def test_default_and_newest_profiles_are_the_core_defaults_but_for_the_buffers():
    # No profile: nothing the core would not take by default is written.
    # linux-6.12 or linux-6.8 by name: the core's defaults but for the
    # buffers of their tcp_rmem/tcp_wmem maxima (6 MiB at Linux's initial
    # 50 % scaling ratio, 4 MiB).
    assert _core() == {}
    assert _core(profile="linux-6.12") == _MODERN_BUFFERS == _core(profile="linux-6.8")


def test_a_profile_sets_its_eras_buffers_and_explicit_ones_win():
    # Before 3.4, tcp_adv_win_scale 2: three quarters of the buffer.
    assert rcvbuf_window("linux-2.4") == 174760 - 174760 // 4
    assert rcvbuf_window("linux-3.2") == 3 << 20
    assert rcvbuf_window("linux-6.8") == TCP_RMEM["linux-6.8"][2] // 2
    for name in PROFILES:
        out = _core(profile=name)
        assert out["rwnd_bytes"] == rcvbuf_window(name)
        assert out["sndbuf_bytes"] == TCP_WMEM[name][2]
    out = _core(profile="linux-2.4", rwnd_bytes=1 << 20, sndbuf_bytes=2 << 20)
    assert (out["rwnd_bytes"], out["sndbuf_bytes"]) == (1 << 20, 2 << 20)
    with pytest.raises(ConfigError) as e:
        db.TcpOptions(sndbuf_bytes=1000)
    assert e.value.field == "sndbuf_bytes"


def test_a_profiles_buffers_bind_in_a_run():
    # 1 Gb/s, 40 ms of round trip: Linux 2.4's 128 KiB send buffer allows
    # 131072 B per round trip (26 Mb/s); 6.8's 3 MiB window 629 Mb/s.
    def goodput(profile: str) -> float:
        s = db.Scenario(duration_s=4.0, nodes=[db.Node(name="a", kind="host"), db.Node(name="b", kind="host")],
                        links=[db.Link(a="a", b="b", rate_bps=1e9, delay_s=0.02,
                                       queue_ab=db.DropTail(limit_pkts=10_000))],
                        record=db.Record(warmup_s=2.0))
        s.add_flow(db.TcpFlow(name="f", src="a", dst="b", cc="reno", tcp=db.TcpOptions(profile=profile)))
        return float(db.run(s, seed=1).flows["steady_goodput_bps"][0])

    old = goodput("linux-2.4")
    assert 0.9 < old / (131072 * 8 / 0.04) <= 1.01, old
    new = goodput("linux-6.8")
    assert 0.85 < new / (rcvbuf_window("linux-6.8") * 8 / 0.04) <= 1.01, new


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("linux-2.4", {"init_cwnd_pkts": 3, "init_rto_ps": 3 * 10**12, "frto": False, "rack": False, "tlp": False,
                       "tsq_bytes": 0, "max_reordering": 127, "growth_per_ack": True}),
        ("linux-2.6.32", {"init_cwnd_pkts": 3, "init_rto_ps": 3 * 10**12, "rack": False, "tlp": False,
                          "tsq_bytes": 0, "max_reordering": 127, "growth_per_ack": True}),
        ("linux-3.2", {"init_cwnd_pkts": 10, "rack": False, "tlp": False, "tsq_bytes": 0, "max_reordering": 127,
                       "growth_per_ack": True}),
    ],
)
def test_each_old_profile_sets_what_it_claims(profile, expected):
    buffers = {"rwnd_bytes": rcvbuf_window(profile), "sndbuf_bytes": TCP_WMEM[profile][2]}
    assert _core(profile=profile) == {**expected, **buffers}


def test_rfc3390_window_follows_the_mss():
    assert [rfc3390_iw(m) for m in (536, 1095, 1096, 1448, 1460, 1461, 8960)] == [4, 4, 3, 3, 3, 2, 2]
    assert _core(profile="linux-2.4", mss_bytes=536)["init_cwnd_pkts"] == 4
    assert _core(profile="linux-2.4", mss_bytes=8960)["init_cwnd_pkts"] == 2
    assert _core(profile="linux-3.2", mss_bytes=8960)["init_cwnd_pkts"] == 10


def test_an_explicit_option_wins_over_the_profile():
    out = _core(profile="linux-2.4", init_cwnd_pkts=10, rack=True, tlp=True, init_rto_s=1.0, growth_per_ack=False)
    assert out["init_cwnd_pkts"] == 10 and out["rack"] is True and out["tlp"] is True
    assert out["init_rto_ps"] == 10**12 and out["growth_per_ack"] is False
    assert out["tsq_bytes"] == 0  # the rest still from the profile
    # ... also against the default era.
    assert _core(max_reordering=127, reordering_adapt=False) == {"max_reordering": 127, "reordering_adapt": False}


def test_a_bad_profile_is_one_error_naming_the_field_with_the_closest_name():
    with pytest.raises(ConfigError) as e:
        db.TcpOptions(profile="linux-2.6")
    assert e.value.field == "profile"
    assert "did you mean 'linux-2.4'" in str(e.value) or "did you mean 'linux-2.6.32'" in str(e.value)
    assert "\n" not in str(e.value)
    s = db.Scenario(duration_s=1.0, nodes=[db.Node(name="a", kind="host"), db.Node(name="b", kind="host")],
                    links=[db.Link(a="a", b="b", rate_bps=1e9)])
    with pytest.raises(ConfigError) as e:
        s.add_flow(db.TcpFlow(src="a", dst="b", tcp={"profile": "linux-6.21"}))
        s.validated()
    assert e.value.field.endswith("tcp.profile") and "did you mean 'linux-6.12'" in str(e.value)


def test_every_profile_records_its_buffers_and_a_profile_runs():
    assert set(PROFILES) == set(TCP_RMEM) == set(TCP_WMEM)
    for name in PROFILES:
        lo, default, hi = TCP_RMEM[name]
        assert lo <= default <= hi
    s = db.Scenario(duration_s=0.5, nodes=[db.Node(name="a", kind="host"), db.Node(name="b", kind="host")],
                    links=[db.Link(a="a", b="b", rate_bps=1e8, delay_s=0.005)])
    for name in PROFILES:
        s.flows.clear()
        s.add_flow(db.TcpFlow(src="a", dst="b", cc="reno", bytes=200_000, tcp=db.TcpOptions(profile=name)))
        r = db.run(s, seed=1)
        assert int(r.flows["bytes_delivered"][0]) == 200_000, name
