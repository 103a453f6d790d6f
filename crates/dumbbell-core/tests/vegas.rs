//! TCP Vegas (Linux `tcp_vegas.c`) on a bottleneck: a lone flow fills the
//! link, loses nothing and keeps between alpha and beta of its packets
//! queued.

mod common;
use common::*;
use serde_json::{json, Value};

struct Run {
    /// Fraction of time (in [from, end)) the bottleneck queue held k
    /// packets, for k = 0..=QMAX (the last bin collects QMAX and above).
    occupancy: Vec<f64>,
    /// Delivered payload over [from, end) / the link's payload rate.
    utilization: f64,
    /// Mean cwnd over [from, end), packets.
    cwnd: f64,
    retransmits: u64,
    drops: u64,
}

const QMAX: usize = 64;

/// A lone flow of `cc` over `path` (queue 2000 packets, delayed ACKs),
/// measured from `from_ps` to the end of the run.
fn run(cc: Value, rate_bps: u64, one_way_ps: u64, duration_ps: u64, from_ps: u64) -> Run {
    let (nodes, links) = path(rate_bps, one_way_ps, json!({"limit_pkts": 2000}), 0.0);
    let flows = vec![json!({"kind": "tcp", "name": "v", "src": "snd", "dst": "rcv", "cc": cc})];
    let rec = json!({"flow_sample_ps": 100 * MS,
                     "queues": [{"node": "r", "peer": "rcv", "from_ps": from_ps}]});
    let out = go(&config(1, duration_ps, nodes, links, flows, rec));

    // Every change of the bottleneck queue after from_ps: weight each level
    // by how long it lasted.
    let bottleneck = port(&out, "r", "rcv") as u32;
    let t = col_u64(&out, "queue_trace", "time_ps");
    let q = col_u32(&out, "queue_trace", "pkts");
    let ports = col_u32(&out, "queue_trace", "port");
    let changes: Vec<(u64, u32)> = (0..t.len())
        .filter(|&i| ports[i] == bottleneck)
        .map(|i| (t[i], q[i]))
        .collect();
    assert!(changes.len() > 1000, "the queue trace is empty");
    let mut occupancy = vec![0.0; QMAX + 1];
    let span = (duration_ps - from_ps) as f64;
    for (k, &(t0, pkts)) in changes.iter().enumerate() {
        let t1 = changes.get(k + 1).map_or(duration_ps, |c| c.0);
        occupancy[(pkts as usize).min(QMAX)] += (t1 - t0) as f64 / span;
    }

    let st = col_u64(&out, "flow_samples", "time_ps");
    let delivered = col_u64(&out, "flow_samples", "delivered_bytes");
    let cwnd = col_u32(&out, "flow_samples", "cwnd_pkts");
    let i0 = st.iter().position(|&x| x >= from_ps).unwrap();
    let il = st.len() - 1;
    let payload_bps = rate_bps as f64 * 1448.0 / 1488.0;
    let utilization = (delivered[il] - delivered[i0]) as f64 * 8.0
        / ((st[il] - st[i0]) as f64 / S as f64)
        / payload_bps;
    let cwnd = cwnd[i0..].iter().map(|&c| c as f64).sum::<f64>() / (cwnd.len() - i0) as f64;
    Run {
        occupancy,
        utilization,
        cwnd,
        retransmits: col_u64(&out, "flows", "retransmits")[0],
        drops: col_u64(&out, "queues", "drops_overflow").iter().sum(),
    }
}

impl Run {
    /// Time-weighted median of the queue, packets.
    fn median(&self) -> usize {
        let mut acc = 0.0;
        for (k, f) in self.occupancy.iter().enumerate() {
            acc += f;
            if acc >= 0.5 {
                return k;
            }
        }
        QMAX
    }

    /// Fraction of time the queue held between `lo` and `hi` packets.
    fn within(&self, lo: usize, hi: usize) -> f64 {
        self.occupancy[lo..=hi].iter().sum()
    }

    fn report(&self, label: &str) {
        let levels: Vec<(usize, f64)> = self
            .occupancy
            .iter()
            .enumerate()
            .filter(|(_, f)| **f > 0.001)
            .map(|(k, f)| (k, (f * 1000.0).round() / 1000.0))
            .collect();
        eprintln!(
            "{label}: queue (pkts, time fraction) {levels:?}, median {}, utilization {:.4}, \
             cwnd {:.1}, retransmits {}, drops {}",
            self.median(),
            self.utilization,
            self.cwnd,
            self.retransmits,
            self.drops
        );
    }
}

/// 100 Mb/s, 10 ms one way, a 2000-packet drop-tail buffer. Slow start
/// overshoots (Linux Vegas decides once per RTT on the previous RTT's
/// minimum, which the head of each slow-start burst keeps low) to about
/// 630 packets, 460 of them queued; the window then falls by one packet per
/// RTT, which takes some 22 s. From 28 s on:
///
/// - the queue is in [alpha − 1, beta + 1] = [1, 5] at least 99 % of the
///   time and its time-weighted median is in [alpha, beta] = [2, 4]
///   (measured: 3 to 5 packets, median 4: the window came down from above
///   and stopped at the first window where diff <= beta; the slack of one
///   covers the queue level seen by the RTT minimum versus the time
///   average, and Linux's diff, cwnd·(rtt − base)/base, which truncates);
/// - the window is the path's bandwidth-delay product plus that queue:
///   cwnd − BDP in [alpha, beta + 1] (measured 174 − 169.1);
/// - nothing is lost and the link is full (utilization at least 0.99;
///   measured 1.000).
#[test]
fn lone_flow_keeps_alpha_to_beta_packets_queued() {
    let rate = 100_000_000;
    let r = run(json!({"kind": "vegas"}), rate, 10 * MS, 40 * S, 28 * S);
    r.report("100 Mb/s, 20 ms");
    let (alpha, beta) = (2, 4);
    assert!(
        r.within(alpha - 1, beta + 1) >= 0.99,
        "queue in [1, 5] only {:.3} of the time",
        r.within(alpha - 1, beta + 1)
    );
    assert!(
        (alpha..=beta).contains(&r.median()),
        "median {}",
        r.median()
    );
    // Base RTT: 20 ms of propagation plus the serialization of a data
    // packet (1488 B) and of an ACK (40 B) at both links (100 Mb/s, 1 Gb/s).
    let base_s = 0.020 + (1488.0 + 40.0) * 8.0 * (1.0 / 1e8 + 1.0 / 1e9);
    let bdp = rate as f64 * base_s / (1488.0 * 8.0);
    let extra = r.cwnd - bdp;
    assert!(
        extra >= alpha as f64 && extra <= (beta + 1) as f64,
        "cwnd {:.1} = BDP {bdp:.1} + {extra:.1}",
        r.cwnd
    );
    assert_eq!(r.retransmits, 0);
    assert_eq!(r.drops, 0);
    assert!(r.utilization >= 0.99, "utilization {:.4}", r.utilization);
}

/// The queue follows the thresholds: at 1 Gb/s and 1 ms one way (the
/// overshoot drains within 3 s), the default (2, 4) keeps 2–4 packets
/// queued (median 3), and (8, 12) keeps 10–12 (median 11). Same bounds as
/// above: at least 99 % of the time in [alpha − 1, beta + 1], median in
/// [alpha, beta]; no loss, full link.
#[test]
fn queue_follows_alpha_and_beta() {
    let mut medians = Vec::new();
    for (alpha, beta) in [(2usize, 4usize), (8, 12)] {
        let cc = json!({"kind": "vegas", "alpha": alpha, "beta": beta});
        let r = run(cc, 1_000_000_000, MS, 8 * S, 4 * S);
        r.report(&format!("1 Gb/s, 2 ms, alpha {alpha}, beta {beta}"));
        assert!(r.within(alpha - 1, beta + 1) >= 0.99);
        assert!(
            (alpha..=beta).contains(&r.median()),
            "median {}",
            r.median()
        );
        assert_eq!((r.retransmits, r.drops), (0, 0));
        assert!(r.utilization >= 0.99, "utilization {:.4}", r.utilization);
        medians.push(r.median());
    }
    // Raising beta by 8 raises the queue by about 8.
    let shift = medians[1] as i64 - medians[0] as i64;
    assert!((6..=10).contains(&shift), "medians {medians:?}");
}
