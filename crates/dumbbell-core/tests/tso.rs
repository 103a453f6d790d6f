//! TSO-sized bursts of a paced sender (`TcpConfig::gso_max_bytes`): its
//! data leaves its NIC in skbs of Linux's autosize, all segments of one at
//! the same instant, the pacing gap after each its whole payload at the
//! rate; throughput is the per-segment pacer's; packets are conserved; a
//! bottleneck slower than the NIC queues about one skb per flow more.

mod common;
use common::*;
use dumbbell_core::world::RunOutput;
use serde_json::{json, Value};

const MSS: u64 = 1448;
const HEADER: u64 = 40;
/// Linux's `gso_max_size` without BIG TCP.
const GSO: u64 = 65_536;

/// Linux's `tcp_tso_autosize` (`sk_pacing_shift` 10, `tcp_tso_rtt_log` 9,
/// `tcp_min_tso_segs` 2), written from its definition: a 1024th of a
/// second of the pacing rate, plus `GSO >> (min_rtt_us >> 9)`, at most
/// `GSO`, in whole segments.
fn autosize(rate_bps: u64, min_rtt_us: u64) -> u64 {
    let mut bytes = rate_bps / 8 >> 10;
    let r = min_rtt_us >> 9;
    if r < 32 {
        bytes += GSO >> r;
    }
    (bytes.min(GSO) / MSS).max(2)
}

/// One flow (or `n` flows) `snd -> rcv` over [`path`] (NIC 10× the
/// bottleneck), TSO on or off; the sender's NIC port traced when `trace`.
fn run(
    n: usize,
    bottleneck_bps: u64,
    one_way_ps: u64,
    tcp: Value,
    cc: Value,
    tso: bool,
    secs_ps: u64,
    trace: bool,
) -> RunOutput {
    let (nodes, links) = path(
        bottleneck_bps,
        one_way_ps,
        json!({"limit_pkts": 20000}),
        0.0,
    );
    let mut tcp = tcp;
    if tso {
        tcp["gso_max_bytes"] = json!(GSO);
    }
    let flows = (0..n)
        .map(|i| {
            json!({"kind": "tcp", "name": format!("f{i}"), "src": "snd", "dst": "rcv",
                   "cc": cc.clone(), "tcp": tcp.clone(), "start_ps": i as u64 * 3 * MS / 7})
        })
        .collect();
    let mut record = json!({"queues": [{"node": "r", "peer": "rcv"}]});
    if trace {
        record["packets"] = json!([{"node": "snd", "peer": "r"}]);
    }
    go(&config(1, secs_ps, nodes, links, flows, record))
}

/// The skbs the traced NIC received after `from_ps`: (time, flow, segments,
/// payload bytes) of each run of data segments enqueued at one instant by
/// one flow.
fn skbs(out: &RunOutput, from_ps: u64) -> Vec<(u64, u32, u64, u64)> {
    let t = col_u64(out, "packets", "time_ps");
    let ev = col_str(out, "packets", "event");
    let flow = col_u32(out, "packets", "flow");
    let size = col_u32(out, "packets", "size_bytes");
    let mut out: Vec<(u64, u32, u64, u64)> = vec![];
    for i in 0..t.len() {
        if ev[i] != "enqueue" || (size[i] as u64) <= HEADER || t[i] < from_ps {
            continue;
        }
        let payload = size[i] as u64 - HEADER;
        match out.last_mut() {
            Some(s) if s.0 == t[i] && s.1 == flow[i] => {
                s.2 += 1;
                s.3 += payload;
            }
            _ => out.push((t[i], flow[i], 1, payload)),
        }
    }
    out
}

/// The first flow's goodput with TSO on (`on`) within 2 % of off.
fn assert_same_goodput(on: &RunOutput, off: &RunOutput) {
    let g_on = col_f64(on, "flows", "goodput_bps")[0];
    let g_off = col_f64(off, "flows", "goodput_bps")[0];
    assert!((g_on / g_off - 1.0).abs() < 0.02, "{g_on} vs {g_off}");
}

fn max_queue(out: &RunOutput) -> u32 {
    col_u32(out, "queues", "max_pkts")[port(out, "r", "rcv")]
}

/// A Cubic sender held by `max_rate_bps` (900 Mb/s, below its 1 Gb/s
/// bottleneck) paces at that cap: its NIC receives skbs of the autosize
/// at 900 Mb/s (45 segments, 64 KB: the cap's ~1 ms is above it), and
/// the next skb follows after the skb's wire bytes at the cap, to the
/// picosecond; with the option off every segment leaves on its own.
#[test]
fn capped_sender_sends_autosized_skbs_spaced_by_their_bytes_at_the_cap() {
    let cap = 900_000_000u64;
    let tcp = json!({"max_rate_bps": cap});
    let out = run(
        1,
        1_000_000_000,
        5 * MS,
        tcp.clone(),
        json!({"kind": "cubic"}),
        true,
        300 * MS,
        true,
    );
    let segs = autosize(cap, 10_000);
    assert_eq!(segs, 45);
    let all = skbs(&out, 100 * MS);
    assert!(all.len() > 300, "{}", all.len());
    // Every skb is full (bulk data, a window far larger than an skb).
    for s in &all {
        assert_eq!(s.2, segs, "skb at {} ps", s.0);
    }
    for w in all.windows(2) {
        let wire_bits = (w[0].3 + w[0].2 * HEADER) * 8;
        let gap = w[1].0 - w[0].0;
        let expected = wire_bits * 1_000_000_000_000 / cap;
        assert!(
            gap.abs_diff(expected) <= 1,
            "gap {gap} ps, expected {expected}"
        );
    }
    let off = run(
        1,
        1_000_000_000,
        5 * MS,
        tcp,
        json!({"kind": "cubic"}),
        false,
        300 * MS,
        true,
    );
    assert!(skbs(&off, 100 * MS).iter().all(|s| s.2 == 1));
    // The same rate either way.
    assert_same_goodput(&out, &off);
}

/// BBR at 10 Gb/s (NIC 100 Gb/s, RTT 1 ms): its pacing rate's 1024th of a
/// second (1.2 MB) is far above 64 KB, so its skbs are 45 segments; the
/// gap between skbs is 45 × 1448 bytes at its pacing rate, which in
/// ProbeBW's cruise is the bottleneck's payload rate less BBR's 1 %
/// margin: the median gap is 54.1 µs within 2 %. Throughput within 2 % of
/// the per-segment pacer's.
#[test]
fn bbr_at_10g_sends_45_segment_skbs_at_its_pacing_rate() {
    let rate = 10_000_000_000u64;
    let tcp = json!({});
    let bbr = json!({"kind": "bbr"});
    let on = run(
        1,
        rate,
        500 * US,
        tcp.clone(),
        bbr.clone(),
        true,
        300 * MS,
        true,
    );
    let segs = autosize(rate, 1000);
    assert_eq!(segs, 45);
    let all = skbs(&on, 100 * MS);
    let total: u64 = all.iter().map(|s| s.2).sum();
    let full: u64 = all.iter().filter(|s| s.2 == segs).map(|s| s.2).sum();
    assert!(all.iter().all(|s| s.2 <= segs));
    assert!(
        full as f64 >= 0.95 * total as f64,
        "{full} of {total} segments in full skbs"
    );
    let mut gaps: Vec<u64> = all
        .windows(2)
        .filter(|w| w[0].2 == segs)
        .map(|w| w[1].0 - w[0].0)
        .collect();
    gaps.sort_unstable();
    let median = gaps[gaps.len() / 2] as f64;
    // BBR's bandwidth counts delivered segments: the bottleneck's payload
    // rate, 1448 of every 1488 bytes on the wire.
    let pacing = rate as f64 * (MSS as f64 / (MSS + HEADER) as f64) * 0.99;
    let at_rate = (segs * MSS * 8) as f64 * 1e12 / pacing;
    assert!(
        (median / at_rate - 1.0).abs() < 0.02,
        "median gap {median} ps, {at_rate} at the pacing rate"
    );
    let off = run(1, rate, 500 * US, tcp, bbr, false, 300 * MS, false);
    assert_same_goodput(&on, &off);
}

/// A bottleneck slower than the NIC (1 Gb/s behind 10 Gb/s) under flows
/// capped below it: with per-segment pacing it barely queues; with TSO each
/// skb of `segs` segments arrives at the NIC's rate and the bottleneck
/// drains a tenth of it meanwhile, so its queue peaks about
/// `0.9 × segs` packets higher per flow whose skbs meet there.
#[test]
fn slower_bottleneck_queues_about_one_skb_per_flow_more() {
    let bneck = 1_000_000_000u64;
    for (n, cap) in [(1usize, 900_000_000u64), (2, 450_000_000)] {
        let tcp = json!({"max_rate_bps": cap});
        let cubic = json!({"kind": "cubic"});
        let off = max_queue(&run(
            n,
            bneck,
            5 * MS,
            tcp.clone(),
            cubic.clone(),
            false,
            300 * MS,
            false,
        )) as f64;
        let on = max_queue(&run(n, bneck, 5 * MS, tcp, cubic, true, 300 * MS, false)) as f64;
        let skb = autosize(cap, 10_000) as f64;
        let one = 0.9 * skb;
        eprintln!("{n} flows at {cap} bit/s: skb {skb} segments, peak {off} off, {on} on");
        assert!(off <= 3.0, "{off}");
        assert!(on - off >= one - 3.0, "{on} - {off} < {one}");
        assert!(
            on - off <= n as f64 * one + 3.0,
            "{on} - {off} > {n} × {one}"
        );
    }
}

/// Under random loss with TSO on: every packet created is delivered,
/// dropped or in flight; retransmissions (in skbs of consecutive lost
/// segments) repair every loss, so finite transfers, paced or deferring,
/// complete whole.
#[test]
fn packets_are_conserved_and_losses_repaired_with_tso() {
    let (nodes, mut links) = path(1_000_000_000, 2 * MS, json!({"limit_pkts": 200}), 0.002);
    links[1]["loss_ba"] = json!(0.001);
    let bytes = 40_000_000u64;
    let flows = vec![
        json!({"kind": "tcp", "name": "b", "src": "snd", "dst": "rcv", "cc": {"kind": "bbr"},
               "bytes": bytes, "tcp": {"gso_max_bytes": GSO}}),
        json!({"kind": "tcp", "name": "c", "src": "snd", "dst": "rcv", "cc": {"kind": "cubic"},
               "tcp": {"gso_max_bytes": GSO, "max_rate_bps": 300_000_000u64}}),
        // Unpaced, deferring: finite transfers, one shorter than an skb.
        json!({"kind": "tcp", "name": "r", "src": "snd", "dst": "rcv", "cc": {"kind": "reno"},
               "bytes": 3_000_001u64, "tcp": {"gso_max_bytes": GSO}}),
        json!({"kind": "tcp", "name": "s", "src": "snd", "dst": "rcv", "cc": {"kind": "cubic"},
               "bytes": 20_000u64, "start_ps": 500 * MS, "tcp": {"gso_max_bytes": GSO}}),
    ];
    let cfg = config(5, 2 * S, nodes, links, flows, json!({}));
    let out = go(&cfg);
    assert_eq!(out.tables, go(&cfg).tables, "same seed, same bits");
    let created = out.summary_u64("packets_created");
    let delivered = out.summary_u64("packets_delivered");
    let dropped = out.summary_u64("packets_dropped");
    let in_flight = out.summary_u64("packets_in_flight");
    assert_eq!(created, delivered + dropped + in_flight);
    let retx = col_u64(&out, "flows", "retransmits");
    assert!(retx[0] > 10 && retx[1] > 10, "{retx:?}");
    let delivered = col_u64(&out, "flows", "bytes_delivered");
    let done = col_u64(&out, "flows", "completion_ps");
    assert_eq!(delivered[0], bytes);
    assert_eq!((delivered[2], delivered[3]), (3_000_001, 20_000));
    assert!(done[0] > 0 && done[2] > 0 && done[3] > 0, "{done:?}");
}

/// An unpaced Cubic flow (1 Gb/s bottleneck behind a 10 Gb/s NIC, 10 ms
/// RTT, delayed ACKs, a deep queue: no loss, the window grows to
/// thousands of segments). Per segment, each ACK releases the two or three
/// segments it acknowledges. With TSO deferral (`tcp_tso_should_defer`)
/// the sender waits while an ACK is near until the window has room for a
/// whole skb (45 segments; a third of the window is far more here), so it
/// sends whole skbs, one at a time; throughput within 2 %.
#[test]
fn unpaced_sender_defers_to_whole_skbs() {
    let cubic = json!({"kind": "cubic"});
    let off = run(
        1,
        1_000_000_000,
        5 * MS,
        json!({}),
        cubic.clone(),
        false,
        2 * S,
        true,
    );
    let on = run(
        1,
        1_000_000_000,
        5 * MS,
        json!({}),
        cubic,
        true,
        2 * S,
        true,
    );
    let sizes = |out: &RunOutput| -> Vec<u64> {
        let mut v: Vec<u64> = skbs(out, S).iter().map(|s| s.2).collect();
        v.sort_unstable();
        v
    };
    let (s_off, s_on) = (sizes(&off), sizes(&on));
    // Linux's rate for an unpaced sender (`tcp_update_pacing_rate`): 120 %
    // of cwnd·mss/srtt in congestion avoidance.
    let cwnd = col_u32(&on, "flows", "cwnd_pkts")[0] as u64;
    let srtt_ps = col_u64(&on, "flows", "srtt_ps")[0];
    let rate_bps = (1.2 * (cwnd * MSS * 8) as f64 * S as f64 / srtt_ps as f64) as u64;
    let segs = autosize(rate_bps, 10_000);
    assert_eq!(segs, 45);
    assert!(cwnd > 3 * segs);
    assert!(
        s_off[s_off.len() / 2] <= 3 && *s_off.last().unwrap() <= 4,
        "{:?}",
        &s_off[s_off.len() - 5..]
    );
    let total: u64 = s_on.iter().sum();
    let full: u64 = s_on.iter().filter(|&&n| n == segs).sum();
    assert!(
        *s_on.last().unwrap() == segs,
        "{:?}",
        &s_on[s_on.len() - 5..]
    );
    assert!(
        full as f64 >= 0.95 * total as f64,
        "{full} of {total} segments in whole skbs"
    );
    assert_same_goodput(&on, &off);
}

/// TCP Prague sizes its own skbs (its `tso_segs` hook, the L4S team's
/// `tcp_prague.c`): 2^-12 s of its pacing rate in 1500-byte packets. Held
/// at 100 Mb/s by `max_rate_bps` on a 1 Gb/s path (RTT 10 ms: no RTT
/// bonus), that is 8 333 packets/s over 4096, 2 segments; Cubic at the
/// same cap gets Linux's generic autosize, 12 207 bytes: 8 segments.
#[test]
fn prague_sends_its_own_quarter_millisecond_skbs() {
    let cap = 100_000_000u64;
    let tcp = json!({"max_rate_bps": cap, "ecn": true});
    let sizes = |cc: Value| {
        let out = run(
            1,
            1_000_000_000,
            5 * MS,
            tcp.clone(),
            cc,
            true,
            300 * MS,
            true,
        );
        skbs(&out, 100 * MS)
    };
    let prague = sizes(json!({"kind": "registered", "name": "prague", "params": {}}));
    let cubic = sizes(json!({"kind": "cubic"}));
    let (prague_segs, generic_segs) =
        (((cap / 8 / (MSS + 52)) >> 12).max(1), autosize(cap, 10_000));
    assert_eq!((prague_segs, generic_segs), (2, 8));
    for (skbs, segs) in [(&prague, prague_segs), (&cubic, generic_segs)] {
        assert!(skbs.len() > 100, "{}", skbs.len());
        assert!(skbs.iter().all(|s| s.2 <= segs));
        let full = skbs.iter().filter(|s| s.2 == segs).count();
        assert!(
            full as f64 >= 0.95 * skbs.len() as f64,
            "{full} of {} full",
            skbs.len()
        );
    }
}
