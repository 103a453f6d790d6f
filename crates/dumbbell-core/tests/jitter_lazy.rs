//! Jittered wires without `TxDone` events (`world/jitter_lazy.rs`): a port
//! whose wire jitters makes its dequeues late, draws each packet's jitter
//! at its dequeue and keeps each departure's place among the events of its
//! instant, and gives every flow and every port the results of the port
//! that marks each end of a transmission with an event, with fewer events.
//!
//! Two references: the same run with `record.drop_log` on (every port
//! keeps its `TxDone` events), and `run_json_with_nic_events` (every TCP
//! sender's NIC and every jittered wire keep theirs, nothing else).

mod common;
use common::*;
use dumbbell_core::world::{run_json, run_json_with_nic_events, RunOutput};
use serde_json::{json, Value};

/// lossy-cc's shape, small: hosts `a` (BBR, paced) and `b` (Cubic) send to
/// `srv` through `r`; both access links jitter both ways, `r -> srv` is the
/// bottleneck with a netem stage's random loss; `srv` also sends Reno back
/// to `a`, so that data and ACKs share every jittered port. The jitter
/// (`jitter_us`) against a packet's serialization (12 µs at 1 Gb/s) sets
/// how often a packet would overtake the one before it (then it arrives
/// with it, at the same instant).
fn scenario(jitter_us: u64, drop_log: bool) -> Value {
    let access = |h: &str| {
        json!({"a": h, "b": "r", "rate_bps": 1_000_000_000u64, "delay_ps": 25 * US,
               "jitter_ps": jitter_us * US, "queue_ab": {"limit_pkts": 1000},
               "queue_ba": {"limit_pkts": 100}})
    };
    let tcp = |cc: &str, src: &str, dst: &str, start_ps: u64| {
        json!({"kind": "tcp", "name": format!("{cc}-{src}"), "src": src, "dst": dst,
               "cc": {"kind": cc}, "start_ps": start_ps})
    };
    json!({
        "seed": 3, "duration_ps": 2 * S,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"},
                  {"name": "srv", "kind": "host"}, {"name": "r", "kind": "switch"}],
        "links": [
            access("a"),
            access("b"),
            {"a": "r", "b": "srv", "rate_bps": 500_000_000u64, "delay_ps": 2 * MS,
             "queue_ab": {"limit_pkts": 300}, "netem_ab": {"loss": 0.01, "limit_pkts": 1000}}],
        "flows": [tcp("bbr", "a", "srv", 0), tcp("cubic", "b", "srv", 7 * MS + 123),
                  tcp("reno", "srv", "a", 13 * MS)],
        "record": {"drop_log": drop_log}
    })
}

fn go_json(v: &Value) -> RunOutput {
    run_json(&v.to_string(), Default::default()).expect("runs")
}

/// Runs `cfg` as it is (lazy ports) and checks it against both references:
/// the run that keeps the NICs' and jittered wires' `TxDone` events (every
/// table, `assert_same_physics`) and `watched`, the same scenario with every
/// port's `TxDone` (its flows and queues tables). Returns the lazy run and
/// the first reference.
fn against_both_references(cfg: &Value, watched: &Value, what: &str) -> (RunOutput, RunOutput) {
    let lazy = go_json(cfg);
    let reference = run_json_with_nic_events(&cfg.to_string()).expect("runs");
    assert_same_physics(&lazy, &reference, what);
    let watched = go_json(watched);
    for table in ["flows", "queues"] {
        assert_eq!(
            lazy.table(table),
            watched.table(table),
            "{what}: the {table} table differs from the run with every TxDone"
        );
    }
    (lazy, reference)
}

/// Jitter well below a packet's time on the wire (lossy-cc's 5 µs against
/// 12 µs: packets keep their spacing), and above it (30 µs: many packets
/// would overtake the one before and arrive with it instead): the flows'
/// results and every port's counters are those of `TxDone` events, with
/// at least one event fewer per packet on the two jittered ports a data
/// packet of `a` and its ACK cross.
#[test]
fn jittered_wires_give_the_results_of_tx_done_events() {
    for jitter_us in [5, 30] {
        let what = format!("jitter {jitter_us} µs");
        let (lazy, reference) = against_both_references(
            &scenario(jitter_us, false),
            &scenario(jitter_us, true),
            &what,
        );
        let data = lazy.summary_u64("data_packets_sent");
        let (el, ee) = (lazy.summary_u64("events"), reference.summary_u64("events"));
        assert!(
            el + data < ee,
            "{what}: {el} events with lazy jittered wires, {ee} with TxDone events, \
             {data} data packets"
        );
        // Every flow moved data, and the netem stage dropped some of it.
        let delivered = col_u64(&lazy, "flows", "bytes_delivered");
        assert!(
            delivered.iter().all(|&b| b > 1_000_000),
            "{what}: {delivered:?}"
        );
        let retx = col_u64(&lazy, "flows", "retransmits");
        assert!(retx.iter().sum::<u64>() > 100, "{what}: {retx:?}");
    }
}

/// The jitter is drawn: with it the flows' results differ from those of the
/// same wires without it (so the comparison above covers the draws).
#[test]
fn the_jitter_moves_the_results() {
    let with = go_json(&scenario(30, false));
    let without = go_json(&scenario(0, false));
    assert_ne!(
        col_u64(&with, "flows", "bytes_delivered"),
        col_u64(&without, "flows", "bytes_delivered")
    );
    assert_ne!(with.table("queues"), without.table("queues"));
}

/// lossy-cc's Fractional case (`world/tsq_wake.rs`): a sender TCP small
/// queues hold at nearly every departure, on a jittered NIC. `a` sends
/// Fractional to `srv` through its 1 Gb/s NIC (5 µs of jitter both ways) and a 10 Gb/s link with 3 % random loss; `srv` sends
/// Reno back, so that `a`'s NIC carries ACKs too. `tsq_bytes`: TSQ's cap
/// (0: off).
fn held_on_a_jittered_nic(tsq_bytes: u64, drop_log: bool) -> Value {
    let tcp = |cc: &str, src: &str, dst: &str, start_ps: u64| {
        json!({"kind": "tcp", "name": format!("{cc}-{src}"), "src": src, "dst": dst,
               "cc": {"kind": cc}, "start_ps": start_ps, "tcp": {"tsq_bytes": tsq_bytes}})
    };
    json!({
        "seed": 5, "duration_ps": S,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "srv", "kind": "host"},
                  {"name": "r", "kind": "switch"}],
        "links": [
            {"a": "a", "b": "r", "rate_bps": 1_000_000_000u64, "delay_ps": 25 * US,
             "jitter_ps": 5 * US, "queue_ab": {"limit_pkts": 10000},
             "queue_ba": {"limit_pkts": 1000}},
            {"a": "r", "b": "srv", "rate_bps": 10_000_000_000u64, "delay_ps": MS,
             "queue_ab": {"limit_pkts": 1000}, "netem_ab": {"loss": 0.03, "limit_pkts": 1000}}],
        "flows": [tcp("fractional", "a", "srv", 0), tcp("reno", "srv", "a", 7 * MS + 123)],
        "record": {"drop_log": drop_log}
    })
}

/// The held sender's wake on a jittered NIC (a departure made at the wake,
/// the released sender resumed there) gives the results of the NIC with a
/// `TxDone` per packet, against both references; TSQ did hold (the NIC
/// queue stays under half of what it reaches without TSQ: 9 packets
/// against 27 when written).
#[test]
fn a_held_sender_on_a_jittered_nic_gives_the_results_of_tx_done_events() {
    let tsq = 64 * 1024;
    let (lazy, reference) = against_both_references(
        &held_on_a_jittered_nic(tsq, false),
        &held_on_a_jittered_nic(tsq, true),
        "a held sender on a jittered NIC",
    );
    assert!(lazy.summary_u64("events") < reference.summary_u64("events"));
    // Port 0 is a -> r, the NIC: held short by TSQ.
    let held = col_u32(&lazy, "queues", "max_pkts")[0];
    let free = col_u32(
        &go_json(&held_on_a_jittered_nic(0, false)),
        "queues",
        "max_pkts",
    )[0];
    assert!(
        2 * held < free,
        "the NIC queue reached {held} packets with TSQ, {free} without"
    );
    let retx = col_u64(&lazy, "flows", "retransmits");
    assert!(
        retx[0] > 10 && retx.iter().sum::<u64>() > 100,
        "the loss stage dropped little: {retx:?}"
    );
}
