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
//! # Recovery (Linux `tcp_fastretrans_alert`, simplified)
//! - Open → Disorder when SACKs or duplicate ACKs arrive;
//! - → Recovery when a segment is marked lost (SACK) or at DupThresh
//!   duplicate ACKs (NewReno, RFC 6582: the head is marked lost, and again
//!   after every partial ACK); `ssthresh()` is taken (unless coming from
//!   CWR, whose reduction continues, as in Linux), cwnd follows
//!   Proportional Rate Reduction (RFC 6937) and is set to ssthresh when
//!   `snd_una` passes the recovery point `high_seq`;
//! - → CWR on an ACK with ECE (RFC 3168 §6.1.2: once per window): the same
//!   reduction, and CWR is set on the next new data segment; CWR ends when
//!   `snd_una` is beyond `high_seq` (Linux), so an ECE on the ACK of exactly
//!   `high_seq` does not reduce again;
//! - a retransmission is itself found lost when a segment sent after it is
//!   delivered first (RACK's rule with no reordering window; our links never
//!   reorder), and is sent again without waiting for the RTO;
//! - RTO (RFC 6298, Linux `tcp_enter_loss`): `ssthresh()` unless a reduction
//!   is under way whose recovery point is not yet acknowledged (so an RTO in
//!   Recovery, CWR or Loss does not reduce twice), every un-SACKed segment
//!   marked lost, cwnd = 1, state Loss until `high_seq` is acknowledged; the
//!   RTO backs off.
//!
//! # Pacing
//! When the control asks for it (`wants_pacing`), segments leave no earlier
//! than `tp.wstamp`, which advances by each segment's payload at
//! `tp.pacing_rate_bps` (Linux's internal pacing, `tcp_update_skb_after_send`:
//! the first 10 segments unpaced, up to half a gap forgiven after a stall).
//! `max_rate_bps`, a NIC or bus cap, spaces whole wire packets.

use super::rtt::RttEstimator;
use super::{Endpoints, Out, TimerKind};
use crate::cc::{ack_flags, AckSample, CaEvent, CaState, CongestionControl, RateSample, TcpSock};
use crate::config::TcpConfig;
use crate::net::packet::{flags, Ecn, Packet, Proto};
use crate::sim::{Dur, LazyTimer, Time, TimerFire};
use crate::tcp::ranges::RangeSet;
use std::collections::VecDeque;

// Scoreboard bits of a segment (Linux `TCPCB_*`).
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
    pub completion: Option<Time>,
}

pub struct Sender {
    ep: Endpoints,
    cfg: TcpConfig,
    pub tp: TcpSock,
    pub cc: Box<dyn CongestionControl>,
    pub phase: Phase,
    segs: VecDeque<Seg>,
    sacked: RangeSet,
    scratch: Vec<(u64, u64)>,
    pub rtt: RttEstimator,
    rto_timer: LazyTimer,
    pacing_timer: LazyTimer,
    syn_sent: Option<Time>,
    syn_retransmitted: bool,
    // Loss marking and retransmission hints (indices into `segs`).
    lost_hint: usize,
    sacked_below_hint: u32,
    retx_hint: usize,
    lost_frontier: usize,
    /// Outstanding retransmissions as (seq, send time), oldest first, for
    /// detecting lost retransmissions.
    retx_queue: VecDeque<(u64, Time)>,
    // Reductions.
    high_seq: u64,
    prr_delivered: u32,
    prr_out: u32,
    queue_cwr: bool,
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
        cc: Box<dyn CongestionControl>,
        app_end: Option<u64>,
        stop: Option<Time>,
    ) -> Self {
        let mut tp = TcpSock::new(cfg.mss_bytes, cfg.init_cwnd_pkts);
        tp.ecn_ok = !cfg.handshake && (cfg.ecn || cc.needs_ecn());
        let rtt = RttEstimator::new(
            Dur::from_ps(cfg.init_rto_ps),
            Dur::from_ps(cfg.min_rto_ps),
            Dur::from_ps(cfg.max_rto_ps),
        );
        Sender {
            ep,
            rwnd: cfg.rwnd_bytes,
            cfg,
            tp,
            cc,
            phase: Phase::Idle,
            segs: VecDeque::with_capacity(256),
            sacked: RangeSet::new(),
            scratch: Vec::with_capacity(8),
            rtt,
            rto_timer: LazyTimer::default(),
            pacing_timer: LazyTimer::default(),
            syn_sent: None,
            syn_retransmitted: false,
            lost_hint: 0,
            sacked_below_hint: 0,
            retx_hint: 0,
            lost_frontier: 0,
            retx_queue: VecDeque::with_capacity(64),
            high_seq: 0,
            prr_delivered: 0,
            prr_out: 0,
            queue_cwr: false,
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
        *self.app_end.get_or_insert(0) += bytes;
        self.try_send(now, out);
    }

    fn wants_ecn(&self) -> bool {
        self.cfg.ecn || self.cc.needs_ecn()
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
        out.pkts.push(self.packet(now, f, 0, 0, Ecn::NotEct));
        if self.syn_sent.is_some() {
            self.syn_retransmitted = true;
        }
        self.syn_sent = Some(now);
        self.arm_rto(now, out);
    }

    fn establish(&mut self, now: Time, out: &mut Out) {
        self.phase = Phase::Established;
        self.tp.delivered_mstamp = now;
        self.first_tx_time = now;
        self.cc.init(&mut self.tp);
        self.try_send(now, out);
    }

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

    fn arm_rto(&mut self, now: Time, out: &mut Out) {
        if let Some(at) = self.rto_timer.arm(now + self.rtt.rto()) {
            out.timers.push((at, TimerKind::Rto));
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
    // ACK processing: the one per-ACK path.
    // ------------------------------------------------------------------

    /// Handles a packet from the receiver.
    pub fn on_ack(&mut self, now: Time, p: &Packet, out: &mut Out) -> AckOutcome {
        self.tp.now = now;
        match self.phase {
            Phase::SynSent => {
                if p.has(flags::SYN) && p.has(flags::ACK) {
                    if let (Some(t), false) = (self.syn_sent, self.syn_retransmitted) {
                        self.rtt.sample(now.since(t));
                    }
                    self.rto_timer.disarm();
                    self.tp.ecn_ok = self.wants_ecn() && p.has(flags::ECE);
                    self.sync_tp(now);
                    self.establish(now, out);
                }
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
        let prior_in_flight = self.tp.in_flight();
        let prior_delivered = self.tp.delivered;
        let prior_lost = self.tp.lost;
        let ece = self.tp.ecn_ok && p.has(flags::ECE);
        let mut rs = RateSample {
            prior_in_flight,
            ..Default::default()
        };
        let mut newly: u32 = 0;
        let mut first_ackt: Option<Time> = None;
        let mut last_ackt: Option<Time> = None;
        let mut sack_rtt: Option<Time> = None;
        // (send time, end seq) of the most recently sent segment this ACK
        // delivered; at equal times the higher sequence was sent later (RACK).
        let mut newest_delivered = (Time::ZERO, 0u64);

        // 1. SACK blocks: mark newly SACKed segments.
        if self.cfg.sack && p.n_sack > 0 {
            self.scratch.clear();
            for b in p.sacks() {
                let s = b.start.max(self.tp.snd_una);
                let e = b.end.min(self.tp.snd_nxt);
                if s < e {
                    let scratch = &mut self.scratch;
                    self.sacked.insert(s, e, |x, y| scratch.push((x, y)));
                }
            }
            for k in 0..self.scratch.len() {
                let (x, y) = self.scratch[k];
                let mss = self.cfg.mss_bytes as u64;
                let i0 = ((x - self.tp.snd_una).div_ceil(mss)) as usize;
                let mut i = i0;
                while i < self.segs.len() && self.segs[i].seq + self.segs[i].len as u64 <= y {
                    if self.mark_sacked(i, &mut rs) {
                        newly += 1;
                        let seg = self.segs[i];
                        newest_delivered =
                            newest_delivered.max((seg.sent, seg.seq + seg.len as u64));
                        if seg.bits & EVER_RETRANS == 0 {
                            sack_rtt = Some(sack_rtt.map_or(seg.sent, |t: Time| t.max(seg.sent)));
                        }
                    }
                    i += 1;
                }
            }
        }

        // 2. The cumulative ACK.
        let data_acked = ack > self.tp.snd_una;
        if data_acked {
            let mut popped = 0usize;
            let mut sacked_popped_below_hint = 0u32;
            let mut retrans_acked = false;
            while let Some(seg) = self.segs.front().copied() {
                if seg.seq + seg.len as u64 > ack {
                    break;
                }
                retrans_acked |= seg.bits & EVER_RETRANS != 0;
                if seg.bits & SACKED == 0 {
                    newly += 1;
                    self.rate_delivered(&seg, &mut rs);
                    if seg.bits & EVER_RETRANS == 0 {
                        first_ackt.get_or_insert(seg.sent);
                        last_ackt = Some(seg.sent);
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
                newest_delivered = newest_delivered.max((seg.sent, seg.seq + seg.len as u64));
                self.segs.pop_front();
                popped += 1;
            }
            if retrans_acked {
                // Karn, as Linux (FLAG_RETRANS_DATA_ACKED): an ACK that
                // covers a retransmission was timed by it, whatever else it
                // covers; no sample from the cumulative part.
                first_ackt = None;
                last_ackt = None;
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
            self.tp.snd_una = ack;
            self.sacked.trim_below(ack);
            if !self.cfg.sack {
                // Linux tcp_remove_reno_sacks: one ACK fills the hole, the
                // rest of what it acks ate duplicate ACKs, whose segments
                // were counted as delivered when they arrived.
                let acked = popped as u32;
                if acked > 0 {
                    newly = acked.saturating_sub(self.tp.sacked_out).max(1);
                    self.tp.sacked_out = self.tp.sacked_out.saturating_sub(acked - 1);
                }
                self.tp.sacked_out = self.tp.sacked_out.min(self.tp.packets_out);
            }
        } else if !self.cfg.sack
            && p.payload_bytes == 0
            && self.tp.packets_out > 0
            && ack == self.tp.snd_una
        {
            // A duplicate ACK without SACK (Linux tcp_add_reno_sack).
            if self.tp.sacked_out + 1 < self.tp.packets_out {
                self.tp.sacked_out += 1;
                newly += 1;
            }
        }

        self.tp.delivered += newly as u64;
        if ece {
            self.tp.delivered_ce += newly as u64;
            self.stats.ece_acks += 1;
        }

        // RTT (Karn: only never-retransmitted segments). Like Linux, the
        // oldest newly acked segment feeds the RTO estimator; the newest
        // feeds the control and the rate sample.
        if let Some(t) = first_ackt.or(sack_rtt) {
            self.rtt.sample(now.since(t));
        }
        let ca_rtt = last_ackt.or(sack_rtt).map(|t| now.since(t));
        self.sync_tp(now);

        // 2. in_ack_event; 3. pkts_acked.
        let mut ev = ack_flags::SLOWPATH;
        if p.rwnd_bytes != 0 {
            ev |= ack_flags::WIN_UPDATE;
        }
        if ece {
            ev |= ack_flags::ECE;
        }
        self.cc.in_ack_event(&mut self.tp, ev);
        if newly > 0 {
            let sample = AckSample {
                pkts_acked: newly,
                rtt: ca_rtt,
                in_flight: prior_in_flight,
            };
            self.cc.pkts_acked(&mut self.tp, &sample);
        }

        // 4. Loss marking and the recovery state machine.
        self.mark_lost_from_sacks();
        self.mark_lost_retransmits(newest_delivered);
        self.recovery_state_machine(data_acked, ece);
        let newly_lost = (self.tp.lost - prior_lost) as u32;

        // 5. The rate sample (tcp_rate_gen).
        self.rate_gen(now, newly, newly_lost, ca_rtt, &mut rs, prior_delivered);

        // 6. Window: cong_control, or the stack's reduction / growth.
        if self.cc.has_cong_control() {
            self.cc.cong_control(&mut self.tp, ack, &rs);
        } else if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.cwnd_reduction(newly, newly_lost, data_acked);
        } else if data_acked {
            self.tp.is_cwnd_limited = self.is_cwnd_limited();
            self.cc.cong_avoid(&mut self.tp, ack, newly);
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.clamp(1, self.tp.snd_cwnd_clamp);

        // Completion and the RTO timer (RFC 6298 §5.2, §5.3).
        if let Some(end) = self.app_end.filter(|_| !self.open_stream) {
            if self.tp.snd_una >= end {
                self.phase = Phase::Done;
                self.stats.completion.get_or_insert(now);
                self.rto_timer.disarm();
                self.pacing_timer.disarm();
                return AckOutcome {
                    newly_acked_sacked: newly,
                    ece,
                };
            }
        }
        if self.tp.packets_out == 0 {
            self.rto_timer.disarm();
        } else if data_acked {
            self.rto_timer.disarm();
            self.arm_rto(now, out);
        }
        self.try_send(now, out);
        AckOutcome {
            newly_acked_sacked: newly,
            ece,
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
        if self.tp.ca_state < CaState::Cwr {
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
        }
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

    /// A retransmission is lost when a segment sent after it has been
    /// delivered: links never reorder, so nothing else explains it (the idea
    /// of Linux's `tcp_mark_lost_retrans` and of RACK, RFC 8985, with a zero
    /// reordering window). Without this only the RTO would repair a lost
    /// retransmission. Costs O(retransmissions resolved) per ACK.
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
            if (sent, seq + seg.len as u64) >= newest_delivered {
                break;
            }
            self.retx_queue.pop_front();
            self.segs[i].bits = (seg.bits & !RETRANS) | LOST;
            self.tp.retrans_out -= 1;
            if seg.bits & LOST == 0 {
                self.tp.lost_out += 1;
            }
            self.tp.lost += 1;
            self.stats.lost_retransmits += 1;
            self.retx_hint = self.retx_hint.min(i);
            self.lost_frontier = self.lost_frontier.max(i + 1);
        }
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

    /// Linux `tcp_init_cwnd_reduction`.
    fn init_cwnd_reduction(&mut self) {
        self.high_seq = self.tp.snd_nxt;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
        if self.tp.ecn_ok {
            self.queue_cwr = true;
        }
    }

    /// Linux `tcp_end_cwnd_reduction`.
    fn end_cwnd_reduction(&mut self) {
        if self.cc.has_cong_control() {
            return;
        }
        if self.tp.snd_ssthresh < crate::cc::INFINITE_SSTHRESH {
            self.tp.snd_cwnd = self.tp.snd_ssthresh;
            self.tp.snd_cwnd_stamp = self.tp.now;
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
    }

    fn recovery_state_machine(&mut self, data_acked: bool, ece: bool) {
        let una = self.tp.snd_una;
        match self.tp.ca_state {
            CaState::Recovery if una >= self.high_seq => {
                self.end_cwnd_reduction();
                self.set_state(CaState::Open);
            }
            CaState::Recovery => {
                if !self.cfg.sack && data_acked && !self.segs.is_empty() {
                    // NewReno partial ACK (RFC 6582 §3.2 step 3): the next
                    // hole is lost; retransmit it.
                    self.mark_lost(0);
                }
                return;
            }
            // Linux holds CWR until something *above* high_seq is acked:
            // the ACK of exactly high_seq was sent before the receiver saw
            // CWR and may still echo ECE for the window just reduced.
            CaState::Cwr if una > self.high_seq => {
                self.end_cwnd_reduction();
                self.set_state(CaState::Open);
            }
            CaState::Loss => {
                if una >= self.high_seq {
                    self.set_state(CaState::Open);
                } else {
                    return;
                }
            }
            _ => {}
        }
        // Open, Disorder or CWR.
        let time_to_recover = if self.cfg.sack {
            self.tp.lost_out > 0
        } else {
            self.tp.sacked_out >= self.cfg.dupthresh
        };
        if time_to_recover {
            if !self.cfg.sack {
                self.mark_lost(0);
            }
            self.stats.recoveries += 1;
            // Linux tcp_enter_recovery: a reduction already under way (CWR)
            // continues, with its ssthresh and recovery point.
            if self.tp.ca_state != CaState::Cwr {
                self.init_cwnd_reduction();
            }
            self.set_state(CaState::Recovery);
        } else if ece && self.tp.ca_state < CaState::Cwr {
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
        } else if self.tp.ca_state != CaState::Cwr {
            let s = if self.tp.sacked_out > 0 || self.tp.lost_out > 0 {
                CaState::Disorder
            } else {
                CaState::Open
            };
            self.set_state(s);
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
                TimerFire::Due => self.on_rto(now, out),
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
    }

    /// Retransmission timeout (RFC 6298 §5.4–5.6; Linux `tcp_enter_loss`).
    fn on_rto(&mut self, now: Time, out: &mut Out) {
        match self.phase {
            Phase::SynSent => {
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
        // Linux tcp_enter_loss: a new threshold only if no reduction is
        // under way (Open/Disorder) or its recovery point has been acked.
        if self.tp.ca_state <= CaState::Disorder || self.tp.snd_una >= self.high_seq {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        for i in 0..self.segs.len() {
            let b = self.segs[i].bits;
            if b & SACKED != 0 {
                continue;
            }
            if b & LOST == 0 {
                self.tp.lost_out += 1;
                self.tp.lost += 1;
            }
            self.segs[i].bits = (b | LOST) & !RETRANS;
        }
        self.tp.retrans_out = 0;
        self.lost_hint = self.segs.len();
        self.sacked_below_hint = self.tp.sacked_out;
        self.retx_hint = 0;
        self.lost_frontier = self.segs.len();
        self.tp.snd_cwnd = self.tp.in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.snd_cwnd_stamp = now;
        self.high_seq = self.tp.snd_nxt;
        if self.tp.ecn_ok {
            self.queue_cwr = true;
        }
        // Linux tcp_enter_loss calls tcp_set_ca_state(Loss) on every RTO,
        // also when already in Loss (BBR counts each as the end of a round).
        self.cc.set_state(&mut self.tp, CaState::Loss);
        self.tp.ca_state = CaState::Loss;
        self.rtt.back_off();
        self.arm_rto(now, out);
        self.try_send(now, out);
    }

    // ------------------------------------------------------------------
    // Transmission.
    // ------------------------------------------------------------------

    /// Pacing rate in bit/s, if the sender paces.
    fn pacing_rate_bps(&self) -> Option<u64> {
        let cap = self.cfg.max_rate_bps;
        if self.cc.wants_pacing() && self.tp.pacing_rate_bps > 0 {
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

    /// Linux TCP small queues: at most ~1 ms of the sending rate (at least
    /// two packets) waits in the NIC queue, capped by `tsq_bytes`.
    fn tsq_limit(&self) -> u64 {
        let two = 2 * (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        let rate_bps = self.pacing_rate_bps().unwrap_or_else(|| {
            // Linux tcp_update_pacing_rate: 200 % of cwnd/srtt in slow start, 120 % after.
            let srtt = self.tp.srtt.ps().max(1) as u128;
            let pct: u128 = if self.tp.in_slow_start() { 200 } else { 120 };
            let bits = self.tp.snd_cwnd as u128 * self.cfg.mss_bytes as u128 * 8;
            (bits * pct * crate::sim::PS_PER_S as u128 / 100 / srtt).min(u64::MAX as u128) as u64
        });
        (rate_bps / 8 / 1000)
            .max(two)
            .min(self.cfg.tsq_bytes.max(two))
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

    /// Sends what cwnd, pacing, TSQ and the receiver window allow.
    pub fn try_send(&mut self, now: Time, out: &mut Out) {
        if self.phase != Phase::Established {
            return;
        }
        let mut cwnd_limited = false;
        loop {
            if let Some(rate) = self.pacing_rate_bps() {
                if now < self.tp.wstamp {
                    if let Some(at) = self.pacing_timer.arm(self.tp.wstamp) {
                        out.timers.push((at, TimerKind::Pacing));
                    }
                    break;
                }
                let _ = rate;
            }
            if self.cfg.tsq_bytes > 0 && self.nic_bytes >= self.tsq_limit() {
                self.tsq_throttled = true;
                break;
            }
            if self.tp.in_flight() >= self.tp.snd_cwnd {
                cwnd_limited = true;
                break;
            }
            if let Some(i) = self.next_retransmit() {
                self.event_data_sent();
                self.transmit(now, i, true, out);
                continue;
            }
            match self.new_data_len(now) {
                Some(len) => {
                    self.event_data_sent();
                    if self.tp.packets_out == 0 {
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
        let cc_rate = if self.cc.wants_pacing() {
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
            if !retrans || self.cc.needs_ecn() {
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
        let mut p = self.packet(now, f, seq, len, ecn);
        p.retransmit = retrans;
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
        self.nic_bytes += p.size_bytes as u64;
        self.schedule_next_departure(now, len, p.size_bytes);
        out.pkts.push(p);
        if !self.rto_timer.is_armed() {
            self.arm_rto(now, out);
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
}

#[cfg(test)]
mod tests;
