//! The TCP sender: handshake, transmission, the SACK scoreboard, loss
//! recovery, the retransmission timer, delivery-rate sampling and the calls
//! into the congestion control in the order `cc/mod.rs` documents.
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
    ack_flags, AckSample, CaEvent, CaState, CongestionControl, Control, RateSample, TcpSock,
};
use crate::config::TcpConfig;
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
    pub stats: SenderStats,
}

/// A control's constant declarations (`has_cong_control`, `needs_ecn`,
/// `wants_pacing`), cached by the sender.
#[derive(Clone, Copy, Debug)]
struct CcCaps {
    cong_control: bool,
    needs_ecn: bool,
    wants_pacing: bool,
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

    /// Arms the retransmission timer in `mode` for `at`; the event to
    /// schedule, if any, waits in `timer_push` until the entry point
    /// returns ([`Self::flush_timer`]).
    fn arm_xmit(&mut self, mode: XmitTimer, at: Time) {
        self.xmit_mode = mode;
        if let Some(t) = self.rto_timer.arm(at) {
            // Each event the lazy timer asks for is earlier than the last.
            self.timer_push = Some(t);
        }
    }

    fn flush_timer(&mut self, out: &mut Out) {
        if let Some(at) = self.timer_push.take() {
            out.timers.push((at, TimerKind::Rto));
        }
    }

    /// Time left until the RTO of the head segment, counted from its last
    /// transmission (Linux `tcp_rto_delta_us`); may be zero.
    fn rto_delta(&self, now: Time) -> Dur {
        match self.segs.front() {
            Some(h) => (h.sent + self.rtt.rto()).saturating_since(now),
            None => self.rtt.rto(),
        }
    }

    /// Linux `tcp_rearm_rto`: the RTO from now, or, when it replaces a
    /// reordering timeout or a probe, from the head's transmission.
    fn rearm_rto(&mut self, now: Time) {
        if self.tp.packets_out == 0 {
            self.rto_timer.disarm();
            return;
        }
        let wait = if self.rto_timer.is_armed() && self.xmit_mode != XmitTimer::Rto {
            self.rto_delta(now).max(Dur::from_ps(1))
        } else {
            self.rtt.rto()
        };
        self.arm_xmit(XmitTimer::Rto, now + wait);
    }

    /// Linux `tcp_schedule_loss_probe`: in Open or CWR with SACK, the probe
    /// timeout PTO = 2·SRTT + 2 ms (+ the minimum RTO instead of 2 ms with
    /// one packet out, for a delayed ACK; 1 s without an RTT sample), no
    /// later than the RTO would fire (`advancing_rto`: a full RTO from now,
    /// as the ACK path restarts it; else what is left of the current one).
    fn schedule_loss_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
        if !(self.cfg.tlp && self.cfg.sack)
            || self.tp.packets_out == 0
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
        {
            return false;
        }
        let mut timeout = match self.rtt.srtt() {
            Some(srtt) => {
                srtt.mul(2)
                    + if self.tp.packets_out == 1 {
                        Dur::from_ps(self.cfg.min_rto_ps)
                    } else {
                        TIMEOUT_MIN
                    }
            }
            None => Dur::from_ps(self.cfg.init_rto_ps),
        };
        let rto_delta = if advancing_rto {
            self.rtt.rto()
        } else {
            self.rto_delta(now)
        };
        if !rto_delta.is_zero() {
            timeout = timeout.min(rto_delta);
        }
        self.arm_xmit(XmitTimer::Probe, now + timeout);
        true
    }

    /// Linux `tcp_set_xmit_timer`: after an ACK that advanced `snd_una`.
    fn set_xmit_timer(&mut self, now: Time, out: &mut Out) {
        if !self.schedule_loss_probe(now, true) {
            self.rearm_rto(now);
        }
        self.flush_timer(out);
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

    /// Handles a packet from the receiver.
    pub fn on_ack(&mut self, now: Time, p: &Packet, out: &mut Out) -> AckOutcome {
        self.tp.now = now;
        match self.phase {
            Phase::SynSent => {
                self.on_syn_ack(now, p, out);
                return AckOutcome::default();
            }
            Phase::Established => {}
            Phase::Idle | Phase::Done => return AckOutcome::default(),
        }
        let ack = p.ack;
        if ack > self.tp.snd_nxt || ack < self.tp.snd_una {
            return AckOutcome::default(); // acks unsent data, or an old ACK
        }
        self.rwnd = p.rwnd_bytes;
        self.ack_tsecr = if self.cfg.timestamps { p.ts_ecr } else { 0 };
        let prior_una = self.tp.snd_una;
        let prior_in_flight = self.tp.in_flight();
        let prior_delivered = self.tp.delivered;
        let prior_lost = self.tp.lost;
        let prior_fack = self.highest_sacked().max(prior_una);
        let mut f = AckFacts {
            ece: self.tp.ecn_ok && p.has(flags::ECE),
            ..Default::default()
        };
        let mut rs = RateSample {
            prior_in_flight,
            ..Default::default()
        };

        // 1. The scoreboard: SACK blocks (D-SACK first), then the
        //    cumulative ACK; RTT from what they delivered.
        if self.cfg.sack && p.n_sack > 0 {
            self.sack_blocks(now, p, prior_una, prior_fack, &mut f, &mut rs);
        }
        if ack > self.tp.snd_una {
            self.cumulative_ack(now, ack, &mut f, &mut rs);
        } else if !self.cfg.sack
            && p.payload_bytes == 0
            && self.tp.packets_out > 0
            && ack == self.tp.snd_una
        {
            // A duplicate ACK without SACK (Linux tcp_add_reno_sack).
            if self.tp.sacked_out + 1 < self.tp.packets_out {
                self.tp.sacked_out += 1;
                f.newly += 1;
            }
        }
        self.tp.delivered += f.newly as u64;
        if f.ece {
            self.tp.delivered_ce += f.newly as u64;
            self.stats.ece_acks += 1;
        }
        let ca_rtt = self.ack_rtt(now, &f);
        if let Some(reord) = f.reord.filter(|&r| r < prior_fack) {
            self.check_reordering(reord, prior_fack);
        }
        self.sync_tp(now);

        // 2. in_ack_event; 3. pkts_acked.
        self.notify_ack(p, &f, ca_rtt, prior_in_flight);

        // 4. RACK's reordering window; the tail-loss-probe episode. Linux
        //    skips a sample whose `prior_delivered` is 0; its client counts
        //    the SYN-ACK as delivered, so data never has 0 there: ours does
        //    not count the handshake, hence the floor of 1.
        if self.rack_on() && rs.delivered.is_some() {
            self.rack
                .update_reo_wnd(rs.prior_delivered.max(1), self.tp.delivered);
        }
        if self.tlp_high_seq.is_some() {
            self.process_tlp_ack(ack, &f);
        }

        // 5. Loss detection and the recovery state machine (undo, F-RTO),
        //    for the ACKs Linux finds dubious (`tcp_ack_is_dubious`): all
        //    but those that advance `snd_una` in Open with nothing to alert.
        let dubious = !f.una_advanced
            || f.data_sacked
            || f.ece
            || f.dsack
            || self.tp.ca_state != CaState::Open;
        if dubious {
            self.fastretrans_alert(now, prior_una, &mut f);
        }
        // 6. The retransmission timer: probe or RTO, unless RACK set its own.
        if f.set_xmit_timer {
            self.set_xmit_timer(now, out);
        }
        let newly_lost = (self.tp.lost - prior_lost) as u32;

        // 7. The rate sample (tcp_rate_gen).
        self.rate_gen(now, f.newly, newly_lost, ca_rtt, &mut rs, prior_delivered);

        // 8. Window: cong_control, or the stack's reduction / growth.
        if self.caps.cong_control {
            self.cc.cong_control(&mut self.tp, ack, &rs);
        } else if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.cwnd_reduction(f.newly, newly_lost, f.una_advanced);
        } else if f.una_advanced {
            self.tp.is_cwnd_limited = self.is_cwnd_limited();
            self.cc.cong_avoid(&mut self.tp, ack, f.newly);
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.clamp(1, self.tp.snd_cwnd_clamp);

        // 9. Completion, then what the window now allows.
        let outcome = AckOutcome {
            newly_acked_sacked: f.newly,
            ece: f.ece,
        };
        if let Some(end) = self.app_end.filter(|_| !self.open_stream) {
            if self.tp.snd_una >= end {
                self.phase = Phase::Done;
                self.stats.completion.get_or_insert(now);
                self.rto_timer.disarm();
                self.pacing_timer.disarm();
                self.timer_push = None;
                return outcome;
            }
        }
        if self.tp.packets_out == 0 {
            self.rto_timer.disarm();
        }
        if self.frto_send_new {
            // F-RTO step 2b (Linux tcp_xmit_recovery, REXMIT_NEW): new data
            // only; if none could go, conventional recovery.
            self.frto_send_new = false;
            self.send(now, out, false);
            if self.tp.snd_nxt <= self.high_seq {
                self.frto = false;
            }
        }
        self.try_send(now, out);
        outcome
    }

    /// The SYN-ACK (Linux `tcp_rcv_synsent_state_process`, then
    /// `tcp_init_transfer`):
    /// - RTT: from the SYN if it was sent once (Karn); after a SYN
    ///   retransmission, from the echoed timestamp when timestamps are on
    ///   (Linux `tcp_ack_update_rtt` falls back to `tcp_rtt_tsopt_us`), to
    ///   the millisecond;
    /// - a SYN timeout is spurious when the SYN-ACK echoes the first SYN's
    ///   timestamp (Linux `tcp_try_undo_spurious_syn`): that SYN was only
    ///   late, not lost;
    /// - no RTT sample at all (a SYN retransmitted without timestamps): the
    ///   RTO falls back to 3 s (RFC 6298 §5.7, Linux `tcp_init_metrics`'s
    ///   `TCP_TIMEOUT_FALLBACK`) instead of keeping the backed-off value;
    /// - the initial window is cut to 1 when the SYN was retransmitted more
    ///   than once and that was not found spurious (RFC 5681 §3.1; Linux
    ///   `tcp_init_transfer`: `total_retrans > 1 && undo_marker`);
    /// - ECN is agreed if both asked; the connection is established.
    fn on_syn_ack(&mut self, now: Time, p: &Packet, out: &mut Out) {
        if !(p.has(flags::SYN) && p.has(flags::ACK)) {
            return;
        }
        let echo = if self.cfg.timestamps { p.ts_ecr } else { 0 };
        let mut spurious = false;
        if let Some(t) = self.syn_sent {
            if !self.syn_retransmitted {
                self.rtt.sample(now.since(t));
            } else if echo != 0 {
                let ms = ts_ms(now).wrapping_sub(echo).max(1);
                self.rtt.sample(Dur::from_ps(ms as u64 * PS_PER_MS));
                spurious = self.first_syn_ts == Some(echo);
            }
        }
        if self.rtt.srtt().is_none() {
            self.rtt.fall_back(SYN_FALLBACK_RTO.max(self.rtt.min_rto()));
        }
        if self.stats.syn_retransmits > 1 && !spurious {
            self.tp.snd_cwnd = 1;
        }
        if spurious {
            self.stats.spurious_syns += 1;
        }
        self.rto_timer.disarm();
        self.tp.ecn_ok = self.wants_ecn() && p.has(flags::ECE);
        self.sync_tp(now);
        self.establish(now, out);
    }

    /// The end of the highest SACKed segment, or `snd_una` (Linux
    /// `tcp_highest_sack_seq`).
    fn highest_sacked(&self) -> u64 {
        self.sacked.ranges().last().map_or(self.tp.snd_una, |r| r.1)
    }

    fn rack_on(&self) -> bool {
        self.cfg.sack && self.cfg.rack
    }

    /// Step 1a: the SACK blocks. A first block below the cumulative ACK, or
    /// inside the second block, is a D-SACK (RFC 2883 §4); the others mark
    /// newly SACKed segments.
    fn sack_blocks(
        &mut self,
        now: Time,
        p: &Packet,
        prior_una: u64,
        fack: u64,
        f: &mut AckFacts,
        rs: &mut RateSample,
    ) {
        let blocks = p.sacks();
        let dsack = self.cfg.dsack
            && (blocks[0].start < p.ack
                || (blocks.len() > 1
                    && blocks[0].end <= blocks[1].end
                    && blocks[0].start >= blocks[1].start));
        if dsack {
            self.dsack_block(blocks[0].start, blocks[0].end, prior_una, f);
        }
        self.scratch.clear();
        for b in &blocks[dsack as usize..] {
            let s = b.start.max(self.tp.snd_una);
            let e = b.end.min(self.tp.snd_nxt);
            if s < e {
                let scratch = &mut self.scratch;
                self.sacked.insert(s, e, |x, y| scratch.push((x, y)));
            }
        }
        let mss = self.cfg.mss_bytes as u64;
        for k in 0..self.scratch.len() {
            let (x, y) = self.scratch[k];
            let mut i = ((x - self.tp.snd_una).div_ceil(mss)) as usize;
            while i < self.segs.len() && self.segs[i].end() <= y {
                let seg = self.segs[i];
                if self.mark_sacked(i, rs) {
                    f.newly += 1;
                    f.data_sacked = true;
                    f.newest_delivered = f.newest_delivered.max((seg.sent, seg.end()));
                    if self.rack_on() {
                        let retrans = seg.bits & EVER_RETRANS != 0;
                        self.rack
                            .advance(now, seg.sent, seg.end(), retrans, self.tp.min_rtt);
                    }
                    if seg.bits & EVER_RETRANS == 0 {
                        // A hole filled by its original: reordering.
                        if seg.seq < fack {
                            f.reord = Some(f.reord.map_or(seg.seq, |r| r.min(seg.seq)));
                        }
                        if seg.end() <= self.high_seq {
                            f.orig_sack_acked = true;
                        }
                        f.sack_rtt = Some(f.sack_rtt.map_or(seg.sent, |t| t.max(seg.sent)));
                    }
                }
                i += 1;
            }
        }
    }

    /// A D-SACK block `[start, end)` (Linux `tcp_check_dsack` and the
    /// D-SACK half of `tcp_sacktag_one`): counts the duplicate, lets the
    /// undo logic know a retransmission was not needed, and RACK widen its
    /// window.
    fn dsack_block(&mut self, start: u64, end: u64, prior_una: u64, f: &mut AckFacts) {
        let mss = self.cfg.mss_bytes as u64;
        let len = end.saturating_sub(start);
        if len == 0 || len > self.rwnd.max(mss) {
            return;
        }
        let dup_segs = len.div_ceil(mss).max(1);
        if len <= mss && self.tlp_high_seq == Some(end) {
            f.dsack_tlp = true;
        }
        self.dsack_dups += dup_segs;
        if self.dsack_dups > self.stats.retransmits {
            return; // more duplicates than retransmissions: dubious
        }
        self.stats.dsack_dups += dup_segs;
        self.rack.dsack_seen = true;
        f.dsack = true;
        let marker = self.undo_marker;
        if end <= prior_una {
            // Already cumulatively acked: count it.
            if marker.is_some_and(|m| end > m) && self.undo_retrans > 0 {
                self.undo_retrans = (self.undo_retrans - dup_segs as i64).max(0);
            }
            return;
        }
        // Within the outstanding window: retransmitted segments it covers.
        let from = start.max(self.tp.snd_una);
        let mut i = ((from - self.tp.snd_una) / mss) as usize;
        while i < self.segs.len() && self.segs[i].seq < end {
            let seg = self.segs[i];
            if seg.bits & EVER_RETRANS != 0 {
                if marker.is_some_and(|m| seg.end() > m) && self.undo_retrans > 0 {
                    self.undo_retrans -= 1;
                }
                if seg.bits & SACKED != 0 {
                    f.reord = Some(f.reord.map_or(seg.seq, |r| r.min(seg.seq)));
                }
            }
            i += 1;
        }
    }

    /// Step 1b: the cumulative ACK up to `ack` pops the segments it covers.
    fn cumulative_ack(&mut self, now: Time, ack: u64, f: &mut AckFacts, rs: &mut RateSample) {
        f.una_advanced = true;
        f.set_xmit_timer = true;
        self.rto_retransmits = 0;
        let mut popped = 0usize;
        let mut sacked_popped_below_hint = 0u32;
        let mut retrans_acked = false;
        while let Some(seg) = self.segs.front().copied() {
            if seg.end() > ack {
                break;
            }
            retrans_acked |= seg.bits & EVER_RETRANS != 0;
            if seg.bits & SACKED == 0 {
                f.newly += 1;
                self.rate_delivered(&seg, rs);
                if seg.bits & EVER_RETRANS == 0 {
                    f.first_ackt.get_or_insert(seg.sent);
                    f.last_ackt = Some(seg.sent);
                    f.reord = Some(f.reord.map_or(seg.seq, |r| r.min(seg.seq)));
                    if seg.end() <= self.high_seq {
                        f.orig_sack_acked = true;
                    }
                }
                if self.rack_on() && !self.spurious_retrans(&seg) {
                    let retrans = seg.bits & EVER_RETRANS != 0;
                    self.rack
                        .advance(now, seg.sent, seg.end(), retrans, self.tp.min_rtt);
                }
            } else {
                self.tp.sacked_out -= 1;
                if popped < self.lost_hint {
                    sacked_popped_below_hint += 1;
                }
            }
            if seg.bits & LOST != 0 {
                self.tp.lost_out -= 1;
            }
            if seg.bits & RETRANS != 0 {
                self.tp.retrans_out -= 1;
            }
            self.tp.packets_out -= 1;
            f.newest_delivered = f.newest_delivered.max((seg.sent, seg.end()));
            self.segs.pop_front();
            popped += 1;
        }
        // The segments the next ACKs will cover, sent an RTT ago (one
        // 64-byte entry each): their lines a few ACKs ahead. A hint only.
        for ahead in [SEG_AHEAD, SEG_AHEAD + 1] {
            if let Some(s) = self.segs.get(ahead) {
                crate::net::packet::prefetch_line(s);
            }
        }
        if retrans_acked {
            // Karn, as Linux (FLAG_RETRANS_DATA_ACKED): an ACK that
            // covers a retransmission was timed by it, whatever else it
            // covers; no sample from the cumulative part.
            f.first_ackt = None;
            f.last_ackt = None;
            if !self.cfg.sack {
                // Without SACK bits nothing tells the original arrived.
                f.orig_sack_acked = false;
            }
        }
        if popped >= self.lost_hint {
            self.lost_hint = 0;
            self.sacked_below_hint = 0;
        } else {
            self.lost_hint -= popped;
            self.sacked_below_hint -= sacked_popped_below_hint;
        }
        self.retx_hint = self.retx_hint.saturating_sub(popped);
        self.lost_frontier = self.lost_frontier.saturating_sub(popped);
        self.rack_hint = self.rack_hint.saturating_sub(popped);
        self.tp.snd_una = ack;
        self.sacked.trim_below(ack);
        if !self.cfg.sack {
            // Linux tcp_remove_reno_sacks: one ACK fills the hole, the
            // rest of what it acks ate duplicate ACKs, whose segments
            // were counted as delivered when they arrived.
            let acked = popped as u32;
            if acked > 0 {
                f.newly = acked.saturating_sub(self.tp.sacked_out).max(1);
                self.tp.sacked_out = self.tp.sacked_out.saturating_sub(acked - 1);
            }
            self.tp.sacked_out = self.tp.sacked_out.min(self.tp.packets_out);
            f.reord = None;
        }
    }

    /// A retransmitted segment acked by an ACK that echoes a timestamp
    /// older than the retransmission: the original was acked (Linux
    /// `tcp_skb_spurious_retrans`).
    fn spurious_retrans(&self, seg: &Seg) -> bool {
        seg.bits & EVER_RETRANS != 0 && self.tsecr_before(ts_ms(seg.sent))
    }

    /// The ACK echoes a timestamp earlier than `when` (Linux
    /// `tcp_tsopt_ecr_before`).
    fn tsecr_before(&self, when: u32) -> bool {
        self.ack_tsecr != 0 && ts_before(self.ack_tsecr, when)
    }

    /// Step 1c: RTT samples (Linux `tcp_ack_update_rtt`). The oldest newly
    /// acked never-retransmitted segment feeds the RTO estimator and the
    /// newest the control; SACKed ones if nothing was cumulatively acked;
    /// with timestamps, an ACK that advances `snd_una` and allows no such
    /// sample (Karn) is timed by its echo, to the millisecond. Returns the
    /// control's RTT.
    fn ack_rtt(&mut self, now: Time, f: &AckFacts) -> Option<Dur> {
        let mut ca_rtt = f.last_ackt.or(f.sack_rtt).map(|t| now.since(t));
        let seq_rtt = f.first_ackt.or(f.sack_rtt).map(|t| now.since(t));
        let seq_rtt = match seq_rtt {
            Some(r) => Some(r),
            None if self.ack_tsecr != 0 && f.una_advanced => {
                let ms = ts_ms(now).wrapping_sub(self.ack_tsecr).max(1);
                let r = Dur::from_ps(ms as u64 * PS_PER_MS);
                ca_rtt = Some(r);
                Some(r)
            }
            None => None,
        };
        if let Some(r) = seq_rtt {
            self.rtt.sample(r);
        }
        ca_rtt
    }

    /// Linux `tcp_check_sack_reordering`: a segment below the highest
    /// SACKed one arrived without retransmission, `fack − low` bytes out of
    /// order; DupThresh grows to cover it and RACK keeps its window open.
    fn check_reordering(&mut self, low: u64, fack: u64) {
        if low >= fack {
            return;
        }
        let mss = self.cfg.mss_bytes as u64;
        let metric = (fack - low).div_ceil(mss);
        if metric > self.reordering as u64 {
            // Linux sysctl_tcp_max_reordering: 300.
            self.reordering = metric.min(300) as u32;
        }
        self.rack.reord_seen = true;
    }

    /// Steps 2 and 3: `in_ack_event`, then `pkts_acked` if anything was
    /// delivered.
    fn notify_ack(&mut self, p: &Packet, f: &AckFacts, ca_rtt: Option<Dur>, prior_in_flight: u32) {
        let mut ev = ack_flags::SLOWPATH;
        if p.rwnd_bytes != 0 {
            ev |= ack_flags::WIN_UPDATE;
        }
        if f.ece {
            ev |= ack_flags::ECE;
        }
        self.cc.in_ack_event(&mut self.tp, ev);
        if f.newly > 0 {
            let sample = AckSample {
                pkts_acked: f.newly,
                rtt: ca_rtt,
                in_flight: prior_in_flight,
            };
            self.cc.pkts_acked(&mut self.tp, &sample);
        }
    }

    /// Step 3b: an ACK during a tail-loss-probe episode (Linux
    /// `tcp_process_tlp_ack`). A probe of new data ends when acked; a
    /// retransmitted probe whose ACK goes beyond it without a D-SACK
    /// repaired a loss: reduce once, as CWR.
    fn process_tlp_ack(&mut self, ack: u64, f: &AckFacts) {
        let Some(high) = self.tlp_high_seq else {
            return;
        };
        if ack < high {
            return;
        }
        if !self.tlp_retrans || f.dsack_tlp {
            self.tlp_high_seq = None;
        } else if ack > high {
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
            self.end_cwnd_reduction();
            self.try_keep_open();
        } else if !f.una_advanced && !f.data_sacked {
            // A pure duplicate: both the original and the probe arrived.
            self.tlp_high_seq = None;
        }
    }

    /// A switch returned a copy of one of this connection's segments
    /// (packet return, `queue::feedback`): a congestion echo that arrives
    /// outside any ACK. The steps are listed under "Returned copies" in
    /// `cc/mod.rs`: one more CE-counted delivery for the control's
    /// observation window, and CWR as on ECE unless a reduction is already
    /// under way, so a burst of copies within one window reduces once.
    pub fn on_returned(&mut self, now: Time) {
        self.stats.returns_received += 1;
        if self.phase != Phase::Established {
            return;
        }
        self.sync_tp(now);
        self.tp.delivered_ce += 1;
        // As ECE (Linux tcp_enter_cwr): congestion is proven, no undo.
        self.enter_cwr();
    }

    /// Sets SACKED on slot `i`; false if it already was.
    fn mark_sacked(&mut self, i: usize, rs: &mut RateSample) -> bool {
        let seg = self.segs[i];
        if seg.bits & SACKED != 0 {
            return false;
        }
        let mut bits = seg.bits | SACKED;
        if bits & LOST != 0 {
            bits &= !LOST;
            self.tp.lost_out -= 1;
        }
        if bits & RETRANS != 0 {
            bits &= !RETRANS;
            self.tp.retrans_out -= 1;
        }
        self.tp.sacked_out += 1;
        if i < self.lost_hint {
            self.sacked_below_hint += 1;
        }
        self.rate_delivered(&seg, rs);
        self.segs[i].bits = bits | RATE_DONE;
        true
    }

    // ------------------------------------------------------------------
    // Step 4: loss detection and the recovery state machine.
    // ------------------------------------------------------------------

    /// Linux `tcp_fastretrans_alert`: state exits at the recovery point,
    /// undo, loss detection, state entries.
    fn fastretrans_alert(&mut self, now: Time, prior_una: u64, f: &mut AckFacts) {
        if f.ece {
            self.prior_ssthresh = 0; // congestion is proven: no undo
        }
        // D. Exits when high_seq is acknowledged.
        let una = self.tp.snd_una;
        if self.tp.ca_state == CaState::Open {
            self.retrans_stamp = None;
        } else if una >= self.high_seq {
            match self.tp.ca_state {
                // Linux holds CWR until something *above* high_seq is
                // acked: the ACK of exactly high_seq was sent before the
                // receiver saw CWR and may still echo ECE for the window
                // just reduced.
                CaState::Cwr if una > self.high_seq => {
                    self.end_cwnd_reduction();
                    self.set_state(CaState::Open);
                }
                CaState::Recovery => {
                    self.try_undo_recovery();
                    self.end_cwnd_reduction();
                }
                _ => {}
            }
        }
        // E. The state's own processing.
        match self.tp.ca_state {
            CaState::Recovery => {
                if f.una_advanced && self.try_undo_partial(prior_una) {
                    return;
                }
                if self.try_undo_dsack() {
                    self.try_keep_open();
                }
                self.identify_packet_loss(now, f);
                if self.tp.ca_state != CaState::Recovery && self.time_to_recover() {
                    self.enter_recovery(f.ece);
                }
                return;
            }
            CaState::Loss => {
                self.process_loss(f);
                self.identify_packet_loss(now, f);
                if !(self.tp.ca_state == CaState::Open || f.lost_retrans) {
                    return;
                }
                // Undone, or a retransmission lost: on as in Open.
            }
            _ => {}
        }
        if self.tp.ca_state <= CaState::Disorder {
            self.try_undo_dsack();
        }
        self.identify_packet_loss(now, f);
        if self.time_to_recover() {
            self.enter_recovery(f.ece);
        } else {
            self.try_to_open(f.ece);
        }
    }

    /// Linux `tcp_time_to_recover`: a segment is marked lost (NewReno's
    /// DupThresh rule marks the head first).
    fn time_to_recover(&self) -> bool {
        self.tp.lost_out > 0
    }

    /// Linux `tcp_identify_packet_loss`.
    fn identify_packet_loss(&mut self, now: Time, f: &mut AckFacts) {
        if self.segs.is_empty() {
            return;
        }
        if !self.cfg.sack {
            // NewReno (Linux tcp_newreno_mark_lost): the head, at
            // DupThresh duplicate ACKs, or on a partial ACK in Recovery.
            let st = self.tp.ca_state;
            if (st < CaState::Recovery && self.tp.sacked_out >= self.cfg.dupthresh)
                || (st == CaState::Recovery && f.una_advanced)
            {
                self.mark_lost(0);
            }
        } else if self.cfg.rack {
            let prior_retrans = self.tp.retrans_out;
            if self.rack.advanced {
                self.rack.advanced = false;
                let wait = self.rack_detect_loss(now);
                if !wait.is_zero() {
                    // Linux tcp_rack_mark_lost: the reordering timer, capped
                    // at one RTO, replaces the RTO or probe.
                    let at = now + (wait + TIMEOUT_MIN).min(self.rtt.rto());
                    self.arm_xmit(XmitTimer::Reo, at);
                    f.set_xmit_timer = false;
                }
            }
            if self.tp.retrans_out < prior_retrans {
                f.lost_retrans = true;
            }
        } else {
            let prior_retrans = self.tp.retrans_out;
            self.mark_lost_from_sacks();
            self.mark_lost_retransmits(f.newest_delivered);
            if self.tp.retrans_out < prior_retrans {
                f.lost_retrans = true;
            }
        }
    }

    /// RACK (RFC 8985 §6.2 step 5, Linux `tcp_rack_detect_loss`): marks
    /// lost every segment not delivered, and not already lost and awaiting
    /// retransmission, that was sent before RACK's segment and has waited
    /// longer than RACK.rtt plus the reordering window. Returns the longest
    /// wait left among the others (zero if none).
    ///
    /// Never-retransmitted segments are sent in sequence order, so they are
    /// walked in `segs` from `rack_hint`; retransmissions in the order they
    /// left, in `retx_queue`. Each walk stops at the first segment sent
    /// after RACK's. Cost: the segments decided plus those still waiting.
    fn rack_detect_loss(&mut self, now: Time) -> Dur {
        let reo_wnd = self.rack.reo_wnd(
            self.tp.ca_state >= CaState::Recovery,
            self.tp.sacked_out,
            self.reordering,
            self.tp.min_rtt,
            self.tp.srtt,
        );
        let limit = self.rack.rtt + reo_wnd;
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let mut wait = Dur::ZERO;
        let mut i = self.rack_hint;
        let mut settled = true;
        while i < self.segs.len() {
            let seg = self.segs[i];
            if seg.bits & (SACKED | LOST | EVER_RETRANS) != 0 {
                i += 1;
                if settled {
                    self.rack_hint = i;
                }
                continue;
            }
            if !Rack::sent_after(rx, re, seg.sent, seg.end()) {
                break;
            }
            let waited = now.saturating_since(seg.sent);
            if waited >= limit {
                self.mark_lost(i);
                if settled {
                    self.rack_hint = i + 1;
                }
            } else {
                wait = wait.max(limit - waited);
                settled = false;
            }
            i += 1;
        }
        let mut k = 0;
        while k < self.retx_queue.len() {
            let (seq, sent) = self.retx_queue[k];
            let live = seq >= self.tp.snd_una && {
                let s = self.segs[self.seg_index(seq)];
                s.bits & RETRANS != 0 && s.sent == sent
            };
            if !live {
                // Delivered, found lost, or sent again since.
                if k == 0 {
                    self.retx_queue.pop_front();
                } else {
                    k += 1;
                }
                continue;
            }
            let idx = self.seg_index(seq);
            let end = self.segs[idx].end();
            if !Rack::sent_after(rx, re, sent, end) {
                break;
            }
            let waited = now.saturating_since(sent);
            if waited >= limit {
                self.mark_retransmission_lost(idx);
                if k == 0 {
                    self.retx_queue.pop_front();
                    continue;
                }
            } else {
                wait = wait.max(limit - waited);
            }
            k += 1;
        }
        wait
    }

    /// RFC 6675 `IsLost`, with a hint that only moves forward: a hole is
    /// lost once DupThresh segments above it are SACKed.
    fn mark_lost_from_sacks(&mut self) {
        if !self.cfg.sack || self.tp.sacked_out == 0 {
            return;
        }
        let thresh = self.cfg.dupthresh;
        while self.lost_hint < self.segs.len() {
            let i = self.lost_hint;
            let bits = self.segs[i].bits;
            if bits & SACKED != 0 {
                self.sacked_below_hint += 1;
                self.lost_hint += 1;
                continue;
            }
            if self.tp.sacked_out - self.sacked_below_hint < thresh {
                break;
            }
            self.mark_lost(i);
            self.lost_hint += 1;
        }
    }

    /// Without RACK: a retransmission is lost when a segment sent after it
    /// has been delivered (the idea of Linux's `tcp_mark_lost_retrans` and
    /// of RACK with a zero reordering window). Without this only the RTO
    /// would repair a lost retransmission. Costs O(retransmissions
    /// resolved) per ACK.
    fn mark_lost_retransmits(&mut self, newest_delivered: (Time, u64)) {
        while let Some(&(seq, sent)) = self.retx_queue.front() {
            if seq < self.tp.snd_una {
                self.retx_queue.pop_front();
                continue;
            }
            let i = self.seg_index(seq);
            let seg = self.segs[i];
            if seg.bits & RETRANS == 0 || seg.sent != sent {
                // Delivered, already re-marked, or a stale entry of a segment
                // retransmitted again since.
                self.retx_queue.pop_front();
                continue;
            }
            if (sent, seg.end()) >= newest_delivered {
                break;
            }
            self.retx_queue.pop_front();
            self.mark_retransmission_lost(i);
        }
    }

    /// The retransmission in slot `i` is lost: send it again.
    fn mark_retransmission_lost(&mut self, i: usize) {
        let bits = self.segs[i].bits;
        self.segs[i].bits = (bits & !RETRANS) | LOST;
        self.tp.retrans_out -= 1;
        if bits & LOST == 0 {
            self.tp.lost_out += 1;
        }
        self.tp.lost += 1;
        self.stats.lost_retransmits += 1;
        self.retx_hint = self.retx_hint.min(i);
        self.lost_frontier = self.lost_frontier.max(i + 1);
    }

    fn mark_lost(&mut self, i: usize) {
        let bits = self.segs[i].bits;
        if bits & (LOST | SACKED) != 0 {
            return;
        }
        let mut b = bits | LOST;
        if b & RETRANS != 0 {
            // Its retransmission is presumed lost too.
            b &= !RETRANS;
            self.tp.retrans_out -= 1;
        }
        self.segs[i].bits = b;
        self.tp.lost_out += 1;
        self.tp.lost += 1;
        self.retx_hint = self.retx_hint.min(i);
        self.lost_frontier = self.lost_frontier.max(i + 1);
    }

    fn set_state(&mut self, s: CaState) {
        if self.tp.ca_state != s {
            self.cc.set_state(&mut self.tp, s);
            self.tp.ca_state = s;
        }
    }

    /// Linux `tcp_current_ssthresh`.
    fn current_ssthresh(&self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.snd_ssthresh
        } else {
            let w = self.tp.snd_cwnd;
            self.tp.snd_ssthresh.max((w >> 1) + (w >> 2))
        }
    }

    /// Linux `tcp_init_undo`: a reduction begins that may prove spurious.
    fn init_undo(&mut self) {
        self.undo_marker = Some(self.tp.snd_una);
        let mut n = self.tp.retrans_out as i64;
        if self.tlp_high_seq.is_some() && self.tlp_retrans {
            n += 1;
        }
        self.undo_retrans = if n == 0 { -1 } else { n };
    }

    /// Linux `tcp_enter_recovery`.
    fn enter_recovery(&mut self, ece: bool) {
        self.stats.recoveries += 1;
        self.prior_ssthresh = 0;
        self.init_undo();
        // A reduction already under way (CWR) continues, with its
        // ssthresh and recovery point.
        if !matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            if !ece {
                self.prior_ssthresh = self.current_ssthresh();
            }
            self.init_cwnd_reduction();
        }
        self.set_state(CaState::Recovery);
    }

    /// Linux `tcp_init_cwnd_reduction`.
    fn init_cwnd_reduction(&mut self) {
        self.high_seq = self.tp.snd_nxt;
        self.tlp_high_seq = None;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
        if self.tp.ecn_ok {
            self.queue_cwr = true;
        }
    }

    /// Linux `tcp_end_cwnd_reduction`: cwnd = ssthresh, unless the
    /// reduction was undone.
    fn end_cwnd_reduction(&mut self) {
        if self.caps.cong_control {
            return;
        }
        if self.tp.snd_ssthresh < crate::cc::INFINITE_SSTHRESH
            && (self.tp.ca_state == CaState::Cwr || self.undo_marker.is_some())
        {
            self.tp.snd_cwnd = self.tp.snd_ssthresh;
            self.tp.snd_cwnd_stamp = self.tp.now;
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
    }

    /// Linux `tcp_enter_cwr`: ECE proves congestion, no undo.
    fn enter_cwr(&mut self) {
        self.prior_ssthresh = 0;
        if self.tp.ca_state < CaState::Cwr {
            self.undo_marker = None;
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
        }
    }

    /// Linux `tcp_any_retrans_done`.
    fn any_retrans_done(&self) -> bool {
        self.tp.retrans_out > 0
            || self
                .segs
                .front()
                .is_some_and(|s| s.bits & EVER_RETRANS != 0)
    }

    /// Linux `tcp_try_keep_open`: Open, or Disorder while holes or
    /// retransmissions remain.
    fn try_keep_open(&mut self) {
        let s = if self.tp.sacked_out + self.tp.lost_out > 0 || self.any_retrans_done() {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.tp.ca_state != s {
            self.set_state(s);
            self.high_seq = self.tp.snd_nxt;
        }
    }

    /// Linux `tcp_try_to_open`.
    fn try_to_open(&mut self, ece: bool) {
        if !self.any_retrans_done() {
            self.retrans_stamp = None;
        }
        if ece {
            self.enter_cwr();
        }
        if self.tp.ca_state != CaState::Cwr {
            self.try_keep_open();
        }
    }

    /// Eifel (RFC 3522): the ACK echoes a timestamp from before the first
    /// retransmission, so an original was delivered (Linux
    /// `tcp_packet_delayed`).
    fn packet_delayed(&self) -> bool {
        self.retrans_stamp.is_some_and(|s| self.tsecr_before(s))
    }

    /// Linux `tcp_may_undo`: every retransmission came back duplicate, or
    /// the timestamps prove an original arrived.
    fn may_undo(&self) -> bool {
        self.undo_marker.is_some() && (self.undo_retrans == 0 || self.packet_delayed())
    }

    /// Linux `tcp_undo_cwnd_reduction`: the control's `undo_cwnd`, the old
    /// ssthresh, and with `unmark_loss` every lost mark cleared.
    fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            for s in self.segs.iter_mut() {
                s.bits &= !LOST;
            }
            self.tp.lost_out = 0;
            self.retx_hint = 0;
            self.lost_frontier = 0;
            self.lost_hint = 0;
            self.sacked_below_hint = 0;
            self.rack_hint = 0;
        }
        if self.prior_ssthresh != 0 {
            self.tp.snd_cwnd = self.cc.undo_cwnd(&self.tp).max(1);
            if self.prior_ssthresh > self.tp.snd_ssthresh {
                self.tp.snd_ssthresh = self.prior_ssthresh;
                self.queue_cwr = false;
            }
        }
        self.tp.snd_cwnd_stamp = self.tp.now;
        self.undo_marker = None;
        self.rack.advanced = true;
        self.stats.undos += 1;
    }

    /// At the recovery point (Linux `tcp_try_undo_recovery`): undo if the
    /// reduction was spurious; Open in any case.
    fn try_undo_recovery(&mut self) {
        if self.may_undo() {
            self.undo_cwnd_reduction(false);
        } else if self.rack.reo_wnd_persist > 0 {
            self.rack.reo_wnd_persist -= 1;
        }
        self.set_state(CaState::Open);
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission came back as a
    /// D-SACK.
    fn try_undo_dsack(&mut self) -> bool {
        if self.undo_marker.is_some() && self.undo_retrans == 0 {
            self.rack.reo_wnd_persist =
                (self.rack.reo_wnd_persist + 1).min(crate::tcp::rack::RECOVERY_THRESH);
            self.undo_cwnd_reduction(false);
            return true;
        }
        false
    }

    /// On a partial ACK in Recovery (Linux `tcp_try_undo_partial`): the
    /// hole was filled by a delayed original, not the retransmission:
    /// reordering. Undo once no retransmission is in flight; until then
    /// hold (true: nothing more is marked lost on this ACK).
    fn try_undo_partial(&mut self, prior_una: u64) -> bool {
        if self.undo_marker.is_none() || !self.packet_delayed() {
            return false;
        }
        let fack = self.highest_sacked().max(self.tp.snd_una);
        self.check_reordering(prior_una, fack);
        if self.tp.retrans_out > 0 {
            return true;
        }
        if !self.any_retrans_done() {
            self.retrans_stamp = None;
        }
        self.undo_cwnd_reduction(true);
        self.try_keep_open();
        false
    }

    /// Linux `tcp_try_undo_loss`: in Loss, undo if the timeout was
    /// spurious (by F-RTO's verdict, or timestamps or D-SACKs).
    fn try_undo_loss(&mut self, frto_undo: bool) -> bool {
        if !(frto_undo || self.may_undo()) {
            return false;
        }
        self.undo_cwnd_reduction(true);
        if frto_undo {
            self.stats.spurious_rtos += 1;
        }
        self.rto_retransmits = 0;
        if frto_undo || self.cfg.sack {
            self.set_state(CaState::Open);
        }
        true
    }

    /// An ACK in Loss (Linux `tcp_process_loss`), with F-RTO (RFC 5682
    /// §3.1, SACK-enhanced).
    fn process_loss(&mut self, f: &AckFacts) {
        let recovered = self.tp.snd_una >= self.high_seq;
        if f.una_advanced && self.try_undo_loss(false) {
            return;
        }
        if self.frto {
            // Step 3b: never-retransmitted data delivered: spurious.
            if f.orig_sack_acked && self.try_undo_loss(true) {
                return;
            }
            if self.tp.snd_nxt > self.high_seq {
                // Step 3a: the new data of step 2b was SACKed or dup-acked
                // while the old data was not: the loss was real.
                if f.data_sacked || (!f.una_advanced && !f.dsack) {
                    self.frto = false;
                }
            } else if f.una_advanced && !recovered {
                // Step 2b: send new data rather than retransmit, if any.
                self.high_seq = self.tp.snd_nxt;
                if self.app_bytes_left(self.tp.now) > 0
                    && self.tp.snd_nxt < self.tp.snd_una + self.rwnd
                {
                    self.frto_send_new = true;
                    return;
                }
                self.frto = false;
            }
        }
        if recovered {
            // RFC 5682 step 2a and the first part of 3a.
            self.try_undo_recovery();
        }
    }

    /// Proportional Rate Reduction (RFC 6937; Linux `tcp_cwnd_reduction`).
    fn cwnd_reduction(&mut self, newly_acked_sacked: u32, newly_lost: u32, una_advanced: bool) {
        if newly_acked_sacked == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        self.prr_delivered += newly_acked_sacked;
        let in_flight = self.tp.in_flight() as i64;
        let ssthresh = self.tp.snd_ssthresh as i64;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            let prior = self.tp.prior_cwnd as i64;
            (ssthresh * self.prr_delivered as i64 + prior - 1) / prior - self.prr_out as i64
        } else {
            let mut s =
                (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if una_advanced && newly_lost == 0 {
                s += 1;
            }
            delta.min(s)
        };
        // Force a (fast) retransmission upon entering recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.tp.snd_cwnd = (in_flight + sndcnt).max(1) as u32;
    }

    // ------------------------------------------------------------------
    // Delivery-rate sampling (Linux tcp_rate.c).
    // ------------------------------------------------------------------

    /// `tcp_rate_skb_delivered`: keep the most recently sent delivered segment.
    fn rate_delivered(&mut self, seg: &Seg, rs: &mut RateSample) {
        if seg.bits & RATE_DONE != 0 {
            return;
        }
        let tx = seg.tx;
        if rs.delivered.is_none() || tx.delivered >= rs.prior_delivered {
            rs.prior_delivered = tx.delivered;
            rs.prior_delivered_ce = tx.delivered_ce;
            rs.prior_time = tx.delivered_time;
            rs.is_app_limited = tx.app_limited;
            rs.is_retrans = seg.bits & EVER_RETRANS != 0;
            rs.snd_interval = seg.sent.saturating_since(tx.first_tx);
            // Later segments' send phase starts at this one's send time.
            self.first_tx_time = seg.sent;
            rs.delivered = Some(0); // marks "have a candidate"
        }
    }

    /// `tcp_rate_gen`.
    fn rate_gen(
        &mut self,
        now: Time,
        delivered: u32,
        lost: u32,
        rtt: Option<Dur>,
        rs: &mut RateSample,
        _prior: u64,
    ) {
        let al = self.tp.app_limited;
        if al != 0 && (al == crate::cc::APP_LIMITED_AT_START || self.tp.delivered > al) {
            self.tp.app_limited = 0;
        }
        if delivered > 0 {
            self.tp.delivered_mstamp = now;
        }
        rs.acked_sacked = delivered;
        rs.losses = lost;
        rs.rtt = rtt;
        if rs.delivered.is_none() {
            rs.interval = Dur::ZERO;
            return;
        }
        rs.delivered = Some(self.tp.delivered - rs.prior_delivered);
        rs.delivered_ce = self.tp.delivered_ce - rs.prior_delivered_ce;
        rs.rcv_interval = now.saturating_since(rs.prior_time);
        rs.interval = rs.snd_interval.max(rs.rcv_interval);
        // An interval shorter than min RTT means the ACKs were compressed:
        // the rate is not trustworthy. Linux invalidates the interval only
        // (`interval_us = -1`); the delivered count stays (BBR reads it).
        if rs.interval < self.tp.min_rtt && self.tp.min_rtt != Dur::MAX {
            rs.interval = Dur::ZERO;
        }
    }

    // ------------------------------------------------------------------
    // Timers.
    // ------------------------------------------------------------------

    pub fn on_timer(&mut self, now: Time, kind: TimerKind, out: &mut Out) {
        self.tp.now = now;
        match kind {
            TimerKind::Start => self.start(now, out),
            TimerKind::Rto => match self.rto_timer.on_fire(now) {
                TimerFire::Due => match self.xmit_mode {
                    XmitTimer::Rto => self.on_rto(now, out),
                    XmitTimer::Reo => self.on_reo_timeout(now, out),
                    XmitTimer::Probe => self.on_loss_probe(now, out),
                },
                TimerFire::Reschedule(at) => out.timers.push((at, TimerKind::Rto)),
                TimerFire::Ignore => {}
            },
            TimerKind::Pacing => match self.pacing_timer.on_fire(now) {
                TimerFire::Due => self.try_send(now, out),
                TimerFire::Reschedule(at) => out.timers.push((at, TimerKind::Pacing)),
                TimerFire::Ignore => {}
            },
            TimerKind::DelAck => {}
        }
        self.flush_timer(out);
    }

    /// Retransmission timeout (RFC 6298 §5.4–5.6; Linux
    /// `tcp_retransmit_timer`): enter Loss, back off, resend the head.
    fn on_rto(&mut self, now: Time, out: &mut Out) {
        match self.phase {
            Phase::SynSent => {
                self.stats.syn_retransmits += 1;
                self.rtt.back_off();
                self.send_syn(now, out);
                return;
            }
            Phase::Established => {}
            _ => return,
        }
        if self.tp.packets_out == 0 {
            return;
        }
        self.stats.timeouts += 1;
        self.sync_tp(now);
        self.enter_loss(now);
        self.rto_retransmits += 1;
        self.rtt.back_off();
        self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        self.try_send(now, out);
    }

    /// Linux `tcp_enter_loss`.
    fn enter_loss(&mut self, now: Time) {
        let new_recovery = self.tp.ca_state < CaState::Recovery;
        self.timeout_mark_lost(now);
        // A new threshold only if no reduction is under way (Open,
        // Disorder) or its recovery point has been acked, or on the first
        // RTO of a Loss episode whose timeouts were reset by progress.
        let st = self.tp.ca_state;
        if st <= CaState::Disorder
            || self.tp.snd_una >= self.high_seq
            || (st == CaState::Loss && self.rto_retransmits == 0)
        {
            self.prior_ssthresh = self.current_ssthresh();
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
            self.init_undo();
        }
        self.tp.snd_cwnd = self.tp.in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.snd_cwnd_stamp = now;
        // A timeout after DupThresh SACKs: reordering was overestimated.
        if st <= CaState::Disorder && self.tp.sacked_out >= self.cfg.dupthresh {
            self.reordering = self.reordering.min(self.cfg.dupthresh);
        }
        // Linux tcp_enter_loss calls tcp_set_ca_state(Loss) on every RTO,
        // also when already in Loss (BBR counts each as the end of a round).
        self.cc.set_state(&mut self.tp, CaState::Loss);
        self.tp.ca_state = CaState::Loss;
        self.high_seq = self.tp.snd_nxt;
        self.tlp_high_seq = None;
        if self.tp.ecn_ok {
            self.queue_cwr = true;
        }
        // F-RTO (RFC 5682 §3.1 step 1): unless a recovery was under way,
        // other than repeated timeouts of the same data (§3.2).
        self.frto = self.cfg.frto && (new_recovery || self.rto_retransmits > 0);
    }

    /// Linux `tcp_timeout_mark_lost`: every un-SACKed segment is lost; with
    /// RACK, but the head, those sent less than RACK's RTT ago are not yet.
    fn timeout_mark_lost(&mut self, now: Time) {
        let rack = self.rack_on();
        let mut first_unmarked = None;
        for i in 0..self.segs.len() {
            let seg = self.segs[i];
            if seg.bits & SACKED != 0 {
                continue;
            }
            if rack && i != 0 && now.saturating_since(seg.sent) < self.rack.rtt {
                first_unmarked.get_or_insert(i);
                continue;
            }
            if seg.bits & LOST == 0 {
                self.tp.lost_out += 1;
                self.tp.lost += 1;
            }
            if seg.bits & RETRANS != 0 {
                self.tp.retrans_out -= 1;
            }
            self.segs[i].bits = (seg.bits | LOST) & !RETRANS;
        }
        self.lost_hint = self.segs.len();
        self.sacked_below_hint = self.tp.sacked_out;
        self.retx_hint = 0;
        self.lost_frontier = self.segs.len();
        self.rack_hint = first_unmarked
            .unwrap_or(self.segs.len())
            .min(self.rack_hint);
    }

    /// RACK's reordering timer (Linux `tcp_rack_reo_timeout`): the segments
    /// that waited out the window are lost; recovery starts if it had not.
    fn on_reo_timeout(&mut self, now: Time, out: &mut Out) {
        if self.phase != Phase::Established || self.tp.packets_out == 0 {
            return;
        }
        self.sync_tp(now);
        let prior_in_flight = self.tp.in_flight();
        self.rack_detect_loss(now);
        if self.tp.in_flight() != prior_in_flight {
            if self.tp.ca_state != CaState::Recovery {
                self.enter_recovery(false);
                if !self.caps.cong_control {
                    self.cwnd_reduction(1, 0, false);
                }
            }
            self.try_send(now, out);
        }
        if self.xmit_mode != XmitTimer::Rto || !self.rto_timer.is_armed() {
            self.rearm_rto(now);
        }
    }

    /// The tail loss probe fires (Linux `tcp_send_loss_probe`): one new
    /// segment whatever cwnd says, or else the last segment again; then the
    /// RTO. At most one probe is outstanding.
    fn on_loss_probe(&mut self, now: Time, out: &mut Out) {
        if self.phase != Phase::Established || self.tp.packets_out == 0 {
            return;
        }
        self.sync_tp(now);
        if self.tlp_high_seq.is_some() {
            self.rearm_rto(now);
            return;
        }
        self.tlp_retrans = false;
        let sent = if let Some(len) = self.new_data_len(now) {
            self.event_data_sent();
            self.push_new_segment(now, len, out);
            true
        } else if let Some(last) = self.segs.len().checked_sub(1) {
            self.event_data_sent();
            self.transmit(now, last, true, out);
            self.tlp_retrans = true;
            true
        } else {
            false
        };
        if sent {
            self.tlp_high_seq = Some(self.tp.snd_nxt);
            self.stats.loss_probes += 1;
            // The RTO restarts from now (Linux clears icsk_pending).
            self.xmit_mode = XmitTimer::Rto;
            self.rto_timer.disarm();
        }
        self.rearm_rto(now);
    }

    // ------------------------------------------------------------------
    // Transmission.
    // ------------------------------------------------------------------

    /// Pacing rate in bit/s, if the sender paces.
    fn pacing_rate_bps(&self) -> Option<u64> {
        let cap = self.cfg.max_rate_bps;
        if self.caps.wants_pacing && self.tp.pacing_rate_bps > 0 {
            Some(if cap > 0 {
                self.tp.pacing_rate_bps.min(cap)
            } else {
                self.tp.pacing_rate_bps
            })
        } else if cap > 0 {
            Some(cap)
        } else {
            None
        }
    }

    /// TCP small queues hold the sender: its NIC queue holds at least
    /// [`Self::tsq_limit`]. The limit is never below two packets, so below
    /// that the answer is no without computing it (a rate division, in
    /// 128 bits when cwnd is huge): on a path whose NIC is not the
    /// bottleneck the queue holds a packet or none at nearly every send.
    ///
    /// `nic ≥ min(max(per_ms, two), cap)` is `nic ≥ cap`, or `nic ≥ two`
    /// and `nic ≥ per_ms`; the last is asked without dividing
    /// ([`tsq_window_reached`]). Equal to `nic_bytes >= tsq_limit()`
    /// (`tests::tsq_window::full_is_the_limit_reached`).
    #[inline]
    fn tsq_full(&self) -> bool {
        let nic = self.nic_bytes;
        let two = 2 * (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        if nic < two {
            return false;
        }
        if nic >= self.cfg.tsq_bytes.max(two) {
            return true;
        }
        match self.pacing_rate_bps() {
            Some(rate_bps) => nic >= rate_bps / 8 / 1000,
            None => {
                let pct = if self.tp.in_slow_start() { 200 } else { 120 };
                tsq_window_reached(nic, self.tp.snd_cwnd, self.cfg.mss_bytes, pct, self.tp.srtt)
            }
        }
    }

    /// Linux TCP small queues: at most ~1 ms of the sending rate (at least
    /// two packets) waits in the NIC queue, capped by `tsq_bytes`. The
    /// sender asks [`Self::tsq_full`] instead; this is its definition.
    #[cfg(test)]
    fn tsq_limit(&self) -> u64 {
        let two = 2 * (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        let per_ms = match self.pacing_rate_bps() {
            Some(rate_bps) => rate_bps / 8 / 1000,
            None => {
                // Linux tcp_update_pacing_rate: 200 % of cwnd/srtt in slow start, 120 % after.
                let pct = if self.tp.in_slow_start() { 200 } else { 120 };
                tsq_window_bytes_per_ms(self.tp.snd_cwnd, self.cfg.mss_bytes, pct, self.tp.srtt)
            }
        };
        per_ms.max(two).min(self.cfg.tsq_bytes.max(two))
    }

    /// The world tells the sender one of its packets was dropped before
    /// leaving the host (it no longer occupies the NIC queue).
    pub fn on_nic_drop(&mut self, now: Time, size: u32) {
        self.nic_bytes = self.nic_bytes.saturating_sub(size as u64);
        self.check_app_limited(now);
    }

    /// The world tells the sender one of its packets left the NIC queue.
    pub fn on_nic_tx(&mut self, now: Time, size: u32, out: &mut Out) {
        self.nic_bytes = self.nic_bytes.saturating_sub(size as u64);
        self.check_app_limited(now);
        if self.tsq_throttled {
            self.tsq_throttled = false;
            self.try_send(now, out);
        }
    }

    /// Application bytes not yet sent (Linux `write_seq - snd_nxt`): the
    /// rest of a byte-limited transfer, nothing once the application has
    /// stopped, and "always more" for an unlimited bulk source.
    fn app_bytes_left(&self, now: Time) -> u64 {
        if self.stop.is_some_and(|s| now >= s) {
            return 0;
        }
        match self.app_end {
            Some(end) => end.saturating_sub(self.tp.snd_nxt),
            None => u64::MAX,
        }
    }

    /// Linux `tcp_rate_check_app_limited`: the flow is application-limited
    /// when the application has less than one MSS left to send, nothing of
    /// it waits in the host's NIC queue, the window is not full and every
    /// lost segment has been retransmitted. Then the rate samples of what is
    /// sent until the data now in flight is delivered are marked
    /// app-limited. A full receive window or congestion window is not an
    /// application limit (BBR must not discard those samples).
    ///
    /// Linux runs this check on the application's write path. dumbbell's
    /// applications are sources whose writes are not modelled, so it runs
    /// where such a write would find the application dry: when the sender
    /// runs out of application data, and when its NIC queue drains.
    fn check_app_limited(&mut self, now: Time) {
        if self.phase == Phase::Established
            && self.app_bytes_left(now) < self.cfg.mss_bytes as u64
            && self.nic_bytes == 0
            && self.tp.in_flight() < self.tp.snd_cwnd
            && self.tp.lost_out <= self.tp.retrans_out
        {
            self.tp.app_limited = (self.tp.delivered + self.tp.in_flight() as u64).max(1);
        }
    }

    fn next_retransmit(&mut self) -> Option<usize> {
        let end = self.lost_frontier.min(self.segs.len());
        while self.retx_hint < end {
            let b = self.segs[self.retx_hint].bits;
            if b & LOST != 0 && b & (RETRANS | SACKED) == 0 {
                return Some(self.retx_hint);
            }
            self.retx_hint += 1;
        }
        None
    }

    fn new_data_len(&self, now: Time) -> Option<u32> {
        if self.stop.is_some_and(|s| now >= s) {
            return None;
        }
        let mss = self.cfg.mss_bytes as u64;
        let len = match self.app_end {
            Some(end) if self.tp.snd_nxt >= end => return None,
            Some(end) => (end - self.tp.snd_nxt).min(mss),
            None => mss,
        };
        // Receiver window (RFC 9293 §3.8.6.2.1): do not send beyond snd_una + rwnd.
        if self.tp.snd_nxt + len > self.tp.snd_una + self.rwnd {
            return None;
        }
        Some(len as u32)
    }

    /// Sends what cwnd, pacing, TSQ and the receiver window allow:
    /// retransmissions of lost segments first, then new data.
    pub fn try_send(&mut self, now: Time, out: &mut Out) {
        self.send(now, out, true);
    }

    /// The transmission loop; `retransmit`: lost segments go first (false:
    /// new data only, F-RTO's step 2b).
    fn send(&mut self, now: Time, out: &mut Out, retransmit: bool) {
        if self.phase != Phase::Established {
            return;
        }
        let mut cwnd_limited = false;
        let mut sent_new = false;
        loop {
            if self.pacing_rate_bps().is_some() && now < self.tp.wstamp {
                if let Some(at) = self.pacing_timer.arm(self.tp.wstamp) {
                    out.timers.push((at, TimerKind::Pacing));
                }
                break;
            }
            if self.cfg.tsq_bytes > 0 && self.tsq_full() {
                self.tsq_throttled = true;
                break;
            }
            if self.tp.in_flight() >= self.tp.snd_cwnd {
                cwnd_limited = true;
                break;
            }
            if retransmit {
                if let Some(i) = self.next_retransmit() {
                    self.event_data_sent();
                    self.retransmit(now, i, out);
                    continue;
                }
            }
            match self.new_data_len(now) {
                Some(len) => {
                    self.event_data_sent();
                    self.push_new_segment(now, len, out);
                    sent_new = true;
                }
                None => {
                    // Blocked by the receive window or out of application
                    // data; only the latter may mark the flow app-limited.
                    self.check_app_limited(now);
                    break;
                }
            }
        }
        // Linux tcp_cwnd_validate.
        if self.tp.snd_una >= self.cwnd_usage_seq
            || cwnd_limited
            || (!self.cwnd_limited_raw && self.tp.packets_out > self.tp.max_packets_out)
        {
            self.cwnd_limited_raw = cwnd_limited;
            self.tp.max_packets_out = self.tp.packets_out;
            self.cwnd_usage_seq = self.tp.snd_nxt;
        }
        // Linux tcp_write_xmit: one loss probe per tail episode. New data
        // sent while a probe was pending rearmed the RTO first
        // (tcp_event_new_data_sent); the probe replaces it if it may.
        if sent_new && !self.schedule_loss_probe(now, false) && self.xmit_mode == XmitTimer::Probe {
            self.rearm_rto(now);
        }
        self.flush_timer(out);
    }

    /// A new segment of `len` bytes at `snd_nxt`, sent.
    fn push_new_segment(&mut self, now: Time, len: u32, out: &mut Out) {
        let prior_packets = self.tp.packets_out;
        if prior_packets == 0 {
            // Linux tcp_rate_skb_sent: a new flight starts the clocks.
            self.first_tx_time = now;
            self.tp.delivered_mstamp = now;
        }
        let seq = self.tp.snd_nxt;
        self.segs.push_back(Seg {
            seq,
            len,
            bits: 0,
            sent: now,
            tx: TxSnap::default(),
        });
        self.tp.snd_nxt += len as u64;
        self.tp.packets_out += 1;
        let i = self.segs.len() - 1;
        self.transmit(now, i, false, out);
        // Linux tcp_event_new_data_sent: the RTO starts with the first
        // segment out. (It also replaces a pending probe; `send` does that
        // once for the whole burst, then schedules the probe again.)
        if prior_packets == 0 {
            self.rearm_rto(now);
        }
    }

    /// A lost segment sent again (Linux `tcp_retransmit_skb`), counted for
    /// undo: the episode's first retransmission stamps `retrans_stamp`.
    fn retransmit(&mut self, now: Time, i: usize, out: &mut Out) {
        self.transmit(now, i, true, out);
        self.retrans_stamp.get_or_insert(ts_ms(now));
        self.undo_retrans = self.undo_retrans.max(0) + 1;
        // Linux tcp_xmit_retransmit_queue: resending the head restarts the
        // RTO, unless RACK's timer is pending.
        if i == 0 && self.xmit_mode != XmitTimer::Reo {
            self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        }
    }

    /// Linux `tcp_event_data_sent`: a data segment (new or retransmitted)
    /// about to leave with nothing in flight raises `cwnd_event(TxStart)`,
    /// before `lsndtime` moves, so the control sees how long sending paused.
    fn event_data_sent(&mut self) {
        if self.tp.in_flight() == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
    }

    /// Advances the earliest departure time `tp.wstamp` after a segment of
    /// `payload` bytes (`wire` bytes with headers) left at `now`.
    ///
    /// The control's pacing follows Linux's `tcp_update_skb_after_send`
    /// (internal, earliest-departure-time pacing): the gap is the payload
    /// (`skb->len`) at `tp.pacing_rate_bps`; the first 10 data segments of
    /// the connection are not paced; and when the segment left later than
    /// its slot (the sender was held by cwnd or TSQ), up to half the gap is
    /// forgiven (Linux's "credit" for OS jitter). `max_rate_bps`, a NIC or
    /// bus limit, spaces whole wire packets. The larger gap wins.
    fn schedule_next_departure(&mut self, now: Time, payload: u32, wire: u32) {
        let cap = self.cfg.max_rate_bps;
        let cc_rate = if self.caps.wants_pacing {
            self.tp.pacing_rate_bps
        } else {
            0
        };
        if cap == 0 && cc_rate == 0 {
            return;
        }
        let prior = self.tp.wstamp;
        let start = prior.max(now);
        let mut gap = Dur::ZERO;
        if cc_rate > 0 && self.stats.data_pkts_sent >= 10 {
            let len = Dur::serialization(payload as u64, cc_rate);
            let credit = start.since(prior);
            gap = len.saturating_sub(len.div(2).min(credit));
        }
        if cap > 0 {
            gap = gap.max(Dur::serialization(wire as u64, cap));
        }
        self.tp.wstamp = start + gap;
    }

    fn transmit(&mut self, now: Time, i: usize, retrans: bool, out: &mut Out) {
        let snap = TxSnap {
            delivered: self.tp.delivered,
            delivered_ce: self.tp.delivered_ce,
            delivered_time: self.tp.delivered_mstamp,
            first_tx: self.first_tx_time,
            app_limited: self.tp.app_limited != 0,
        };
        let seg = &mut self.segs[i];
        seg.sent = now;
        seg.tx = snap;
        seg.bits &= !RATE_DONE;
        if retrans {
            seg.bits |= RETRANS | EVER_RETRANS;
        }
        let (seq, len) = (seg.seq, seg.len);
        let mut f = flags::ACK;
        let mut ecn = Ecn::NotEct;
        if self.tp.ecn_ok {
            // RFC 3168 §6.1.5: retransmissions are not ECT; DCTCP-style
            // controls mark everything ECT (Linux tcp_ecn_send).
            if !retrans || self.caps.needs_ecn {
                ecn = Ecn::Ect0;
            }
            if !retrans && self.queue_cwr {
                self.queue_cwr = false;
                f |= flags::CWR;
            }
        }
        if !self.open_stream && self.app_end == Some(seq + len as u64) {
            f |= flags::FIN;
        }
        // Built in place at the end of `out` (no copy of the whole packet).
        out.pkts.push(self.packet(now, f, seq, len, ecn));
        let p = out.pkts.last_mut().expect("just pushed");
        p.retransmit = retrans;
        if self.cfg.timestamps {
            p.ts_val = ts_ms(now);
        }
        let size = p.size_bytes;
        if retrans {
            self.tp.retrans_out += 1;
            self.stats.retransmits += 1;
            self.retx_queue.push_back((seq, now));
        }
        self.tp.lsndtime = now;
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.prr_out += 1;
        }
        self.stats.bytes_sent += len as u64;
        self.stats.data_pkts_sent += 1;
        self.nic_bytes += size as u64;
        self.schedule_next_departure(now, len, size);
        if !self.rto_timer.is_armed() {
            self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        }
    }

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

#[cfg(test)]
mod tests;
