//! Linux's reordering adaptation (`tcp_check_sack_reordering`,
//! `tcp_check_reno_reordering` in `tcp_input.c`) and the kernel-era growth
//! rule (`growth_per_ack`), checked on whole runs.
//!
//! The reordering path: 1 % of the bottleneck's packets are held 1 ms
//! longer (about 8 packets overtake each at 100 Mb/s), nothing is lost,
//! RTT 20 ms, receive window 300 packets. Without RACK the loss threshold
//! is DupThresh: a fixed 3 retransmits spuriously at every event; Linux's
//! adaptation raises it to the distance seen (SACKs of the late original,
//! D-SACKs of a spurious retransmission), after which events of that depth
//! no longer look like losses.

mod common;
use common::*;
use serde_json::{json, Value};

/// Runs the reordering path for 5 s with `tcp`; returns (retransmits,
/// data packets sent, the traced `tcp.reordering` series).
fn reordering_run(tcp: Value, sack: bool) -> (u64, u64, Vec<f64>) {
    let (nodes, mut links) = path(100_000_000, 10 * MS, json!({"limit_pkts": 1000}), 0.0);
    links[1]["reorder_ab"] = json!(0.01);
    links[1]["reorder_delay_ps"] = json!(MS);
    let mut tcp = tcp;
    tcp["rwnd_bytes"] = json!(300 * 1448);
    tcp["sack"] = json!(sack);
    if !sack {
        tcp["rack"] = json!(false);
        tcp["tlp"] = json!(false);
    }
    let flows = vec![
        json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv",
                             "cc": {"kind": "reno"}, "tcp": tcp}),
    ];
    let rec = json!({"flow_sample_ps": 100 * MS, "tcp_vars": true});
    let out = go(&config(5, 5 * S, nodes, links, flows, rec));
    assert_eq!(out.summary_u64("packets_dropped"), 0, "nothing is lost");
    let vars = out.table("cc_vars").unwrap();
    let names = vars.column("var").unwrap().strings().unwrap();
    let values = vars.f64s("value").unwrap();
    let reo = (0..names.len())
        .filter(|&i| names[i] == "tcp.reordering")
        .map(|i| values[i])
        .collect();
    (
        col_u64(&out, "flows", "retransmits")[0],
        col_u64(&out, "flows", "data_pkts_sent")[0],
        reo,
    )
}

#[test]
fn sack_reordering_raises_dupthresh_and_spurious_retransmits_stop() {
    let (retx_fixed, sent_fixed, reo_fixed) =
        reordering_run(json!({"rack": false, "reordering_adapt": false}), true);
    let (retx, sent, reo) = reordering_run(json!({"rack": false}), true);
    eprintln!(
        "fixed DupThresh: {retx_fixed} retransmits of {sent_fixed}; adaptive: {retx} of {sent}"
    );
    eprintln!("reordering over time: {reo:?}");
    // Fixed: the threshold never moves, some 400 events each retransmit.
    assert!(reo_fixed.iter().all(|&r| r == 3.0), "{reo_fixed:?}");
    assert!(retx_fixed > 50, "{retx_fixed}");
    // Adaptive: it rises above 3 (to the overtaking distance, about 8
    // packets at 1 ms and 100 Mb/s, or more when a burst overtakes), never
    // past Linux's cap, never falls (no timeout), and the spurious
    // retransmissions stop.
    let top = reo.iter().cloned().fold(0.0, f64::max);
    assert!(top > 3.0 && top <= 300.0, "{reo:?}");
    assert!(reo.windows(2).all(|w| w[1] >= w[0]), "{reo:?}");
    assert!(retx * 10 < retx_fixed, "{retx} vs {retx_fixed}");
    // The same link time carries new data instead of spurious copies.
    assert!(sent - retx > sent_fixed - retx_fixed, "{sent} {sent_fixed}");
}

#[test]
fn max_reordering_caps_the_threshold() {
    let (retx_cap, _, reo) = reordering_run(json!({"rack": false, "max_reordering": 4}), true);
    let (retx, _, _) = reordering_run(json!({"rack": false}), true);
    let top = reo.iter().cloned().fold(0.0, f64::max);
    assert_eq!(top, 4.0, "{reo:?}");
    // A threshold of 4 is below the ~8-packet overtaking: still spurious.
    assert!(retx_cap > 5 * retx.max(1), "{retx_cap} vs {retx}");
}

/// Without SACK the distance comes from the ACK a late original sends
/// (`tcp_try_undo_partial`: the hole filled by the original, not the
/// retransmission) or from more duplicate ACKs than the window explains
/// (`tcp_check_reno_reordering`).
#[test]
fn newreno_reordering_raises_the_threshold() {
    let (retx_fixed, _, reo_fixed) = reordering_run(json!({"reordering_adapt": false}), false);
    let (retx, _, reo) = reordering_run(json!({}), false);
    eprintln!("NewReno fixed: {retx_fixed} retransmits; adaptive: {retx}; {reo:?}");
    assert!(reo_fixed.iter().all(|&r| r == 3.0));
    let top = reo.iter().cloned().fold(0.0, f64::max);
    assert!(top > 3.0, "{reo:?}");
    assert!(retx < retx_fixed, "{retx} vs {retx_fixed}");
}

/// Per-ACK growth (Linux before its stretch-ACK fixes, `tcp_abc` = 0):
/// with delayed ACKs covering two segments, Reno's window grows by one
/// segment every two round trips, so the Mathis constant falls from
/// √(3/2) to √(3/4): goodput under the same random loss drops by about
/// 1/√2. Without delayed ACKs every ACK covers one segment and the two
/// rules are the same law.
#[test]
fn growth_per_ack_halves_avoidance_with_delayed_acks() {
    let run = |per_ack: bool, delayed: bool| {
        let p = 0.001;
        let (nodes, links) = path(1_000_000_000, 10 * MS, json!({"limit_pkts": 100000}), p);
        let flows = vec![
            json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv",
            "cc": {"kind": "reno"},
            "tcp": {"delayed_ack": delayed, "growth_per_ack": per_ack}}),
        ];
        let out = go(&config(7, 60 * S, nodes, links, flows, json!({})));
        col_f64(&out, "flows", "goodput_bps")[0]
    };
    let ratio = run(true, true) / run(false, true);
    eprintln!("per-ACK / per-packet goodput with delayed ACKs: {ratio:.3}");
    assert!((0.6..0.82).contains(&ratio), "{ratio}");
    let same = run(true, false) / run(false, false);
    assert!((0.93..1.07).contains(&same), "{same}");
}
