//! Two-class ports in whole runs: what priority buys short flows behind a
//! long one, RuN2C's exact cut, and configuration errors naming the field.

mod common;
use common::*;
use dumbbell_core::world::{run, RunError};
use serde_json::{json, Value};

/// One long Reno flow from t = 0 fills a 10 Mb/s bottleneck with a deep
/// buffer; ten 10 KB flows start later, one every 200 ms. Returns their
/// mean completion time (s) and the run.
fn short_behind_long(queue: Value) -> (f64, dumbbell_core::world::RunOutput) {
    let (nodes, links) = path(10_000_000, MS, queue, 0.0);
    let mut flows = vec![
        json!({"kind": "tcp", "name": "long", "src": "snd", "dst": "rcv",
                                "cc": {"kind": "reno"}, "tcp": {"rwnd_bytes": 1_000_000}}),
    ];
    for i in 0..10u64 {
        flows.push(
            json!({"kind": "tcp", "name": format!("s{i}"), "src": "snd", "dst": "rcv",
                          "bytes": 10_000, "start_ps": 2 * S + i * 200 * MS}),
        );
    }
    let out = go(&config(1, 6 * S, nodes, links, flows, json!({})));
    let done = col_u64(&out, "flows", "completion_ps");
    let start = col_u64(&out, "flows", "start_ps");
    let fct: Vec<f64> = (1..11)
        .map(|i| {
            assert!(done[i] > 0, "short flow {i} did not complete");
            (done[i] - start[i]) as f64 / S as f64
        })
        .collect();
    (fct.iter().sum::<f64>() / 10.0, out)
}

#[test]
fn priority_lets_short_flows_pass_the_long_flows_queue() {
    let deep = json!({"limit_pkts": 100000});
    let (fifo, out) = short_behind_long(deep.clone());
    // The long flow keeps ~its receive window (about 690 packets, 0.8 s at
    // 10 Mb/s) queued: a short flow waits that long per round trip.
    let b = port(&out, "r", "rcv");
    assert!(col_u32(&out, "queues", "max_pkts")[b] > 300);
    let mut prio_q = deep.clone();
    prio_q["classifier"] = json!({"kind": "ideal"});
    let (prio, out_p) = short_behind_long(prio_q);
    let mut rr_q = deep.clone();
    rr_q["classifier"] = json!({"kind": "ideal"});
    rr_q["scheduler"] = json!({"kind": "rr"});
    let (rr, _) = short_behind_long(rr_q);
    eprintln!("mean fct: fifo {fifo:.3} s, prio {prio:.3} s, rr {rr:.3} s");
    assert!(fifo > 1.0, "behind the long flow's queue: {fifo}");
    // Alone, a 10 KB flow takes about 3 RTT of 4 ms plus its 8 ms of
    // transmission; priority gets within a few ms of that.
    assert!(prio < 0.02, "priority: {prio}");
    // Round robin halves the short flow's share of the link but still skips
    // the long queue.
    assert!(rr < 0.03 && rr > prio, "rr: {rr}");
    // The ideal classifier is never wrong.
    let g = |c: &str| col_u64(&out_p, "classification", c)[0];
    assert_eq!(g("short_as_long") + g("long_as_short"), 0);
    assert!(g("short_as_short") >= 10 * 8 && g("long_as_long") > 1000);
    assert_eq!(
        col_str(&out_p, "classification", "classifier"),
        vec!["ideal"]
    );
    assert_eq!(col_str(&out_p, "classification", "node"), vec!["r"]);
}

/// RuN2C calls short every packet whose offset is below 16 KB: on a
/// loss-free long flow that is its SYN and its first 12 segments
/// (11 · 1448 < 16384 ≤ 12 · 1448).
#[test]
fn run2c_sends_exactly_the_first_16_kb_of_a_long_flow_to_the_short_queue() {
    let q = json!({"limit_pkts": 100000, "classifier": {"kind": "run2c"}});
    let (nodes, links) = path(10_000_000, MS, q, 0.0);
    let flows = vec![
        json!({"kind": "tcp", "name": "long", "src": "snd", "dst": "rcv", "bytes": 2_000_000}),
    ];
    let out = go(&config(1, 5 * S, nodes, links, flows, json!({})));
    assert_eq!(col_u64(&out, "flows", "retransmits")[0], 0);
    let g = |c: &str| col_u64(&out, "classification", c)[0];
    assert_eq!(g("long_as_short"), 13);
    assert_eq!(g("long_as_long"), 2_000_000u64.div_ceil(1448) - 12);
    assert_eq!(g("short_as_short") + g("short_as_long"), 0);
}

#[test]
fn rafle_decisions_are_reproducible_per_seed() {
    let q = json!({"limit_pkts": 100000, "classifier": {"kind": "rafle", "n": 40}, "scheduler": {"kind": "rr"}});
    let table = |seed: u64| {
        let (nodes, links) = path(10_000_000, MS, q.clone(), 0.0);
        let flows: Vec<Value> = (0..4)
            .map(|i| {
                json!({"kind": "tcp", "name": format!("f{i}"), "src": "snd",
            "dst": "rcv", "bytes": 300_000, "start_ps": i * 50 * MS})
            })
            .collect();
        let out = go(&config(seed, 3 * S, nodes, links, flows, json!({})));
        [
            "short_as_short",
            "short_as_long",
            "long_as_short",
            "long_as_long",
        ]
        .map(|c| col_u64(&out, "classification", c)[0])
    };
    let a = table(1);
    assert_eq!(a, table(1));
    assert_ne!(a, table(2), "the draws depend on the run seed");
    assert!(
        a[3] > 0 && a[2] > 0,
        "RAFLE calls some packets of each flow long and some short: {a:?}"
    );
}

fn config_error(queue: Value) -> dumbbell_core::config::ConfigError {
    let (nodes, links) = path(10_000_000, MS, queue, 0.0);
    match run(
        &config(1, S, nodes, links, vec![], json!({})),
        Default::default(),
    ) {
        Err(RunError::Config(e)) => e,
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn bad_two_class_ports_name_the_field() {
    let f = "links[1].queue_ab";
    for (q, field) in [
        (
            json!({"classifier": {"kind": "rafle", "n": 0}}),
            format!("{f}.classifier.n"),
        ),
        (
            json!({"long_queue": {"limit_pkts": 10}}),
            format!("{f}.long_queue"),
        ),
        (
            json!({"scheduler": {"kind": "rr"}}),
            format!("{f}.scheduler"),
        ),
        (
            json!({"classifier": {"kind": "ideal"}, "scheduler": {"kind": "drr", "quantum_long_bytes": 0}}),
            format!("{f}.scheduler.quantum_long_bytes"),
        ),
        (
            json!({"classifier": {"kind": "ideal"}, "long_queue": {"classifier": {"kind": "ideal"}}}),
            format!("{f}.long_queue.classifier"),
        ),
        (
            json!({"classifier": {"kind": "ideal"}, "long_queue": {"limit_pkts": 0}}),
            format!("{f}.long_queue.limit_pkts"),
        ),
    ] {
        assert_eq!(config_error(q.clone()).field, field, "{q}");
    }
    // Unknown kinds fail at decoding, naming the queue.
    for q in [
        json!({"classifier": {"kind": "oracle"}}),
        json!({"classifier": {"kind": "ideal"}, "scheduler": {"kind": "wfq"}}),
    ] {
        let (nodes, mut links) = path(10_000_000, MS, json!({}), 0.0);
        links[1]["queue_ab"] = q;
        let v = json!({"seed": 1, "duration_ps": S, "nodes": nodes, "links": links});
        let e = dumbbell_core::config::RunConfig::from_json(&v.to_string()).unwrap_err();
        assert!(e.field.starts_with("links[1].queue_ab"), "{}", e.field);
    }
}
