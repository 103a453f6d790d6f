"""The scenario model: validation names the field; to_core gives the core's
exact integers; what it produces is accepted by the core's own decoder."""

from __future__ import annotations

import copy
import json

import pytest

import dumbbell as db
from dumbbell import _native
from dumbbell.scenario import red_wlog_for_burst

BASE = {
    "name": "t",
    "duration_s": 1.5,
    "hosts": ["a", "b", "c"],
    "switches": ["s1"],
    "links": [
        {"a": "a", "b": "s1", "rate_bps": "100Mbps", "delay_s": "75us"},
        {"a": "b", "b": "s1", "rate_bps": 1e9, "delay_s": 0.001, "loss_ab": 0.01},
        {"a": "c", "b": "s1", "rate_bps": "10G", "delay_s": 0},
    ],
    "flows": [
        {"src": "a", "dst": "c", "cc": "dctcp", "start_s": "10ms", "tcp": {"mss_bytes": 1460, "min_rto_s": "200ms"}},
        {"kind": "udp", "src": "b", "dst": "c", "rate_bps": "10Mbps", "stop_s": 1.0},
    ],
}


def edited(fn) -> dict:
    d = copy.deepcopy(BASE)
    fn(d)
    return d


def error_of(data: dict) -> db.ConfigError:
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.from_dict(data)
    return info.value


BAD = [
    ("negative rate", lambda d: d["links"][1].update(rate_bps=-100), "links[1].rate_bps", "positive"),
    ("zero rate", lambda d: d["links"][0].update(rate_bps="0Mbps"), "links[0].rate_bps", "positive"),
    ("unreadable rate", lambda d: d["links"][0].update(rate_bps="fast"), "links[0].rate_bps", "rate"),
    ("negative delay", lambda d: d["links"][0].update(delay_s=-1), "links[0].delay_s", "negative"),
    ("unknown control", lambda d: d["flows"][0].update(cc="bbr9"), "flows[0].cc", "unknown congestion control"),
    ("unknown control table", lambda d: d["flows"][0].update(cc={"kind": "vegas2"}), "flows[0].cc", "unknown"),
    ("bad cubic beta", lambda d: d["flows"][0].update(cc={"kind": "cubic", "beta": 1.5}), "flows[0].cc.beta", ""),
    ("linear reduction 0 %", lambda d: d["flows"][0].update(cc={"kind": "linear", "reduction_pct": 0}), "flows[0].cc.reduction_pct", ""),
    (
        "linear adaptive above 99 %",
        lambda d: d["flows"][0].update(cc={"kind": "linear", "adaptive": True, "adaptive_min_pct": 50, "adaptive_span_pct": 60}),
        "flows[0].cc.adaptive_span_pct",
        "at most 99",
    ),
    ("fractional empty gamma_r", lambda d: d["flows"][0].update(cc={"kind": "fractional", "gamma_r": []}), "flows[0].cc.gamma_r", ""),
    ("fractional unknown slow start", lambda d: d["flows"][0].update(cc={"kind": "fractional", "slow_start": "cubic"}), "flows[0].cc.slow_start", ""),
    ("expolinear sigma 0", lambda d: d["flows"][0].update(cc={"kind": "expolinear", "sigma_per_ms": 0}), "flows[0].cc.sigma_per_ms", ""),
    ("expolinear unknown field", lambda d: d["flows"][0].update(cc={"kind": "expolinear", "beta_a": 2}), "flows[0].cc.beta_a", ""),
    ("bad highspeed mode", lambda d: d["flows"][0].update(cc={"kind": "highspeed", "mode": "table"}), "flows[0].cc.mode", ""),
    ("bad highspeed decrease", lambda d: d["flows"][0].update(cc={"kind": "highspeed", "high_decrease": 0.7}), "flows[0].cc.high_decrease", ""),
    ("highspeed windows out of order", lambda d: d["flows"][0].update(cc={"kind": "highspeed", "high_window": 30}), "flows[0].cc.high_window", "above low_window"),
    ("highspeed loss rates out of order", lambda d: d["flows"][0].update(cc={"kind": "highspeed", "low_p": 1e-8}), "flows[0].cc.high_p", "below low_p"),
    ("vegas alpha above beta", lambda d: d["flows"][0].update(cc={"kind": "vegas", "alpha": 5}), "flows[0].cc.beta", "at least alpha"),
    ("negative vegas gamma", lambda d: d["flows"][0].update(cc={"kind": "vegas", "gamma": -1}), "flows[0].cc.gamma", ""),
    ("unknown node in link", lambda d: d["links"][2].update(b="s9"), "links[2].b", "unknown node 's9'"),
    ("unknown node in flow src", lambda d: d["flows"][0].update(src="x"), "flows[0].src", "unknown node 'x'"),
    ("unknown node in flow dst", lambda d: d["flows"][1].update(dst="y"), "flows[1].dst", "unknown node 'y'"),
    ("flow from a switch", lambda d: d["flows"][0].update(src="s1"), "flows[0].src", "switch"),
    ("self loop", lambda d: d["links"][0].update(b="a"), "links[0].b", "two different"),
    ("disconnected", lambda d: d["hosts"].append("lonely"), "links", "disconnected"),
    ("disconnected by link removal", lambda d: d["links"].pop(2), "links", "disconnected"),
    ("loss = 1", lambda d: d["links"][1].update(loss_ab=1.0), "links[1].loss_ab", "below 1"),
    ("negative loss", lambda d: d["links"][1].update(loss_ba=-0.01), "links[1].loss_ba", "at least 0"),
    ("reorder = 1", lambda d: d["links"][1].update(reorder_ba=1.0, reorder_delay_s=0.001), "links[1].reorder_ba", "below 1"),
    ("netem loss = 1", lambda d: d["links"][1].update(netem_ab={"loss": 1.0}), "links[1].netem_ab.loss", "below 1"),
    ("netem limit 0", lambda d: d["links"][1].update(netem_ba={"limit_pkts": 0}), "links[1].netem_ba.limit_pkts", ""),
    ("reorder without delay", lambda d: d["links"][1].update(reorder_ab=0.01), "links[1].reorder_delay_s", "positive"),
    ("tlp without sack", lambda d: d["flows"][0]["tcp"].update(sack=False, tlp=True), "flows[0].tcp.tlp", "SACK"),
    ("rack not a bool", lambda d: d["flows"][0]["tcp"].update(rack="maybe"), "flows[0].tcp.rack", ""),
    (
        "hysteresis L_I = L_S",
        lambda d: d["links"][2].update(queue_ba={"kind": "hysteresis", "upper_pkts": 42, "lower_pkts": 42}),
        "links[2].queue_ba.lower_pkts",
        "L_I",
    ),
    (
        "hysteresis L_I > L_S",
        lambda d: d["links"][2].update(queue_ba={"kind": "hysteresis", "upper_pkts": 36, "lower_pkts": 42}),
        "links[2].queue_ba.lower_pkts",
        "L_S",
    ),
    (
        "red max below min",
        lambda d: d["links"][2].update(queue_ba={"kind": "red", "min_th": 3000, "max_th": 2000}),
        "links[2].queue_ba.max_th",
        "min_th",
    ),
    (
        "red burst too small",
        lambda d: d["links"][2].update(queue_ba={"kind": "red", "min_th": 97500, "max_th": 105000, "burst_pkts": 20, "avpkt_bytes": 1500}),
        "links[2].queue_ba.burst_pkts",
        "burst",
    ),
    ("step without K", lambda d: d["links"][2].update(queue_ab={"kind": "step"}), "links[2].queue_ab.k_pkts", "exactly one"),
    ("unknown queue kind", lambda d: d["links"][2].update(queue_ab={"kind": "sfq"}), "links[2].queue_ab.kind", "sfq"),
    ("unknown flow kind", lambda d: d["flows"][1].update(kind="quic"), "flows[1].kind", "quic"),
    ("unknown field", lambda d: d["links"][0].update(bandwidth=5), "links[0].bandwidth", "unknown field"),
    ("missing field", lambda d: d["links"][0].pop("rate_bps"), "links[0].rate_bps", "missing"),
    ("missing duration", lambda d: d.pop("duration_s"), "duration_s", "missing"),
    ("zero duration", lambda d: d.update(duration_s=0), "duration_s", "positive"),
    ("duplicate node", lambda d: d["hosts"].append("a"), "hosts[3]", "duplicate"),
    ("duplicate flow name", lambda d: [f.update(name="x") for f in d["flows"]], "flows[1].name", "duplicate"),
    ("stop before start", lambda d: d["flows"][0].update(stop_s=0.001), "flows[0].stop_s", "after start_s"),
    ("bad tcp option", lambda d: d["flows"][0]["tcp"].update(mss_bytes=0), "flows[0].tcp.mss_bytes", ""),
    (
        "trace of a missing port",
        lambda d: d.update(record={"queues": [{"node": "a", "peer": "c"}]}),
        "record.queues[0].peer",
        "no link",
    ),
    ("negative seed", lambda d: d.update(seed=-1), "seed", ""),
    ("tcp_vars without a sampler", lambda d: d.update(record={"tcp_vars": True}), "record.tcp_vars", "flow_sample_s"),
]


@pytest.mark.parametrize("what, edit, field, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_its_field(what, edit, field, words):
    err = error_of(edited(edit))
    assert err.field == field, str(err)
    assert words in err.message
    assert "\n" not in str(err)
    assert str(err).startswith(field + ": ")


def test_config_error_is_a_value_error():
    assert issubclass(db.ConfigError, ValueError)
    assert issubclass(db.SimulationError, RuntimeError)


def test_direct_construction_raises_config_error():
    with pytest.raises(db.ConfigError) as info:
        db.Hysteresis(upper_pkts=3, lower_pkts=5)
    assert info.value.field == "lower_pkts"
    with pytest.raises(db.ConfigError) as info:
        db.Link(a="a", b="b", rate_bps="-1G")
    assert info.value.field == "rate_bps"


def test_edits_after_construction_are_checked_by_to_core():
    s = db.Scenario.from_dict(copy.deepcopy(BASE))
    s.flows[0].dst = "nowhere"
    with pytest.raises(db.ConfigError) as info:
        s.to_core()
    assert info.value.field == "flows[0].dst"


def test_to_core_gives_exact_integers():
    core = db.Scenario.from_dict(copy.deepcopy(BASE)).to_core(seed=7)
    assert core["seed"] == 7
    assert core["duration_ps"] == 1_500_000_000_000
    assert [n["kind"] for n in core["nodes"]] == ["host", "host", "host", "switch"]
    l0, l1, l2 = core["links"]
    assert (l0["rate_bps"], l0["delay_ps"]) == (100_000_000, 75_000_000)
    assert (l1["rate_bps"], l1["delay_ps"], l1["loss_ab"], l1["loss_ba"]) == (1_000_000_000, 1_000_000_000, 0.01, 0.0)
    assert (l2["rate_bps"], l2["delay_ps"]) == (10_000_000_000, 0)
    assert l0["queue_ab"] is None and l0["jitter_ps"] == 0
    tcp, udp = core["flows"]
    assert tcp["kind"] == "tcp" and tcp["name"] == "tcp0"
    assert tcp["start_ps"] == 10_000_000_000 and tcp["stop_ps"] is None and tcp["bytes"] is None
    assert tcp["cc"] == {"kind": "dctcp"}
    assert tcp["tcp"] == {"mss_bytes": 1460, "min_rto_ps": 200_000_000_000}
    assert udp == {
        "kind": "udp",
        "name": "udp1",
        "src": "b",
        "dst": "c",
        "start_ps": 0,
        "stop_ps": 1_000_000_000_000,
        "rate_bps": 10_000_000,
        "payload_bytes": 1470,
    }
    assert core["record"] == {"flow_sample_ps": 0, "cwnd_every_ack": False, "queues": [], "drop_log": False}
    # Every value is an exact int where the core wants integers.
    assert all(isinstance(v, int) for link in core["links"] for k, v in link.items() if k.endswith(("_ps", "_bps")))


def test_default_seed_is_the_scenarios():
    d = copy.deepcopy(BASE)
    d["seed"] = 42
    assert db.Scenario.from_dict(d).to_core()["seed"] == 42
    assert db.Scenario.from_dict(d).to_core(seed=3)["seed"] == 3


def test_queue_configs_to_core():
    red = db.Red(limit_pkts=425, min_th=30000, max_th=35000, max_p=1, ecn=True, burst_pkts=20, avpkt_bytes=1500)
    assert red.to_core() == {
        "limit_pkts": 425,
        "limit_bytes": None,
        "aqm": {
            "kind": "red",
            "min_th": 30000.0,
            "max_th": 35000.0,
            "max_p": 1.0,
            "wlog": 1,
            "ecn": True,
            "harddrop": False,
            "gentle": False,
            "bytes_mode": True,
            "avpkt_bytes": 1500,
            "bandwidth_bps": 0,
        },
    }
    assert db.DropTail().to_core() == {"limit_pkts": 1000, "limit_bytes": None, "aqm": {"kind": "none"}}
    assert db.DropTail(limit_bytes=64000).to_core()["limit_pkts"] is None
    assert db.Step(k_pkts=20).to_core()["aqm"] == {"kind": "step", "k_pkts": 20, "k_bytes": None, "at": "enqueue"}
    assert db.Hysteresis(upper_pkts=42, lower_pkts=36).to_core()["aqm"] == {
        "kind": "hysteresis",
        "upper_pkts": 42,
        "lower_pkts": 36,
        "at": "dequeue",
    }


def test_tc_wlog_formula():
    # tc red ... min 30000 avpkt 1500 burst 20 -> Wlog 1 (dctcp-queue's setting,
    # from Handigol, Heller, Jeyakumar and Lantz).
    assert red_wlog_for_burst(20, 30000, 1500) == 1
    assert red_wlog_for_burst(65, 97500, 1500) == 1
    # A large burst with a small min needs a small weight (large Wlog).
    assert red_wlog_for_burst(100, 30000, 1500) == 8  # a = 81; W = 2^-8 gives 83.0, 2^-7 only 69.5
    with pytest.raises(ValueError):
        red_wlog_for_burst(5, 30000, 1500)


def test_toml_round_trip(tmp_path):
    s = db.Scenario.from_dict(copy.deepcopy(BASE))
    s.set_queue("s1", "c", db.Red(limit_pkts=425, min_th=30000, max_th=35000, max_p=1, ecn=True, burst_pkts=20, avpkt_bytes=1500))
    p = tmp_path / "s.toml"
    p.write_text(s.to_toml())
    assert db.Scenario.from_toml(p).to_core() == s.to_core()


def test_core_decoder_accepts_what_to_core_produces():
    """The core (serde, deny_unknown_fields) decodes our JSON as is."""
    s = db.Scenario.from_dict(copy.deepcopy(BASE))
    s.set_queue("s1", "c", db.Red(min_th=30000, max_th=35000, max_p=1, ecn=True, gentle=True))
    s.set_queue("s1", "a", db.Step(k_bytes=30000, at="dequeue"))
    s.set_queue("s1", "b", db.Hysteresis(upper_pkts=42, lower_pkts=36, limit_bytes=10**6))
    s.flows.append(db.TcpFlow(src="b", dst="a", cc=db.Cubic(beta=0.7, hystart=False), bytes=10**6, tcp=db.TcpOptions(sack=False, delayed_ack=False, init_rto_s=1)))
    s.flows.append(db.TcpFlow(src="a", dst="b", cc="reno", tcp=db.TcpOptions(tlp=False, rack=False, timestamps=False, dsack=False, frto=False)))
    s.links[1].reorder_ab = 0.01
    s.links[1].reorder_delay_s = 0.0005
    s.links[2].netem_ab = db.Netem(loss=0.01, delay_s="5ms")
    s.links[2].netem_ba = db.Netem(limit_pkts=None)
    s.record = db.Record(flow_sample_s="1ms", cwnd_every_ack=True, drop_log=True, tcp_vars=True, queues=[db.QueueRecord(node="s1", peer="c", sample_s="10us", dequeue_times=True, from_s=0.1, to_s=0.5)])
    _native.check_config(s.to_json())
    for name in ("dctcp-queue",):
        from dumbbell.experiments import dctcp_queue

        for cc in ("reno", "dctcp"):
            for rate in dctcp_queue.RATES_BPS:
                _native.check_config(dctcp_queue.scenario(cc, rate, 1.0).to_json())


def test_highspeed_and_vegas_to_core():
    """Unset parameters are left to the core; what is set goes through as is,
    and the core decodes it."""
    assert db.HighSpeed().to_core() == {"kind": "highspeed"}
    hs = db.HighSpeed(mode="linux_table", low_window=40, high_p=1e-8)
    assert hs.to_core() == {"kind": "highspeed", "mode": "linux_table", "low_window": 40, "high_p": 1e-8}
    assert db.Vegas().to_core() == {"kind": "vegas"}
    assert db.Vegas(alpha=1, beta=3, gamma=2).to_core() == {"kind": "vegas", "alpha": 1, "beta": 3, "gamma": 2}
    s = db.Scenario.from_dict(edited(lambda d: d["flows"][0].update(cc="highspeed")))
    assert s.to_core()["flows"][0]["cc"] == {"kind": "highspeed"}
    s.flows.append(db.TcpFlow(src="b", dst="c", cc=hs))
    s.flows.append(db.TcpFlow(src="a", dst="b", cc=db.Vegas(alpha=1, beta=3)))
    s.flows.append(db.TcpFlow(src="c", dst="a", cc="vegas"))
    _native.check_config(s.to_json())
    assert "highspeed" in db.scenario.CONTROLS and "vegas" in db.scenario.CONTROLS


def test_highspeed_and_vegas_toml_round_trip(tmp_path):
    s = db.Scenario.from_dict(edited(lambda d: d["flows"][0].update(cc={"kind": "vegas", "beta": 6})))
    s.flows.append(db.TcpFlow(src="b", dst="c", cc=db.HighSpeed(high_decrease=0.2)))
    p = tmp_path / "s.toml"
    p.write_text(s.to_toml())
    back = db.Scenario.from_toml(p)
    assert back.to_core() == s.to_core()
    assert isinstance(back.flows[0].cc, db.Vegas) and back.flows[0].cc.beta == 6


def test_core_decoder_rejects_unknown_fields_naming_them():
    with pytest.raises(_native.NativeConfigError) as info:
        _native.check_config(json.dumps({"seed": 1, "duration_ps": 1, "nodes": [], "links": [], "bogus": 1}))
    field, message = info.value.args
    assert field == "bogus" and "bogus" in message


def test_from_toml_errors_name_the_file(tmp_path):
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.from_toml(tmp_path / "missing.toml")
    assert info.value.field.endswith("missing.toml") and "no such file" in info.value.message
    bad = tmp_path / "bad.toml"
    bad.write_text("duration_s = = 3\n")
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.from_toml(bad)
    assert "malformed TOML" in info.value.message
    neg = tmp_path / "neg.toml"
    neg.write_text('duration_s = 1\nhosts = ["a", "b"]\n[[links]]\na = "a"\nb = "b"\nrate_bps = "-1Gbps"\n')
    with pytest.raises(db.ConfigError) as info:
        db.Scenario.from_toml(neg)
    assert info.value.field == f"{neg}: links[0].rate_bps"


def test_builders():
    s = db.star(4, rate="1Gbps", delay="10us", queue=db.Step(k_pkts=20))
    assert [n.name for n in s.nodes] == ["h1", "h2", "h3", "h4", "s1"]
    assert all(link.queue_ba is not None and link.queue_ba.k_pkts == 20 for link in s.links)
    assert s.links[0].queue_ba is not s.links[1].queue_ba
    d = db.dumbbell(2, 3, "10G", "1G", bottleneck_delay="5ms", queue=db.DropTail(limit_pkts=100))
    core = d.to_core()
    assert {n["name"] for n in core["nodes"]} == {"snd1", "snd2", "rcv1", "rcv2", "rcv3", "r1", "r2"}
    (bott,) = [link for link in core["links"] if {link["a"], link["b"]} == {"r1", "r2"}]
    assert bott["rate_bps"] == 1_000_000_000 and bott["delay_ps"] == 5_000_000_000
    assert bott["queue_ab"]["limit_pkts"] == 100
    c = db.chain(3, "100M", "1ms")
    assert [(link.a, link.b) for link in c.links] == [("a", "s1"), ("s1", "s2"), ("s2", "s3"), ("s3", "b")]
    with pytest.raises(db.ConfigError):
        db.star(2, rate=-5)


# The lossy-cc controls Linear, Fractional and Expolinear (Madeira and Mattos).
LOSS_PHASE_CONTROLS = [
    (db.Linear(reduction_pct=20, adaptive=True, beta_r=0.5), {"kind": "linear", "reduction_pct": 20, "adaptive": True, "beta_r": 0.5}),
    (db.Fractional(gamma_r=[0, 4, 5, 1], gamma_a_pct=5), {"kind": "fractional", "gamma_r": [0, 4, 5, 1], "gamma_a_pct": 5}),
    (db.Fractional(slow_start="cubic_time", wrap_seq=False), {"kind": "fractional", "slow_start": "cubic_time", "wrap_seq": False}),
    (db.Expolinear(sigma_per_ms=0.25, eta_a=2), {"kind": "expolinear", "sigma_per_ms": 0.25, "eta_a": 2.0}),
    (db.Expolinear(shift_mod_32=False), {"kind": "expolinear", "shift_mod_32": False}),
]


@pytest.mark.parametrize("cc, core", LOSS_PHASE_CONTROLS,
                         ids=[f"{c[1]['kind']}-{i}" for i, c in enumerate(LOSS_PHASE_CONTROLS)])
def test_loss_phase_controls_round_trip_to_the_core(cc, core, tmp_path):
    """Only the parameters set reach the core, which decodes them; by name
    too, and through TOML."""
    assert cc.to_core() == core
    assert cc.kind in db.scenario.CONTROLS
    s = db.Scenario.from_dict(copy.deepcopy(BASE))
    s.flows[0] = db.TcpFlow(src="a", dst="c", cc=cc)
    s.flows.append(db.TcpFlow(src="b", dst="a", cc=cc.kind))
    _native.check_config(s.to_json())
    flows = json.loads(s.to_json())["flows"]
    assert flows[0]["cc"] == core and flows[2]["cc"] == {"kind": cc.kind}
    p = tmp_path / "s.toml"
    p.write_text(s.to_toml())
    assert db.Scenario.from_toml(p).to_core() == s.to_core()


def test_loss_phase_controls_out_of_range_are_refused_by_the_core_too():
    """The core's own validation (World::build) names the field when the
    Python checks are bypassed."""
    from dumbbell.run import run_config

    core = db.Scenario.from_dict(copy.deepcopy(BASE)).to_core()
    core["flows"][0]["cc"] = {"kind": "linear", "adaptive_min_pct": 90, "adaptive_span_pct": 20}
    with pytest.raises(db.ConfigError) as info:
        run_config(core)
    assert info.value.field == "flows[0].cc.adaptive_span_pct" and "99" in info.value.message
    core["flows"][0]["cc"] = {"kind": "fractional", "gamma_r": []}
    with pytest.raises(db.ConfigError) as info:
        run_config(core)
    assert info.value.field == "flows[0].cc.gamma_r"
def test_bbr_round_trip_and_core_accepts_it():
    """BBR's parameters reach the core by their JSON names; unset ones are
    not sent (the core's Linux defaults apply)."""
    s = db.Scenario.from_dict(copy.deepcopy(BASE))
    s.flows.append(db.TcpFlow(src="b", dst="a", cc="bbr"))
    s.flows.append(db.TcpFlow(src="a", dst="b", cc=db.Bbr(high_gain=2.5, probe_rtt_mode_ms=0, extra_acked=False)))
    core = json.loads(s.to_json())
    assert core["flows"][2]["cc"] == {"kind": "bbr"}
    assert core["flows"][3]["cc"] == {"kind": "bbr", "high_gain": 2.5, "probe_rtt_mode_ms": 0.0, "extra_acked": False}
    _native.check_config(s.to_json())
    again = db.Scenario.from_dict(json.loads(s.model_dump_json()))
    assert again.flows[3].cc == s.flows[3].cc
    assert "bbr" in db.scenario.CONTROLS


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"high_gain": 1.0}, "flows[0].cc.high_gain"),
        ({"drain_gain": 0}, "flows[0].cc.drain_gain"),
        ({"probe_bw_down_gain": 1.5}, "flows[0].cc.probe_bw_down_gain"),
        ({"bw_win_rounds": 0}, "flows[0].cc.bw_win_rounds"),
        ({"min_rtt_win_s": -1}, "flows[0].cc.min_rtt_win_s"),
        ({"pacing_margin_percent": 100}, "flows[0].cc.pacing_margin_percent"),
        ({"lt_bw": "maybe"}, "flows[0].cc.lt_bw"),
    ],
)
def test_bad_bbr_parameter_names_its_field(params, field):
    e = error_of(edited(lambda d: d["flows"][0].update(cc={"kind": "bbr", **params})))
    assert e.field == field, e


def test_core_rejects_bad_bbr_parameter_naming_it():
    """The core's own validation, for JSON that did not come through pydantic."""
    core = json.loads(db.Scenario.from_dict(copy.deepcopy(BASE)).to_json())
    core["flows"][0]["cc"] = {"kind": "bbr", "full_bw_thresh": 0.5}
    with pytest.raises(_native.NativeConfigError) as info:
        _native.run_json(json.dumps(core))
    assert info.value.args[0] == "flows[0].cc.full_bw_thresh"
