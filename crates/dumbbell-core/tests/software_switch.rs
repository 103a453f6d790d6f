//! The software-switch model and packet return, end to end (the hysteresis
//! paper: Silva, Vieira and Nacif, "Data Center TCP com Histerese em
//! Switches P4"): a pipeline of X packets/s passes X whatever is offered
//! and is shared by flows on disjoint ports; a port's service rate caps it;
//! options that do not bind change nothing; returned copies go back through
//! the reverse queues, one per congested data segment, never for copies or
//! CE-marked packets, and DCTCP driven by copies alone keeps the queue near
//! the threshold without loss.

mod common;
use common::*;
use serde_json::{json, Value};

fn udp(name: &str, src: &str, dst: &str, pps: f64, stop_ps: u64) -> Value {
    json!({"kind": "udp", "name": name, "src": src, "dst": dst,
           "rate_bps": (pps * 1470.0 * 8.0) as u64, "stop_ps": stop_ps})
}

fn with_pipeline(nodes: &mut [Value], capacity_pps: f64, buffer_pkts: u32) {
    nodes[0]["pipeline"] = json!({"capacity_pps": capacity_pps, "buffer_pkts": buffer_pkts});
}

fn delivered_pkts(out: &dumbbell_core::world::RunOutput, flow: usize) -> f64 {
    col_u64(out, "flows", "bytes_delivered")[flow] as f64 / 1470.0
}

#[test]
fn a_pipeline_of_x_pps_passes_x_of_an_offered_2x() {
    let (mut nodes, links) = star(&["A", "B"], 100_000_000, 100 * US);
    with_pipeline(&mut nodes, 1000.0, 50);
    let flows = vec![udp("u", "A", "B", 2000.0, 2 * S)];
    // The source stops at 2 s; the 50 packets then waiting drain by 2.05 s.
    let out = go(&config(1, 2100 * MS, nodes, links, flows, json!({})));
    let got = delivered_pkts(&out, 0);
    assert!((got - 2050.0).abs() <= 2.0, "delivered {got} packets");
    let drops = col_u64(&out, "pipelines", "drops_pipeline")[0];
    let processed = col_u64(&out, "pipelines", "processed_pkts")[0];
    assert_eq!(processed as f64, got);
    assert_eq!(
        drops + processed,
        4000,
        "every datagram was processed or dropped"
    );
    assert_eq!(col_u32(&out, "pipelines", "max_pkts")[0], 50);
    let overflow: u64 = col_u64(&out, "queues", "drops_overflow").iter().sum();
    assert_eq!(overflow, 0, "the egress ports never see more than X");
    assert_eq!(out.summary_u64("packets_dropped"), drops);
}

#[test]
fn flows_on_disjoint_ports_share_the_pipeline() {
    // Two equal CBR sources in lockstep would phase-lock at the full buffer
    // (one of them taking every freed place); host jitter breaks the tie.
    let run = |pipeline: bool| {
        let (mut nodes, mut links) = star(&["A", "B", "C", "D"], 100_000_000, 100 * US);
        if pipeline {
            with_pipeline(&mut nodes, 1000.0, 50);
        }
        for l in links.iter_mut() {
            l["jitter_ps"] = json!(50 * US);
        }
        let flows = vec![
            udp("ab", "A", "B", 800.0, 2 * S),
            udp("cd", "C", "D", 800.0, 2 * S),
        ];
        let out = go(&config(1, 2100 * MS, nodes, links, flows, json!({})));
        let overflow: u64 = col_u64(&out, "queues", "drops_overflow").iter().sum();
        assert_eq!(overflow, 0, "the egress ports are never the bottleneck");
        (delivered_pkts(&out, 0), delivered_pkts(&out, 1))
    };
    let (ab, cd) = run(false);
    assert!(
        (ab - 1600.0).abs() < 2.0 && (cd - 1600.0).abs() < 2.0,
        "{ab} {cd}"
    );
    // 1600 pkt/s offered to a 1000 pkt/s pipeline: together they get X,
    // each about half.
    let (ab, cd) = run(true);
    assert!((ab + cd - 2050.0).abs() <= 2.0, "{ab} + {cd}");
    assert!((ab - cd).abs() < 0.1 * 1000.0, "{ab} vs {cd}");
}

#[test]
fn a_service_rate_paces_departures_and_caps_the_port() {
    let (nodes, mut links) = star(&["A", "B"], 100_000_000, 100 * US);
    links[1]["queue_ba"] = json!({"limit_pkts": 20, "service_pps": 500.0});
    let flows = vec![udp("u", "A", "B", 1000.0, 2 * S)];
    let rec = json!({"queues": [{"node": "s1", "peer": "B", "dequeue_times": true}]});
    let out = go(&config(1, 2 * S, nodes, links, flows, rec));
    let got = delivered_pkts(&out, 0);
    assert!((got - 1000.0).abs() <= 2.0, "delivered {got} in 2 s");
    let p = port(&out, "s1", "B");
    assert!(col_u64(&out, "queues", "drops_overflow")[p] > 950);
    // Back-to-back departures exactly 2 ms apart; the wire still runs at
    // 100 Mb/s, so one-way delay is serialization + propagation, not 2 ms.
    let t = col_u64(&out, "dequeues", "time_ps");
    assert!(t.len() > 990);
    assert!(t.windows(2).skip(30).all(|w| w[1] - w[0] == 2 * MS));
    assert!(col_f64(&out, "queues", "utilization")[p] > 0.99);
}

#[test]
fn options_that_do_not_bind_change_nothing() {
    let run = |explicit: bool| {
        let (mut nodes, mut links) = star(&["A", "B", "C"], 100_000_000, 100 * US);
        if explicit {
            // A service rate far above the packet rate of the link, and the
            // options written out as "off".
            nodes[0]["pipeline"] = Value::Null;
            for l in links.iter_mut() {
                l["queue_ba"] = json!({"limit_pkts": 1000, "service_pps": 1e9, "feedback": null});
            }
        }
        let flows = vec![
            json!({"kind": "tcp", "name": "t", "src": "A", "dst": "C", "cc": {"kind": "dctcp"}}),
            udp("u", "B", "C", 3000.0, S),
        ];
        let rec = json!({"flow_sample_ps": 10 * MS, "queues": [{"node": "s1", "peer": "C"}]});
        go(&config(4, S, nodes, links, flows, rec))
    };
    // A service rate, even one that never binds, keeps the port's
    // departure events (`world/departures.rs`): the event count differs,
    // nothing else.
    let (mut a, mut b) = (run(false), run(true));
    let events = |o: &mut dumbbell_core::world::RunOutput| {
        let t = o.tables.iter_mut().find(|t| t.name == "summary").unwrap();
        let i = t.columns.iter().position(|c| c.0 == "events").unwrap();
        t.columns.remove(i).1
    };
    let (ea, eb) = (events(&mut a), events(&mut b));
    assert_eq!(a.tables, b.tables);
    assert_ne!(ea, eb, "the ports with a service rate keep their events");
}

/// A → B through s1: 100 Mb/s links with 100 µs delay, s1 → B served at
/// 1000 pkt/s with a 100-packet buffer, one DCTCP flow that stops sending
/// new data at 2.5 s (everything drains by 3 s), plus `extra` on s1 → B.
fn return_run(feedback: Value, extra: Value, to_a: Value) -> dumbbell_core::world::RunOutput {
    let (nodes, mut links) = star(&["A", "B"], 100_000_000, 100 * US);
    let mut q = json!({"limit_pkts": 100, "service_pps": 1000.0, "feedback": feedback});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            q[k] = v;
        }
    }
    links[1]["queue_ba"] = q;
    links[0]["queue_ba"] = to_a;
    let flows = vec![json!({"kind": "tcp", "name": "t", "src": "A", "dst": "B",
                            "cc": {"kind": "dctcp"}, "stop_ps": 2500 * MS})];
    let rec = json!({"drop_log": true, "queues": [{"node": "s1", "peer": "B", "from_ps": S}]});
    go(&config(2, 3 * S, nodes, links, flows, rec))
}

#[test]
fn returned_copies_reach_the_sender_through_the_reverse_queues() {
    let full = return_run(
        json!({"kind": "step", "k_pkts": 10}),
        json!({}),
        json!({"limit_pkts": 1000}),
    );
    let (sb, sa, bs) = (
        port(&full, "s1", "B"),
        port(&full, "s1", "A"),
        port(&full, "B", "s1"),
    );
    let sent = col_u64(&full, "queues", "feedback_sent");
    let copies = sent[sb];
    assert!(copies > 100, "the queue reaches K: {copies} copies");
    assert_eq!(sent.iter().sum::<u64>(), copies, "only s1 -> B returns");
    assert_eq!(full.summary_u64("packets_in_flight"), 0, "drained");
    // Every copy arrived at the sender, and the originals arrived unmarked.
    assert_eq!(col_u64(&full, "flows", "returns_received")[0], copies);
    assert_eq!(col_u64(&full, "flows", "ce_received")[0], 0);
    assert_eq!(col_u64(&full, "queues", "marked_pkts")[sb], 0);
    // The copies took the reverse port s1 -> A with the ACKs from B.
    let enq = col_u64(&full, "queues", "enqueued_pkts");
    let deq = col_u64(&full, "queues", "dequeued_pkts");
    assert_eq!(enq[sa], deq[bs] + copies);
    // Full-size copies: 1448 + 40 bytes each, the ACKs 40.
    let tx = col_u64(&full, "queues", "tx_bytes");
    assert_eq!(tx[sa], 40 * deq[bs] + 1488 * copies);
    // One "return" log entry per copy, at s1 -> B, for the flow.
    let reasons = col_str(&full, "drops", "reason");
    let ports = col_u32(&full, "drops", "port");
    let logged: Vec<usize> = (0..reasons.len())
        .filter(|&i| reasons[i] == "return")
        .collect();
    assert_eq!(logged.len() as u64, copies);
    assert!(logged.iter().all(|&i| ports[i] == sb as u32));
    // DCTCP driven by copies alone holds the queue near K, with no loss and
    // the port busy.
    assert_eq!(col_u64(&full, "flows", "retransmits")[0], 0);
    assert_eq!(col_u64(&full, "queues", "drops_overflow")[sb], 0);
    let q = col_u32(&full, "queue_trace", "pkts");
    let mean = q.iter().map(|&x| x as f64).sum::<f64>() / q.len() as f64;
    assert!((4.0..16.0).contains(&mean), "mean queue {mean}");
    assert!(*q.iter().max().unwrap() < 30);
    assert!(col_f64(&full, "queues", "utilization")[sb] > 0.75);
    // While congested, the trace says so.
    let cong = col_bool(&full, "queue_trace", "congested");
    assert!(q.iter().zip(&cong).all(|(&n, &c)| c == (n >= 10)));

    // Header-only copies: 64 bytes on the wire.
    let header = return_run(
        json!({"kind": "step", "k_pkts": 10, "copy": "header"}),
        json!({}),
        json!({"limit_pkts": 1000}),
    );
    let copies = col_u64(&header, "queues", "feedback_sent")[sb];
    let deq = col_u64(&header, "queues", "dequeued_pkts");
    assert_eq!(
        col_u64(&header, "queues", "tx_bytes")[sa],
        40 * deq[bs] + 64 * copies
    );
    assert_eq!(col_u64(&header, "flows", "returns_received")[0], copies);
}

#[test]
fn copies_and_ce_marked_packets_are_never_returned() {
    // s1 -> A returns whenever its queue holds anything at all (K = 0): it
    // carries only ACKs and copies, so it never returns one.
    let out = return_run(
        json!({"kind": "step", "k_pkts": 10}),
        json!({}),
        json!({"limit_pkts": 1000, "feedback": {"kind": "step", "k_pkts": 0}}),
    );
    let sa = port(&out, "s1", "A");
    assert!(col_u64(&out, "queues", "feedback_sent")[port(&out, "s1", "B")] > 100);
    assert_eq!(col_u64(&out, "queues", "feedback_sent")[sa], 0);
    // DCTCP's step marking at K = 5 on the same queue marks, at dequeue,
    // every packet that leaves 5 or more behind, before the return policy
    // (K = 10) looks at it: nothing is left to return.
    let out = return_run(
        json!({"kind": "step", "k_pkts": 10}),
        json!({"aqm": {"kind": "step", "k_pkts": 5, "at": "dequeue"}}),
        json!({"limit_pkts": 1000}),
    );
    let sb = port(&out, "s1", "B");
    assert!(col_u64(&out, "queues", "marked_pkts")[sb] > 100);
    assert_eq!(col_u64(&out, "queues", "feedback_sent")[sb], 0);
    assert_eq!(col_u64(&out, "flows", "returns_received")[0], 0);
}

#[test]
fn copies_can_be_dropped_on_the_way_back_and_are_conserved() {
    // The reverse port holds 3 packets and a UDP flow from B floods it.
    let (mut nodes, mut links) = star(&["A", "B"], 100_000_000, 100 * US);
    with_pipeline(&mut nodes, 20_000.0, 5);
    links[1]["queue_ba"] = json!({"limit_pkts": 100, "service_pps": 1000.0,
                                  "feedback": {"kind": "hysteresis", "upper_pkts": 10, "lower_pkts": 6}});
    links[0]["queue_ba"] = json!({"limit_pkts": 3, "service_pps": 3000.0});
    let flows = vec![
        json!({"kind": "tcp", "name": "t", "src": "A", "dst": "B", "cc": {"kind": "dctcp"}}),
        udp("flood", "B", "A", 2900.0, 2 * S),
    ];
    let out = go(&config(
        3,
        2 * S,
        nodes,
        links,
        flows,
        json!({"drop_log": true}),
    ));
    let sent = col_u64(&out, "queues", "feedback_sent")[port(&out, "s1", "B")];
    let got = col_u64(&out, "flows", "returns_received")[0];
    assert!(sent > 50, "{sent}");
    assert!(got < sent, "some copies were lost: {got} of {sent}");
    let created = out.summary_u64("packets_created");
    assert_eq!(
        created,
        out.summary_u64("packets_delivered")
            + out.summary_u64("packets_dropped")
            + out.summary_u64("packets_in_flight")
    );
}

#[test]
fn bad_options_are_refused_naming_the_field() {
    use dumbbell_core::world::{run, RunError};
    let field = |edit: &dyn Fn(&mut Vec<Value>, &mut Vec<Value>)| {
        let (mut nodes, mut links) = star(&["A", "B"], 100_000_000, 100 * US);
        edit(&mut nodes, &mut links);
        match run(
            &config(1, S, nodes, links, vec![], json!({})),
            Default::default(),
        ) {
            Err(RunError::Config(e)) => e.field,
            other => panic!("accepted: {:?}", other.map(|_| ())),
        }
    };
    assert_eq!(
        field(&|_, l| l[1]["queue_ba"] =
            json!({"feedback": {"kind": "hysteresis", "upper_pkts": 36, "lower_pkts": 42}})),
        "links[1].queue_ba.feedback.lower_pkts"
    );
    assert_eq!(
        field(&|_, l| l[0]["queue_ab"] = json!({"feedback": {"kind": "step", "k_pkts": 5}})),
        "links[0].queue_ab.feedback",
        "A's own port is a host port"
    );
    assert_eq!(
        field(&|_, l| l[1]["queue_ba"] = json!({"service_pps": -3.0})),
        "links[1].queue_ba.service_pps"
    );
    assert_eq!(
        field(&|n, _| n[0]["pipeline"] = json!({"capacity_pps": 0.0, "buffer_pkts": 10})),
        "nodes[0].pipeline.capacity_pps"
    );
    assert_eq!(
        field(&|n, _| n[1]["pipeline"] = json!({"capacity_pps": 10.0, "buffer_pkts": 10})),
        "nodes[1].pipeline",
        "a host has no pipeline"
    );
}
