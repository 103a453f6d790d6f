//! Tests of the TCP sender, driven directly: ACKs and timer events in,
//! segments and timer requests out.
//!
//! Segments are full-sized and segment-aligned, so tests speak in segment
//! indices: segment `i` is `[i·MSS, (i+1)·MSS)`, an ACK number `k` means
//! `k·MSS` and a SACK block `(a, b)` means `[a·MSS, b·MSS)`. The fixtures
//! disable TCP small queues (`tsq_bytes: 0`) and pacing, so cwnd and the
//! receive window alone limit transmission.
//!
//! Expected values (cwnd, PRR send counts, timer deadlines) are derived by
//! hand from RFC 6675, 6937, 6582, 6298 and 3168 and from Linux's
//! `tcp_input.c`; the derivations sit next to the assertions.

use super::*;
use crate::cc::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CaState};
use crate::config::CcConfig;
use crate::net::packet::SackBlock;
use crate::sim::PS_PER_MS;
use crate::tcp::receiver::{EcnEcho, Receiver};
use crate::tcp::testkit::{ep, ms, HDR, MSS};
use std::sync::{Arc, Mutex};

const RWND: u64 = 64 << 20;

/// Established from the first segment (no handshake), no TSQ, no pacing,
/// and none of the Linux defaults that RFC 6675/6298 do not describe (tail
/// loss probe, RACK, timestamps, D-SACK, F-RTO): the derivations below are
/// those RFCs'. The Linux defaults have their own fixture, [`linux_cfg`].
fn cfg() -> TcpConfig {
    TcpConfig {
        handshake: false,
        tsq_bytes: 0,
        tlp: false,
        rack: false,
        timestamps: false,
        dsack: false,
        frto: false,
        ..Default::default()
    }
}

/// [`cfg`] with Linux's defaults on: TLP, RACK, timestamps, D-SACK, F-RTO.
fn linux_cfg() -> TcpConfig {
    TcpConfig {
        handshake: false,
        tsq_bytes: 0,
        ..Default::default()
    }
}

/// [`cfg`] without SACK: NewReno's duplicate-ACK counting (RFC 6582).
fn cfg_without_sack() -> TcpConfig {
    TcpConfig {
        sack: false,
        ..cfg()
    }
}

fn reno() -> Box<dyn CongestionControl> {
    crate::cc::make(&CcConfig::Reno, crate::sim::rng_for(0, "cc"))
}

/// A started sender and what it sent at t = 0.
fn sender_established_with(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> (Sender, Out) {
    let mut s = Sender::new(ep(), cfg, cc, None, None);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    assert_eq!(s.phase, Phase::Established);
    (s, out)
}

/// Reno, initial window 10: segments 0..10 in flight.
fn sender_established() -> Sender {
    let (s, out) = sender_established_with(cfg(), reno());
    assert_eq!(sent(&out), (0..10).map(new).collect::<Vec<_>>());
    s
}

/// An ACK from the receiver (in segments), with SACK blocks and extra flags.
fn ack_pkt(ack: u64, sacks: &[(u64, u64)], extra: u8) -> Packet {
    assert!(sacks.len() <= crate::net::packet::MAX_SACK_BLOCKS);
    let mut p = Packet {
        size_bytes: HDR,
        flow: 7,
        src: 2,
        dst: 1,
        sport: 5001,
        dport: 40000,
        proto: Proto::Tcp,
        tcp_flags: flags::ACK | extra,
        ack: ack * MSS,
        rwnd_bytes: RWND,
        ..Default::default()
    };
    for (k, &(a, b)) in sacks.iter().enumerate() {
        p.sack[k] = SackBlock {
            start: a * MSS,
            end: b * MSS,
        };
    }
    p.n_sack = sacks.len() as u8;
    p
}

/// Delivers an ACK; checks the scoreboard counters against the slots.
#[track_caller]
fn recv_ack(s: &mut Sender, now: Time, ack: u64, sacks: &[(u64, u64)], extra: u8) -> Out {
    let mut out = Out::default();
    s.on_ack(now, &ack_pkt(ack, sacks, extra), &mut out);
    if let Err(e) = s.audit() {
        panic!("scoreboard audit after ACK {ack} {sacks:?}: {e}");
    }
    out
}

/// Fires the RTO timer event scheduled for `now`.
#[track_caller]
fn fire_rto(s: &mut Sender, now: Time) -> Out {
    let mut out = Out::default();
    s.on_timer(now, TimerKind::Rto, &mut out);
    if let Err(e) = s.audit() {
        panic!("scoreboard audit after RTO at {now:?}: {e}");
    }
    out
}

/// A data segment as sent: (segment index, is a retransmission).
fn new(i: u64) -> (u64, bool) {
    (i, false)
}
fn rtx(i: u64) -> (u64, bool) {
    (i, true)
}

/// The data segments in `out`, in order; checks their headers.
#[track_caller]
fn sent(out: &Out) -> Vec<(u64, bool)> {
    out.pkts
        .iter()
        .map(|p| {
            assert!(p.is_data(), "not data: {p:?}");
            assert_eq!(p.seq % MSS, 0);
            assert_eq!(p.payload_bytes as u64, MSS);
            assert_eq!(p.size_bytes, MSS as u32 + HDR);
            assert_eq!((p.src, p.dst, p.sport, p.dport), (1, 2, 40000, 5001));
            (p.seq / MSS, p.retransmit)
        })
        .collect()
}

fn segs(v: &[(u64, u32)]) -> Vec<u64> {
    v.iter()
        .map(|&(seq, len)| {
            assert_eq!(len as u64, MSS);
            seq / MSS
        })
        .collect()
}

fn sacked(s: &Sender) -> Vec<u64> {
    segs(&s.sacked_segments())
}

fn lost(s: &Sender) -> Vec<u64> {
    s.lost_segments().iter().map(|&q| q / MSS).collect()
}

/// (packets_out, sacked_out, lost_out, retrans_out, in_flight), with
/// in_flight checked against Linux's formula.
#[track_caller]
fn counters(s: &Sender) -> (u32, u32, u32, u32, u32) {
    let tp = &s.tp;
    assert_eq!(
        tp.in_flight(),
        tp.packets_out - tp.sacked_out - tp.lost_out + tp.retrans_out
    );
    (
        tp.packets_out,
        tp.sacked_out,
        tp.lost_out,
        tp.retrans_out,
        tp.in_flight(),
    )
}

// ----------------------------------------------------------------------
// A recording control: Reno's arithmetic, every hook logged.
// ----------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Call {
    Init,
    InAckEvent(u32),
    PktsAcked(u32),
    Ssthresh,
    /// `set_state`, with the state `tp` still shows when it is called.
    SetState {
        from: CaState,
        to: CaState,
    },
    CongAvoid(u32),
    CwndEvent(CaEvent),
    UndoCwnd,
}

struct Recorder {
    log: Arc<Mutex<Vec<Call>>>,
    needs_ecn: bool,
}

impl Recorder {
    fn boxed(needs_ecn: bool) -> (Box<dyn CongestionControl>, Arc<Mutex<Vec<Call>>>) {
        let log = Arc::new(Mutex::new(vec![]));
        let cc = Recorder {
            log: log.clone(),
            needs_ecn,
        };
        (Box::new(cc), log)
    }
    fn push(&self, c: Call) {
        self.log.lock().unwrap().push(c);
    }
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn init(&mut self, _tp: &mut TcpSock) {
        self.push(Call::Init);
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.push(Call::Ssthresh);
        tcp_reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        self.push(Call::CongAvoid(acked));
        tcp_reno_cong_avoid(tp, acked)
    }
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        self.push(Call::SetState {
            from: tp.ca_state,
            to: new_state,
        });
    }
    fn cwnd_event(&mut self, _tp: &mut TcpSock, ev: CaEvent) {
        self.push(Call::CwndEvent(ev));
    }
    fn in_ack_event(&mut self, _tp: &mut TcpSock, flags: u32) {
        self.push(Call::InAckEvent(flags));
    }
    fn pkts_acked(&mut self, _tp: &mut TcpSock, sample: &AckSample) {
        self.push(Call::PktsAcked(sample.pkts_acked));
    }
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        self.push(Call::UndoCwnd);
        tp.snd_cwnd.max(tp.prior_cwnd)
    }
    fn needs_ecn(&self) -> bool {
        self.needs_ecn
    }
}

fn take(log: &Arc<Mutex<Vec<Call>>>) -> Vec<Call> {
    std::mem::take(&mut *log.lock().unwrap())
}

fn count(log: &[Call], c: &Call) -> usize {
    log.iter().filter(|x| *x == c).count()
}

/// `in_ack_event` flags of every ACK in these tests: not the fast path, and
/// a window is advertised.
const EV: u32 = ack_flags::SLOWPATH | ack_flags::WIN_UPDATE;

/// An established sender whose control records its hooks
/// ([`Recorder::boxed`], ECN not required), with the log of the start
/// taken.
fn recorded(cfg: TcpConfig) -> (Sender, Out, Arc<Mutex<Vec<Call>>>) {
    let (cc, log) = Recorder::boxed(false);
    let (s, out) = sender_established_with(cfg, cc);
    take(&log);
    (s, out, log)
}

/// A NewReno sender without SACK whose segment 0 was lost: `n` duplicate
/// ACKs of it, 1 µs apart from 100 ms.
fn newreno_after_dup_acks(n: u64) -> Sender {
    let (mut s, _) = sender_established_with(cfg_without_sack(), reno());
    for k in 0..n {
        recv_ack(&mut s, ms(100) + Dur::from_us(k), 0, &[], 0);
    }
    s
}

/// The hooks of an ACK with ECE that enters CWR (Linux
/// `tcp_enter_cwr`): the reduction, then the state change.
fn ece_enters_cwr() -> [Call; 4] {
    [
        Call::InAckEvent(EV | ack_flags::ECE),
        Call::PktsAcked(1),
        Call::Ssthresh,
        Call::SetState {
            from: CaState::Open,
            to: CaState::Cwr,
        },
    ]
}

/// The hooks of the full ACK that ends recovery with `acked` newly delivered:
/// Linux `tcp_fastretrans_alert`'s `tcp_try_undo_recovery` sets Open, then
/// `tcp_end_cwnd_reduction` raises `CA_EVENT_COMPLETE_CWR`, then the window
/// grows.
fn recovery_ends(acked: u32) -> [Call; 5] {
    [
        Call::InAckEvent(EV),
        Call::PktsAcked(acked),
        Call::SetState {
            from: CaState::Recovery,
            to: CaState::Open,
        },
        Call::CwndEvent(CaEvent::CompleteCwr),
        Call::CongAvoid(acked),
    ]
}

// ----------------------------------------------------------------------
// The SACK scoreboard (RFC 6675).
// ----------------------------------------------------------------------

#[test]
fn test_established_sack_scoreboard_marks_exactly_the_holes() {
    // DupThresh fixed at 3: step C's SACK of 12-13, below the SACKed 19,
    // is reordering to Linux, which would raise the threshold to 8.
    let (mut s, out) = sender_established_with(
        TcpConfig {
            init_cwnd_pkts: 20,
            reordering_adapt: false,
            ..cfg()
        },
        reno(),
    );
    assert_eq!(sent(&out), (0..20).map(new).collect::<Vec<_>>());
    assert_eq!(counters(&s), (20, 0, 0, 0, 20));

    // A: SACK 2-3 and 6. IsLost(h) needs 3 SACKed segments above h:
    // holes 0 and 1 have {2, 3, 6} above; holes 4, 5 only {6}.
    let out = recv_ack(&mut s, ms(10), 0, &[(2, 4), (6, 7)], 0);
    assert_eq!(sacked(&s), [2, 3, 6]);
    assert_eq!(lost(&s), [0, 1]);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(s.tp.snd_ssthresh, 10);
    // PRR (delta = 10 - 15 < 0): sndcnt = ceil(10·3/20) - 0 = 2, cwnd 17.
    assert_eq!(sent(&out), [rtx(0), rtx(1)]);
    assert_eq!(s.tp.snd_cwnd, 17);
    // out 20 - sacked 3 - lost 2 + retrans 2.
    assert_eq!(counters(&s), (20, 3, 2, 2, 17));

    // B: a duplicate block, a new one (9-10) and one running past snd_nxt
    // (clipped to segment 19). Holes with >= 3 SACKed above: 4, 5 (above:
    // 6, 9, 10, 19), 7, 8 (9, 10, 19); not 11..18 (only 19 above).
    let out = recv_ack(&mut s, ms(11), 0, &[(6, 7), (9, 11), (19, 25)], 0);
    assert_eq!(sacked(&s), [2, 3, 6, 9, 10, 19]);
    assert_eq!(lost(&s), [0, 1, 4, 5, 7, 8]);
    // in flight 20 - 6 - 6 + 2 = 10 = ssthresh: PRR sends nothing.
    assert_eq!(sent(&out), []);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(counters(&s), (20, 6, 6, 2, 10));
    assert_eq!(s.tp.snd_nxt, 20 * MSS, "nothing beyond snd_nxt was SACKed");

    // C: the retransmissions of 0 and 1 arrive: cumulative ACK 4, with the
    // old block 2-3 (SACKed already), a new block 12-13 and a duplicate.
    // Hole 11 now has 12, 13, 19 above.
    let out = recv_ack(&mut s, ms(20), 4, &[(2, 4), (12, 14), (6, 7)], 0);
    assert_eq!(s.tp.snd_una, 4 * MSS);
    assert_eq!(sacked(&s), [6, 9, 10, 12, 13, 19]);
    assert_eq!(lost(&s), [4, 5, 7, 8, 11]);
    // PRR: delivered 10 (3 + 3 + 2 cum + 2 SACK), in flight 16 - 6 - 5 = 5,
    // delta 5 >= 0: sndcnt = min(5, max(10 - 2, 4)) = 5; cwnd 10. The lost
    // holes go first, in order.
    assert_eq!(sent(&out), [rtx(4), rtx(5), rtx(7), rtx(8), rtx(11)]);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(counters(&s), (16, 6, 5, 5, 10));

    // D: a block below snd_una (a D-SACK, ignored), a block overlapping
    // 12-13 (new: 14, 15), a duplicate. 16..18 have only 19 above: not lost.
    let out = recv_ack(&mut s, ms(21), 4, &[(2, 3), (13, 16), (19, 20)], 0);
    assert_eq!(sacked(&s), [6, 9, 10, 12, 13, 14, 15, 19]);
    assert_eq!(lost(&s), [4, 5, 7, 8, 11]);
    // PRR: delivered 12, in flight 16 - 8 - 5 + 5 = 8, delta 2:
    // sndcnt = min(2, max(12 - 7, 2)) = 2.
    // No lost segment is left to retransmit: new data.
    assert_eq!(sent(&out), [new(20), new(21)]);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(counters(&s), (18, 8, 5, 5, 10));

    // Every retransmission was a lost hole, each once.
    assert_eq!(s.stats.retransmits, 7);
    assert_eq!(s.stats.recoveries, 1);
}

#[test]
fn test_established_sack_block_covering_half_a_segment_does_not_sack_it() {
    let mut s = sender_established();
    // Half of segment 3 and all of 5: only 5 is SACKed.
    let mut p = ack_pkt(0, &[(5, 6)], 0);
    p.sack[1] = SackBlock {
        start: 3 * MSS,
        end: 3 * MSS + MSS / 2,
    };
    p.n_sack = 2;
    let mut out = Out::default();
    s.on_ack(ms(10), &p, &mut out);
    s.audit().unwrap();
    assert_eq!(sacked(&s), [5]);
    assert_eq!(lost(&s), Vec::<u64>::new());
    assert_eq!(s.tp.ca_state, CaState::Disorder);
}

// ----------------------------------------------------------------------
// SACK-based recovery (RFC 6675 + PRR, RFC 6937).
// ----------------------------------------------------------------------

#[test]
fn test_established_sack_recovery_prr_and_exit() {
    let (mut s, out, log) = recorded(cfg());
    assert_eq!(sent(&out).len(), 10);
    // Segment 0 is lost; 1..9 arrive, each ACKed with a growing SACK block.
    // Each row: SACK end, then (state, cwnd, what is sent). By the segment
    // whose arrival the ACK reports:
    // - 1, 2: Disorder; in flight drops by one, so a new segment goes out.
    // - 3: 0 is lost (3 SACKed above): Recovery, ssthresh 10/2 = 5,
    //   recovery point 12; PRR delta = 5 - 8 < 0: ceil(5·1/10) = 1 -> the
    //   fast retransmit.
    // - 4..8: PRR's proportional part, sndcnt = ceil(5·prr_delivered/10) -
    //   prr_out = 0, 1, 0, 1, 0; 9: in flight has come down to ssthresh
    //   (delta 0): nothing.
    // - 10, 11 (the segments sent in Disorder): delta 1: one new segment each.
    let expect = [
        (2, CaState::Disorder, 10, vec![new(10)]),
        (3, CaState::Disorder, 10, vec![new(11)]),
        (4, CaState::Recovery, 9, vec![rtx(0)]),
        (5, CaState::Recovery, 8, vec![]),
        (6, CaState::Recovery, 8, vec![new(12)]),
        (7, CaState::Recovery, 7, vec![]),
        (8, CaState::Recovery, 7, vec![new(13)]),
        (9, CaState::Recovery, 6, vec![]),
        (10, CaState::Recovery, 5, vec![]),
        (11, CaState::Recovery, 5, vec![new(14)]),
        (12, CaState::Recovery, 5, vec![new(15)]),
    ];
    for (k, (end, state, cwnd, tx)) in expect.into_iter().enumerate() {
        let out = recv_ack(&mut s, ms(100) + Dur::from_us(k as u64), 0, &[(1, end)], 0);
        assert_eq!(
            (s.tp.ca_state, s.tp.snd_cwnd, sent(&out)),
            (state, cwnd, tx),
            "ACK with SACK (1, {end})"
        );
        assert_eq!(lost(&s), if end >= 4 { vec![0] } else { vec![] });
    }
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(s.tp.in_flight(), 5);
    assert_eq!(count(&take(&log), &Call::Ssthresh), 1);

    // The retransmission arrives: cumulative ACK 12 = the recovery point.
    let out = recv_ack(&mut s, ms(101), 12, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(s.tp.snd_cwnd, 5, "cwnd = ssthresh on leaving Recovery");
    assert_eq!(s.tp.snd_ssthresh, 5);
    // 12..15 outstanding, cwnd 5: one new segment.
    assert_eq!(sent(&out), [new(16)]);
    assert_eq!(counters(&s), (5, 0, 0, 0, 5));
    assert_eq!(s.stats.recoveries, 1);
    assert_eq!(s.stats.retransmits, 1);
    assert_eq!(s.tp.delivered, 12);
    assert_eq!(take(&log), recovery_ends(1));
}

#[test]
fn test_recovery_hook_order() {
    let (cc, log) = Recorder::boxed(false);
    let (mut s, _) = sender_established_with(cfg(), cc);
    // Linux tcp_event_data_sent: the first segment leaves with nothing in flight.
    assert_eq!(take(&log), [Call::Init, Call::CwndEvent(CaEvent::TxStart)]);

    // Segments 0 and 4 are lost. One ACK SACKs 1-3: 0 is lost at once.
    recv_ack(&mut s, ms(10), 0, &[(1, 4)], 0);
    assert_eq!(
        take(&log),
        [
            Call::InAckEvent(EV),
            Call::PktsAcked(3),
            Call::Ssthresh,
            Call::SetState {
                from: CaState::Open,
                to: CaState::Recovery
            },
        ]
    );
    // More SACKs while in Recovery (4 becomes lost at the third above it),
    // then a partial ACK: no growth, no new reduction.
    recv_ack(&mut s, ms(11), 0, &[(5, 6), (1, 4)], 0);
    recv_ack(&mut s, ms(12), 0, &[(5, 7), (1, 4)], 0);
    recv_ack(&mut s, ms(13), 0, &[(5, 8), (1, 4)], 0);
    assert_eq!(lost(&s), [0, 4]);
    recv_ack(&mut s, ms(14), 4, &[(5, 8)], 0);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(
        take(&log),
        [
            Call::InAckEvent(EV),
            Call::PktsAcked(1),
            Call::InAckEvent(EV),
            Call::PktsAcked(1),
            Call::InAckEvent(EV),
            Call::PktsAcked(1),
            Call::InAckEvent(EV),
            Call::PktsAcked(1),
        ]
    );
    // The full ACK: 4 (retransmitted), 8, 9 and 10 are newly delivered.
    recv_ack(&mut s, ms(15), 11, &[], 0);
    assert_eq!(take(&log), recovery_ends(4));
}

// ----------------------------------------------------------------------
// NewReno without SACK (RFC 6582).
// ----------------------------------------------------------------------

#[test]
fn test_established_newreno_dupacks_partial_ack_full_ack() {
    let (mut s, out, log) = recorded(cfg_without_sack());
    assert_eq!(sent(&out).len(), 10);
    let mut t = ms(100);
    let mut dupack = |s: &mut Sender, una: u64| {
        t += Dur::from_us(1);
        recv_ack(s, t, una, &[], 0)
    };
    // Segments 0 and 5 are lost. Duplicate ACKs for 1 and 2: limited
    // transmit-like, each lowers in flight by one and a new segment leaves.
    assert_eq!(sent(&dupack(&mut s, 0)), [new(10)]);
    assert_eq!(sent(&dupack(&mut s, 0)), [new(11)]);
    assert_eq!(s.tp.ca_state, CaState::Disorder);
    // The third: fast retransmit of the head, once.
    assert_eq!(sent(&dupack(&mut s, 0)), [rtx(0)]);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(lost(&s), [0]);
    assert_eq!(count(&take(&log), &Call::Ssthresh), 1);
    // Duplicate ACKs for 4, 6..11 (PRR as in the SACK case): no other
    // retransmission, new data as PRR allows.
    let mut tx = vec![];
    for _ in 0..7 {
        tx.extend(sent(&dupack(&mut s, 0)));
    }
    assert_eq!(tx, [new(12), new(13), new(14)]);
    assert_eq!(s.tp.snd_cwnd, 5);
    assert_eq!(s.tp.sacked_out, 10);

    // The retransmission of 0 arrives: partial ACK 5. Segment 5 is
    // retransmitted at once (then PRR's delta allows one new segment).
    assert_eq!(sent(&dupack(&mut s, 5)), [rtx(5), new(15)]);
    assert_eq!(lost(&s), [5]);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    // The duplicate ACKs of 1..4 are accounted for by this ACK (Linux
    // tcp_remove_reno_sacks: one acked segment filled the hole).
    assert_eq!(s.tp.sacked_out, 6);
    // Duplicate ACKs for 12, 13, 14 (sent before the retransmission of 5).
    for k in [16, 17, 18] {
        assert_eq!(sent(&dupack(&mut s, 5)), [new(k)]);
    }
    // The retransmission of 5 arrives: full ACK 15 >= recovery point 12.
    let out = dupack(&mut s, 15);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(s.tp.snd_cwnd, s.tp.snd_ssthresh);
    assert_eq!(s.tp.snd_cwnd, 5);
    assert_eq!(sent(&out), [new(19)]);
    assert_eq!(s.stats.retransmits, 2);
    assert_eq!(s.stats.recoveries, 1);
    assert_eq!(count(&take(&log), &Call::Ssthresh), 0);
    // Segments 0..14 delivered, each counted once (duplicate ACKs count
    // when they arrive, a cumulative ACK only what they did not cover).
    assert_eq!(s.tp.delivered, 15);
}

#[test]
fn test_established_newreno_delivered_counts_each_segment_once() {
    // Segment 0 lost: duplicate ACKs for 1..9 (9 segments delivered), then
    // the retransmission: ACK 10 delivers exactly one more.
    let mut s = newreno_after_dup_acks(9);
    assert_eq!(s.tp.delivered, 9);
    recv_ack(&mut s, ms(101), 10, &[], 0);
    assert_eq!(s.tp.delivered, 10);
}

// ----------------------------------------------------------------------
// Retransmission timeout (RFC 6298; Linux tcp_enter_loss).
// ----------------------------------------------------------------------

#[test]
fn test_established_rto_without_rtt_sample_fires_at_1s_and_backs_off() {
    let (cc, log) = Recorder::boxed(false);
    let (mut s, out) = sender_established_with(cfg(), cc);
    // One RTO request, at the first transmission: initial RTO 1 s.
    assert_eq!(out.timers, [(ms(1000), TimerKind::Rto)]);
    assert_eq!(s.rtt.srtt(), None);
    take(&log);

    // First expiry: ssthresh 5, every segment lost, cwnd 1, the head
    // retransmitted, the timer re-armed at t + 2·RTO.
    let out = fire_rto(&mut s, ms(1000));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(out.timers, [(ms(3000), TimerKind::Rto)]);
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(lost(&s), (0..10).collect::<Vec<_>>());
    assert_eq!(counters(&s), (10, 0, 10, 1, 1));
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!((s.rtt.backoff(), s.rtt.rto()), (1, Dur::from_secs(2)));
    assert_eq!(
        take(&log),
        [
            Call::Ssthresh,
            Call::CwndEvent(CaEvent::Loss),
            Call::SetState {
                from: CaState::Open,
                to: CaState::Loss
            },
            // The retransmission leaves with nothing in flight.
            Call::CwndEvent(CaEvent::TxStart),
        ]
    );

    // Second and third: 4 s then 8 s later; no new ssthresh in Loss, but
    // set_state(Loss) again on each, as Linux's tcp_enter_loss does.
    let out = fire_rto(&mut s, ms(3000));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(out.timers, [(ms(7000), TimerKind::Rto)]);
    let out = fire_rto(&mut s, ms(7000));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(out.timers, [(ms(15000), TimerKind::Rto)]);
    assert_eq!(s.stats.timeouts, 3);
    assert_eq!(s.stats.retransmits, 3);
    assert_eq!((s.rtt.backoff(), s.rtt.rto()), (3, Dur::from_secs(8)));
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(counters(&s), (10, 0, 10, 1, 1));
    let log = take(&log);
    assert_eq!(count(&log, &Call::Ssthresh), 0);
    let again = Call::SetState {
        from: CaState::Loss,
        to: CaState::Loss,
    };
    assert_eq!(count(&log, &again), 2);
}

#[test]
fn test_established_rto_after_samples_is_srtt_plus_4_rttvar() {
    let mut s = sender_established();
    // ACK 2 at 100 ms: sample 100 ms, srtt 100, rttvar 50, RTO 300 ms,
    // restarted from now (RFC 6298 §5.3): an earlier deadline, so a push.
    let out = recv_ack(&mut s, ms(100), 2, &[], 0);
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ms(100)));
    assert_eq!(s.rtt.rto(), Dur::from_ms(300));
    assert_eq!(out.timers, [(ms(400), TimerKind::Rto)]);
    // Slow start: cwnd 12, four new segments.
    assert_eq!(sent(&out), [new(10), new(11), new(12), new(13)]);
    // The stale event at 1 s (the first arming) does nothing.
    assert_eq!(fire_rto(&mut s, ms(1000)).pkts.len(), 0);
    assert_eq!(s.stats.timeouts, 0);
    let out = fire_rto(&mut s, ms(400));
    assert_eq!(sent(&out), [rtx(2)]);
    assert_eq!(
        out.timers,
        [(ms(1000), TimerKind::Rto)],
        "400 ms + 2·300 ms"
    );
    assert_eq!(lost(&s), (2..14).collect::<Vec<_>>());
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(s.tp.snd_ssthresh, 6, "half of cwnd 12");
    assert_eq!(s.stats.timeouts, 1);

    // With a 10 ms RTT, srtt + 4·rttvar = 30 ms: the 200 ms minimum.
    let mut s = sender_established();
    let out = recv_ack(&mut s, ms(10), 1, &[], 0);
    assert_eq!(s.rtt.rto(), Dur::from_ms(200));
    assert_eq!(out.timers, [(ms(210), TimerKind::Rto)]);
    let out = fire_rto(&mut s, ms(210));
    assert_eq!(sent(&out), [rtx(1)]);
    assert_eq!(out.timers, [(ms(610), TimerKind::Rto)]);
}

#[test]
fn test_disorder_rto_marks_every_unsacked_segment_lost() {
    let mut s = sender_established();
    // SACK 5-6 (two segments: below DupThresh, nothing lost). The SACK gives
    // a 50 ms sample (RTO 200 ms) but restarts no timer (no new cumulative
    // ACK); two new segments leave.
    let out = recv_ack(&mut s, ms(50), 0, &[(5, 7)], 0);
    assert_eq!(sent(&out), [new(10), new(11)]);
    assert_eq!(out.timers, []);
    assert_eq!(s.tp.ca_state, CaState::Disorder);
    assert_eq!(s.rtt.rto(), Dur::from_ms(200));

    let out = fire_rto(&mut s, ms(1000));
    assert_eq!(sacked(&s), [5, 6]);
    assert_eq!(lost(&s), [0, 1, 2, 3, 4, 7, 8, 9, 10, 11]);
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(counters(&s), (12, 2, 10, 1, 1));
    // 1 s, then 1 s + 2·200 ms, then + 4·200 ms.
    assert_eq!(out.timers, [(ms(1400), TimerKind::Rto)]);
    let out = fire_rto(&mut s, ms(1400));
    assert_eq!(out.timers, [(ms(2200), TimerKind::Rto)]);
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.stats.timeouts, 2);
}

/// Without SACK, an RTO forgets the duplicate ACKs counted as SACKed
/// (Linux `tcp_timeout_mark_lost` calls `tcp_reset_reno_sack`): every
/// segment is lost, none counted both lost and SACKed, and the window is
/// in flight + 1 (the retransmission of the head).
#[test]
fn test_rto_without_sack_forgets_the_duplicate_acks() {
    let mut s = newreno_after_dup_acks(2);
    assert_eq!(s.tp.sacked_out, 2);
    let out = fire_rto(&mut s, ms(1000));
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!(s.tp.sacked_out, 0);
    assert_eq!(s.tp.lost_out, s.tp.packets_out);
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.tp.in_flight(), 1);
    assert_eq!(s.tp.snd_cwnd, 1);
}

#[test]
fn test_loss_acks_of_retransmissions_give_no_rtt_sample_until_fresh_data() {
    let mut s = sender_established();
    fire_rto(&mut s, ms(1000));
    // The whole first window was lost: every ACK now covers only
    // retransmitted segments (Karn: no sample, back-off kept). Slow start
    // from cwnd 1 retransmits the rest.
    let out = recv_ack(&mut s, ms(1100), 1, &[], 0);
    assert_eq!(sent(&out), [rtx(1), rtx(2)]);
    assert_eq!(
        out.timers,
        [],
        "restarted at 1.1 s + 2 s: the 3 s event covers it"
    );
    let out = recv_ack(&mut s, ms(1200), 3, &[], 0);
    assert_eq!(sent(&out), [rtx(3), rtx(4), rtx(5), rtx(6)]);
    // cwnd 4 + 3 capped by ssthresh 5: the last lost ones, then new data.
    let out = recv_ack(&mut s, ms(1300), 7, &[], 0);
    assert_eq!(sent(&out), [rtx(7), rtx(8), rtx(9), new(10), new(11)]);
    assert_eq!((s.rtt.srtt(), s.rtt.backoff()), (None, 1));
    assert_eq!(s.tp.ca_state, CaState::Loss);
    // snd_una reaches the point of the RTO: Loss ends.
    let out = recv_ack(&mut s, ms(1400), 10, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!((s.rtt.srtt(), s.rtt.backoff()), (None, 1));
    assert_eq!(s.tp.snd_cwnd, 6);
    assert_eq!(sent(&out), [new(12), new(13), new(14), new(15)]);
    // The first ACK of never-retransmitted data (10, 11, sent at 1.3 s):
    // a 200 ms sample; the back-off is forgotten and the timer restarts
    // with RTO = 200 + 4·100 = 600 ms.
    let out = recv_ack(&mut s, ms(1500), 12, &[], 0);
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ms(200)));
    assert_eq!(s.rtt.backoff(), 0);
    assert_eq!(s.rtt.rto(), Dur::from_ms(600));
    assert_eq!(out.timers, [(ms(2100), TimerKind::Rto)]);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.stats.retransmits, 10);
}

#[test]
fn test_loss_cumulative_ack_covering_a_retransmission_gives_no_rtt_sample() {
    let mut s = sender_established();
    assert_eq!(sent(&fire_rto(&mut s, ms(1000))), [rtx(0)]);
    // Only segment 0 was lost; 1..9 arrived but their ACKs were lost. The
    // ACK of the retransmission covers 1..9, never retransmitted, sent at
    // t = 0: its timing is that of the retransmission (Linux
    // FLAG_RETRANS_DATA_ACKED: no sample from such an ACK).
    let out = recv_ack(&mut s, ms(1100), 10, &[], 0);
    assert_eq!(s.rtt.srtt(), None, "no 1.1 s sample");
    assert_eq!((s.rtt.backoff(), s.rtt.rto()), (1, Dur::from_secs(2)));
    assert_eq!(out.timers, []);
    assert_eq!(
        s.rto_timer.deadline(),
        Some(ms(3100)),
        "backed-off RTO kept"
    );
    assert_eq!(s.tp.ca_state, CaState::Open);
    // The next ACK of fresh data samples: sent at 1.1 s, acked at 1.15 s.
    assert_eq!(sent(&out)[0], new(10));
    recv_ack(&mut s, ms(1150), 11, &[], 0);
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ms(50)));
    assert_eq!(s.rtt.backoff(), 0);
}

// ----------------------------------------------------------------------
// ECN at the sender (RFC 3168).
// ----------------------------------------------------------------------

/// Handshake with a receiver; returns the sender, the receiver and what the
/// sender sent when the SYN-ACK arrived.
fn sender_after_handshake(sender_ecn: bool, echo: EcnEcho) -> (Sender, Receiver, Out) {
    let c = TcpConfig {
        ecn: sender_ecn,
        handshake: true,
        ..cfg()
    };
    let mut s = Sender::new(ep(), c.clone(), reno(), None, None);
    let mut r = Receiver::new(ep(), &c, echo);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    assert_eq!(s.phase, Phase::SynSent);
    assert_eq!(out.pkts.len(), 1);
    let syn = out.pkts[0];
    assert!(syn.has(flags::SYN) && !syn.has(flags::ACK));
    assert_eq!(syn.payload_bytes, 0);
    assert_eq!(syn.ecn, Ecn::NotEct);
    assert_eq!(
        (syn.has(flags::ECE), syn.has(flags::CWR)),
        (sender_ecn, sender_ecn),
        "ECN-setup SYN"
    );
    assert_eq!(out.timers, [(ms(1000), TimerKind::Rto)]);

    let mut back = Out::default();
    r.on_packet(ms(5), &syn, &mut back);
    assert_eq!(back.pkts.len(), 1);
    let mut out = Out::default();
    s.on_ack(ms(10), &back.pkts[0], &mut out);
    assert_eq!(s.phase, Phase::Established);
    (s, r, out)
}

/// A handshake whose SYN is late: `timeouts` SYN timeouts fire (at 1 s,
/// 3 s, 7 s, ...) before the receiver gets the first SYN at `arrive`; the
/// SYN-ACK answering it comes back 1 ms later. Returns the sender and what
/// it sent on the SYN-ACK.
fn late_syn(c: TcpConfig, timeouts: u32, arrive: Time) -> (Sender, Out) {
    let c = TcpConfig {
        handshake: true,
        ..c
    };
    let mut s = Sender::new(ep(), c.clone(), reno(), None, None);
    let mut r = Receiver::new(ep(), &c, EcnEcho::Off);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    let syn = out.pkts[0];
    let mut deadline = ms(1000);
    for k in 0..timeouts {
        assert_eq!(out.timers.last().map(|t| t.0), Some(deadline));
        out = fire_rto(&mut s, deadline);
        assert!(
            out.pkts[0].has(flags::SYN),
            "SYN timeout {k} resends the SYN"
        );
        deadline = deadline + Dur::from_ps(2000 * PS_PER_MS << k);
    }
    assert!(
        arrive < deadline,
        "the SYN-ACK comes before the next timeout"
    );
    assert_eq!(s.stats.syn_retransmits, timeouts as u64);
    assert_eq!(s.stats.timeouts, 0, "SYN timeouts are not data timeouts");
    let mut back = Out::default();
    r.on_packet(arrive, &syn, &mut back);
    let mut out = Out::default();
    s.on_ack(arrive + Dur::from_ps(PS_PER_MS), &back.pkts[0], &mut out);
    assert_eq!(s.phase, Phase::Established);
    (s, out)
}

#[test]
fn test_syn_sent_late_syn_with_timestamps_is_timed_by_its_echo_and_keeps_iw() {
    // The first SYN waited 20 s in a queue; four SYN timeouts fired (1, 3,
    // 7, 15 s). The SYN-ACK echoes the first SYN's timestamp: an RTT sample
    // of 20.001 s (Linux times it with the echo where Karn forbids), and the
    // timeouts were spurious (Linux tcp_try_undo_spurious_syn), so the
    // initial window stays 10.
    let (s, out) = late_syn(linux_cfg(), 4, ms(20_000));
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ps(20_001 * PS_PER_MS)));
    // RTO = SRTT + 4·SRTT/2 = 3·SRTT: no spurious timeout of the first window.
    assert_eq!(s.rtt.rto(), Dur::from_ps(3 * 20_001 * PS_PER_MS));
    assert_eq!(s.rtt.backoff(), 0);
    assert_eq!(s.stats.spurious_syns, 1);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(sent(&out).len(), 10);
}

#[test]
fn test_syn_sent_retransmitted_syn_without_timestamps_falls_back_to_3_s() {
    // RFC 6298 §5.7: no RTT sample from the handshake (Karn) → RTO 3 s
    // when data starts, not the backed-off 8 s; RFC 5681 §3.1 as Linux
    // applies it: more than one SYN retransmission → initial window 1.
    let (s, out) = late_syn(cfg(), 3, ms(10_000));
    assert_eq!(s.rtt.srtt(), None);
    assert_eq!(s.rtt.rto(), Dur::from_secs(3));
    assert_eq!(s.rtt.backoff(), 0);
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(sent(&out).len(), 1);
    assert_eq!(s.stats.spurious_syns, 0);
    // One retransmission only: the window stays 10 (Linux: total_retrans > 1).
    let (s, out) = late_syn(cfg(), 1, ms(2_000));
    assert_eq!((s.rtt.rto(), s.tp.snd_cwnd), (Dur::from_secs(3), 10));
    assert_eq!(sent(&out).len(), 10);
}

#[test]
fn test_syn_sent_lost_first_syn_with_timestamps_cuts_the_window() {
    // The first SYN is lost: the receiver answers the retransmission, whose
    // timestamp is echoed. A real loss: a sample from the echo, but the
    // window is cut to 1 after two SYN retransmissions.
    let c = TcpConfig {
        handshake: true,
        ..linux_cfg()
    };
    let mut s = Sender::new(ep(), c.clone(), reno(), None, None);
    let mut r = Receiver::new(ep(), &c, EcnEcho::Off);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    fire_rto(&mut s, ms(1000));
    let second = fire_rto(&mut s, ms(3000)).pkts[0];
    let mut back = Out::default();
    r.on_packet(ms(3005), &second, &mut back);
    let mut out = Out::default();
    s.on_ack(ms(3010), &back.pkts[0], &mut out);
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ps(10 * PS_PER_MS)));
    assert_eq!((s.stats.syn_retransmits, s.stats.spurious_syns), (2, 0));
    assert_eq!(s.tp.snd_cwnd, 1);
    assert_eq!(sent(&out).len(), 1);
}

#[test]
fn test_syn_sent_ecn_negotiation() {
    let (s, r, out) = sender_after_handshake(true, EcnEcho::Classic);
    assert!(s.tp.ecn_ok && r.ecn_ok());
    assert_eq!(sent(&out), (0..10).map(new).collect::<Vec<_>>());
    for p in &out.pkts {
        assert_eq!(p.ecn, Ecn::Ect0, "data is ECT(0)");
        assert_eq!(p.tcp_flags, flags::ACK, "no CWR before any ECE");
    }
    // The SYN-ACK gave a 10 ms sample: RTO 200 ms from 10 ms.
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ms(10)));
    assert_eq!(out.timers, [(ms(210), TimerKind::Rto)]);

    // The receiver does not do ECN: no ECE on the SYN-ACK, no ECT.
    let (s, _, out) = sender_after_handshake(true, EcnEcho::Off);
    assert!(!s.tp.ecn_ok);
    assert!(out.pkts.iter().all(|p| p.ecn == Ecn::NotEct));
    // The sender does not ask.
    let (s, r, out) = sender_after_handshake(false, EcnEcho::Classic);
    assert!(!s.tp.ecn_ok && !r.ecn_ok());
    assert!(out.pkts.iter().all(|p| p.ecn == Ecn::NotEct));
}

#[test]
fn test_established_ecn_retransmissions_are_not_ect_for_reno() {
    // An ECN fixture: no handshake, ECN on both ends by configuration.
    for needs_ecn in [false, true] {
        let (cc, _) = Recorder::boxed(needs_ecn);
        let (mut s, out) = sender_established_with(
            TcpConfig {
                ecn: !needs_ecn,
                ..cfg()
            },
            cc,
        );
        assert!(s.tp.ecn_ok);
        assert!(out.pkts.iter().all(|p| p.ecn == Ecn::Ect0));
        let out = fire_rto(&mut s, ms(1000));
        assert_eq!(sent(&out), [rtx(0)]);
        // RFC 3168 §6.1.5: retransmissions are Not-ECT; a control that
        // needs ECN (DCTCP) marks them ECT as Linux does.
        let want = if needs_ecn { Ecn::Ect0 } else { Ecn::NotEct };
        assert_eq!(out.pkts[0].ecn, want);
        assert!(!out.pkts[0].has(flags::CWR), "CWR is for new data");
        // The timeout reduced the window: the first new segment carries CWR.
        // (The originals of 1..9 arrived: ACK 10 ends Loss; slow start
        // 1 -> 5 = ssthresh, the 5 left over add one: cwnd 6.)
        let out = recv_ack(&mut s, ms(1100), 10, &[], 0);
        assert_eq!(sent(&out), (10..16).map(new).collect::<Vec<_>>());
        assert!(out.pkts[0].has(flags::CWR) && out.pkts[0].ecn == Ecn::Ect0);
        assert!(out.pkts[1..]
            .iter()
            .all(|p| !p.has(flags::CWR) && p.ecn == Ecn::Ect0));
    }
}

#[test]
fn test_established_ece_enters_cwr_once_per_window() {
    let (mut s, _, log) = recorded(TcpConfig { ecn: true, ..cfg() });
    // ECE on the ACK of segment 0: CWR, ssthresh 5, recovery point 10.
    // PRR: ceil(5·1/10) = 1 segment, which carries CWR.
    let out = recv_ack(&mut s, ms(10), 1, &[], flags::ECE);
    assert_eq!(take(&log), ece_enters_cwr());
    assert_eq!(s.tp.ca_state, CaState::Cwr);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(sent(&out), [new(10)]);
    assert_eq!(out.pkts[0].tcp_flags, flags::ACK | flags::CWR);
    assert_eq!(out.pkts[0].ecn, Ecn::Ect0);
    // A second ECE in the same window: no new reduction; PRR holds (2 - 1 = 0).
    let out = recv_ack(&mut s, ms(11), 2, &[], flags::ECE);
    assert_eq!(sent(&out), []);
    assert_eq!(s.tp.snd_cwnd, 9);
    // Without ECE: PRR sends one (ceil(15/10) - 1), without CWR.
    let out = recv_ack(&mut s, ms(12), 3, &[], 0);
    assert_eq!(sent(&out), [new(11)]);
    assert_eq!(out.pkts[0].tcp_flags, flags::ACK);
    let log_now = take(&log);
    assert_eq!(count(&log_now, &Call::Ssthresh), 0);
    assert!(!log_now.iter().any(|c| matches!(c, Call::CongAvoid(_))));
    assert_eq!(s.stats.ece_acks, 2);
    assert_eq!(s.tp.delivered_ce, 2);
}

#[test]
fn test_cwr_classic_echo_until_cwr_reduces_once() {
    // End to end with a classic receiver ACKing every segment: one CE mark
    // on segment 0. The receiver echoes ECE until it sees the CWR segment
    // (10, sent after the reduction), so the ACK of exactly the recovery
    // point (10) still carries ECE: it belongs to the same window (Linux
    // holds CWR until snd_una passes high_seq).
    let (cc, log) = Recorder::boxed(false);
    let c = TcpConfig { ecn: true, ..cfg() };
    let (mut s, out) = sender_established_with(c.clone(), cc);
    let mut r = Receiver::new(
        ep(),
        &TcpConfig {
            delayed_ack: false,
            ..c
        },
        EcnEcho::Classic,
    );
    take(&log);
    let mut wire: std::collections::VecDeque<Packet> = out.pkts.into();
    wire[0].ecn = Ecn::Ce;
    let mut t = ms(10);
    let mut cwr_segs = vec![];
    while let Some(d) = wire.pop_front() {
        if d.seq > 10 * MSS {
            break; // stop after the ACK of the CWR segment
        }
        if d.has(flags::CWR) {
            cwr_segs.push(d.seq / MSS);
        }
        let mut acks = Out::default();
        r.on_packet(t, &d, &mut acks);
        for a in &acks.pkts {
            t += Dur::from_us(1);
            let out = recv_ack_pkt(&mut s, t, a);
            wire.extend(out.pkts);
        }
    }
    assert_eq!(cwr_segs, [10]);
    assert_eq!(s.stats.ece_acks, 10, "ACKs 1..10 echoed");
    assert_eq!(count(&take(&log), &Call::Ssthresh), 1);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (5, 5));
}

#[test]
fn test_cwr_loss_enters_recovery_without_second_reduction() {
    // Linux tcp_enter_recovery: a reduction under way (CWR) continues as
    // Recovery; ssthresh is not taken again in the same window (RFC 3168
    // §6.1.2).
    let (mut s, _, log) = recorded(TcpConfig { ecn: true, ..cfg() });
    // Segment 0 lost, segment 1 CE-marked.
    let out = recv_ack(&mut s, ms(10), 0, &[(1, 2)], flags::ECE);
    assert_eq!(s.tp.ca_state, CaState::Cwr);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(sent(&out), [new(10)]);
    assert!(out.pkts[0].has(flags::CWR));
    recv_ack(&mut s, ms(11), 0, &[(1, 3)], flags::ECE);
    // The third SACKed segment: 0 is lost, Recovery.
    let out = recv_ack(&mut s, ms(12), 0, &[(1, 4)], flags::ECE);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.tp.snd_ssthresh, 5);
    assert_eq!(
        take(&log),
        [
            &ece_enters_cwr()[..],
            &[
                Call::InAckEvent(EV | ack_flags::ECE),
                Call::PktsAcked(1),
                Call::InAckEvent(EV | ack_flags::ECE),
                Call::PktsAcked(1),
                Call::SetState {
                    from: CaState::Cwr,
                    to: CaState::Recovery
                },
            ],
        ]
        .concat()
    );
    assert_eq!(s.stats.recoveries, 1);
    // The recovery point is still the CWR one (10): ACK 11 ends it.
    recv_ack(&mut s, ms(13), 0, &[(1, 11)], 0);
    recv_ack(&mut s, ms(14), 11, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (5, 5));
}

/// Delivers an ACK packet as the receiver built it.
#[track_caller]
fn recv_ack_pkt(s: &mut Sender, now: Time, p: &Packet) -> Out {
    let mut out = Out::default();
    s.on_ack(now, p, &mut out);
    if let Err(e) = s.audit() {
        panic!("scoreboard audit after {p:?}: {e}");
    }
    out
}

// ----------------------------------------------------------------------
// Handshake.
// ----------------------------------------------------------------------

#[test]
fn test_syn_sent_rto_retransmits_syn_and_takes_no_sample() {
    let c = TcpConfig {
        handshake: true,
        ..cfg()
    };
    let mut s = Sender::new(ep(), c, reno(), None, None);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    let out = fire_rto(&mut s, ms(1000));
    assert_eq!(out.pkts.len(), 1);
    assert!(out.pkts[0].has(flags::SYN));
    assert_eq!(out.timers, [(ms(3000), TimerKind::Rto)]);
    assert_eq!(s.stats.timeouts, 0, "a SYN timeout is not a data timeout");
    let mut out = Out::default();
    s.on_ack(ms(1050), &ack_pkt(0, &[], flags::SYN), &mut out);
    assert_eq!(s.phase, Phase::Established);
    assert_eq!(s.rtt.srtt(), None, "Karn: the SYN was retransmitted");
    assert_eq!(sent(&out).len(), 10);
    // No sample: the data's timer uses RFC 6298 §5.7's 3 s, not the
    // backed-off 2 s; the pending 3 s event will reschedule itself, so
    // nothing is pushed.
    assert_eq!(s.rtt.rto(), Dur::from_secs(3));
    assert_eq!(out.timers, []);
    assert_eq!(s.rto_timer.deadline(), Some(ms(4050)));
}

/// A lost retransmission is found when a segment sent after it is SACKed
/// (links never reorder), and is sent again at once instead of waiting for
/// the RTO; SACKs of segments sent before it prove nothing.
#[test]
fn test_recovery_lost_retransmission_is_detected_and_resent() {
    let mut s = sender_established();
    // Segment 0 is lost: SACKs for 1..4 mark it, recovery retransmits it.
    let out = recv_ack(&mut s, ms(10), 0, &[(1, 4)], 0);
    let first = sent(&out);
    assert_eq!(first[0], rtx(0));
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    // SACKs of originals sent at t = 0, before the retransmission: no verdict.
    let mut t = 10;
    let mut later_new: Vec<u64> = first.iter().filter(|(_, r)| !r).map(|(i, _)| *i).collect();
    for top in 5..=10 {
        t += 1;
        let out = recv_ack(&mut s, ms(t), 0, &[(1, top)], 0);
        assert!(
            !sent(&out).contains(&rtx(0)),
            "segment 0 re-sent before any proof at SACK (1,{top})"
        );
        later_new.extend(sent(&out).iter().filter(|(_, r)| !r).map(|(i, _)| *i));
        assert_eq!(s.stats.lost_retransmits, 0);
    }
    // A segment sent after the retransmission arrives: the retransmission is lost.
    let n = *later_new
        .first()
        .expect("recovery sent new data after the retransmission");
    t += 1;
    let out = recv_ack(&mut s, ms(t), 0, &[(1, 10), (n, n + 1)], 0);
    assert_eq!(s.stats.lost_retransmits, 1);
    assert_eq!(sent(&out).first(), Some(&rtx(0)), "re-sent at once");
    assert_eq!(s.stats.timeouts, 0);
    assert_eq!(lost(&s), vec![0]);
}

// ----------------------------------------------------------------------
// Application-limited rate samples (Linux tcp_rate_check_app_limited).
// ----------------------------------------------------------------------

/// A control that holds cwnd fixed and logs every rate sample, as BBR sees
/// them through `cong_control`.
struct RateLog {
    cwnd: u32,
    log: Arc<Mutex<Vec<RateSample>>>,
}

impl RateLog {
    fn boxed(cwnd: u32) -> (Box<dyn CongestionControl>, Arc<Mutex<Vec<RateSample>>>) {
        let log = Arc::new(Mutex::new(vec![]));
        (
            Box::new(RateLog {
                cwnd,
                log: log.clone(),
            }),
            log,
        )
    }
}

impl CongestionControl for RateLog {
    fn name(&self) -> &'static str {
        "ratelog"
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd
    }
    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u64, _acked: u32) {}
    fn has_cong_control(&self) -> bool {
        true
    }
    fn cong_control(&mut self, tp: &mut TcpSock, _ack: u64, rs: &RateSample) {
        self.log.lock().unwrap().push(*rs);
        tp.snd_cwnd = self.cwnd;
    }
}

/// Every packet in `out` leaves the host's NIC queue at `now`.
fn drain_nic(s: &mut Sender, now: Time, out: &Out) {
    for p in &out.pkts {
        let mut more = Out::default();
        s.on_nic_tx(now, p.size_bytes, &mut more);
        assert!(more.pkts.is_empty(), "no TSQ in these fixtures");
    }
}

/// ACKs every outstanding segment in order, one ACK per segment advertising
/// `rwnd` bytes, for `rounds` round trips of 10 ms; every packet leaves the
/// NIC at once. Returns the highest segment sent.
fn run_rounds(s: &mut Sender, first_out: &Out, rounds: u64, rwnd: u64) -> u64 {
    let mut t = Time::ZERO;
    drain_nic(s, t, first_out);
    let mut outstanding: std::collections::VecDeque<u64> =
        sent(first_out).iter().map(|x| x.0).collect();
    let mut top = 0;
    for r in 1..=rounds {
        t = ms(10 * r);
        for _ in 0..outstanding.len() {
            let seg = outstanding.pop_front().unwrap();
            t += Dur::from_us(10);
            let mut a = ack_pkt(seg + 1, &[], 0);
            a.rwnd_bytes = rwnd;
            let out = recv_ack_pkt(s, t, &a);
            drain_nic(s, t, &out);
            for (i, _) in sent(&out) {
                outstanding.push_back(i);
                top = top.max(i);
            }
        }
    }
    top
}

#[test]
fn test_established_rwnd_limited_samples_are_not_app_limited() {
    // The receiver's window holds 5 segments, cwnd 10: the sender is
    // blocked by the receive window with cwnd to spare and nothing in its
    // NIC queue. Linux does not call that application-limited (the
    // application has data); BBR must keep these samples.
    let (cc, log) = RateLog::boxed(10);
    let (mut s, out) = sender_established_with(
        TcpConfig {
            rwnd_bytes: 5 * MSS,
            ..cfg()
        },
        cc,
    );
    assert_eq!(sent(&out), (0..5).map(new).collect::<Vec<_>>());
    let top = run_rounds(&mut s, &out, 5, 5 * MSS);
    assert_eq!(top, 29, "5 segments per round trip");
    assert_eq!(s.tp.in_flight(), 5);
    assert!(s.tp.in_flight() < s.tp.snd_cwnd);
    assert_eq!(s.tp.app_limited, 0);
    let log = take_samples(&log);
    assert_eq!(log.len(), 25);
    // The first flight left before anything was delivered (Linux marks a
    // new connection app-limited); every sample after it is a true one.
    assert!(log[..5].iter().all(|rs| rs.is_app_limited));
    assert!(
        log[5..].iter().all(|rs| !rs.is_app_limited),
        "rwnd-limited samples marked app-limited"
    );
}

#[test]
fn test_established_cwnd_limited_samples_are_not_app_limited() {
    let (cc, log) = RateLog::boxed(10);
    let (mut s, out) = sender_established_with(cfg(), cc);
    assert_eq!(run_rounds(&mut s, &out, 4, RWND), 49);
    assert_eq!(s.tp.in_flight(), s.tp.snd_cwnd);
    assert_eq!(s.tp.app_limited, 0);
    let log = take_samples(&log);
    assert_eq!(log.len(), 40);
    assert!(log[10..].iter().all(|rs| !rs.is_app_limited));
}

#[test]
fn test_established_application_runs_dry_marks_app_limited() {
    // 15 segments to send, cwnd 10.
    let (cc, log) = RateLog::boxed(10);
    let mut s = Sender::new(ep(), cfg(), cc, Some(15 * MSS), None);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    drain_nic(&mut s, Time::ZERO, &out);
    // ACKs of 0..4 release 10..14: the application is then dry, but its
    // last segments still sit in the NIC queue: not yet app-limited.
    let mut last = Out::default();
    for k in 1..=5 {
        last = recv_ack(&mut s, ms(10) + Dur::from_us(k), k, &[], 0);
        assert_eq!(sent(&last), [new(9 + k)]);
        if k < 5 {
            drain_nic(&mut s, ms(10), &last);
        }
    }
    assert_eq!(s.tp.app_limited, 0, "NIC queue not empty");
    // The NIC drains, with room in cwnd (ACK of 5) and no loss pending:
    // app-limited until what is in flight now is delivered (6 + 9).
    recv_ack(&mut s, ms(11), 6, &[], 0);
    assert_eq!(s.tp.app_limited, 0);
    drain_nic(&mut s, ms(11), &last);
    assert_eq!((s.tp.delivered, s.tp.in_flight()), (6, 9));
    assert_eq!(s.tp.app_limited, 15);
    // Segment 10 is lost; 6..9 and 11..13 arrive: 10 is retransmitted while
    // the mark holds, so the sample its ACK yields is app-limited; the
    // SACKed segments, sent before the mark, are not.
    recv_ack(&mut s, ms(20), 10, &[], 0);
    let out = recv_ack(&mut s, ms(21), 10, &[(11, 14)], 0);
    assert_eq!(sent(&out), [rtx(10)]);
    drain_nic(&mut s, ms(21), &out);
    take_samples(&log);
    recv_ack(&mut s, ms(31), 15, &[], 0);
    let log = take_samples(&log);
    assert!(log.last().unwrap().is_app_limited);
    assert_eq!(s.phase, Phase::Done);
}

fn take_samples(log: &Arc<Mutex<Vec<RateSample>>>) -> Vec<RateSample> {
    std::mem::take(&mut *log.lock().unwrap())
}

// ----------------------------------------------------------------------
// The Linux defaults: tail loss probe, RACK, undo (Eifel, D-SACK), F-RTO.
// ----------------------------------------------------------------------

/// An ACK that echoes timestamp `ecr`.
fn ack_ts(ack: u64, sacks: &[(u64, u64)], ecr: u32) -> Packet {
    let mut p = ack_pkt(ack, sacks, 0);
    p.ts_ecr = ecr;
    p
}

/// Fires the retransmission timer's events in order until its deadline
/// comes (lazy re-arming leaves earlier events that reschedule); returns
/// when it fired and what it sent.
#[track_caller]
fn fire_xmit_timer(s: &mut Sender) -> (Time, Out) {
    loop {
        let at = s.rto_timer.pending().expect("the timer is armed");
        let due = s.rto_timer.deadline() == Some(at);
        let out = fire_rto(s, at);
        if due {
            return (at, out);
        }
    }
}

/// Sender with Linux's defaults and `c` applied, 10 segments out at t = 0,
/// then ACKs of segments 0 and 1 at 100 ms (RTT 100 ms: SRTT 100 ms,
/// RTTVAR 37.5 ms, RTO 250 ms); Reno's slow start sends 10..13 at once.
fn sender_after_two_acks(
    c: TcpConfig,
    cc: Box<dyn CongestionControl>,
    app_end: Option<u64>,
) -> Sender {
    let mut s = Sender::new(ep(), c, cc, app_end, None);
    let mut out = Out::default();
    s.start(Time::ZERO, &mut out);
    recv_ack_pkt(
        &mut s,
        ms(100),
        &ack_ts(1, &[], crate::tcp::ts_ms(Time::ZERO)),
    );
    recv_ack_pkt(
        &mut s,
        ms(100),
        &ack_ts(2, &[], crate::tcp::ts_ms(Time::ZERO)),
    );
    assert_eq!(s.rtt.srtt(), Some(Dur::from_ms(100)));
    s
}

/// The transmit timer fires at `at` and retransmits segment `rtx_seg`,
/// leaving (loss probes, timeouts) at `counts` and the state at `state`.
#[track_caller]
fn fires_at(s: &mut Sender, at: Time, rtx_seg: u64, counts: (u64, u64), state: CaState) {
    let (fired, out) = fire_xmit_timer(s);
    assert_eq!(fired, at);
    assert_eq!(sent(&out), [rtx(rtx_seg)]);
    assert_eq!((s.stats.loss_probes, s.stats.timeouts), counts);
    assert_eq!(s.tp.ca_state, state);
}

#[test]
fn test_established_tail_drop_is_repaired_by_the_loss_probe_without_rto() {
    // A 10-segment transfer; segments 8 and 9 are lost, 0..7 arrive and
    // are ACKed one by one 100 ms after they left.
    let run = |tlp: bool| {
        let c = TcpConfig { tlp, ..linux_cfg() };
        let mut s = Sender::new(ep(), c, reno(), Some(10 * MSS), None);
        let mut out = Out::default();
        s.start(Time::ZERO, &mut out);
        let ts0 = crate::tcp::ts_ms(Time::ZERO);
        let mut last = Out::default();
        for k in 1..=8 {
            last = recv_ack_pkt(&mut s, ms(100) + Dur::from_us(k), &ack_ts(k, &[], ts0));
        }
        (s, last)
    };
    let (mut s, _) = run(true);
    // SRTT 100 ms, RTTVAR down to 6.7 ms: RTO = max(126.7 ms, 200 ms).
    // PTO = 2·SRTT + 2 ms = 202 ms, capped by the RTO: the probe, not the
    // RTO, is due 200 ms after the last ACK.
    assert_eq!(s.rtt.rto(), Dur::from_ms(200));
    let probe_at = ms(100) + Dur::from_us(8) + Dur::from_ms(200);
    assert_eq!(s.rto_timer.deadline(), Some(probe_at));
    assert_eq!(s.xmit_mode, XmitTimer::Probe);
    // No new data left: the probe is the last segment again.
    fires_at(&mut s, probe_at, 9, (1, 0), CaState::Open);
    // The probe arrives: the receiver SACKs it. RACK: 8 was sent before
    // the probe and has waited longer than the probe's RTT plus the
    // reordering window: lost, fast recovery retransmits it.
    let t = probe_at + Dur::from_ms(101);
    let ts_probe = crate::tcp::ts_ms(probe_at);
    let out = recv_ack_pkt(&mut s, t, &ack_ts(8, &[(9, 10)], ts_probe));
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(sent(&out), [rtx(8)]);
    let out = recv_ack_pkt(&mut s, t + Dur::from_ms(100), &ack_ts(10, &[], ts_probe));
    assert_eq!(sent(&out), []);
    assert_eq!(s.phase, Phase::Done);
    assert_eq!(s.stats.timeouts, 0, "repaired without an RTO");
    assert_eq!(s.stats.retransmits, 2);

    // Without the probe the RTO fires at the same moment and the whole
    // tail is resent after a timeout.
    let (mut s, _) = run(false);
    assert_eq!(s.xmit_mode, XmitTimer::Rto);
    fires_at(&mut s, probe_at, 8, (0, 1), CaState::Loss);
}

#[test]
fn test_established_loss_probe_sends_new_data_when_there_is_some() {
    // Unlimited data, cwnd-limited at the tail of a window: segments 12
    // and 13 (the last sent) are lost. The probe is a new segment, sent
    // beyond cwnd; its SACK shows the loss to RACK.
    let mut s = sender_after_two_acks(linux_cfg(), reno(), None);
    let ts0 = crate::tcp::ts_ms(Time::ZERO);
    for k in 3..=10 {
        recv_ack_pkt(&mut s, ms(100) + Dur::from_us(k), &ack_ts(k, &[], ts0));
    }
    let in_flight = s.tp.in_flight();
    assert_eq!(in_flight, s.tp.snd_cwnd, "cwnd-limited");
    let top = s.tp.snd_nxt / MSS;
    assert_eq!(s.xmit_mode, XmitTimer::Probe);
    let (_, out) = fire_xmit_timer(&mut s);
    assert_eq!(sent(&out), [new(top)]);
    assert_eq!(s.tp.in_flight(), in_flight + 1);
    assert_eq!(s.tlp_high_seq, Some((top + 1) * MSS));
    // At most one probe outstanding: the next timer event is the RTO.
    assert_eq!(s.xmit_mode, XmitTimer::Rto);
}

#[test]
fn test_loss_spurious_rto_is_undone_by_frto() {
    // The path stalls (a delay spike): the RTO fires at 350 ms although
    // nothing was lost. No timestamps: F-RTO alone must tell.
    let c = TcpConfig {
        tlp: false,
        timestamps: false,
        ..linux_cfg()
    };
    let (cc, log) = Recorder::boxed(false);
    let mut s = sender_after_two_acks(c, cc, None);
    let cwnd = s.tp.snd_cwnd;
    assert_eq!((cwnd, s.tp.snd_nxt / MSS), (12, 14));
    let (at, out) = fire_xmit_timer(&mut s);
    assert_eq!(at, ms(350));
    assert_eq!(sent(&out), [rtx(2)]);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (1, 6));
    assert!(s.frto);
    take(&log);
    // The ACK of the original segment 2 (the retransmission cannot have
    // arrived yet): step 2b, new data instead of retransmissions.
    let out = recv_ack(&mut s, ms(450), 3, &[], 0);
    assert_eq!(sent(&out), [new(14), new(15)]);
    assert_eq!(s.tp.ca_state, CaState::Loss);
    // The next ACK acks segment 3, sent before the RTO and never
    // retransmitted: the timeout was spurious. cwnd and ssthresh return.
    recv_ack(&mut s, ms(451), 4, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Open);
    // undo_cwnd gives back the window before the RTO, and slow start (the
    // ACK delivered a segment) adds one, as in Linux.
    assert_eq!(s.tp.snd_cwnd, cwnd + 1);
    assert_eq!(s.tp.snd_ssthresh, crate::cc::INFINITE_SSTHRESH);
    assert_eq!((s.stats.undos, s.stats.spurious_rtos), (1, 1));
    assert_eq!(s.tp.lost_out, 0, "lost marks cleared");
    assert!(take(&log).contains(&Call::UndoCwnd));
}

#[test]
fn test_loss_spurious_rto_is_undone_by_eifel_timestamps() {
    let c = TcpConfig {
        tlp: false,
        frto: false,
        ..linux_cfg()
    };
    let mut s = sender_after_two_acks(c.clone(), reno(), None);
    fire_xmit_timer(&mut s);
    assert_eq!(s.tp.snd_cwnd, 1);
    // The ACK echoes segment 2's original timestamp (t = 0), older than the
    // retransmission (350 ms): the original arrived, undo at once.
    let ts0 = crate::tcp::ts_ms(Time::ZERO);
    recv_ack_pkt(&mut s, ms(450), &ack_ts(3, &[], ts0));
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(s.tp.snd_cwnd, 12 + 1, "undone, then slow start");
    assert_eq!((s.stats.undos, s.stats.spurious_rtos), (1, 0));
    // Echoing the retransmission's timestamp instead proves nothing.
    let mut s = sender_after_two_acks(c.clone(), reno(), None);
    fire_xmit_timer(&mut s);
    let ts_rtx = crate::tcp::ts_ms(ms(350));
    recv_ack_pkt(&mut s, ms(450), &ack_ts(3, &[], ts_rtx));
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!(s.stats.undos, 0);
    // Neither timestamps nor F-RTO: the reduction stands.
    let c = TcpConfig {
        timestamps: false,
        ..c
    };
    let mut s = sender_after_two_acks(c, reno(), None);
    fire_xmit_timer(&mut s);
    recv_ack(&mut s, ms(450), 3, &[], 0);
    recv_ack(&mut s, ms(451), 4, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!(s.stats.undos, 0);
    assert!(s.tp.snd_cwnd < 12);
}

#[test]
fn test_recovery_spurious_fast_retransmit_is_undone_by_dsack() {
    // Segment 2 is delayed past three later ones: DupThresh SACKs, RACK's
    // window is zero, 2 is retransmitted. Then the original arrives, and
    // the receiver reports the retransmission as a duplicate.
    let c = TcpConfig {
        timestamps: false,
        ..linux_cfg()
    };
    let (cc, log) = Recorder::boxed(false);
    let mut s = sender_after_two_acks(c, cc, None);
    recv_ack(&mut s, ms(101), 2, &[(3, 4)], 0);
    recv_ack(&mut s, ms(102), 2, &[(3, 5)], 0);
    let out = recv_ack(&mut s, ms(103), 2, &[(3, 6)], 0);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(sent(&out)[0], rtx(2));
    assert_eq!(s.tp.snd_ssthresh, 6);
    take(&log);
    // The original: cumulative ACK 6.
    recv_ack(&mut s, ms(105), 6, &[], 0);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    // The retransmission's duplicate, reported below the cumulative ACK.
    recv_ack(&mut s, ms(203), 6, &[(2, 3)], 0);
    assert_eq!(s.stats.dsack_dups, 1);
    assert_eq!(s.stats.undos, 1);
    assert!(s.tp.ca_state <= CaState::Disorder);
    assert_eq!(s.tp.snd_ssthresh, crate::cc::INFINITE_SSTHRESH);
    assert!(s.tp.snd_cwnd >= 12, "cwnd back: {}", s.tp.snd_cwnd);
    assert!(take(&log).contains(&Call::UndoCwnd));
    // RACK widens its window on the next ACK that delivers data.
    assert!(s.rack.dsack_seen);
    recv_ack(&mut s, ms(204), 7, &[], 0);
    assert!(!s.rack.dsack_seen);
    assert_eq!(s.rack.reo_wnd_steps, 2);
}

#[test]
fn test_disorder_rack_waits_out_reordering_within_its_window() {
    // Segment 2 arrives 4 ms after segment 3 (min RTT 100 ms: a reordering
    // window of 25 ms). RACK arms its timer instead of retransmitting; the
    // late original then fills the hole: reordering is learnt.
    let mut s = sender_after_two_acks(linux_cfg(), reno(), None);
    let out = recv_ack(&mut s, ms(101), 2, &[(3, 4)], 0);
    assert_eq!(sent(&out), [new(14)]);
    assert_eq!(s.tp.ca_state, CaState::Disorder);
    assert_eq!(lost(&s), Vec::<u64>::new());
    assert_eq!(s.xmit_mode, XmitTimer::Reo);
    // Waited 101 ms against RACK.rtt 101 ms + 25 ms: 25 ms left, + 2 ms.
    assert_eq!(s.rto_timer.deadline(), Some(ms(101 + 25 + 2)));
    assert!(!s.rack.reord_seen);
    recv_ack(&mut s, ms(105), 4, &[], 0);
    assert!(s.rack.reord_seen, "a hole filled by its original");
    assert_eq!(s.stats.retransmits, 0);
    assert_eq!(s.tp.ca_state, CaState::Open);
    // Had it not come, the timer marks it lost and recovery starts.
    let mut s = sender_after_two_acks(linux_cfg(), reno(), None);
    recv_ack(&mut s, ms(101), 2, &[(3, 4)], 0);
    let out = fire_rto(&mut s, ms(128));
    assert_eq!(lost(&s), [2]);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(sent(&out), [rtx(2)]);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn test_recovery_rack_finds_a_lost_retransmission() {
    // As the RFC 6675 test above, with RACK: the retransmission of 2 is
    // lost; a segment sent after it is SACKed once it has waited RACK.rtt.
    let mut s = sender_after_two_acks(linux_cfg(), reno(), None);
    recv_ack(&mut s, ms(101), 2, &[(3, 4)], 0);
    recv_ack(&mut s, ms(101) + Dur::from_us(500), 2, &[(3, 5)], 0);
    let out = recv_ack(&mut s, ms(102), 2, &[(3, 6)], 0);
    assert_eq!(sent(&out), [rtx(2)]);
    // PRR lets new segments go on the next SACKs, after the retransmission.
    let mut n = None;
    for (k, top) in (7..12).enumerate() {
        let out = recv_ack(&mut s, ms(103) + Dur::from_us(k as u64), 2, &[(3, top)], 0);
        n = n.or(sent(&out).iter().find(|x| !x.1).map(|x| x.0));
    }
    let n = n.expect("new data after the retransmission");
    // 100 ms later it is SACKed: the retransmission (sent 1 ms before it)
    // has waited RACK.rtt + 1 ms, and the window is zero in recovery.
    let out = recv_ack(&mut s, ms(203), 2, &[(3, 12), (n, n + 1)], 0);
    assert_eq!(s.stats.lost_retransmits, 1);
    assert_eq!(sent(&out).first(), Some(&rtx(2)));
    assert_eq!(s.stats.timeouts, 0);
}

// ----------------------------------------------------------------------
// Returned copies (packet return; cc/mod.rs, "Returned copies").
// ----------------------------------------------------------------------

#[test]
fn test_established_burst_of_returned_copies_reduces_once_per_window() {
    // No ECN at all: a returned copy needs none.
    let (mut s, _, log) = recorded(cfg());
    // Five copies of segments of the first window arrive before any ACK.
    for k in 0..5 {
        s.on_returned(ms(5) + Dur::from_us(k));
    }
    assert_eq!(
        take(&log),
        [
            Call::Ssthresh,
            Call::SetState {
                from: CaState::Open,
                to: CaState::Cwr
            },
        ],
        "one reduction, no ACK hooks"
    );
    assert_eq!(s.tp.ca_state, CaState::Cwr);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (10, 5));
    assert_eq!((s.stats.returns_received, s.tp.delivered_ce), (5, 5));
    // The window drains by PRR; the ACK of 11 (past the recovery point 10)
    // ends CWR at ssthresh. More copies meanwhile change nothing.
    for a in 1..=11 {
        recv_ack(&mut s, ms(10 + a), a, &[], 0);
        if a == 3 {
            s.on_returned(ms(13) + Dur::from_us(1));
        }
    }
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (5, 5));
    assert_eq!(count(&take(&log), &Call::Ssthresh), 0);
    // A copy in the next window reduces again.
    s.on_returned(ms(30));
    assert_eq!(s.tp.ca_state, CaState::Cwr);
    assert_eq!(s.tp.snd_ssthresh, 2, "half of 5, at least 2");
    assert_eq!(count(&take(&log), &Call::Ssthresh), 1);
    assert_eq!(s.stats.ece_acks, 0);
}

#[test]
fn test_a_linux_receive_path_drops_a_returned_copy_and_sends_a_dup_ack() {
    // copy_effect = linux: the copy fails the sequence check, so the window
    // and the control see nothing; one pure ACK goes to the peer.
    let (cc, log) = Recorder::boxed(false);
    let mut c = cfg();
    c.copy_effect = CopyEffect::Linux;
    let (mut s, _) = sender_established_with(c, cc);
    take(&log);
    let (cwnd, ssthresh) = (s.tp.snd_cwnd, s.tp.snd_ssthresh);
    for k in 0..3 {
        let mut out = Out::default();
        s.on_returned_copy(ms(5) + Dur::from_us(k), &mut out);
        assert_eq!(out.pkts.len(), 1, "one duplicate ACK per copy");
        let a = out.pkts[0];
        assert_eq!(
            (a.payload_bytes, a.has(flags::ACK), a.ecn),
            (0, true, Ecn::NotEct)
        );
        assert_eq!(
            (a.src, a.dst, a.sport, a.dport),
            (s.ep.src, s.ep.dst, s.ep.sport, s.ep.dport)
        );
    }
    assert!(take(&log).is_empty(), "no hook of the control runs");
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(
        (s.tp.snd_cwnd, s.tp.snd_ssthresh, s.tp.delivered_ce),
        (cwnd, ssthresh, 0)
    );
    assert_eq!(s.stats.returns_received, 3);
    // copy_effect = ce (the default): the same call is a congestion echo.
    let (mut s, _, _) = recorded(cfg());
    let mut out = Out::default();
    s.on_returned_copy(ms(5), &mut out);
    assert!(out.pkts.is_empty());
    assert_eq!((s.tp.ca_state, s.tp.delivered_ce), (CaState::Cwr, 1));
}

#[test]
fn test_returned_copy_during_recovery_does_not_reduce_again() {
    let (cc, log) = Recorder::boxed(false);
    let (mut s, _) = sender_established_with(cfg(), cc);
    recv_ack(&mut s, ms(10), 0, &[(1, 4)], 0);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    take(&log);
    s.on_returned(ms(11));
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert!(take(&log).is_empty());
    assert_eq!(s.stats.returns_received, 1);
}

#[test]
fn test_dctcp_counts_a_returned_copy_as_one_marked_segment() {
    // Two DCTCP senders, ACK per segment: one sees ECE on the ACKs of
    // segments 2, 5 and 7 of every window, the other gets a returned copy
    // of those segments (just before their ACK, which carries no ECE).
    // Alpha and the CE count must be the same after every ACK.
    let dctcp = || {
        crate::cc::make(
            &CcConfig::Dctcp(crate::config::DctcpParams {
                shift_g: 4,
                alpha_init: 0.0,
            }),
            crate::sim::rng_for(0, "cc"),
        )
    };
    let alpha = |s: &Sender| {
        let mut a = f64::NAN;
        s.cc.trace_vars(&mut |n, v| {
            if n == "alpha" {
                a = v;
            }
        });
        a
    };
    let (mut echo, _) = sender_established_with(cfg(), dctcp());
    let (mut ret, _) = sender_established_with(cfg(), dctcp());
    let mut rose = false;
    for a in 1..=60u64 {
        let t = ms(10 + a);
        let marked = [2, 5, 7].contains(&((a - 1) % 10));
        recv_ack(&mut echo, t, a, &[], if marked { flags::ECE } else { 0 });
        if marked {
            ret.on_returned(t);
        }
        recv_ack(&mut ret, t, a, &[], 0);
        assert_eq!(echo.tp.delivered_ce, ret.tp.delivered_ce, "ACK {a}");
        assert_eq!(alpha(&echo), alpha(&ret), "ACK {a}");
        rose |= alpha(&ret) > 0.0;
    }
    assert!(rose, "the marks must move alpha");
    assert_eq!(ret.stats.returns_received, 18);
}

#[test]
fn test_recovery_widened_reordering_window_decays_once_its_persistence_is_spent() {
    // RACK's window was widened by D-SACKs to 3 steps of min_rtt/4 and has
    // `persist` recoveries of persistence left. Then a real loss: segment 2
    // is lost, SACKs mark it, it is retransmitted, and the retransmission
    // is delivered a round trip later (no D-SACK, nothing to undo). The
    // recovery that ends so spends one recovery of persistence (Linux
    // `tcp_try_undo_recovery`); once none is left, the next ACK that
    // delivers data falls back to one step (`tcp_rack_update_reo_wnd`).
    for (persist, steps_after) in [(1u32, 1u32), (2, 3)] {
        let c = TcpConfig {
            timestamps: false,
            ..linux_cfg()
        };
        let mut s = sender_after_two_acks(c, reno(), None);
        s.rack.reo_wnd_steps = 3;
        s.rack.reo_wnd_persist = persist;
        recv_ack(&mut s, ms(101), 2, &[(3, 4)], 0);
        recv_ack(&mut s, ms(102), 2, &[(3, 5)], 0);
        let out = recv_ack(&mut s, ms(103), 2, &[(3, 6)], 0);
        assert_eq!(s.tp.ca_state, CaState::Recovery);
        assert_eq!(sent(&out)[0], rtx(2));
        let high = s.high_seq / MSS;
        // The retransmission arrives: everything up to the recovery point
        // is acknowledged, a round trip after it left.
        recv_ack(&mut s, ms(203), high, &[], 0);
        assert_eq!(s.tp.ca_state, CaState::Open, "persist {persist}");
        assert_eq!(s.stats.undos, 0);
        assert_eq!(s.stats.dsack_dups, 0);
        assert_eq!(s.rack.reo_wnd_persist, persist - 1);
        // The next ACK that delivers data.
        recv_ack(&mut s, ms(204), high + 1, &[], 0);
        assert_eq!(s.rack.reo_wnd_steps, steps_after, "persist {persist}");
    }
}

/// The TSQ budget's 64-bit path equals the 128-bit formula it replaces,
/// including the clamp of a rate above 2⁶⁴−1 bit/s and the fallback when
/// cwnd·mss·pct·10⁷ does not fit in 64 bits.
mod tsq_window {
    use super::super::{tsq_window_bytes_per_ms, tsq_window_reached, tsq_window_wide};
    use crate::sim::Dur;
    use proptest::prelude::*;

    fn reference(cwnd: u32, mss: u32, pct: u64, srtt: Dur) -> u64 {
        tsq_window_wide(cwnd, mss, pct, srtt.ps().max(1))
    }

    #[test]
    fn edges() {
        let cases = [
            (10, 1448, 200, 0),
            (10, 1448, 120, 1),
            (u32::MAX, u32::MAX, 200, 1),
            (u32::MAX, 1448, 120, 20_000_000_000),
            (1, 1, 120, u64::MAX),
            // 10 Gb/s with a 20 ms RTT: 16 667 packets of 1448 bytes.
            (16_667, 1448, 120, 20_000_000_000),
            // Just past the 64-bit bound of cwnd·mss·pct·10⁷.
            (1_000_000, 9000, 200, 3),
        ];
        for (cwnd, mss, pct, srtt) in cases {
            let d = Dur::from_ps(srtt);
            assert_eq!(
                tsq_window_bytes_per_ms(cwnd, mss, pct, d),
                reference(cwnd, mss, pct, d),
                "cwnd {cwnd} mss {mss} pct {pct} srtt {srtt}"
            );
        }
        // 16 667 × 1448 B per 20 ms at 120 %: 1.448 MB per ms.
        assert_eq!(
            tsq_window_bytes_per_ms(16_667, 1448, 120, Dur::from_ps(20_000_000_000)),
            16_667 * 1448 * 120 / 100 / 20
        );
    }

    proptest! {
        #[test]
        fn equals_the_wide_formula(
            cwnd in prop_oneof![1u32..100_000, any::<u32>()],
            mss in prop_oneof![500u32..9001, any::<u32>()],
            slow in any::<bool>(),
            srtt in prop_oneof![0u64..1_000_000, 1_000_000u64..1_000_000_000_000, any::<u64>()],
        ) {
            let pct = if slow { 200 } else { 120 };
            let d = Dur::from_ps(srtt);
            prop_assert_eq!(tsq_window_bytes_per_ms(cwnd, mss, pct, d), reference(cwnd, mss, pct, d));
        }

        /// The sender's TSQ check equals `nic_bytes >= tsq_limit()`, with
        /// and without a pacing rate (and a rate cap), in and out of slow
        /// start, for NIC occupancies around two packets, the budget and
        /// the `tsq_bytes` cap.
        #[test]
        fn full_is_the_limit_reached(
            cwnd in prop_oneof![1u32..100_000, Just(i32::MAX as u32)],
            ssthresh in prop_oneof![Just(crate::cc::INFINITE_SSTHRESH), 1u32..100_000],
            srtt in prop_oneof![0u64..1_000_000, 1_000_000u64..1_000_000_000_000],
            pacing in prop_oneof![Just(0u64), 1u64..100_000_000_000],
            wants_pacing in any::<bool>(),
            cap in prop_oneof![Just(0u64), 1u64..100_000_000_000],
            tsq_bytes in prop_oneof![1u64..10_000, 10_000u64..10_000_000],
            nic in prop_oneof![0u64..10_000, 0u64..10_000_000, any::<u64>()],
        ) {
            let cfg = crate::config::TcpConfig {
                handshake: false,
                tsq_bytes,
                max_rate_bps: cap,
                ..Default::default()
            };
            let cc = crate::cc::make(&crate::config::CcConfig::Reno, crate::sim::rng_for(0, "cc"));
            let mut s = super::super::Sender::new(super::ep(), cfg, cc, None, None);
            s.caps.wants_pacing = wants_pacing;
            s.tp.snd_cwnd = cwnd;
            s.tp.snd_ssthresh = ssthresh;
            s.tp.srtt = Dur::from_ps(srtt);
            s.tp.pacing_rate_bps = pacing;
            let limit = s.tsq_limit();
            let two = 2 * (s.cfg.mss_bytes + s.cfg.header_bytes) as u64;
            for n in [nic, limit, limit.saturating_sub(1), limit + 1, two, two - 1, tsq_bytes] {
                s.nic_bytes = n;
                prop_assert_eq!(s.tsq_full(), n >= limit, "nic {} limit {}", n, limit);
            }
        }

        /// The division-free test equals the comparison with the budget,
        /// for byte counts around the budget, far from it, and at the clamp.
        #[test]
        fn reached_is_the_comparison_with_the_budget(
            cwnd in prop_oneof![1u32..100_000, Just(i32::MAX as u32), any::<u32>()],
            mss in prop_oneof![500u32..9001, any::<u32>()],
            slow in any::<bool>(),
            srtt in prop_oneof![0u64..1_000_000, 1_000_000u64..1_000_000_000_000, any::<u64>()],
            off in -3i64..4,
            far in any::<u64>(),
        ) {
            let pct = if slow { 200 } else { 120 };
            let d = Dur::from_ps(srtt);
            let budget = tsq_window_bytes_per_ms(cwnd, mss, pct, d);
            let near = budget.saturating_add_signed(off);
            for bytes in [near, far, 0, u64::MAX] {
                prop_assert_eq!(
                    tsq_window_reached(bytes, cwnd, mss, pct, d),
                    bytes >= budget,
                    "bytes {} budget {}", bytes, budget
                );
            }
        }
    }
}

mod rack_tail;
mod tso_bursts;
mod tso_segs;
