//! A control's own skb size with TSO on (`TcpConfig::gso_max_bytes`):
//! Linux's `tso_segs` and `min_tso_segs` hooks of `tcp_congestion_ops`,
//! which `tcp_tso_segs` consults ([`Sender::tso_segs`]). Each
//! control's size at two pacing rates, against the generic autosize.

use super::super::tso::tso_autosize_segs;
use super::*;
use crate::cc::{bbr, bbr3, prague};

const GSO: u32 = 65_536;

/// A started sender of `cc` with TSO on, pacing at `rate_bps`, with a
/// measured minimum RTT of `min_rtt`: the segments of its next skb.
fn skb_segs(cc: Box<dyn CongestionControl>, rate_bps: u64, min_rtt: Dur) -> u32 {
    let cfg = TcpConfig {
        gso_max_bytes: GSO,
        ..cfg()
    };
    let (mut s, _) = sender_established_with(cfg, cc);
    s.tp.pacing_rate_bps = rate_bps;
    s.tp.min_rtt = min_rtt;
    s.tso_segs(GSO)
}

/// What Linux's generic rule gives for the same sender.
fn generic(rate_bps: u64, min_rtt: Dur) -> u32 {
    tso_autosize_segs(rate_bps / 8, Some(min_rtt.us()), MSS as u32, GSO, 2)
}

fn rng() -> crate::sim::Rng {
    crate::sim::rng_for(0, "cc")
}

/// `prague_tso_segs`: 2^-12 s of the pacing rate in MTU-sized packets
/// (MSS + 52 bytes of headers = 1500 B), at least one, whatever the RTT:
/// 1 Gb/s is 83 333 packets/s, 20 a burst; 100 Mb/s 8 333/s, 2; 10 Mb/s
/// 833/s, under one, so one.
#[test]
fn prague_bursts_a_quarter_millisecond_of_its_rate() {
    let short = Dur::from_us(200);
    for (rate, segs) in [(1_000_000_000, 20), (100_000_000, 2), (10_000_000, 1)] {
        let prague = Box::new(prague::Prague::new(Default::default()));
        assert_eq!(skb_segs(prague, rate, short), segs, "at {rate} b/s");
        // Linux's generic size on a 200 µs path: the 64 KB RTT bonus.
        assert_eq!(generic(rate, short), GSO / MSS as u32);
    }
}

/// `bbr_min_tso_segs` as the floor of the generic autosize: one segment
/// below 1.2 Mb/s of pacing, two above; on a 500 ms path (no RTT bonus),
/// 1 and 2 Mb/s are both under a segment per 1/1024 s.
#[test]
fn bbr_v1_floors_its_skbs_at_one_segment_below_1_2_mbps() {
    let long = Dur::from_ms(500);
    let bbr = |rate| {
        let cc = Box::new(bbr::Bbr::new(Default::default(), rng()));
        skb_segs(cc, rate, long)
    };
    assert_eq!(bbr(1_000_000), 1);
    assert_eq!(bbr(2_000_000), 2);
    assert_eq!(generic(1_000_000, long), 2);
    // Faster, the autosize itself: 100 Mb/s is 12 207 B per 1/1024 s.
    assert_eq!(bbr(100_000_000), generic(100_000_000, long));
    assert_eq!(bbr(100_000_000), 12_207 / MSS as u32);
}

/// BBRv3's `bbr_tso_segs`: 1/1024 s of the pacing rate plus the 64 KB
/// bonus from its own min RTT (not measured yet here: no bonus, where the
/// stack's 200 µs would give the generic rule a full skb), at most 64 KB
/// less `MAX_TCP_HEADER`, at least two segments.
#[test]
fn bbr3_sizes_its_skbs_from_its_own_min_rtt() {
    let short = Dur::from_us(200);
    let bbr3 = |rate| {
        let cc = Box::new(bbr3::Bbr3::new(Default::default(), rng()));
        skb_segs(cc, rate, short)
    };
    // 100 Mb/s: 12 207 B, 8 segments; the generic rule: 45.
    assert_eq!(bbr3(100_000_000), 12_207 / MSS as u32);
    assert_eq!(generic(100_000_000, short), GSO / MSS as u32);
    // 1 Gb/s: 122 070 B, capped at 65 536 − 1 − 320.
    assert_eq!(bbr3(1_000_000_000), (GSO - 321) / MSS as u32);
    // 10 Mb/s: 1 220 B, below a segment: the floor of two.
    assert_eq!(bbr3(10_000_000), 2);
}
