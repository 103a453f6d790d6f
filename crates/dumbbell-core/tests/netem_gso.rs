//! A netem stage counting GSO skbs (`NetemConfig::unit = "gso"`,
//! `net::netem_gso`): its limit counts skbs, so it admits about that many
//! times the segments of an skb; a lost skb loses every segment of it;
//! packets are conserved; the same seed gives the same run.

mod common;
use common::*;
use dumbbell_core::world::RunOutput;
use serde_json::{json, Value};

/// One cubic flow over `path` (100 Mb/s, 5 ms each way, a 5000-packet
/// queue) whose bottleneck port has the netem stage `netem`; the packet
/// trace of that port when `trace`.
fn one_flow(netem: Value, seed: u64, trace: bool) -> RunOutput {
    let (nodes, mut links) = path(100_000_000, 5 * MS, json!({"limit_pkts": 5000}), 0.0);
    links[1]["netem_ab"] = netem;
    let flows = vec![json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv"})];
    let record = if trace {
        json!({"packets": [{"node": "r", "peer": "rcv"}]})
    } else {
        json!({})
    };
    go(&config(seed, 2 * S, nodes, links, flows, record))
}

/// TCP/IP headers of the default `TcpConfig`.
const HEADER_BYTES: u32 = 40;

fn max_queue(out: &RunOutput) -> u32 {
    col_u32(out, "queues", "max_pkts")[port(out, "r", "rcv")]
}

/// A limit of 10 counted in packets holds the queue to 10 packets; counted
/// in skbs it admits 10 skbs of the sender's autosize (here about 1 ms of
/// its rate, 10 to 45 segments), so the queue grows several times deeper,
/// and never beyond 10 full skbs plus the rest of one whose head has left.
#[test]
fn limit_counted_in_skbs_admits_segments_of_each() {
    let per_packet = max_queue(&one_flow(json!({"limit_pkts": 10}), 1, false));
    assert!(per_packet <= 10, "{per_packet}");
    let per_skb = max_queue(&one_flow(
        json!({"limit_pkts": 10, "unit": "gso"}),
        1,
        false,
    ));
    assert!(per_skb >= 50, "{per_skb}");
    assert!(per_skb <= 11 * 45, "{per_skb}");
    // A smaller skb cap bounds it: 10 skbs of at most 2 segments (2896 B).
    let small = max_queue(&one_flow(
        json!({"limit_pkts": 10, "unit": "gso", "gso_max_bytes": 2896}),
        1,
        false,
    ));
    assert!(small <= 11 * 2, "{small}");
}

/// The lengths of the runs of consecutive segments (each starting where
/// the one before ended, at most one MSS on) dropped for `reason` at the
/// traced port, and how many segments reached its queue.
fn drop_runs(out: &RunOutput, reason: &str) -> (Vec<u64>, u64) {
    let ev = col_str(out, "packets", "event");
    let why = col_str(out, "packets", "reason");
    let seq = col_u64(out, "packets", "seq");
    let size = col_u32(out, "packets", "size_bytes");
    let mut runs: Vec<u64> = vec![];
    let mut next: Option<u64> = None;
    let mut enqueued = 0;
    for i in 0..ev.len() {
        if ev[i] == "enqueue" && size[i] > 100 {
            enqueued += 1;
        }
        if ev[i] != "drop" || why[i] != reason || size[i] < 100 {
            continue;
        }
        match (next, runs.last_mut()) {
            (Some(n), Some(r)) if seq[i] == n => *r += 1,
            _ => runs.push(1),
        }
        next = Some(seq[i] + (size[i] - HEADER_BYTES) as u64);
    }
    (runs, enqueued)
}

/// netem's loss per skb: the segments dropped come in runs as long as the
/// skbs (tens of segments at this rate), where per packet they come one by
/// one; and the share of segments lost stays near the skb loss rate.
#[test]
fn a_lost_skb_loses_all_its_segments() {
    let (runs, _) = drop_runs(
        &one_flow(json!({"loss": 0.01, "limit_pkts": null}), 3, true),
        "link_loss",
    );
    let mean = |r: &[u64]| r.iter().sum::<u64>() as f64 / r.len().max(1) as f64;
    assert!(runs.len() > 20, "{}", runs.len());
    assert!(mean(&runs) < 1.2, "{}", mean(&runs));
    let out = one_flow(
        json!({"loss": 0.01, "limit_pkts": null, "unit": "gso"}),
        3,
        true,
    );
    let (runs, enqueued) = drop_runs(&out, "link_loss");
    assert!(runs.len() >= 5, "{}", runs.len());
    assert!(mean(&runs) >= 4.0, "{runs:?}");
    let lost: u64 = runs.iter().sum();
    let share = lost as f64 / (lost + enqueued) as f64;
    assert!(share > 0.002 && share < 0.05, "{share}");
}

/// Two flows, skb loss and an skb limit with a delay line: every packet
/// created is delivered, dropped or still in flight.
#[test]
fn packets_are_conserved() {
    let (nodes, mut links) = path(100_000_000, 2 * MS, json!({"limit_pkts": 200}), 0.0);
    links[1]["netem_ab"] =
        json!({"loss": 0.02, "delay_ps": 10 * MS, "limit_pkts": 20, "unit": "gso"});
    let flows = vec![
        json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv"}),
        json!({"kind": "tcp", "name": "g", "src": "snd", "dst": "rcv", "cc": {"kind": "reno"},
               "start_ps": 100 * MS}),
        json!({"kind": "udp", "name": "u", "src": "snd", "dst": "rcv", "rate_bps": 5_000_000u64}),
    ];
    let out = go(&config(4, S, nodes, links, flows, json!({})));
    let created = out.summary_u64("packets_created");
    assert!(created > 1000);
    assert_eq!(
        created,
        out.summary_u64("packets_delivered")
            + out.summary_u64("packets_dropped")
            + out.summary_u64("packets_in_flight")
    );
    let k = port(&out, "r", "rcv");
    assert!(col_u64(&out, "queues", "drops_link_loss")[k] > 0);
    assert!(col_u64(&out, "queues", "drops_overflow")[k] > 0);
}

/// The same seed gives the same run; another seed another one. A stage
/// without `unit` counts packets, as one with `unit = "packet"`.
#[test]
fn determinism() {
    let netem = json!({"loss": 0.01, "limit_pkts": 30, "unit": "gso"});
    let key = |out: &RunOutput| {
        let k = port(out, "r", "rcv");
        (
            col_u64(out, "flows", "bytes_delivered"),
            col_u64(out, "queues", "drops_link_loss")[k],
            col_u64(out, "queues", "drops_overflow")[k],
        )
    };
    let a = key(&one_flow(netem.clone(), 7, false));
    assert_eq!(a, key(&one_flow(netem.clone(), 7, false)));
    assert_ne!(a, key(&one_flow(netem, 8, false)));
    let plain = key(&one_flow(json!({"loss": 0.01}), 7, false));
    assert_eq!(
        plain,
        key(&one_flow(json!({"loss": 0.01, "unit": "packet"}), 7, false))
    );
    assert_ne!(plain, a);
}

/// `gso_max_bytes` outside [1, 512 KiB] is one error naming the field.
#[test]
fn gso_max_bytes_is_checked() {
    let (nodes, mut links) = path(100_000_000, MS, json!({"limit_pkts": 100}), 0.0);
    links[1]["netem_ab"] = json!({"unit": "gso", "gso_max_bytes": 0});
    let cfg = config(1, S, nodes, links, vec![], json!({}));
    let err = dumbbell_core::validate::check(&cfg).unwrap_err();
    assert!(
        err.to_string().contains("links[1].netem_ab.gso_max_bytes"),
        "{err}"
    );
}
