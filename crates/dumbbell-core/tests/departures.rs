//! Departures without `TxDone` events (`world/departures.rs`): a port that
//! makes its dequeues late, when something next looks at it, gives every
//! flow and every port the results of one that marks each end of a
//! transmission with an event, with fewer events.
//!
//! The reference is the same run with `record.drop_log` on: the drop log's
//! rows must come out in time order, so it keeps every port's `TxDone`
//! events (and changes nothing else in the run).

mod common;
use common::*;
use dumbbell_core::trace::Column;
use dumbbell_core::world::{run_json, run_json_with_nic_events, RunOutput};
use serde_json::{json, Value};

/// Two flows (the second starting later, so that they do not share every
/// instant) over `path`'s bottleneck with `queue`; `watched`: with the drop
/// log (every port keeps its events).
fn run(
    queue: Value,
    cc: &str,
    delayed_ack: bool,
    watched: bool,
) -> dumbbell_core::world::RunOutput {
    let (nodes, links) = path(100_000_000, 5 * MS, queue, 0.0);
    let tcp = json!({"ecn": cc == "dctcp", "delayed_ack": delayed_ack});
    let flows = vec![
        json!({"kind": "tcp", "name": "a", "src": "snd", "dst": "rcv", "cc": {"kind": cc}, "tcp": tcp}),
        json!({"kind": "tcp", "name": "b", "src": "snd", "dst": "rcv", "cc": {"kind": "reno"},
               "start_ps": 37 * MS + 123, "tcp": tcp}),
    ];
    let rec = json!({"drop_log": watched});
    go(&config(3, S, nodes, links, flows, rec))
}

/// `lazy` (ports without `TxDone` events) has every flow's and every port's
/// results of `events` (the reference, every end of transmission an
/// event), with fewer events.
fn same_results_fewer_events(lazy: &RunOutput, events: &RunOutput, what: &str) {
    for table in ["flows", "queues"] {
        assert_eq!(
            lazy.table(table),
            events.table(table),
            "{what}: the {table} table differs between lazy departures and TxDone events"
        );
    }
    let (el, ee) = (lazy.summary_u64("events"), events.summary_u64("events"));
    assert!(
        el < ee,
        "{what}: {el} events without TxDone, {ee} with: none saved"
    );
}

/// Every AQM that acts at dequeue (CoDel, PIE, DualPI2, FQ-CoDel, step
/// marking at dequeue) and the drop-tail and enqueue-marking FIFOs: the
/// flows' results and every port's counters (enqueued, dequeued, marked,
/// drops by reason, bytes sent, busy time) are those of the run whose
/// ports schedule every end of transmission.
#[test]
fn late_dequeues_give_the_results_of_dequeue_events() {
    let queues = [
        ("drop-tail", json!({"limit_pkts": 60}), "cubic"),
        (
            "step at enqueue",
            json!({"limit_pkts": 200, "aqm": {"kind": "step", "k_pkts": 20}}),
            "dctcp",
        ),
        (
            "step at dequeue",
            json!({"limit_pkts": 200, "aqm": {"kind": "step", "k_pkts": 20, "at": "dequeue"}}),
            "dctcp",
        ),
        (
            "codel",
            json!({"limit_pkts": 1000, "aqm": {"kind": "codel"}}),
            "cubic",
        ),
        (
            "fq_codel",
            json!({"limit_pkts": 1000, "aqm": {"kind": "fq_codel"}}),
            "cubic",
        ),
        (
            "pie",
            json!({"limit_pkts": 1000, "aqm": {"kind": "pie"}}),
            "cubic",
        ),
        (
            "dualpi2",
            json!({"limit_pkts": 1000, "aqm": {"kind": "dualpi2"}}),
            "dctcp",
        ),
    ];
    for (name, q, cc) in queues {
        let lazy = run(q.clone(), cc, true, false);
        let events = run(q, cc, true, true);
        same_results_fewer_events(&lazy, &events, name);
        // The bottleneck did work: packets were queued, and dropped or
        // marked, so the dequeues had decisions to make.
        let q = col_u64(&lazy, "queues", "enqueued_pkts");
        assert!(q.iter().sum::<u64>() > 10_000, "{name}: {q:?}");
    }
}

/// On `path`, a data packet crosses two ports (the sender's NIC, the
/// bottleneck) and an ACK two (the receiver's NIC, the switch's port toward
/// the sender): with every end of transmission an event, 4 events per
/// packet of either kind (an arrival and a departure per port); without,
/// 2 of either (the sender's NIC, ten times the bottleneck's rate, seldom
/// holds a sender in TCP small queues, so it seldom raises a wake). Timers
/// add a few more, packets dropped or still in flight at the end a few
/// less.
#[test]
fn departures_cost_no_event_but_arrivals() {
    let q = json!({"limit_pkts": 100});
    for delayed_ack in [false, true] {
        for (watched, per_data, per_ack) in [(true, 4, 4), (false, 2, 2)] {
            let out = run(q.clone(), "reno", delayed_ack, watched);
            let data = out.summary_u64("data_packets_sent");
            let acks = out.summary_u64("ack_packets_sent");
            let want = per_data * data + per_ack * acks;
            let got = out.summary_u64("events");
            assert!(
                (got as f64 - want as f64).abs() <= 0.02 * want as f64,
                "delayed ACKs {delayed_ack}, watched {watched}: {got} events for {data} data \
                 packets and {acks} ACKs, expected about {want}"
            );
        }
    }
}

/// The sender's NIC is the bottleneck, so TCP small queues hold its
/// senders (`world/tsq_wake.rs`): two flows from `snd` share the NIC (one
/// paced BBR, one Cubic), and a third sends the other way, so that `snd`
/// also puts ACKs on that NIC. `watched`: with the drop log (every port
/// keeps its `TxDone` events); `tsq_bytes`: TSQ's cap (0: off).
fn run_tsq(watched: bool, tsq_bytes: u64) -> dumbbell_core::world::RunOutput {
    let tcp = json!({"tsq_bytes": tsq_bytes});
    let nodes = vec![
        json!({"name": "snd", "kind": "host"}),
        json!({"name": "r", "kind": "switch"}),
        json!({"name": "rcv", "kind": "host"}),
    ];
    let links = vec![
        json!({"a": "snd", "b": "r", "rate_bps": 100_000_000u64, "delay_ps": MS,
               "queue_ab": {"limit_pkts": 100000}, "queue_ba": {"limit_pkts": 200}}),
        json!({"a": "r", "b": "rcv", "rate_bps": 1_000_000_000u64, "delay_ps": 4 * MS,
               "queue_ab": {"limit_pkts": 1000}}),
    ];
    let flows = vec![
        json!({"kind": "tcp", "name": "a", "src": "snd", "dst": "rcv", "cc": {"kind": "bbr"},
               "tcp": tcp}),
        json!({"kind": "tcp", "name": "b", "src": "snd", "dst": "rcv", "cc": {"kind": "cubic"},
               "start_ps": 37 * MS + 123, "tcp": tcp}),
        json!({"kind": "tcp", "name": "c", "src": "rcv", "dst": "snd", "cc": {"kind": "reno"},
               "start_ps": 11 * MS, "tcp": tcp}),
    ];
    go(&config(
        5,
        2 * S,
        nodes,
        links,
        flows,
        json!({"drop_log": watched}),
    ))
}

/// A TCP sender's NIC without events while no sender is held, and with a
/// wake at each end of transmission while TCP small queues hold one, gives
/// every flow and every port the results of a NIC that raises an event per
/// packet, with fewer events. TSQ did hold: the NIC, the bottleneck of two
/// bulk flows, kept a fraction of the queue it holds without TSQ.
#[test]
fn a_tcp_senders_nic_wakes_only_held_senders() {
    let tsq = 128 * 1024;
    let lazy = run_tsq(false, tsq);
    let events = run_tsq(true, tsq);
    same_results_fewer_events(&lazy, &events, "a TCP sender's NIC");
    // Port 0 is snd -> r, the NIC: busy nearly all the run.
    let util = col_f64(&lazy, "queues", "utilization")[0];
    assert!(util > 0.9, "the NIC was busy {util} of the run");
    let held = col_u32(&lazy, "queues", "max_pkts")[0];
    let free = col_u32(&run_tsq(false, 0), "queues", "max_pkts")[0];
    assert!(
        4 * held < free,
        "the NIC queue reached {held} packets with TSQ, {free} without"
    );
    let delivered = col_u64(&lazy, "flows", "bytes_delivered");
    assert!(delivered.iter().all(|&b| b > 1_000_000), "{delivered:?}");
}

/// Rafle's simultaneous transfer, small (`experiments/rafle`, part `era`):
/// ten files fetched at once from `server`, whose 100 Mb/s NIC feeds a
/// 1 Mb/s RAFLE round-robin router; default (linux-6.12) hosts, so TCP
/// small queues hold several of the server's senders at once, and their
/// timers fall on the NIC's departures. Found by a sweep: with a departure
/// made before any call of a sender at its instant, this run left the
/// NIC with a `TxDone` per packet (a timer due at the instant of a
/// departure that released another sender fired before it there).
fn rafle_fetch(seed: u64, files: &[u64]) -> String {
    let queue = |limit: u64| json!({"limit_pkts": limit, "aqm": {"kind": "none"}});
    let mut router = queue(1000);
    router["classifier"] = json!({"kind": "rafle", "n": 40});
    router["scheduler"] = json!({"kind": "rr"});
    json!({
        "seed": seed, "duration_ps": 30 * S,
        "nodes": [{"name": "client", "kind": "host"}, {"name": "router", "kind": "switch"},
                  {"name": "server", "kind": "host"}],
        "links": [
            {"a": "server", "b": "router", "rate_bps": 100_000_000u64, "delay_ps": 50 * US,
             "queue_ab": queue(1_000_000), "queue_ba": queue(1000)},
            {"a": "router", "b": "client", "rate_bps": 1_000_000u64, "delay_ps": 50 * US,
             "queue_ab": router, "queue_ba": queue(1_000_000)}],
        "workloads": [{"name": "ftp", "clients": ["client"], "servers": ["server"],
                       "sizes": {"kind": "files", "bytes": files},
                       "arrivals": {"kind": "all_at_once"},
                       "control": {"banner_bytes": 24, "rounds": 4, "request_bytes": 16,
                                   "response_bytes": 32},
                       "cc": {"kind": "cubic"},
                       "tcp": {"rwnd_bytes": 3_145_728u64, "sndbuf_bytes": 4_194_304u64}}],
        "record": {"drop_log": false}
    })
    .to_string()
}

/// The tie rule of the lazy TCP sender's NIC (`world/tsq_wake.rs`): each
/// departure keeps the place its `TxDone` had among the events of its
/// instant, so a run gives every value of the run whose NIC raises a
/// `TxDone` per packet, with fewer events, where TCP small queues hold
/// many senders behind the NIC and their timers tie with its departures.
#[test]
fn a_lazy_nic_keeps_the_place_of_its_tx_done_among_ties() {
    let files = [
        761_037, 21_957, 4_729, 18_381, 2_560_803, 19_151, 18_072, 5_732, 951_082, 9_284,
    ];
    let cfg = rafle_fetch(12, &files);
    let lazy = run_json(&cfg, Default::default()).expect("runs");
    let events = run_json_with_nic_events(&cfg).expect("runs");
    assert_same_physics(&lazy, &events, "rafle's fetch");
    let (el, ee) = (lazy.summary_u64("events"), events.summary_u64("events"));
    assert!(
        el < ee,
        "{el} events with a lazy NIC, {ee} with TxDone events"
    );
    // The small files were all fetched (the three large ones, 4.3 MB in
    // all, need more than the run's 30 s at 1 Mb/s).
    let tasks = lazy.table("tasks").expect("a tasks table");
    let Some(Column::I64(done)) = tasks
        .columns
        .iter()
        .find(|c| c.0 == "completion_ps")
        .map(|c| &c.1)
    else {
        panic!("no completion_ps column")
    };
    let small = files.iter().zip(done).filter(|(&b, _)| b < 100_000);
    assert!(
        small.clone().count() == 7 && small.clone().all(|(_, &c)| c > 0),
        "{done:?}"
    );
}
