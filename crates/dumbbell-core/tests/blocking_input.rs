//! A software switch's blocking input buffer (`net::input_gate`, bmv2's, in
//! the hysteresis paper: Silva, Vieira and Nacif, "Data Center TCP com
//! Histerese em Switches P4"): a full buffer drops nothing, the links into
//! the switch hold their packets instead, so the senders' interface queues
//! grow; the pipeline still passes X packets/s, shares it among the held
//! links, and a TCP sender behind it loses nothing.

mod common;
use common::*;
use serde_json::{json, Value};

const X: f64 = 1000.0;

fn udp(name: &str, src: &str, dst: &str, pps: f64, stop_ps: u64) -> Value {
    json!({"kind": "udp", "name": name, "src": src, "dst": dst,
           "rate_bps": (pps * 1470.0 * 8.0) as u64, "stop_ps": stop_ps})
}

/// A star around `s1` (100 Mb/s, 100 µs) whose pipeline serves X pkt/s with
/// a `buffer`-packet input buffer, blocking or not; the hosts' own queues
/// hold `host_limit` packets.
fn star_with(
    hosts: &[&str],
    buffer: u32,
    blocking: bool,
    host_limit: u32,
) -> (Vec<Value>, Vec<Value>) {
    let (mut nodes, mut links) = star(hosts, 100_000_000, 100 * US);
    nodes[0]["pipeline"] = json!({"capacity_pps": X, "buffer_pkts": buffer, "blocking": blocking});
    for l in links.iter_mut() {
        l["queue_ab"] = json!({"limit_pkts": host_limit});
    }
    (nodes, links)
}

fn delivered_pkts(out: &dumbbell_core::world::RunOutput, flow: usize) -> f64 {
    col_u64(out, "flows", "bytes_delivered")[flow] as f64 / 1470.0
}

fn total(out: &dumbbell_core::world::RunOutput, col: &str) -> u64 {
    col_u64(out, "queues", col).iter().sum()
}

#[test]
fn a_full_blocking_buffer_drops_nothing_and_the_host_queue_grows() {
    // 2X offered for 2 s: X gets through, the other X waits at the host.
    let (nodes, links) = star_with(&["A", "B"], 50, true, 100_000);
    let flows = vec![udp("u", "A", "B", 2.0 * X, 2 * S)];
    let out = go(&config(1, 2100 * MS, nodes, links, flows, json!({})));
    assert_eq!(col_u64(&out, "pipelines", "drops_pipeline")[0], 0);
    assert_eq!(
        out.summary_u64("packets_dropped"),
        0,
        "nothing dropped anywhere"
    );
    // The pipeline never runs dry: X packets/s for the whole run.
    let got = delivered_pkts(&out, 0);
    assert!(
        (got - 2100.0).abs() <= 3.0,
        "delivered {got} packets in 2.1 s"
    );
    assert!(col_f64(&out, "pipelines", "utilization")[0] > 0.99);
    assert!(
        col_u32(&out, "pipelines", "max_pkts")[0] <= 50,
        "never past its places"
    );
    assert!(col_u64(&out, "pipelines", "holds")[0] > 0);
    // What did not fit waits in A's interface queue: 4000 sent, about
    // 2000 through by 2 s, 50 in the switch.
    let a = port(&out, "A", "s1");
    let max_a = col_u32(&out, "queues", "max_pkts")[a];
    assert!((1900..=2000).contains(&max_a), "A's queue reached {max_a}");
    // Conservation: what was sent is delivered or still on its way.
    let created = out.summary_u64("packets_created");
    let at_a =
        col_u64(&out, "queues", "enqueued_pkts")[a] - col_u64(&out, "queues", "dequeued_pkts")[a];
    assert_eq!(created, 4000);
    assert!(created - out.summary_u64("packets_delivered") >= at_a);
}

#[test]
fn a_dropping_buffer_loses_what_the_blocking_one_holds() {
    let run = |blocking: bool| {
        let (nodes, links) = star_with(&["A", "B"], 50, blocking, 100_000);
        let flows = vec![udp("u", "A", "B", 2.0 * X, 2 * S)];
        go(&config(1, 2100 * MS, nodes, links, flows, json!({})))
    };
    let (drop, block) = (run(false), run(true));
    // The same X delivered; the dropping buffer threw the rest away, the
    // blocking one kept it at the host.
    assert!((delivered_pkts(&drop, 0) - delivered_pkts(&block, 0)).abs() <= 55.0);
    assert!(col_u64(&drop, "pipelines", "drops_pipeline")[0] > 1900);
    assert_eq!(col_u64(&block, "pipelines", "drops_pipeline")[0], 0);
    let a = port(&drop, "A", "s1");
    assert!(
        col_u32(&drop, "queues", "max_pkts")[a] <= 1,
        "the dropping switch never holds A"
    );
}

#[test]
fn a_finite_host_queue_drops_at_the_host_not_at_the_switch() {
    let (nodes, links) = star_with(&["A", "B"], 50, true, 100);
    let flows = vec![udp("u", "A", "B", 2.0 * X, 2 * S)];
    let out = go(&config(1, 2100 * MS, nodes, links, flows, json!({})));
    let a = port(&out, "A", "s1");
    assert_eq!(col_u64(&out, "pipelines", "drops_pipeline")[0], 0);
    let host_drops = col_u64(&out, "queues", "drops_overflow")[a];
    assert!(
        host_drops > 1800,
        "A's own queue overflowed {host_drops} times"
    );
    assert_eq!(out.summary_u64("packets_dropped"), host_drops);
    let got = delivered_pkts(&out, 0);
    assert!((got - 2100.0).abs() <= 3.0, "still X: {got}");
}

#[test]
fn held_links_share_the_pipeline() {
    // Two sources of 0.8 X each on disjoint ports: the held ports resume in
    // turn, so each gets about X / 2, and nothing is dropped.
    let (nodes, links) = star_with(&["A", "B", "C", "D"], 50, true, 100_000);
    let flows = vec![
        udp("ab", "A", "B", 0.8 * X, 2 * S),
        udp("cd", "C", "D", 0.8 * X, 2 * S),
    ];
    let out = go(&config(1, 2100 * MS, nodes, links, flows, json!({})));
    let (ab, cd) = (delivered_pkts(&out, 0), delivered_pkts(&out, 1));
    assert!((ab + cd - 2100.0).abs() <= 3.0, "{ab} + {cd}");
    assert!((ab - cd).abs() <= 0.02 * 2100.0, "{ab} vs {cd}");
    assert_eq!(out.summary_u64("packets_dropped"), 0);
}

#[test]
fn tcp_behind_a_blocking_buffer_loses_nothing_and_gets_x() {
    // Cubic from A to B: the switch's buffer fills, A's NIC queue holds the
    // rest, TCP small queues stop the sender. No drop, no retransmission,
    // and the pipeline busy all the time: its X packets/s are the data and
    // the ACKs (one per two segments, delayed ACKs), so 2X/3 of data.
    let run = |blocking: bool| {
        let (nodes, links) = star_with(&["A", "B"], 50, blocking, 1000);
        let flows = vec![
            json!({"kind": "tcp", "name": "t", "src": "A", "dst": "B", "cc": {"kind": "cubic"}}),
        ];
        go(&config(3, 5 * S, nodes, links, flows, json!({})))
    };
    let out = run(true);
    assert_eq!(out.summary_u64("packets_dropped"), 0);
    assert_eq!(total(&out, "drops_overflow"), 0);
    assert_eq!(col_u64(&out, "flows", "retransmits")[0], 0);
    let processed = col_u64(&out, "pipelines", "processed_pkts")[0] as f64;
    assert!(
        (processed - 5.0 * X).abs() < 0.02 * 5.0 * X,
        "processed {processed} in 5 s"
    );
    let data_pps = col_u64(&out, "flows", "bytes_delivered")[0] as f64 / 1448.0 / 5.0;
    assert!(
        (data_pps - 2.0 * X / 3.0).abs() < 0.03 * X,
        "{data_pps} pkt/s of data"
    );
    // With the dropping buffer the same sender loses packets at the switch.
    let drop = run(false);
    assert!(col_u64(&drop, "pipelines", "drops_pipeline")[0] > 0);
    assert!(col_u64(&drop, "flows", "retransmits")[0] > 0);
}

#[test]
fn a_blocking_buffer_that_never_fills_changes_nothing() {
    let run = |blocking: bool| {
        let (nodes, links) = star_with(&["A", "B", "C"], 10_000, blocking, 1000);
        let flows = vec![
            json!({"kind": "tcp", "name": "t", "src": "A", "dst": "C", "cc": {"kind": "dctcp"}, "bytes": 300_000}),
            udp("u", "B", "C", 0.3 * X, S),
        ];
        let rec = json!({"flow_sample_ps": 10 * MS, "queues": [{"node": "s1", "peer": "C"}]});
        go(&config(4, S, nodes, links, flows, rec))
    };
    let (a, b) = (run(false), run(true));
    assert_eq!(col_u64(&b, "pipelines", "holds")[0], 0);
    // The one column a blocking buffer adds, its holds, aside; and the
    // event count: the hosts' ports that feed a blocking buffer keep their
    // departures as events (`world/departures.rs`), where the same ports
    // without it need none. Everything the run measures is the same.
    let (mut a, mut b) = (a, b);
    for t in a.tables.iter_mut().chain(b.tables.iter_mut()) {
        t.columns
            .retain(|(name, _)| name != "holds" && name != "events");
    }
    assert_eq!(a.tables, b.tables);
}
