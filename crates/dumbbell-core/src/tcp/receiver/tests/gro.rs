//! A receiver that takes TSO skbs whole (`TcpConfig::gro`,
//! `receiver/gro.rs`), driven directly. An skb is written as the segment
//! indices it carries; every segment but the skb's last has `skb_more`.
//! Expected ACKs are derived by hand from Linux's rules for one GRO skb
//! (`__tcp_ack_snd_check`: more than one full frame, quick-ACK, out of
//! order) and for what ends a merge (`tcp_gro_receive`: a sequence gap, a
//! change of the IP header's ECN field, a FIN).

use super::*;

fn gro_cfg() -> TcpConfig {
    TcpConfig { gro: true, ..cfg() }
}

impl Bench {
    /// Segment `i` arrives 1 µs after the previous event, `more` of its
    /// skb to come; returns the ACKs it caused.
    #[track_caller]
    fn part(&mut self, i: u64, ecn: Ecn, extra: u8, more: bool) -> Vec<Ack> {
        self.now += Dur::from_us(1);
        let now = self.now;
        self.fire_until(now);
        let before = self.acks.len();
        let mut out = Out::default();
        let p = Packet {
            skb_more: more,
            ..seg(i, ecn, extra)
        };
        self.rx.on_packet(now, &p, &mut out);
        self.drain(&mut out);
        self.acks[before..].to_vec()
    }

    /// The segments `idx` as one skb (the last without `skb_more`), all
    /// with `ecn`, but the segments in `lost`, which never arrive; returns
    /// the ACKs each arrival caused, in order.
    #[track_caller]
    fn skb(&mut self, idx: std::ops::Range<u64>, ecn: Ecn, lost: &[u64]) -> Vec<Ack> {
        let last = idx.end - 1;
        let mut acks = vec![];
        for i in idx {
            if !lost.contains(&i) {
                acks.extend(self.part(i, ecn, 0, i != last));
            }
        }
        acks
    }
}

/// One ACK per skb, at its last segment, whatever its size; the delayed-ACK
/// timer the held segments armed finds nothing owed.
#[test]
fn one_ack_per_skb_at_its_last_segment() {
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Off);
    for i in 0..44 {
        assert_eq!(b.part(i, N, 0, true), [], "segment {i} is held");
    }
    assert_eq!(b.part(44, N, 0, false), [ack(45, &[], false)]);
    assert_eq!(b.skb(45..50, N, &[]), [ack(50, &[], false)]);
    // A one-segment skb: the usual rule (one MSS unacked waits).
    assert_eq!(b.skb(50..51, N, &[]), []);
    assert_eq!(b.skb(51..53, N, &[]), [ack(53, &[], false)]);
    assert_eq!(b.fire_until(us(1_000_000)), []);
    assert_eq!(b.rx.acks_sent, 3);
    assert_eq!(b.rx.data_pkts_received, 53);
}

/// Quick-ACK and ACK-every-segment (`delayed_ack = false`) give one ACK per
/// skb too: Linux acknowledges the skb, not its segments.
#[test]
fn quickack_and_no_delayed_ack_ack_each_skb_once() {
    for c in [
        TcpConfig {
            quickack_segments: 16,
            ..gro_cfg()
        },
        TcpConfig {
            delayed_ack: false,
            ..gro_cfg()
        },
    ] {
        let mut b = Bench::new(&c, EcnEcho::Off);
        assert_eq!(b.skb(0..10, N, &[]), [ack(10, &[], false)]);
        assert_eq!(b.skb(10..20, N, &[]), [ack(20, &[], false)]);
    }
}

/// The option without skbs (no segment says more follow) changes nothing:
/// the same ACKs as without it, for in-order data, a hole, its repair and
/// the timer.
#[test]
fn gro_without_skbs_acks_as_without_gro() {
    let script = |c: &TcpConfig| {
        let mut b = Bench::new(c, EcnEcho::Accurate);
        let mut acks = vec![];
        for (i, ecn) in [
            (0, N),
            (1, N),
            (2, C),
            (3, N),
            (5, N),
            (6, N),
            (4, N),
            (7, N),
        ] {
            acks.push(b.recv(i, ecn, 0));
        }
        acks.push(b.fire_until(us(1_000_000)));
        acks
    };
    assert_eq!(script(&gro_cfg()), script(&cfg()));
}

/// A hole in the middle of an skb ends the merge: the segments before it
/// are ACKed as one skb, the segment above the hole alone, at once with
/// its SACK block; the segments after it merge again (out of order) and
/// their skb's end reports them; the retransmission repairs the hole.
#[test]
fn hole_in_an_skb_ends_the_merge() {
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Off);
    let acks = b.skb(0..10, N, &[3]);
    assert_eq!(
        acks,
        [
            ack(3, &[], false),        // segments 0-2, ended by segment 4
            ack(3, &[(4, 5)], false),  // segment 4, alone, out of order
            ack(3, &[(4, 10)], false)  // segments 5-9, one skb
        ]
    );
    // The retransmission fills the hole.
    assert_eq!(b.skb(3..4, N, &[]), [ack(10, &[], false)]);
}

/// The skb's last segment lost: the next skb's first segment ends the
/// merge (the 44 held ones ACKed, then a duplicate ACK with its SACK
/// block); with no next skb, the delayed-ACK timer ACKs them, so a lost
/// tail never leaves the receiver owing an ACK.
#[test]
fn lost_last_segment_never_leaves_an_ack_owed() {
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Off);
    assert_eq!(b.skb(0..45, N, &[44]), []);
    assert_eq!(
        b.skb(45..90, N, &[]),
        [
            ack(44, &[], false),
            ack(44, &[(45, 46)], false),
            ack(44, &[(45, 90)], false)
        ]
    );
    assert_eq!(b.part(44, N, 0, false), [ack(90, &[], false)]);

    // At the end of a transfer: nothing follows the lost FIN-carrying
    // segment. The timer (40 ms after the last held segment) ACKs the rest;
    // the retransmitted FIN is ACKed at once.
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Off);
    assert_eq!(b.skb(0..45, N, &[44]), []);
    let last = b.now;
    assert_eq!(b.fire_until(last + Dur::from_ms(40)), [ack(44, &[], false)]);
    assert_eq!(b.part(44, N, flags::FIN, false), [ack(45, &[], false)]);
    assert!(b.rx.fin_received);

    // Held segments above a hole whose skb lost its tail: the timer sends
    // their SACK blocks.
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Off);
    assert_eq!(b.skb(0..2, N, &[]), [ack(2, &[], false)]);
    assert_eq!(b.part(3, N, 0, true), [], "held though out of order");
    assert_eq!(b.part(4, N, 0, true), []);
    assert_eq!(b.part(5, N, 0, true), []);
    let last = b.now;
    assert_eq!(
        b.fire_until(last + Dur::from_ms(40)),
        [ack(2, &[(3, 6)], false)]
    );
    assert_eq!(b.fire_until(last + Dur::from_ms(200)), []);
}

/// DCTCP's echo with a CE mark in the middle of an skb: the mark ends the
/// merge, and ECE covers exactly the marked segments (RFC 8257 §3.2), as
/// without the option; consecutive marks merge among themselves.
#[test]
fn ce_in_an_skb_ends_the_merge_and_ece_covers_exactly_the_marks() {
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Accurate);
    let mut acks = vec![];
    for i in 0..10u64 {
        let ecn = if i == 4 || i == 6 || i == 7 { C } else { N };
        acks.extend(b.part(i, ecn, 0, i != 9));
    }
    acks.extend(b.fire_until(us(1_000_000)));
    assert_eq!(
        acks,
        [
            ack(4, &[], false),  // 0-3, ended by the mark on 4
            ack(5, &[], true),   // 4 alone, marked
            ack(6, &[], false),  // 5, its merge ended by the mark on 6
            ack(7, &[], true),   // 6 alone
            ack(8, &[], true),   // 7 (merged), its merge ended by 8
            ack(9, &[], false),  // 8 alone, unmarked again
            ack(10, &[], false)  // 9, a one-segment skb: the timer
        ]
    );
    // The bytes acknowledged with ECE are the marked ones.
    let mut marked = 0;
    let mut prev = 0;
    for a in &acks {
        if a.ece {
            marked += a.ack - prev;
        }
        prev = a.ack;
    }
    assert_eq!(marked, 3);
    assert_eq!(b.rx.ce_received, 3);
}

/// Classic ECN: a mark ends the merge; the marked segment alone is ACKed
/// at once with ECE (quick-ACK on CE, as Linux); the skb's rest merges.
#[test]
fn classic_ce_in_an_skb_ends_the_merge() {
    let mut b = Bench::new(&gro_cfg(), EcnEcho::Classic);
    b.rx.ecn_ok = true;
    let mut acks = vec![];
    for i in 0..10u64 {
        acks.extend(b.part(i, if i == 4 { C } else { N }, 0, i != 9));
    }
    assert_eq!(
        acks,
        [ack(4, &[], false), ack(5, &[], true), ack(10, &[], true)]
    );
}
