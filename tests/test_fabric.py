"""Datacenter fabrics (issue 25): fat-tree and leaf-spine helpers, ECMP and
spraying, incast, permutation and Poisson traffic, FCT slowdown."""

from __future__ import annotations

import math

import polars as pl
import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.run.fct import ideal_fct_s


# ---------------------------------------------------------------- helpers


def test_fat_tree_has_the_k_ary_shape_and_names():
    for k in (2, 4, 6):
        s = db.fat_tree(k, rate="10Gbps", delay="1us")
        kinds = {n.name: (n.kind, n.role) for n in s.nodes}
        half = k // 2
        assert sum(1 for v in kinds.values() if v == ("host", "host")) == k**3 // 4
        assert sum(1 for v in kinds.values() if v[1] == "leaf") == k * half
        assert sum(1 for v in kinds.values() if v[1] == "spine") == k * half
        assert sum(1 for v in kinds.values() if v[1] == "core") == half * half
        # every switch has k ports, every host one
        degree = {n: 0 for n in kinds}
        for link in s.links:
            degree[link.a] += 1
            degree[link.b] += 1
        assert all(d == (1 if kinds[n][0] == "host" else k) for n, d in degree.items())
    s = db.fat_tree(4, rate="10Gbps")
    assert {"h0", "h15", "e0_0", "e3_1", "a2_1", "c0", "c3"} <= {n.name for n in s.nodes}
    assert s.link("h5", "e1_0") and s.link("a1_1", "c3")


def test_oversubscription_slows_the_links_above_the_edge():
    s = db.fat_tree(4, rate="10Gbps", oversubscription=4)
    assert s.link("h0", "e0_0").rate_bps == 10_000_000_000
    assert s.link("e0_0", "a0_1").rate_bps == s.link("a0_0", "c1").rate_bps == 2_500_000_000


def test_leaf_spine_has_every_leaf_on_every_spine():
    s = db.leaf_spine(3, 2, 4, host_rate="10Gbps", fabric_rate="40Gbps", delay="1us")
    assert [n.name for n in s.nodes if n.kind == "host"] == [f"h{i}" for i in range(12)]
    assert s.link("h5", "leaf1").rate_bps == 10_000_000_000
    assert all(s.link(f"leaf{i}", f"spine{j}").rate_bps == 40_000_000_000 for i in range(3) for j in range(2))


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: db.fat_tree(3, rate="1Gbps"), "k"),
        (lambda: db.fat_tree(0, rate="1Gbps"), "k"),
        (lambda: db.fat_tree(4, rate="1Gbps", oversubscription=0.5), "oversubscription"),
        (lambda: db.leaf_spine(2, 0, 2, host_rate="1Gbps"), "spines"),
        (lambda: db.leaf_spine(0, 2, 2, host_rate="1Gbps"), "leaves"),
        (lambda: db.fat_tree(4, rate="fast"), "rate"),
    ],
)
def test_bad_fabrics_name_the_field(call, field):
    with pytest.raises(ConfigError) as e:
        call()
    assert e.value.field == field


def test_a_fabric_from_toml(tmp_path):
    p = tmp_path / "ft.toml"
    p.write_text(
        'duration_s = 0.01\nrouting = "single"\n'
        'topology = { kind = "fat_tree", k = 4, rate = "10Gbps", delay = "1us", queue = { kind = "droptail", limit_pkts = 50 } }\n'
        '[[flows]]\nsrc = "h0"\ndst = "h15"\nbytes = 10000\n'
    )
    s = db.Scenario.from_toml(p)
    assert len(s.nodes) == 36 and s.routing == "single"
    assert s.link("h0", "e0_0").queue_ba.limit_pkts == 50
    # written back with its nodes and links, read again the same
    assert db.Scenario.from_dict(__import__("tomllib").loads(s.to_toml())).to_core() == s.to_core()
    for bad, field in [
        ('topology = { kind = "fat_tree", k = 5, rate = "1Gbps" }', "topology.k"),
        ('topology = { kind = "leaf_spine", leaves = 2, spines = 0, hosts_per_leaf = 1, host_rate = 1e9 }',
         "topology.spines"),
        ('topology = { kind = "torus", k = 4 }', "topology.kind"),
        ('topology = { kind = "fat_tree", k = 4, rate = "1Gbps", hosts = 3 }', "topology.hosts"),
        ('topology = { kind = "fat_tree", k = 4 }', "topology.rate"),
        ('topology = "fat_tree"', "topology"),
    ]:
        p.write_text(f"duration_s = 0.01\n{bad}\n")
        with pytest.raises(ConfigError) as e:
            db.Scenario.from_toml(p)
        assert e.value.field.endswith(field), e.value


# ---------------------------------------------------------------- multipath


def _spine_bytes(routing: str, flows: int, seed: int = 1) -> list[int]:
    """`flows` equal UDP flows from leaf0's hosts to leaf1's over 4 spines:
    the bytes leaf0 sends up each spine."""
    s = db.leaf_spine(2, 4, 8, host_rate="10Gbps", delay="1us", duration_s=0.002)
    s.routing = routing
    for i in range(flows):
        s.add_flow(db.UdpFlow(src=f"h{i % 8}", dst=f"h{8 + (i * 3) % 8}", rate_bps="10Mbps", payload_bytes=1000))
    q = db.run(s, seed=seed).queues
    return [int(q.filter((pl.col("node") == "leaf0") & (pl.col("peer") == f"spine{j}"))["tx_bytes"][0]) for j in range(4)]


def test_single_path_leaves_all_but_one_spine_idle():
    up = _spine_bytes("single", 64)
    assert up[0] > 0 and up[1:] == [0, 0, 0]


def test_ecmp_spreads_flows_over_the_spines_as_a_hash_allows():
    # Equal flows, so bytes per spine count flows per spine. A fair hash
    # puts 64 flows on 4 spines like 64 balls in 4 bins: Pearson's
    # chi-square (3 degrees of freedom) stays below 16.27 with probability
    # 0.999; every flow stays on one spine, so counts are whole flows.
    per_flow = _spine_bytes("single", 1)[0]
    got = {}
    for seed in (1, 2, 3):
        up = got[seed] = _spine_bytes("ecmp", 64, seed)
        counts = [b / per_flow for b in up]
        assert all(abs(c - round(c)) < 1e-9 for c in counts), counts
        assert sum(round(c) for c in counts) == 64
        chi2 = sum((c - 16) ** 2 / 16 for c in counts)
        assert chi2 < 16.27, (seed, counts)
    # the same seed hashes the same, other seeds differently
    assert _spine_bytes("ecmp", 64, 1) == got[1] != got[2]


def test_spraying_splits_one_flow_evenly():
    s = db.leaf_spine(2, 2, 1, host_rate="10Gbps", delay="1us", duration_s=0.01, routing="spray")
    s.add_flow(db.UdpFlow(src="h0", dst="h1", rate_bps="1Gbps", payload_bytes=1000))
    q = db.run(s).queues
    up = [int(q.filter((pl.col("node") == "leaf0") & (pl.col("peer") == f"spine{j}"))["dequeued_pkts"][0]) for j in (0, 1)]
    n = sum(up)
    assert n > 1000
    assert abs(up[0] - n / 2) < 5 * math.sqrt(n / 4), up
    # the draws come from the run's streams: the same seed, the same packets on the same spines
    assert db.run(s).queues.equals(q)


def test_spraying_on_a_single_path_topology_is_refused():
    s = db.star(3, rate="1Gbps", duration_s=0.01)
    s.routing = "spray"
    s.add_flow(db.TcpFlow(src="h1", dst="h2"))
    with pytest.raises(ConfigError) as e:
        db.run(s)
    assert e.value.field == "routing"


def test_ecmp_changes_nothing_on_a_single_path_topology():
    s = db.dumbbell(2, 2, "100Mbps", "10Mbps", access_delay="1ms", duration_s=0.5)
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1"))
    s.add_flow(db.TcpFlow(src="snd2", dst="rcv2", cc="reno"))
    a = db.run(s.model_copy(update={"routing": "ecmp"}))
    b = db.run(s.model_copy(update={"routing": "single"}))
    for name in ("flows", "queues", "summary"):
        assert a.tables[name].equals(b.tables[name]), name


def test_queues_name_each_ports_tier():
    s = db.fat_tree(2, rate="1Gbps", duration_s=0.001)
    q = db.run(s).queues
    roles = {(r["node"], r["peer"]): (r["role"], r["peer_role"]) for r in q.iter_rows(named=True)}
    assert roles[("h0", "e0_0")] == ("host", "leaf")
    assert roles[("e0_0", "a0_0")] == ("leaf", "spine")
    assert roles[("a1_0", "c0")] == ("spine", "core")
    assert "role" not in db.run(db.star(2, rate="1Gbps", duration_s=0.001)).queues.columns


# ---------------------------------------------------------------- workloads


def test_permutation_sends_and_receives_one_flow_per_host():
    s = db.fat_tree(4, rate="1Gbps")
    flows = db.permutation(s, seed=3, bytes=1000)
    hosts = [f"h{i}" for i in range(16)]
    assert sorted(f.src for f in flows) == sorted(hosts) == sorted(f.dst for f in flows)
    assert all(f.src != f.dst for f in flows)
    again = db.permutation(db.fat_tree(4, rate="1Gbps"), seed=3, bytes=1000)
    assert [f.dst for f in flows] == [f.dst for f in again]


def test_incast_repeats_its_rounds_and_refuses_too_many_senders():
    s = db.fat_tree(4, rate="1Gbps", duration_s=1)
    flows = db.incast(s, "h0", 5, 20_000, rounds=3, rate_per_s=10)
    assert len(flows) == 15 and {f.dst for f in flows} == {"h0"}
    assert sorted({f.start_s for f in flows}) == pytest.approx([0.0, 0.1, 0.2])
    with pytest.raises(ConfigError) as e:
        db.incast(db.fat_tree(4, rate="1Gbps"), "h0", 16, 1000)
    assert e.value.field == "n"


def _incast(cc: str, queue) -> pl.DataFrame:
    s = db.fat_tree(4, rate="1Gbps", delay="5us", duration_s=0.5, queue=queue)
    db.incast(s, "h0", 15, 64_000, cc=cc, tcp=db.TcpOptions(min_rto_s=0.2))
    return db.run(s).flows


def test_incast_collapses_with_a_shallow_buffer_and_dctcp_avoids_it():
    # 15 senders answer 64 KB each through one 1 Gb/s port with 32 packets
    # of buffer (DCTCP paper, SIGCOMM 2010, §2.3.2 and Fig. 18): Reno loses
    # whole windows, waits out a 200 ms minimum RTO, and the query takes
    # ~30 times its 7.7 ms transfer time; DCTCP (K = 8) keeps the queue
    # short, loses nothing and finishes near the transfer time.
    ideal_s = 15 * 64_000 * 8 / 1e9
    reno = _incast("reno", db.DropTail(limit_pkts=32))
    dctcp = _incast("dctcp", db.Step(limit_pkts=32, k_pkts=8))
    deep = _incast("reno", db.DropTail(limit_pkts=1000))
    for f in (reno, dctcp, deep):
        assert (f["completion_ps"] > 0).all()
    query = {name: (f["completion_ps"] - f["start_ps"]).max() * 1e-12 for name, f in
             [("reno", reno), ("dctcp", dctcp), ("deep", deep)]}
    assert reno["timeouts"].sum() > 0 and query["reno"] > 0.2
    assert dctcp["timeouts"].sum() == 0 and query["dctcp"] < 1.2 * ideal_s
    assert deep["timeouts"].sum() == 0 and query["deep"] < 1.2 * ideal_s


def test_a_flow_size_cdf_must_be_monotone_and_end_at_one(tmp_path):
    with pytest.raises(ConfigError) as e:
        db.Cdf(points=[(0, 0), (100, 0.6), (50, 1.0)])
    assert "points" in e.value.field
    with pytest.raises(ConfigError) as e:
        db.Cdf(points=[(0, 0), (100, 0.6), (200, 0.9)])
    assert "points" in e.value.field
    p = tmp_path / "bad.csv"
    p.write_text("size_bytes,cdf\n0,0\n10,0.5\n20,0.4\n30,1\n")
    with pytest.raises(ConfigError) as e:
        db.load_cdf(p)
    assert str(p) in e.value.field


# ---------------------------------------------------------------- slowdown


def test_slowdown_is_one_on_an_idle_fabric():
    # One flow at a time, none limited by its window: each completes at the
    # store-and-forward ideal to the picosecond, within and across pods,
    # with and without the handshake, one segment or thousands.
    s = db.fat_tree(4, rate="10Gbps", delay="1us", duration_s=0.1)
    cases = [("h0", "h15", 10_000, None), ("h1", "h4", 1448, None), ("h2", "h3", 2896, None),
             ("h5", "h8", 300_000, 1000), ("h6", "h9", 3_000_000, 3000), ("h7", "h12", 100, None)]
    for i, (a, b, size, iw) in enumerate(cases):
        s.add_flow(db.TcpFlow(name=f"f{i}", src=a, dst=b, bytes=size, start_s=0.01 * i,
                              tcp=db.TcpOptions(init_cwnd_pkts=iw, handshake=i != 5)))
    t = db.fct_table(db.run(s))
    assert t.height == len(cases)
    assert (t["fct_s"] - t["ideal_fct_s"]).abs().max() < 1e-12
    # and on unequal rates (a slow core, then a slow edge)
    for host, fabric in (("10Gbps", "1Gbps"), ("1Gbps", "10Gbps")):
        s = db.leaf_spine(2, 2, 2, host_rate=host, fabric_rate=fabric, delay="1us", duration_s=0.05)
        s.add_flow(db.TcpFlow(name="a", src="h0", dst="h3", bytes=10_000))
        s.add_flow(db.TcpFlow(name="b", src="h1", dst="h2", bytes=10**6, start_s=0.01,
                              tcp=db.TcpOptions(init_cwnd_pkts=1000)))
        t = db.fct_table(db.run(s))
        assert (t["slowdown"] - 1).abs().max() < 1e-9


def test_the_ideal_is_the_serialization_of_the_train():
    # equal rates: (W + (h - 1) F) / R plus propagation and the handshake
    r, d = 1e9, 1e-6
    n, mss, h = 5, 1000, 4
    w = n * (mss + 40)
    want = h * d + (w + (h - 1) * (mss + 40)) * 8 / r + 2 * h * (d + 40 * 8 / r)
    assert ideal_fct_s(n * mss, [r] * h, [d] * h, mss=mss) == pytest.approx(want, rel=1e-12)


def test_poisson_websearch_flows_never_beat_the_ideal():
    s = db.fat_tree(4, rate="10Gbps", delay="1us", duration_s=0.02)
    wls = db.poisson_load(s, "websearch", 0.3, "10Gbps", cc="dctcp", stop_s=0.01,
                          tcp=db.TcpOptions(min_rto_s=0.005))
    assert len(wls) == 16
    total = sum(w.arrivals.rate_per_s for w in wls)
    assert total == pytest.approx(0.3 * 10e9 * 16 / (8 * db.load_cdf("websearch").mean_bytes()))
    for w in wls:
        w.sizes = db.Cdf(points=[(0, 0), (1000, 0.3), (100_000, 0.9), (500_000, 1)])
    t = db.fct_table(db.run(s))
    assert t.height > 20
    assert t["slowdown"].min() >= 1 - 1e-9
    pct = db.slowdown_percentiles(t)
    assert pct["flows"].sum() == t.height
    assert (pct["p99"] >= pct["p50"]).all()
    with pytest.raises(ConfigError) as e:
        db.poisson_load(s, "websearch", 1.5, "10Gbps")
    assert e.value.field == "load"


def test_slowdown_against_size_is_plotted(tmp_path):
    s = db.leaf_spine(2, 2, 2, host_rate="10Gbps", delay="1us", duration_s=0.01)
    for i, size in enumerate((1000, 30_000, 300_000, 3_000_000)):
        s.add_flow(db.TcpFlow(src=f"h{i % 2}", dst=f"h{2 + i % 2}", bytes=size, start_s=0.001 * i))
    t = db.fct_table(db.run(s))
    fig = db.plot_slowdown(t, tmp_path / "slowdown.png", title="four flows")
    assert (tmp_path / "slowdown.png").stat().st_size > 1000
    assert fig.axes[0].get_xscale() == "log" and len(fig.axes[0].collections[0].get_offsets()) == 4
