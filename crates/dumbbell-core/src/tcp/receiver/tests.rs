//! Tests of the TCP receiver, driven directly: data segments in, ACKs and
//! delayed-ACK timers out.
//!
//! Every data segment is one full MSS at a segment-aligned sequence number,
//! so tests speak in segment indices: segment `i` covers `[i·MSS, (i+1)·MSS)`
//! and an ACK number `k` means `k·MSS`. A small bench plays the world's part
//! for the delayed-ACK timer (a lazily re-armed timer: an event fires at the
//! time it was pushed and may reschedule itself).
//!
//! Expected ACK sequences are derived by hand from the RFCs (9293 §3.8.6.3
//! delayed ACKs, 2018 SACK, 3168 classic ECN, 8257 §3.2 DCTCP) and written
//! out literally.

use super::*;
use crate::sim::PS_PER_US;
use crate::tcp::testkit::{ep, us, HDR, MSS};

/// No handshake (the connection is open from the first segment), quick-ACK
/// off so delayed ACKs show from the start.
fn cfg() -> TcpConfig {
    TcpConfig {
        handshake: false,
        quickack_segments: 0,
        ..Default::default()
    }
}

/// Data segment `i`, full-sized, with its ECN codepoint and extra flags.
fn seg(i: u64, ecn: Ecn, extra: u8) -> Packet {
    Packet {
        size_bytes: MSS as u32 + HDR,
        payload_bytes: MSS as u32,
        flow: 7,
        src: 1,
        dst: 2,
        sport: 40000,
        dport: 5001,
        proto: Proto::Tcp,
        ecn,
        tcp_flags: flags::ACK | extra,
        seq: i * MSS,
        ..Default::default()
    }
}

/// An ACK as the tests compare it: ACK number and SACK blocks in segments,
/// and the ECE flag.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ack {
    ack: u64,
    sack: Vec<(u64, u64)>,
    ece: bool,
}

fn ack(ack: u64, sack: &[(u64, u64)], ece: bool) -> Ack {
    Ack {
        ack,
        sack: sack.to_vec(),
        ece,
    }
}

#[track_caller]
fn summarize(p: &Packet) -> Ack {
    assert!(
        p.has(flags::ACK) && !p.has(flags::SYN),
        "not a pure ACK: {p:?}"
    );
    assert_eq!(p.payload_bytes, 0);
    assert_eq!(p.size_bytes, HDR);
    assert_eq!(
        (p.src, p.dst, p.sport, p.dport),
        (2, 1, 5001, 40000),
        "addresses swapped"
    );
    assert_eq!(p.rwnd_bytes, TcpConfig::default().rwnd_bytes);
    let at = |x: u64| {
        assert_eq!(x % MSS, 0, "unaligned sequence number {x}");
        x / MSS
    };
    Ack {
        ack: at(p.ack),
        sack: p.sacks().iter().map(|b| (at(b.start), at(b.end))).collect(),
        ece: p.has(flags::ECE),
    }
}

/// The receiver and the world around it: the clock, the delayed-ACK timer
/// events pushed and not yet fired, and every ACK emitted.
struct Bench {
    rx: Receiver,
    now: Time,
    /// Delayed-ACK events in the "event queue", as pushed.
    timers: Vec<Time>,
    /// Every timer push, in order (what `out.timers` carried).
    pushed: Vec<Time>,
    acks: Vec<Ack>,
}

impl Bench {
    fn new(cfg: &TcpConfig, echo: EcnEcho) -> Self {
        Bench {
            rx: Receiver::new(ep(), cfg, echo),
            now: Time::ZERO,
            timers: vec![],
            pushed: vec![],
            acks: vec![],
        }
    }

    fn drain(&mut self, out: &mut Out) {
        for p in out.pkts.drain(..) {
            self.acks.push(summarize(&p));
        }
        for (at, kind) in out.timers.drain(..) {
            assert_eq!(
                kind,
                TimerKind::DelAck,
                "the receiver only uses the delayed-ACK timer"
            );
            assert!(at >= self.now, "timer in the past");
            self.timers.push(at);
            self.pushed.push(at);
        }
    }

    /// Segment `i` arrives 1 µs after the previous event; returns the ACKs it
    /// caused.
    #[track_caller]
    fn recv(&mut self, i: u64, ecn: Ecn, extra: u8) -> Vec<Ack> {
        self.now += Dur::from_us(1);
        self.recv_at(self.now, i, ecn, extra)
    }

    #[track_caller]
    fn recv_at(&mut self, now: Time, i: u64, ecn: Ecn, extra: u8) -> Vec<Ack> {
        self.fire_until(now);
        self.now = now;
        let before = self.acks.len();
        let mut out = Out::default();
        self.rx.on_packet(now, &seg(i, ecn, extra), &mut out);
        self.drain(&mut out);
        self.acks[before..].to_vec()
    }

    /// Fires, in time order, every timer event due by `t`; returns the ACKs
    /// they caused.
    fn fire_until(&mut self, t: Time) -> Vec<Ack> {
        let before = self.acks.len();
        loop {
            self.timers.sort();
            match self.timers.first() {
                Some(&at) if at <= t => {
                    self.timers.remove(0);
                    self.now = at;
                    let mut out = Out::default();
                    self.rx.on_delack_timer(at, &mut out);
                    self.drain(&mut out);
                }
                _ => break,
            }
        }
        self.now = self.now.max(t);
        self.acks[before..].to_vec()
    }
}

const N: Ecn = Ecn::Ect0;
const C: Ecn = Ecn::Ce;

// ----------------------------------------------------------------------
// Delayed ACKs.
// ----------------------------------------------------------------------

#[test]
fn test_established_quickack_then_one_ack_per_two_segments() {
    let mut b = Bench::new(
        &TcpConfig {
            quickack_segments: 2,
            ..cfg()
        },
        EcnEcho::Off,
    );
    // Quick-ACK: each of the first two segments is ACKed at once.
    assert_eq!(b.recv(0, N, 0), [ack(1, &[], false)]);
    assert_eq!(b.recv(1, N, 0), [ack(2, &[], false)]);
    // Then every second full segment.
    let mut acks = vec![];
    for i in 2..10 {
        acks.push(b.recv(i, N, 0));
    }
    assert_eq!(
        acks,
        [
            vec![],
            vec![ack(4, &[], false)],
            vec![],
            vec![ack(6, &[], false)],
            vec![],
            vec![ack(8, &[], false)],
            vec![],
            vec![ack(10, &[], false)],
        ]
    );
    // Segment 2 (at t = 3 µs) pushed the only timer event; later segments
    // re-armed it without a push, and the ACK of segment 9 disarmed it, so
    // its event fires without effect.
    assert_eq!(b.pushed, [us(3) + Dur::from_ms(40)]);
    assert_eq!(b.fire_until(Time::from_ps(PS_PER_US * 1_000_000)), []);
    assert_eq!(b.rx.acks_sent, 6);
    assert_eq!(b.rx.data_pkts_received, 10);
}

#[test]
fn test_established_single_segment_arms_delack_timer() {
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    let t0 = us(1000);
    assert_eq!(b.recv_at(t0, 0, N, 0), []);
    assert_eq!(b.pushed, [t0 + Dur::from_ms(40)], "DelAck at now + 40 ms");
    // Nothing before the deadline; the ACK at it.
    assert_eq!(
        b.fire_until(t0 + Dur::from_ps(40 * crate::sim::PS_PER_MS - 1)),
        []
    );
    assert_eq!(b.fire_until(t0 + Dur::from_ms(40)), [ack(1, &[], false)]);

    // The next single segment arms a fresh timer; a second segment ACKs both
    // and disarms it, so its event fires without effect.
    let t1 = us(50_000);
    assert_eq!(b.recv_at(t1, 1, N, 0), []);
    assert_eq!(b.pushed[1], t1 + Dur::from_ms(40));
    assert_eq!(
        b.recv_at(t1 + Dur::from_us(10), 2, N, 0),
        [ack(3, &[], false)]
    );
    assert_eq!(b.fire_until(t1 + Dur::from_ms(100)), []);
    assert_eq!(b.pushed.len(), 2);
}

#[test]
fn test_established_stale_delack_event_reschedules_to_the_new_deadline() {
    // A lone segment after an ACK re-arms the timer at now + 40 ms; the
    // timer is lazy, so no event is pushed: the earlier event fires,
    // reschedules itself, and the ACK leaves at the new deadline.
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    assert_eq!(b.recv_at(us(0), 0, N, 0), []);
    assert_eq!(b.recv_at(us(10), 1, N, 0), [ack(2, &[], false)]);
    assert_eq!(
        b.recv_at(us(20_000), 2, N, 0),
        [],
        "re-armed at 60 ms, no push"
    );
    assert_eq!(b.pushed, [us(40_000)]);
    assert_eq!(b.fire_until(us(40_000)), [], "the early event reschedules");
    assert_eq!(b.pushed, [us(40_000), us(60_000)]);
    assert_eq!(b.fire_until(us(60_000)), [ack(3, &[], false)]);
}

#[test]
fn test_established_out_of_order_acked_at_once_with_sack_and_hole_fill_acked_at_once() {
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    assert_eq!(b.recv(0, N, 0), []);
    assert_eq!(b.recv(1, N, 0), [ack(2, &[], false)]);
    // Segment 2 is missing.
    assert_eq!(b.recv(3, N, 0), [ack(2, &[(3, 4)], false)]);
    assert_eq!(b.recv(4, N, 0), [ack(2, &[(3, 5)], false)]);
    // A duplicate of delivered data is ACKed at once too, reported as a
    // D-SACK block first (RFC 2883).
    assert_eq!(b.recv(1, N, 0), [ack(2, &[(1, 2), (3, 5)], false)]);
    // The hole is filled: ACK at once, no SACK block left.
    assert_eq!(b.recv(2, N, 0), [ack(5, &[], false)]);
    assert_eq!(b.rx.rcv_nxt, 5 * MSS);
    // Back to delayed ACKs.
    assert_eq!(b.recv(5, N, 0), []);
    assert_eq!(b.recv(6, N, 0), [ack(7, &[], false)]);
}

#[test]
fn test_established_no_delayed_ack_acks_every_segment() {
    let mut b = Bench::new(
        &TcpConfig {
            delayed_ack: false,
            ..cfg()
        },
        EcnEcho::Off,
    );
    for i in 0..6 {
        assert_eq!(b.recv(i, N, 0), [ack(i + 1, &[], false)]);
    }
    assert_eq!(b.pushed, [], "no delayed-ACK timer");
}

// ----------------------------------------------------------------------
// SACK blocks (RFC 2018 §4).
// ----------------------------------------------------------------------

#[test]
fn test_established_sack_blocks_triggering_first_then_most_recent() {
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    assert_eq!(b.recv(0, N, 0), []);
    assert_eq!(b.recv(2, N, 0), [ack(1, &[(2, 3)], false)]);
    assert_eq!(b.recv(4, N, 0), [ack(1, &[(4, 5), (2, 3)], false)]);
    assert_eq!(b.recv(6, N, 0), [ack(1, &[(6, 7), (4, 5), (2, 3)], false)]);
    // At most three blocks: the oldest report drops out.
    assert_eq!(b.recv(8, N, 0), [ack(1, &[(8, 9), (6, 7), (4, 5)], false)]);
    // Segment 3 joins [2,3) and [4,5): that block comes first, then the most
    // recently reported others; the merged block is not repeated.
    assert_eq!(b.recv(3, N, 0), [ack(1, &[(2, 5), (8, 9), (6, 7)], false)]);
    // Segment 7 extends [6,7) and joins [8,9).
    assert_eq!(b.recv(7, N, 0), [ack(1, &[(6, 9), (2, 5)], false)]);
    // Out-of-order data already held: ACK at once, the duplicate as a
    // D-SACK block, then the block containing it (RFC 2883 §4.2).
    assert_eq!(b.recv(3, N, 0), [ack(1, &[(3, 4), (2, 5), (6, 9)], false)]);
    // Segment 1 fills the first hole: [2,5) is covered by the cumulative
    // ACK and disappears.
    assert_eq!(b.recv(1, N, 0), [ack(5, &[(6, 9)], false)]);
    // Segment 5: everything is in order, no block at all.
    assert_eq!(b.recv(5, N, 0), [ack(9, &[], false)]);
}

#[test]
fn test_established_sack_forgotten_block_reported_again_when_touched() {
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    assert_eq!(b.recv(0, N, 0), []);
    for (i, want) in [
        (2, vec![(2, 3)]),
        (4, vec![(4, 5), (2, 3)]),
        (6, vec![(6, 7), (4, 5), (2, 3)]),
        (8, vec![(8, 9), (6, 7), (4, 5)]),
        (10, vec![(10, 11), (8, 9), (6, 7)]),
    ] {
        assert_eq!(b.recv(i, N, 0), [ack(1, &want, false)], "segment {i}");
    }
    // [2,3) and [4,5) are still held though no longer reported; segment 3
    // joins them and the merged block is reported first again.
    assert_eq!(
        b.recv(3, N, 0),
        [ack(1, &[(2, 5), (10, 11), (8, 9)], false)]
    );
    // Segment 1 makes [2,5) cumulative; the others follow, most recent first.
    assert_eq!(
        b.recv(1, N, 0),
        [ack(5, &[(10, 11), (8, 9), (6, 7)], false)]
    );
}

#[test]
fn test_established_no_sack_blocks_when_sack_is_off() {
    let mut b = Bench::new(
        &TcpConfig {
            sack: false,
            ..cfg()
        },
        EcnEcho::Off,
    );
    assert_eq!(b.recv(0, N, 0), []);
    assert_eq!(b.recv(2, N, 0), [ack(1, &[], false)]);
    assert_eq!(b.recv(1, N, 0), [ack(3, &[], false)]);
}

// ----------------------------------------------------------------------
// ECN.
// ----------------------------------------------------------------------

fn syn(extra: u8) -> Packet {
    Packet {
        size_bytes: HDR,
        payload_bytes: 0,
        tcp_flags: flags::SYN | extra,
        ..seg(0, Ecn::NotEct, 0)
    }
}

#[test]
fn test_listen_syn_with_ece_cwr_negotiates_ecn() {
    let c = TcpConfig {
        handshake: true,
        ..cfg()
    };
    for (echo, syn_flags, agreed) in [
        (EcnEcho::Classic, flags::ECE | flags::CWR, true),
        (EcnEcho::Accurate, flags::ECE | flags::CWR, true),
        (EcnEcho::Classic, 0, false),
        (EcnEcho::Classic, flags::ECE, false),
        (EcnEcho::Off, flags::ECE | flags::CWR, false),
    ] {
        let mut rx = Receiver::new(ep(), &c, echo);
        assert!(!rx.ecn_ok());
        let mut out = Out::default();
        rx.on_packet(us(5), &syn(syn_flags), &mut out);
        assert_eq!(out.pkts.len(), 1);
        let sa = out.pkts[0];
        assert!(sa.has(flags::SYN) && sa.has(flags::ACK));
        assert_eq!(sa.payload_bytes, 0);
        assert_eq!(sa.has(flags::ECE), agreed, "{echo:?} {syn_flags:#x}");
        assert!(!sa.has(flags::CWR), "an ECN-setup SYN-ACK has ECE only");
        assert_eq!(rx.ecn_ok(), agreed);

        // Without agreement a CE mark is not echoed.
        let mut out = Out::default();
        rx.on_packet(us(10), &seg(0, C, 0), &mut out);
        rx.on_delack_timer(us(10) + Dur::from_ms(40), &mut out);
        assert_eq!(out.pkts.len(), 1);
        assert_eq!(out.pkts[0].has(flags::ECE), agreed);
    }
}

#[test]
fn test_established_classic_ece_from_ce_until_cwr() {
    let mut b = Bench::new(
        &TcpConfig {
            delayed_ack: false,
            ..cfg()
        },
        EcnEcho::Classic,
    );
    let mut got = vec![];
    for (i, ecn, f) in [
        (0, N, 0),
        (1, N, 0),
        (2, C, 0),
        (3, N, 0),
        (4, N, 0),
        (5, N, 0),
        (6, N, flags::CWR),
        (7, N, 0),
        (8, C, flags::CWR), // CWR then CE on the same segment: echo again
        (9, N, 0),
        (10, N, flags::CWR),
        (11, N, 0),
    ] {
        got.extend(b.recv(i, ecn, f));
    }
    let e = |k, ece| ack(k, &[], ece);
    assert_eq!(
        got,
        [
            e(1, false),
            e(2, false),
            e(3, true),
            e(4, true),
            e(5, true),
            e(6, true),
            e(7, false),
            e(8, false),
            e(9, true),
            e(10, true),
            e(11, false),
            e(12, false),
        ]
    );
    assert_eq!(b.rx.ce_received, 2);
}

#[test]
fn test_established_classic_ece_on_delayed_acks_and_quickack_on_ce() {
    let mut b = Bench::new(&cfg(), EcnEcho::Classic);
    assert_eq!(b.recv(0, N, 0), [], "delayed");
    // CE: quick-ACK (two segments), ECE set.
    assert_eq!(b.recv(1, C, 0), [ack(2, &[], true)]);
    assert_eq!(b.recv(2, N, 0), [ack(3, &[], true)]);
    // Delayed again, still echoing: on the second segment and on the timer.
    assert_eq!(b.recv(3, N, 0), []);
    assert_eq!(b.recv(4, N, 0), [ack(5, &[], true)]);
    assert_eq!(b.recv(5, N, 0), []);
    assert_eq!(b.fire_until(us(1_000_000)), [ack(6, &[], true)]);
    // CWR ends the echo.
    assert_eq!(b.recv(6, N, flags::CWR), []);
    assert_eq!(b.recv(7, N, 0), [ack(8, &[], false)]);
}

/// Feeds in-order full segments with the given CE pattern to an accurate
/// (DCTCP) receiver with delayed ACKs, then lets the timer fire; returns
/// (ACK number in segments, ECE) of every ACK.
fn dctcp_acks(pattern: &str) -> Vec<(u64, bool)> {
    let mut b = Bench::new(&cfg(), EcnEcho::Accurate);
    for (i, c) in pattern.split_whitespace().enumerate() {
        let ecn = match c {
            "N" => N,
            "C" => C,
            _ => panic!("bad pattern {c}"),
        };
        b.recv(i as u64, ecn, 0);
    }
    b.fire_until(us(10_000_000));
    assert!(b.acks.iter().all(|a| a.sack.is_empty()));
    b.acks.iter().map(|a| (a.ack, a.ece)).collect()
}

#[test]
fn test_established_dctcp_ece_follows_ce_state_machine() {
    // RFC 8257 §3.2 with an ACK every second segment. State starts at CE=0.
    //  seg  CE  state  pending  ACKs
    //   0   N   0      -        (delay)
    //   1   N   0      0        (2, 0)          second segment
    //   2   C   0->1   none     (3, 1)          immediate, new state
    //   3   C   1      -        (delay)
    //   4   C   1      3        (5, 1)          second segment
    //   5   N   1->0   none     (6, 0)
    //   6   N   0      -        (delay)
    //   7   C   0->1   6        (7, 0) (8, 1)   old state for 6, then 7
    //   8   N   1->0   none     (9, 0)
    //   9   N   0      -        (delay)
    //  10   N   0      9        (11, 0)
    //  11   N   0      -        (delay) ... timer: (12, 0)
    assert_eq!(
        dctcp_acks("N N C C C N N C N N N N"),
        [
            (2, false),
            (3, true),
            (5, true),
            (6, false),
            (7, false),
            (8, true),
            (9, false),
            (11, false),
            (12, false),
        ]
    );
    //  seg  CE  state  pending  ACKs
    //   0   N   0      -        (delay)
    //   1   N   0      0        (2, 0)
    //   2   N   0      -        (delay)
    //   3   C   0->1   2        (3, 0) (4, 1)
    //   4   C   1      -        (delay)
    //   5   N   1->0   4        (5, 1) (6, 0)
    //   6   C   0->1   none     (7, 1)
    //   7   C   1      -        (delay)
    //   8   C   1      7        (9, 1)
    //   9   N   1->0   none     (10, 0)         timer: nothing pending
    assert_eq!(
        dctcp_acks("N N N C C N C C C N"),
        [
            (2, false),
            (3, false),
            (4, true),
            (5, true),
            (6, false),
            (7, true),
            (9, true),
            (10, false),
        ]
    );
    // Every CE segment echoed exactly once as marked bytes: the ACKs with
    // ECE cover, in total, exactly the CE segments.
    let acked_with_ece = |acks: &[(u64, bool)]| {
        let mut prev = 0;
        let mut n = 0;
        for &(k, ece) in acks {
            if ece {
                n += k - prev;
            }
            prev = k;
        }
        n
    };
    assert_eq!(acked_with_ece(&dctcp_acks("N N C C C N N C N N N N")), 4);
    assert_eq!(acked_with_ece(&dctcp_acks("N N N C C N C C C N")), 5);
}

// ----------------------------------------------------------------------
// Timestamps (RFC 7323 §4.3) and D-SACK (RFC 2883).
// ----------------------------------------------------------------------

/// Delivers segment `i` stamped `ts_val`; the TSecr of the ACK it caused.
fn echo_of(rx: &mut Receiver, now_us: u64, i: u64, ts_val: u32) -> Vec<u32> {
    let mut p = seg(i, N, 0);
    p.ts_val = ts_val;
    let mut out = Out::default();
    rx.on_packet(Time::ZERO + Dur::from_us(now_us), &p, &mut out);
    out.pkts.iter().map(|a| a.ts_ecr).collect()
}

#[test]
fn test_established_ts_recent_follows_the_left_edge_of_the_window() {
    let c = TcpConfig {
        delayed_ack: false,
        ..cfg()
    };
    let mut rx = Receiver::new(ep(), &c, EcnEcho::Off);
    assert_eq!(echo_of(&mut rx, 1, 0, 100), [100]);
    // Segment 1 is missing; 2 arrives out of order: TS.Recent stays that
    // of the last in-order segment (seq 2 > last ACK 1).
    assert_eq!(echo_of(&mut rx, 2, 2, 200), [100]);
    // The hole is filled by a segment stamped before 2: a delayed original.
    // Its timestamp is echoed, which tells the sender the original arrived.
    assert_eq!(echo_of(&mut rx, 3, 1, 150), [150]);
    // An older timestamp never goes back (RFC 7323 PAWS ordering).
    assert_eq!(echo_of(&mut rx, 4, 3, 120), [150]);
    // Filled by a retransmission instead: its (later) stamp is echoed.
    let mut rx = Receiver::new(ep(), &c, EcnEcho::Off);
    echo_of(&mut rx, 1, 0, 100);
    echo_of(&mut rx, 2, 2, 200);
    assert_eq!(echo_of(&mut rx, 3, 1, 400), [400]);
    // Every ACK carries the receiver's own clock, in milliseconds.
    let mut out = Out::default();
    rx.on_packet(Time::ZERO + Dur::from_ms(7), &seg(3, N, 0), &mut out);
    assert_eq!(
        out.pkts[0].ts_val,
        crate::tcp::ts_ms(Time::ZERO + Dur::from_ms(7))
    );
    // Without timestamps, no option.
    let mut rx = Receiver::new(
        ep(),
        &TcpConfig {
            timestamps: false,
            ..c
        },
        EcnEcho::Off,
    );
    assert_eq!(echo_of(&mut rx, 1, 0, 100), [0]);
}

#[test]
fn test_established_dsack_reported_once_and_only_when_enabled() {
    let mut b = Bench::new(&cfg(), EcnEcho::Off);
    b.recv(0, N, 0);
    b.recv(1, N, 0);
    assert_eq!(b.recv(0, N, 0), [ack(2, &[(0, 1)], false)]);
    // The next ACK has no D-SACK block left.
    b.recv(2, N, 0);
    assert_eq!(b.recv(3, N, 0), [ack(4, &[], false)]);
    let mut b = Bench::new(
        &TcpConfig {
            dsack: false,
            ..cfg()
        },
        EcnEcho::Off,
    );
    b.recv(0, N, 0);
    b.recv(1, N, 0);
    assert_eq!(b.recv(0, N, 0), [ack(2, &[], false)]);
}

mod gro;
