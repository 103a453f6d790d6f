"""Kernel-era TCP profiles (``TcpOptions(profile=...)``, ``dumbbell.scenario.tcp_profiles``):
each sets what it claims in the run document the core receives, an option
set explicitly wins, the default is the core's defaults, and a bad name is
one error naming the field with the closest name."""

from __future__ import annotations


import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.scenario.tcp_profiles import PROFILES, TCP_RMEM, TCP_WMEM, rfc3390_iw



def _core(**kw) -> dict:
    return db.TcpOptions(**kw).to_core()


def test_default_and_newest_profiles_are_the_core_defaults():
    # Same document with no profile, linux-6.12 or linux-6.8: nothing the
    # core would not take by default is written.
    assert _core() == {} == _core(profile="linux-6.12") == _core(profile="linux-6.8")


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
    assert _core(profile=profile) == expected


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
