//! CAKE (`queue::cake`) in whole runs with TCP: the behaviours Høiland-
//! Jørgensen, Täht and Morton's "Piece of CAKE" (IEEE LANMAN 2018) claims
//! for it, each against a contrast that shows the test could fail.
//!
//! The topology: hosts `a`, `b` on the left of router `r1`, hosts `x`, `y`
//! on the right of `r2`; the bottleneck `r1 -> r2` holds the queue under
//! test; every other link is ten times faster with a large FIFO.

mod common;
use common::*;
use serde_json::{json, Value};

const RATE: u64 = 20_000_000;

/// The dumbbell with `queue` at the bottleneck `r1 -> r2` (one-way
/// `delay_ps`) and `modem` at `r2 -> x` (the link rate there given
/// separately).
fn dumbbell_at(
    delay_ps: u64,
    queue: Value,
    modem_rate_bps: u64,
    modem: Value,
) -> (Vec<Value>, Vec<Value>) {
    let mut nodes = vec![];
    for h in ["a", "b", "x", "y"] {
        nodes.push(json!({"name": h, "kind": "host"}));
    }
    nodes.push(json!({"name": "r1", "kind": "switch"}));
    nodes.push(json!({"name": "r2", "kind": "switch"}));
    let fast = RATE * 10;
    let big = json!({"limit_pkts": 100000});
    let links = vec![
        json!({"a": "a", "b": "r1", "rate_bps": fast, "delay_ps": 0, "queue_ab": big, "queue_ba": big}),
        json!({"a": "b", "b": "r1", "rate_bps": fast, "delay_ps": 0, "queue_ab": big, "queue_ba": big}),
        json!({"a": "r1", "b": "r2", "rate_bps": RATE, "delay_ps": delay_ps, "queue_ab": queue}),
        json!({"a": "r2", "b": "x", "rate_bps": modem_rate_bps, "delay_ps": 0, "queue_ab": modem,
               "queue_ba": big}),
        json!({"a": "r2", "b": "y", "rate_bps": fast, "delay_ps": 0, "queue_ab": big, "queue_ba": big}),
    ];
    (nodes, links)
}

/// The dumbbell with a base RTT of 20 ms.
fn dumbbell(queue: Value, modem_rate_bps: u64, modem: Value) -> (Vec<Value>, Vec<Value>) {
    dumbbell_at(10 * MS, queue, modem_rate_bps, modem)
}

fn tcp(name: &str, src: &str, dst: &str, tcp: Value) -> Value {
    json!({"kind": "tcp", "name": name, "src": src, "dst": dst, "cc": {"kind": "cubic"}, "tcp": tcp})
}

fn cake(params: Value) -> Value {
    let mut aqm = json!({"kind": "cake"});
    for (k, v) in params.as_object().unwrap() {
        aqm[k] = v.clone();
    }
    json!({"aqm": aqm})
}

/// Steady goodput (after a 3 s warm-up) of host `a`'s eight flows to `x`
/// and host `b`'s one flow to `y`, summed per host. The base RTT is 10 ms:
/// at 20 ms a lone Cubic flow's queue, held near COBALT's 5 ms target,
/// drains after each reduction (0.7 of its window is less than its 10 Mb/s
/// share's BDP), so it leaves part of its share unused, whatever the
/// scheduler (CoDel's known single-flow under-utilization).
fn host_shares(queue: Value) -> (f64, f64) {
    let (nodes, links) = dumbbell_at(5 * MS, queue, RATE * 10, json!({"limit_pkts": 100000}));
    let mut flows: Vec<Value> = (0..8)
        .map(|i| tcp(&format!("a{i}"), "a", "x", json!({})))
        .collect();
    flows.push(tcp("b0", "b", "y", json!({})));
    let cfg = config(11, 12 * S, nodes, links, flows, json!({"warmup_ps": 3 * S}));
    let out = go(&cfg);
    let g = col_f64(&out, "flows", "steady_goodput_bps");
    (g[..8].iter().sum(), g[8])
}

/// Triple-isolate: a host with eight Cubic flows and a host with one get
/// equal shares (within 10 %) and fill the link; CAKE's per-flow mode
/// gives the eight-flow host most of it, as FQ-CoDel would.
#[test]
fn triple_isolate_gives_hosts_equal_shares() {
    let (a, b) = host_shares(cake(json!({})));
    eprintln!("triple_isolate: host a {a:.0} b/s, host b {b:.0} b/s");
    let ratio = a / b;
    assert!(
        (ratio - 1.0).abs() <= 0.10,
        "triple-isolate: host a {a:.0} b/s, host b {b:.0} b/s"
    );
    assert!(a + b > 0.9 * RATE as f64, "link filled: {:.0}", a + b);
    let (a, b) = host_shares(cake(json!({"flow_mode": "flows"})));
    eprintln!("flows: host a {a:.0} b/s, host b {b:.0} b/s");
    assert!(
        a / (a + b) > 0.8,
        "flows mode: host a {a:.0} b/s, host b {b:.0} b/s"
    );
}

/// Four bulk Cubic flows `a -> x` and a ping-like flow `b -> y` (receive
/// window one segment and no delayed ACK: one packet per round trip,
/// each ACKed at once), with `queue` at the
/// bottleneck. Returns the ping flow's and the bulk flows' mean smoothed
/// RTT minus the base RTT, and the bottleneck's mean queued bytes over the
/// last 8 s.
fn sparse_beside_bulk(queue: Value) -> (f64, f64, f64, RunOutputSummary) {
    let (nodes, links) = dumbbell(queue, RATE * 10, json!({"limit_pkts": 100000}));
    let mut flows: Vec<Value> = (0..4)
        .map(|i| tcp(&format!("bulk{i}"), "a", "x", json!({})))
        .collect();
    flows.push(tcp(
        "ping",
        "b",
        "y",
        json!({"rwnd_bytes": 1448, "delayed_ack": false}),
    ));
    let record =
        json!({"queues": [{"node": "r1", "peer": "r2", "sample_ps": MS, "from_ps": 2 * S}]});
    let cfg = config(5, 10 * S, nodes, links, flows, record);
    let out = go(&cfg);
    let base = 20.0e-3;
    let srtt: Vec<f64> = col_u64(&out, "flows", "srtt_ps")
        .iter()
        .map(|&p| p as f64 * 1e-12 - base)
        .collect();
    let bytes = col_u64(&out, "queue_trace", "bytes");
    let mean_bytes = bytes.iter().sum::<u64>() as f64 / bytes.len() as f64;
    let summary = RunOutputSummary::of(&out);
    (
        srtt[4],
        srtt[..4].iter().sum::<f64>() / 4.0,
        mean_bytes,
        summary,
    )
}

/// What a test reads from the bottleneck's row of the queues table.
#[derive(Debug)]
struct RunOutputSummary {
    drops_codel: u64,
    marked: u64,
    tx_bytes: u64,
}

impl RunOutputSummary {
    fn of(out: &dumbbell_core::world::RunOutput) -> Self {
        let p = port(out, "r1", "r2");
        RunOutputSummary {
            // (a column only when some port has a delay-based discipline)
            drops_codel: out
                .table("queues")
                .and_then(|t| t.u64s("drops_codel"))
                .map_or(0, |v| v[p]),
            marked: col_u64(out, "queues", "marked_pkts")[p],
            tx_bytes: col_u64(out, "queues", "tx_bytes")[p],
        }
    }
}

/// The sparse flow keeps its delay within a few milliseconds of the base
/// RTT beside bulk Cubic under CAKE, where a 1000-packet drop-tail FIFO
/// adds hundreds; and COBALT holds the standing queue near its 5 ms
/// target (the bulk flows' queueing delay and the mean backlog in time).
#[test]
fn sparse_flow_keeps_low_delay_and_cobalt_holds_the_target() {
    let (ping, bulk, mean_bytes, s) = sparse_beside_bulk(cake(json!({})));
    let backlog_s = mean_bytes * 8.0 / RATE as f64;
    eprintln!(
        "cake: ping +{:.2} ms, bulk +{:.2} ms, backlog {:.2} ms, {s:?}",
        ping * 1e3,
        bulk * 1e3,
        backlog_s * 1e3
    );
    assert!(
        ping < 3e-3,
        "ping's queueing delay under CAKE {:.2} ms",
        ping * 1e3
    );
    assert!(
        (1e-3..15e-3).contains(&bulk),
        "bulk flows' queueing delay under CAKE {:.2} ms",
        bulk * 1e3
    );
    assert!(
        (1e-3..12e-3).contains(&backlog_s),
        "mean backlog {:.2} ms",
        backlog_s * 1e3
    );
    assert!(s.drops_codel > 0, "COBALT acted (Cubic without ECN): {s:?}");
    assert_eq!(s.marked, 0);
    assert!(s.tx_bytes as f64 > 0.9 * RATE as f64 / 8.0 * 10.0, "{s:?}");
    let (ping_fifo, bulk_fifo, mean_fifo, _) = sparse_beside_bulk(json!({"limit_pkts": 1000}));
    eprintln!(
        "fifo: ping +{:.2} ms, bulk +{:.2} ms, backlog {:.2} ms",
        ping_fifo * 1e3,
        bulk_fifo * 1e3,
        mean_fifo * 8.0 / RATE as f64 * 1e3
    );
    assert!(
        ping_fifo > 100e-3,
        "drop-tail contrast: ping's queueing delay {:.1} ms",
        ping_fifo * 1e3
    );
    assert!(mean_fifo > 10.0 * mean_bytes);
}

/// A CAKE shaper at 15 Mb/s on the 20 Mb/s bottleneck, ahead of an
/// 18 Mb/s "modem" link with a drop-tail FIFO: the flows get the shaped
/// rate (not more) and the queue forms in CAKE, the modem's staying near
/// empty. Unshaped, the queue moves to the modem.
#[test]
fn shaper_holds_its_rate_and_moves_the_queue_into_cake() {
    let run = |rate_bps: u64| {
        let (nodes, links) = dumbbell(
            cake(json!({"rate_bps": rate_bps})),
            18_000_000,
            json!({"limit_pkts": 1000}),
        );
        let flows: Vec<Value> = (0..4)
            .map(|i| tcp(&format!("f{i}"), "a", "x", json!({})))
            .collect();
        let cfg = config(3, 10 * S, nodes, links, flows, json!({"warmup_ps": 2 * S}));
        let out = go(&cfg);
        let goodput: f64 = col_f64(&out, "flows", "steady_goodput_bps").iter().sum();
        let max = col_u32(&out, "queues", "max_pkts");
        let (cake_max, modem_max) = (max[port(&out, "r1", "r2")], max[port(&out, "r2", "x")]);
        (goodput, cake_max, modem_max)
    };
    let (goodput, cake_max, modem_max) = run(15_000_000);
    eprintln!("shaped: goodput {goodput:.0}, CAKE max {cake_max}, modem max {modem_max}");
    // Goodput excludes headers (1448 of 1500 bytes).
    assert!(
        goodput <= 15e6 && goodput > 0.9 * 15e6,
        "shaped goodput {goodput:.0}"
    );
    assert!(modem_max <= 3, "modem queue {modem_max} packets");
    assert!(cake_max > 10, "CAKE queue {cake_max} packets");
    let (goodput, cake_max, modem_max) = run(0);
    eprintln!("unshaped: goodput {goodput:.0}, CAKE max {cake_max}, modem max {modem_max}");
    assert!(goodput > 0.9 * 18e6, "unshaped goodput {goodput:.0}");
    assert!(
        modem_max > 50,
        "unshaped: the modem queues ({modem_max} packets)"
    );
}

/// ECN-capable Cubic through CAKE is marked, not dropped, by COBALT; the
/// run's conservation audit holds (it fails the run otherwise).
#[test]
fn ecn_flows_are_marked_not_dropped() {
    let (nodes, links) = dumbbell(cake(json!({})), RATE * 10, json!({"limit_pkts": 100000}));
    let flows: Vec<Value> = (0..3)
        .map(|i| tcp(&format!("e{i}"), "a", "x", json!({"ecn": true})))
        .collect();
    let cfg = config(9, 6 * S, nodes, links, flows, json!({}));
    let out = go(&cfg);
    let s = RunOutputSummary::of(&out);
    eprintln!("ecn: {s:?}");
    assert!(s.marked > 20, "{s:?}");
    assert_eq!(s.drops_codel, 0, "{s:?}");
    let ok = out
        .table("summary")
        .unwrap()
        .column("conservation_ok")
        .unwrap();
    assert!(matches!(ok, dumbbell_core::trace::Column::Bool(v) if v == &vec![true]));
}

/// The ACK filter on a congested ACK path (the home gateway's slow
/// uplink): a 20 Mb/s download whose ACKs cross CAKE shaped to 150 kb/s
/// (less than its ACK stream needs) is ACK-clocked well below the link
/// rate; with the filter, redundant queued ACKs are dropped and it gets
/// the link.
#[test]
fn ack_filter_frees_a_congested_ack_path() {
    let run = |filter: &str| {
        let q = cake(json!({"rate_bps": 150_000, "ack_filter": filter}));
        let (nodes, links) = dumbbell(q, RATE * 10, json!({"limit_pkts": 100000}));
        let flows = vec![tcp("down", "x", "a", json!({}))];
        let out = go(&config(1, 8 * S, nodes, links, flows, json!({})));
        let s = RunOutputSummary::of(&out);
        (col_f64(&out, "flows", "goodput_bps")[0], s.drops_codel)
    };
    let (off, off_drops) = run("none");
    let (on, on_drops) = run("conservative");
    eprintln!(
        "ack filter: off {off:.0} b/s ({off_drops} drops), on {on:.0} b/s ({on_drops} drops)"
    );
    assert!(on > 1.3 * off, "off {off:.0}, on {on:.0}");
    assert!(on > 0.9 * RATE as f64, "on {on:.0}");
    assert!(
        on_drops > 10 * off_drops.max(1),
        "{off_drops} then {on_drops}"
    );
}

/// Bad parameters are refused before the run, naming the field.
#[test]
fn bad_cake_parameters_name_the_field() {
    for (params, field) in [
        (json!({"target_ps": 0}), "target_ps"),
        (json!({"mpu_bytes": 1000}), "mpu_bytes"),
        (json!({"flow_mode": "per_packet"}), "flow_mode"),
        (json!({"rate_bps": 20_000_000_000_000u64}), "rate_bps"),
    ] {
        let (nodes, links) = dumbbell(cake(params), RATE * 10, json!({}));
        let v = json!({"seed": 1, "duration_ps": S, "nodes": nodes, "links": links,
                       "flows": [tcp("f", "a", "x", json!({}))]});
        let e = dumbbell_core::world::run_json(&v.to_string(), Default::default())
            .err()
            .unwrap_or_else(|| panic!("{field}: accepted"));
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("links[2].queue_ab.aqm.{field}")),
            "{field}: {msg}"
        );
    }
}

mod conservation {
    use super::*;
    use proptest::prelude::*;

    const MODES: [&str; 8] = [
        "flowblind",
        "srchost",
        "dsthost",
        "hosts",
        "flows",
        "dual_srchost",
        "dual_dsthost",
        "triple_isolate",
    ];
    const FILTERS: [&str; 3] = ["none", "conservative", "aggressive"];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
        /// Any mode, shaper, buffer and ACK filter, under TCP (ECN or not)
        /// and an unresponsive UDP flow: the run's audit holds, and at the
        /// bottleneck what entered left, was dropped from inside, or is
        /// still held (an overflow drop may also be the arriving packet,
        /// which never entered).
        #[test]
        fn every_packet_is_accounted_for(
            seed in any::<u64>(),
            mode in 0usize..8,
            filter in 0usize..3,
            rate_mbps in 0u64..30,
            limit_kb in 3u64..400,
            flows in 1usize..5,
            ecn in any::<bool>(),
            udp_mbps in 0u64..25,
        ) {
            let q = json!({"limit_bytes": limit_kb * 1000, "aqm": {"kind": "cake",
                "flow_mode": MODES[mode], "ack_filter": FILTERS[filter],
                "rate_bps": rate_mbps * 1_000_000, "overhead_bytes": 18, "mpu_bytes": 64}});
            let (nodes, links) = dumbbell(q, RATE * 10, json!({"limit_pkts": 100000}));
            let mut fs: Vec<Value> = (0..flows)
                .map(|i| tcp(&format!("t{i}"), ["a", "b"][i % 2], ["x", "y"][i % 2],
                             json!({"ecn": ecn})))
                .collect();
            if udp_mbps > 0 {
                fs.push(json!({"kind": "udp", "name": "u", "src": "b", "dst": "x",
                               "rate_bps": udp_mbps * 1_000_000}));
            }
            let record = json!({"queues": [{"node": "r1", "peer": "r2"}]});
            let out = go(&config(seed, S, nodes, links, fs, record));
            let p = port(&out, "r1", "r2");
            let get = |c: &str| col_u64(&out, "queues", c)[p];
            let held = *col_u32(&out, "queue_trace", "pkts").last().unwrap_or(&0) as u64;
            let (enq, deq) = (get("enqueued_pkts"), get("dequeued_pkts"));
            let (codel, overflow) = (get("drops_codel"), get("drops_overflow"));
            prop_assert!(enq >= deq + codel + held, "{enq} {deq} {codel} {held}");
            prop_assert!(enq <= deq + codel + overflow + held, "{enq} {deq} {codel} {overflow} {held}");
        }
    }
}
