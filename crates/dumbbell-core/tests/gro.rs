//! A receiver that takes each TSO skb whole (`TcpConfig::gro`, Linux's GRO
//! or a virtio guest's whole GSO packets), on whole runs: one ACK per skb
//! on a clean path (about one per 45 segments with 64 KB skbs, where
//! delayed ACKs give one per two) at the same throughput; with random loss
//! and lost skb tails every transfer completes, packets are conserved and
//! SACK recovery repairs; without TSO the option changes nothing; a run is
//! deterministic.

mod common;
use common::*;
use dumbbell_core::world::RunOutput;
use serde_json::{json, Value};

/// Linux's `gso_max_size` without BIG TCP: 45 segments of 1448 bytes.
const GSO: u64 = 65_536;

/// `n` flows `snd -> rcv` over [`path`] (a 1 Gb/s bottleneck, NIC 10 Gb/s,
/// RTT 10 ms), with `tcp` and the control `cc`, each of `bytes` (None:
/// bulk), for `secs_ps`.
fn run(n: usize, loss: f64, tcp: Value, cc: &str, bytes: Option<u64>, secs_ps: u64) -> RunOutput {
    run_seed(7, n, loss, tcp, cc, bytes, secs_ps)
}

fn run_seed(
    seed: u64,
    n: usize,
    loss: f64,
    tcp: Value,
    cc: &str,
    bytes: Option<u64>,
    secs_ps: u64,
) -> RunOutput {
    let (nodes, links) = path(1_000_000_000, 5 * MS, json!({"limit_pkts": 2000}), loss);
    let flows = (0..n)
        .map(|i| {
            json!({"kind": "tcp", "name": format!("f{i}"), "src": "snd", "dst": "rcv",
                   "cc": {"kind": cc}, "tcp": tcp.clone(), "bytes": bytes,
                   "start_ps": i as u64 * 3 * MS / 7})
        })
        .collect();
    go(&config(seed, secs_ps, nodes, links, flows, json!({})))
}

fn acks_per_data_packet(out: &RunOutput) -> f64 {
    let acks = out.summary_u64("ack_packets_sent") as f64;
    acks / out.summary_u64("data_packets_sent") as f64
}

/// BBR paced at 1 Gb/s sends 45-segment skbs (its 1 ms of rate, 122 KB, is
/// above 64 KB): with `gro` the receiver sends about one ACK per skb, 1/45
/// of the data packets (within 10 %: the start's quick-ACKs and skbs the
/// window cut short add a few); without it one per two segments. The
/// throughput is the same within 2 %.
#[test]
fn one_ack_per_skb_on_a_clean_path_at_the_same_throughput() {
    let tso = json!({"gso_max_bytes": GSO});
    let gro = json!({"gso_max_bytes": GSO, "gro": true});
    let off = run(1, 0.0, tso, "bbr", None, 2 * S);
    let on = run(1, 0.0, gro, "bbr", None, 2 * S);
    let (r_on, r_off) = (acks_per_data_packet(&on), acks_per_data_packet(&off));
    assert!(
        (r_on * 45.0 - 1.0).abs() < 0.1,
        "{r_on} ACKs per data packet with gro (1/45 = {})",
        1.0 / 45.0
    );
    assert!((r_off * 2.0 - 1.0).abs() < 0.05, "{r_off} without gro");
    let g_on = col_f64(&on, "flows", "goodput_bps")[0];
    let g_off = col_f64(&off, "flows", "goodput_bps")[0];
    assert!((g_on / g_off - 1.0).abs() < 0.02, "{g_on} vs {g_off}");
    assert!(g_on > 0.9e9, "{g_on}");
}

/// With 1 % random loss (so skbs lose their last segment too, 1 in 100)
/// every 3 MB transfer of four Cubic or four BBR flows completes with every
/// byte delivered, packets are conserved (the run checks it, and none is
/// left in flight), and losses are repaired by SACK recovery, not
/// timeouts; over ten seeds the mean transfer time is within 15 % of the
/// per-segment receiver's (one seed's four transfers vary by 2× either
/// way).
#[test]
fn transfers_complete_with_random_loss_and_lost_skb_tails() {
    let bytes = 3_000_000u64;
    let tso = json!({"gso_max_bytes": GSO});
    let gro = json!({"gso_max_bytes": GSO, "gro": true});
    for cc in ["cubic", "bbr"] {
        let (mut t_gro, mut t_tso) = (0u64, 0u64);
        for seed in 1..=10 {
            let on = run_seed(seed, 4, 0.01, gro.clone(), cc, Some(bytes), 20 * S);
            let off = run_seed(seed, 4, 0.01, tso.clone(), cc, Some(bytes), 20 * S);
            assert_eq!(on.summary_u64("packets_in_flight"), 0, "{cc}");
            let done = col_u64(&on, "flows", "completion_ps");
            let start = col_u64(&on, "flows", "start_ps");
            for i in 0..4 {
                assert!(done[i] > 0, "{cc} seed {seed}: flow {i} did not complete");
                t_gro += done[i] - start[i];
            }
            t_tso += col_u64(&off, "flows", "completion_ps").iter().sum::<u64>()
                - start.iter().sum::<u64>();
            let delivered = col_u64(&on, "flows", "bytes_delivered");
            assert!(delivered.iter().all(|&b| b == bytes), "{cc}: {delivered:?}");
            let recoveries: u64 = col_u64(&on, "flows", "recoveries").iter().sum();
            let timeouts: u64 = col_u64(&on, "flows", "timeouts").iter().sum();
            assert!(
                recoveries > 4 && timeouts < recoveries,
                "{cc}: {recoveries} recoveries, {timeouts} RTOs"
            );
            // Fewer ACKs than the per-segment receiver's.
            assert!(
                acks_per_data_packet(&on) < acks_per_data_packet(&off),
                "{cc}"
            );
        }
        let ratio = t_gro as f64 / t_tso as f64;
        assert!(
            (ratio - 1.0).abs() < 0.15,
            "{cc}: mean transfer time {ratio} of without gro"
        );
    }
}

/// Without TSO no segment says more of its skb follow: `gro` on changes
/// no value of any table (paced and unpaced senders, with loss).
#[test]
fn gro_without_tso_changes_nothing() {
    for cc in ["cubic", "bbr"] {
        let a = run(2, 0.001, json!({}), cc, None, S);
        let b = run(2, 0.001, json!({"gro": true}), cc, None, S);
        assert!(a.tables == b.tables, "{cc}");
    }
}

/// The same seed gives the same bits with the option on.
#[test]
fn gro_runs_are_deterministic() {
    let tcp = json!({"gso_max_bytes": GSO, "gro": true});
    let a = run(2, 0.005, tcp.clone(), "bbr", None, S);
    let b = run(2, 0.005, tcp, "bbr", None, S);
    assert!(a.tables == b.tables);
    assert!(a.summary_u64("ack_packets_sent") > 0);
}
