//! The TCP sender: handshake, transmission, the SACK scoreboard, loss
//! recovery, the retransmission timer, delivery-rate sampling and the calls
//! into the congestion control in the order `cc/mod.rs` documents.
//!
//! This file holds the sender's state, its construction and the
//! handshake; the paths are split where Linux splits them:
//! `sender/input.rs` (an ACK arriving, `tcp_input.c`'s `tcp_ack`), `recovery.rs`
//! (loss marking, Recovery/CWR/undo, `tcp_fastretrans_alert`), `output.rs`
//! (sending and pacing, `tcp_output.c`) and `timers.rs` (RTO, loss probe,
//! reordering timer, `tcp_timer.c`).
//!
//! # Scoreboard
//! Outstanding segments `[snd_una, snd_nxt)` sit in a ring, oldest first;
//! every segment is one MSS except possibly the last of the stream, so a
//! sequence number maps to its slot by division. Each slot carries Linux's
//! `sacked` bits (SACKED, LOST, RETRANS, EVER_RETRANS) and the delivery-rate
//! snapshot taken when it was sent (`tcp_rate_skb_sent`). Counters follow
//! Linux: `packets_out`, `sacked_out`, `lost_out`, `retrans_out`, and
//! in flight = out − (sacked + lost) + retrans.
//!
//! Per-ACK work is independent of the window: SACK blocks are diffed against
//! a small set of already-SACKed ranges so only newly SACKed slots are
//! touched; loss marking (RFC 6675 `IsLost`: a hole with at least DupThresh
//! SACKed segments above it) and the retransmission search advance
//! monotone hints instead of rescanning.
//!
//! # Loss detection (Linux `tcp_identify_packet_loss`)
//! - With SACK and `rack` (the default, Linux `tcp_recovery` = 1): RACK
//!   (RFC 8985 §6, `tcp::rack`): a segment, original or retransmission, is
//!   lost when one sent after it has been delivered and it has waited that
//!   one's RTT plus the reordering window; a segment not yet old enough
//!   arms the reordering timer. DupThresh counting is not used.
//! - With SACK and without `rack`: RFC 6675 `IsLost` (a hole with at least
//!   DupThresh SACKed segments above it), and a retransmission is lost when
//!   a segment sent after it is delivered first (RACK's rule with no
//!   reordering window).
//! - Without SACK: NewReno (RFC 6582): the head is lost at DupThresh
//!   duplicate ACKs, and again after every partial ACK in Recovery.
//!
//! # Recovery (Linux `tcp_fastretrans_alert`)
//! - Open → Disorder when SACKs or duplicate ACKs arrive;
//! - → Recovery when a segment is marked lost; `ssthresh()` is taken
//!   (unless coming from CWR, whose reduction continues, as in Linux),
//!   cwnd follows Proportional Rate Reduction (RFC 6937) and is set to
//!   ssthresh when `snd_una` passes the recovery point `high_seq`;
//! - → CWR on an ACK with ECE (RFC 3168 §6.1.2: once per window): the same
//!   reduction, and CWR is set on the next new data segment; CWR ends when
//!   `snd_una` is beyond `high_seq` (Linux), so an ECE on the ACK of exactly
//!   `high_seq` does not reduce again;
//! - RTO (RFC 6298, Linux `tcp_enter_loss`): `ssthresh()` unless a reduction
//!   is under way whose recovery point is not yet acknowledged (so an RTO in
//!   Recovery, CWR or Loss does not reduce twice), un-SACKed segments marked
//!   lost (with RACK, all but those sent less than RACK's RTT ago, the head
//!   always), cwnd = in flight + 1, state Loss until `high_seq` is
//!   acknowledged; the RTO backs off.
//!
//! # Undoing spurious reductions (Linux `tcp_try_undo_*`)
//! A reduction (Recovery or Loss, not CWR) records where it began
//! (`undo_marker`), the cwnd and ssthresh before it, and counts its
//! retransmissions (`undo_retrans`). It is undone, cwnd set back by the
//! control's `undo_cwnd()` and ssthresh restored, when
//! - every retransmission came back as a D-SACK (RFC 2883 §5: both copies
//!   arrived): `tcp_try_undo_dsack` and at the recovery point;
//! - with timestamps, an ACK echoes a timestamp older than the first
//!   retransmission (Eifel, RFC 3522: the original was delivered), at the
//!   recovery point, on a partial ACK in Recovery (a delayed original filled
//!   the hole: reordering) or on any advancing ACK in Loss;
//! - with F-RTO (RFC 5682 §3, SACK-enhanced, Linux's variant): after an
//!   RTO, the first ACK that advances `snd_una` sends new data instead of
//!   retransmitting (step 2b); if the next ACK delivers a segment sent
//!   before the RTO and never retransmitted, the timeout was spurious.
//!
//! # Tail loss probe (RFC 8985 §7, Linux `tcp_schedule_loss_probe`)
//! In Open or CWR, after sending new data and on every ACK that advances
//! `snd_una`, the retransmission timer is set to the probe timeout
//! PTO = 2·SRTT + 2 ms (+ the minimum RTO instead of 2 ms with one packet
//! out; 1 s without an RTT sample), no later than the RTO. When it fires,
//! one new segment is sent whatever cwnd says, or the last segment is
//! retransmitted; its ACK's SACK lets RACK find the tail loss. A probe that
//! repaired a loss (an ACK beyond it with no D-SACK) costs a CWR-style
//! reduction (Linux `tcp_process_tlp_ack`).
//!
//! # The retransmission timer
//! One timer in one of three exclusive modes ([`XmitTimer`], Linux
//! `icsk_pending`): RTO, RACK's reordering timeout, or the loss probe. An
//! ACK that advances `snd_una` restarts it (RFC 6298 §5.3) as a probe when
//! one may be scheduled, else as the RTO; RACK's timer overrides both while
//! a segment waits out the reordering window; when a reordering timeout or
//! probe rearms the RTO, the RTO keeps counting from the head's
//! transmission (Linux `tcp_rearm_rto`).
//!
//! # Pacing
//! When the control asks for it (`wants_pacing`), segments leave no earlier
//! than `tp.wstamp`, which advances by each segment's payload at
//! `tp.pacing_rate_bps` (Linux's internal pacing, `tcp_update_skb_after_send`:
//! the first 10 segments unpaced, up to half a gap forgiven after a stall).
//! `max_rate_bps`, a NIC or bus cap, spaces whole wire packets.

use super::rack::Rack;
use super::rtt::RttEstimator;
use super::{ts_before, ts_ms, Endpoints, Out, TimerKind};
use crate::cc::{
    ack_flags, AckSample, CaEvent, CaState, CongestionControl, Control, LostSegment, RateSample,
    TcpSock,
};
use crate::config::{CopyEffect, TcpConfig};
use crate::net::packet::{flags, Ecn, Packet, Proto};
use crate::sim::{Dur, LazyTimer, Time, TimerFire, PS_PER_MS};
use crate::tcp::ranges::RangeSet;
use std::collections::VecDeque;

/// RFC 6298 §5.7 (Linux `TCP_TIMEOUT_FALLBACK`): the RTO when data
/// transmission begins after a SYN timeout left no RTT sample.
const SYN_FALLBACK_RTO: Dur = Dur::from_ps(3 * crate::sim::PS_PER_S);

/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 1000): the slack added to the
/// probe and reordering timeouts.
const TIMEOUT_MIN: Dur = Dur::from_ps(2 * PS_PER_MS);

/// The retransmission timer's mode (Linux `icsk_pending`): exactly one is
/// armed at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XmitTimer {
    /// Retransmission timeout (RFC 6298).
    Rto,
    /// RACK's reordering timeout (RFC 8985 §6.3).
    Reo,
    /// Tail loss probe (RFC 8985 §7).
    Probe,
}

/// What one ACK did, as Linux's `FLAG_*` bits, and the facts the later
/// steps of the ACK path need.
#[derive(Clone, Copy, Debug, Default)]
struct AckFacts {
    /// `snd_una` moved (`FLAG_SND_UNA_ADVANCED`).
    una_advanced: bool,
    /// New SACK information (`FLAG_DATA_SACKED`).
    data_sacked: bool,
    /// A segment sent before `high_seq` and never retransmitted was acked
    /// or SACKed (`FLAG_ORIG_SACK_ACKED`).
    orig_sack_acked: bool,
    /// The ACK carried a valid D-SACK (`FLAG_DSACKING_ACK`).
    dsack: bool,
    /// The D-SACK reports the loss probe's retransmission (`FLAG_DSACK_TLP`).
    dsack_tlp: bool,
    /// A retransmission was found lost on this ACK (`FLAG_LOST_RETRANS`).
    lost_retrans: bool,
    /// Restart the retransmission timer after this ACK
    /// (`FLAG_SET_XMIT_TIMER`), unless RACK armed its own.
    set_xmit_timer: bool,
    ece: bool,
    /// Packets newly acked or SACKed.
    newly: u32,
    /// Send times of the oldest and newest never-retransmitted segments the
    /// cumulative ACK covered, and of the newest newly SACKed one (RTT).
    first_ackt: Option<Time>,
    last_ackt: Option<Time>,
    sack_rtt: Option<Time>,
    /// Lowest start of a never-retransmitted segment delivered below the
    /// highest SACKed sequence: reordering (Linux `state->reord`).
    reord: Option<u64>,
    /// (send time, end seq) of the most recently sent segment delivered
    /// (for the no-RACK lost-retransmission rule).
    newest_delivered: (Time, u64),
}

// Scoreboard bits of a segment (Linux `TCPCB_*`).
/// How far ahead of the cumulative ACK `cumulative_ack` prefetches the
/// scoreboard (segments; an ACK covers about two).
const SEG_AHEAD: usize = 8;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// Retransmitted and the retransmission still outstanding.
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;
/// Its delivery was already counted in a rate sample (SACKed first).
const RATE_DONE: u8 = 16;

/// Delivery-rate state when a segment was (last) sent (`skb->tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxSnap {
    delivered: u64,
    delivered_ce: u64,
    delivered_time: Time,
    first_tx: Time,
    app_limited: bool,
    /// `tp.lost` when sent (Linux v3 `tx.lost`).
    lost: u64,
    /// Packets in flight once this one left, itself included (Linux v3
    /// `tx.in_flight`).
    in_flight: u32,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    seq: u64,
    len: u32,
    bits: u8,
    sent: Time,
    tx: TxSnap,
}

impl Seg {
    #[inline]
    fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the application to start.
    Idle,
    SynSent,
    Established,
    /// All data acknowledged (byte-limited flows).
    Done,
}

/// Counters reported per flow.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub bytes_sent: u64,
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub recoveries: u64,
    pub ece_acks: u64,
    /// Copies of this flow's segments returned by switches (packet return).
    pub returns_received: u64,
    /// Retransmissions found lost (a later segment was delivered first).
    pub lost_retransmits: u64,
    /// Tail loss probes sent.
    pub loss_probes: u64,
    /// Segments the receiver reported received twice (D-SACK).
    pub dsack_dups: u64,
    /// Reductions undone as spurious (D-SACK, Eifel or F-RTO).
    pub undos: u64,
    /// Of those, timeouts found spurious by F-RTO.
    pub spurious_rtos: u64,
    /// SYN retransmissions (the handshake's timeouts, not in `timeouts`).
    pub syn_retransmits: u64,
    /// Of the connections whose SYN was retransmitted, 1 if the SYN-ACK
    /// showed the first SYN was only late (its timestamp echoed).
    pub spurious_syns: u64,
    pub completion: Option<Time>,
}

pub struct Sender {
    ep: Endpoints,
    cfg: TcpConfig,
    pub tp: TcpSock,
    pub cc: Control,
    /// What the control declares of itself, asked once at construction
    /// (a control's answers are constant): its hooks are not called on the
    /// per-packet path to learn them.
    caps: CcCaps,
    pub phase: Phase,
    segs: VecDeque<Seg>,
    sacked: RangeSet,
    /// The previous ACK's SACK blocks (`sender/sack_cache.rs`).
    sack_cache: sack_cache::SackCache,
    scratch: Vec<(u64, u64)>,
    pub rtt: RttEstimator,
    /// The retransmission timer, in mode `xmit_mode`.
    rto_timer: LazyTimer,
    xmit_mode: XmitTimer,
    pacing_timer: LazyTimer,
    syn_sent: Option<Time>,
    syn_retransmitted: bool,
    /// The timestamp the first SYN carried (Linux `retrans_stamp` of a SYN).
    first_syn_ts: Option<u32>,
    // Loss marking and retransmission hints (indices into `segs`).
    lost_hint: usize,
    sacked_below_hint: u32,
    retx_hint: usize,
    lost_frontier: usize,
    /// Outstanding retransmissions as (seq, send time), oldest first, for
    /// detecting lost retransmissions.
    retx_queue: VecDeque<(u64, Time)>,
    // RACK (with SACK and `cfg.rack`).
    rack: Rack,
    /// Every never-retransmitted segment below this index is decided
    /// (SACKed or lost) for RACK's walk.
    rack_hint: usize,
    /// Linux `tp->reordering`: DupThresh, raised when reordering is seen.
    reordering: u32,
    // Reductions.
    high_seq: u64,
    prr_delivered: u32,
    prr_out: u32,
    queue_cwr: bool,
    // Undo (Linux `undo_marker`, `undo_retrans`, `retrans_stamp`,
    // `prior_ssthresh`).
    undo_marker: Option<u64>,
    undo_retrans: i64,
    /// Timestamp (ms clock) of the episode's first retransmission.
    retrans_stamp: Option<u32>,
    prior_ssthresh: u32,
    /// The echoed timestamp of the ACK being processed (0: none).
    ack_tsecr: u32,
    /// Segments reported duplicate so far, against retransmissions sent
    /// (Linux `dsack_dups` vs `total_retrans`: more is a dubious D-SACK).
    dsack_dups: u64,
    /// A timer event to schedule when the current entry point returns.
    timer_push: Option<Time>,
    // F-RTO (Linux `tp->frto`) and the RTOs in a row (`icsk_retransmits`).
    frto: bool,
    rto_retransmits: u32,
    /// F-RTO step 2b: the next transmission round sends new data only.
    frto_send_new: bool,
    // Tail loss probe (Linux `tlp_high_seq`, `tlp_retrans`).
    tlp_high_seq: Option<u64>,
    tlp_retrans: bool,
    // Flow control and the application.
    rwnd: u64,
    app_end: Option<u64>,
    stop: Option<Time>,
    /// The application keeps writing (`write`): no FIN, never Done.
    open_stream: bool,
    // Rate sampling (Linux `tcp_rate.c`; `delivered_mstamp` and
    // `app_limited` live in `tp`, where BBR reads and writes them).
    first_tx_time: Time,
    cwnd_usage_seq: u64,
    cwnd_limited_raw: bool,
    // TCP small queues.
    nic_bytes: u64,
    tsq_throttled: bool,
    /// The receiver's ACE counter as last read (AccECN, `tcp::accecn`).
    ace: super::accecn::AceCounter,
    pub stats: SenderStats,
}

/// A control's constant declarations (`has_cong_control`, `needs_ecn`,
/// `wants_pacing`), cached by the sender.
#[derive(Clone, Copy, Debug)]
struct CcCaps {
    cong_control: bool,
    needs_ecn: bool,
    wants_pacing: bool,
    /// Sends ECT(1) and asks for AccECN (`CongestionControl::l4s`).
    l4s: bool,
}

/// TCP small queues' budget without a pacing rate: one millisecond of
/// `pct` % of cwnd/srtt, in bytes (Linux `tcp_update_pacing_rate` then
/// `tcp_small_queue_check`'s `sk_pacing_rate >> 10`, here /1000). Exactly
/// `min(cwnd·mss·8·pct·10¹² / 100 / srtt, 2⁶⁴−1) / 8 / 1000` (integer
/// divisions), computed as `cwnd·mss·pct·10⁷ / srtt` in 64 bits when that
/// product fits (nested floor divisions compose, and 10¹²·8/100/8000 =
/// 10⁷), else in 128 bits; the clamp becomes a clamp of the quotient.
/// The sender asks only [`tsq_window_reached`]; this is kept as its
/// definition, for the tests.
#[cfg(test)]
fn tsq_window_bytes_per_ms(cwnd: u32, mss: u32, pct: u64, srtt: Dur) -> u64 {
    const CLAMPED: u64 = u64::MAX / 8 / 1000;
    let srtt = srtt.ps().max(1);
    match (cwnd as u64 * mss as u64)
        .checked_mul(pct)
        .and_then(|a| a.checked_mul(10_000_000))
    {
        Some(n) => (n / srtt).min(CLAMPED),
        None => tsq_window_wide(cwnd, mss, pct, srtt),
    }
}

/// `bytes >= tsq_window_bytes_per_ms(cwnd, mss, pct, srtt)` without the
/// division: with N = cwnd·mss·pct·10⁷ and d = max(srtt, 1), the budget is
/// min(⌊N/d⌋, CLAMPED), and `bytes ≥ ⌊N/d⌋` exactly when
/// (bytes + 1)·d > N. Every product fits in 128 bits (N < 2⁹⁶). The TSQ
/// check only asks this question, on every send: on a path where the
/// control's cwnd is huge (Fractional's sits at 2³¹−1 on E3's lossy path)
/// the budget itself takes the 128-bit division.
#[inline]
fn tsq_window_reached(bytes: u64, cwnd: u32, mss: u32, pct: u64, srtt: Dur) -> bool {
    const CLAMPED: u64 = u64::MAX / 8 / 1000;
    let n = cwnd as u128 * mss as u128 * pct as u128 * 10_000_000;
    let d = srtt.ps().max(1) as u128;
    bytes >= CLAMPED || (bytes as u128 + 1) * d > n
}

/// [`tsq_window_bytes_per_ms`] in 128 bits, as first written.
#[cfg(test)]
fn tsq_window_wide(cwnd: u32, mss: u32, pct: u64, srtt_ps: u64) -> u64 {
    let bits = cwnd as u128 * mss as u128 * 8;
    let rate = (bits * pct as u128 * crate::sim::PS_PER_S as u128 / 100 / srtt_ps as u128)
        .min(u64::MAX as u128) as u64;
    rate / 8 / 1000
}

impl CcCaps {
    fn of(cc: &dyn CongestionControl) -> Self {
        CcCaps {
            cong_control: cc.has_cong_control(),
            needs_ecn: cc.needs_ecn(),
            wants_pacing: cc.wants_pacing(),
            l4s: cc.l4s(),
        }
    }
}

/// What an ACK did, for the caller's tracing.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckOutcome {
    pub newly_acked_sacked: u32,
    pub ece: bool,
}

impl Sender {
    pub fn new(
        ep: Endpoints,
        cfg: TcpConfig,
        cc: impl Into<Control>,
        app_end: Option<u64>,
        stop: Option<Time>,
    ) -> Self {
        let cc = cc.into();
        let mut tp = TcpSock::new(cfg.mss_bytes, cfg.init_cwnd_pkts);
        let caps = CcCaps::of(&cc);
        tp.ecn_ok = !cfg.handshake && (cfg.ecn || caps.needs_ecn);
        tp.accecn_ok = tp.ecn_ok && caps.l4s;
        let rtt = RttEstimator::new(
            Dur::from_ps(cfg.init_rto_ps),
            Dur::from_ps(cfg.min_rto_ps),
            Dur::from_ps(cfg.max_rto_ps),
        );
        let dupthresh = cfg.dupthresh;
        Sender {
            ep,
            rwnd: cfg.rwnd_bytes,
            cfg,
            tp,
            cc,
            caps,
            phase: Phase::Idle,
            segs: VecDeque::with_capacity(256),
            sacked: RangeSet::new(),
            sack_cache: Default::default(),
            scratch: Vec::with_capacity(8),
            rtt,
            rto_timer: LazyTimer::default(),
            xmit_mode: XmitTimer::Rto,
            pacing_timer: LazyTimer::default(),
            syn_sent: None,
            syn_retransmitted: false,
            first_syn_ts: None,
            lost_hint: 0,
            sacked_below_hint: 0,
            retx_hint: 0,
            lost_frontier: 0,
            retx_queue: VecDeque::with_capacity(64),
            rack: Rack::default(),
            rack_hint: 0,
            reordering: dupthresh,
            high_seq: 0,
            prr_delivered: 0,
            prr_out: 0,
            queue_cwr: false,
            undo_marker: None,
            undo_retrans: -1,
            retrans_stamp: None,
            prior_ssthresh: 0,
            ack_tsecr: 0,
            dsack_dups: 0,
            timer_push: None,
            frto: false,
            rto_retransmits: 0,
            frto_send_new: false,
            tlp_high_seq: None,
            tlp_retrans: false,
            app_end,
            stop,
            open_stream: false,
            first_tx_time: Time::ZERO,
            cwnd_usage_seq: 0,
            cwnd_limited_raw: false,
            nic_bytes: 0,
            tsq_throttled: false,
            ace: Default::default(),
            stats: SenderStats::default(),
        }
    }

    /// Keeps the stream open for messages: the application `write`s them
    /// one after another, no FIN is sent and the sender is never Done (the
    /// control streams of a file-transfer task, `app::ftp`).
    pub fn set_open_stream(&mut self) {
        self.open_stream = true;
        self.app_end.get_or_insert(0);
    }

    /// The application writes `bytes` more; they leave as cwnd allows
    /// (at once if the connection is established).
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Out) {
        self.tp.now = now;
        // Linux tcp_sendmsg_locked: the app-limited check runs first, on
        // what the application had left before this write.
        self.check_app_limited(now);
        *self.app_end.get_or_insert(0) += bytes;
        self.try_send(now, out);
    }

    fn wants_ecn(&self) -> bool {
        self.cfg.ecn || self.caps.needs_ecn
    }

    /// The application starts: open the connection.
    pub fn start(&mut self, now: Time, out: &mut Out) {
        self.tp.now = now;
        if self.phase != Phase::Idle {
            return;
        }
        if self.cfg.handshake {
            self.phase = Phase::SynSent;
            self.send_syn(now, out);
        } else {
            self.establish(now, out);
        }
    }

    fn send_syn(&mut self, now: Time, out: &mut Out) {
        let mut f = flags::SYN;
        if self.wants_ecn() {
            f |= flags::ECE | flags::CWR; // RFC 3168 §6.1.1: ECN-setup SYN
            if self.caps.l4s {
                f |= super::accecn::AE; // AccECN-setup SYN
            }
        }
        let mut syn = self.packet(now, f, 0, 0, Ecn::NotEct);
        if self.cfg.timestamps {
            syn.ts_val = ts_ms(now); // RFC 7323 §3.2: the SYN offers them
        }
        out.pkts.push(syn);
        if self.syn_sent.is_some() {
            self.syn_retransmitted = true;
        } else {
            self.first_syn_ts = Some(ts_ms(now));
        }
        self.syn_sent = Some(now);
        self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        self.flush_timer(out);
    }

    fn establish(&mut self, now: Time, out: &mut Out) {
        self.phase = Phase::Established;
        self.tp.delivered_mstamp = now;
        self.first_tx_time = now;
        self.cc.init(&mut self.tp);
        self.try_send(now, out);
    }

    #[inline]
    fn packet(&self, now: Time, tcp_flags: u8, seq: u64, len: u32, ecn: Ecn) -> Packet {
        Packet {
            size_bytes: len + self.cfg.header_bytes,
            payload_bytes: len,
            flow: self.ep.flow,
            src: self.ep.src,
            dst: self.ep.dst,
            sport: self.ep.sport,
            dport: self.ep.dport,
            proto: Proto::Tcp,
            ecn,
            tcp_flags,
            seq,
            rwnd_bytes: 0,
            born_ps: now.ps(),
            ..Default::default()
        }
    }

    fn sync_tp(&mut self, now: Time) {
        self.tp.now = now;
        self.tp.srtt = self.rtt.srtt().unwrap_or(Dur::ZERO);
        self.tp.min_rtt = self.rtt.min_rtt();
        self.tp.is_cwnd_limited = self.is_cwnd_limited();
    }

    /// Linux `tcp_is_cwnd_limited`.
    fn is_cwnd_limited(&self) -> bool {
        if self.cwnd_limited_raw {
            return true;
        }
        self.tp.in_slow_start() && self.tp.snd_cwnd < 2 * self.tp.max_packets_out
    }

    #[inline]
    fn seg_index(&self, seq: u64) -> usize {
        ((seq - self.tp.snd_una) / self.cfg.mss_bytes as u64) as usize
    }

    // ------------------------------------------------------------------
    // ACK processing: the one per-ACK path, in the order of `cc/mod.rs`.
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Step 4: loss detection and the recovery state machine.
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Delivery-rate sampling (Linux tcp_rate.c).
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Timers.
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Transmission.
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Inspection.
    // ------------------------------------------------------------------

    pub fn in_flight(&self) -> u32 {
        self.tp.in_flight()
    }

    /// Checks the scoreboard counters against the slots (tests, debug).
    pub fn audit(&self) -> Result<(), String> {
        let count = |m: u8| self.segs.iter().filter(|s| s.bits & m != 0).count() as u32;
        let (sacked, lost, retrans) = (count(SACKED), count(LOST), count(RETRANS));
        if self.segs.len() as u32 != self.tp.packets_out {
            return Err(format!(
                "packets_out {} != {} slots",
                self.tp.packets_out,
                self.segs.len()
            ));
        }
        if self.cfg.sack && sacked != self.tp.sacked_out {
            return Err(format!("sacked_out {} != {}", self.tp.sacked_out, sacked));
        }
        if lost != self.tp.lost_out {
            return Err(format!("lost_out {} != {}", self.tp.lost_out, lost));
        }
        if retrans != self.tp.retrans_out {
            return Err(format!(
                "retrans_out {} != {}",
                self.tp.retrans_out, retrans
            ));
        }
        Ok(())
    }

    /// The segments SACKed right now, as (seq, len), for tests.
    pub fn sacked_segments(&self) -> Vec<(u64, u32)> {
        self.segs
            .iter()
            .filter(|s| s.bits & SACKED != 0)
            .map(|s| (s.seq, s.len))
            .collect()
    }

    /// The segments marked lost right now, for tests.
    pub fn lost_segments(&self) -> Vec<u64> {
        self.segs
            .iter()
            .filter(|s| s.bits & LOST != 0)
            .map(|s| s.seq)
            .collect()
    }

    pub fn segment_index_of(&self, seq: u64) -> usize {
        self.seg_index(seq)
    }

    pub fn endpoints(&self) -> Endpoints {
        self.ep
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// How many variables [`Sender::trace_vars`] gives per sample.
    pub const TRACED_VARS: usize = 12;

    /// The loss-recovery state for tracing (`record.tcp_vars`), as
    /// (name, value) pairs: the counters of [`SenderStats`] so far, and
    /// RACK's reordering window (RFC 8985 §6.2) as the next detection
    /// outside recovery would use it.
    pub fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        let s = &self.stats;
        out("tcp.retransmits", s.retransmits as f64);
        out("tcp.timeouts", s.timeouts as f64);
        out("tcp.recoveries", s.recoveries as f64);
        out("tcp.loss_probes", s.loss_probes as f64);
        out("tcp.dsack_dups", s.dsack_dups as f64);
        out("tcp.undos", s.undos as f64);
        out("tcp.spurious_rtos", s.spurious_rtos as f64);
        out("tcp.reordering", self.reordering as f64);
        out("tcp.rack_reord_seen", self.rack.reord_seen as u8 as f64);
        out("tcp.rack_reo_wnd_steps", self.rack.reo_wnd_steps as f64);
        out("tcp.rack_reo_wnd_persist", self.rack.reo_wnd_persist as f64);
        let wnd = self
            .rack
            .reo_wnd(false, 0, self.reordering, self.tp.min_rtt, self.tp.srtt);
        out("tcp.rack_reo_wnd_us", wnd.ps() as f64 / 1e6);
    }
}

mod input;
mod output;
mod rack_tail;
mod recovery;
mod sack_cache;
mod timers;
mod tso;
mod tso_send;

#[cfg(test)]
mod tests;
