//! The TCP receiver: cumulative ACKs, SACK blocks, delayed ACKs and the ECN
//! echo.
//!
//! - Delayed ACKs (RFC 9293 §3.8.6.3, Linux `__tcp_ack_snd_check`): ACK at
//!   once when more than one full-sized segment is unacknowledged, when data
//!   arrives out of order or fills a hole, during quick-ACK at the start of
//!   the connection, or on a duplicate; otherwise arm the delayed-ACK timer.
//!   `delayed_ack = false` ACKs every segment.
//! - SACK (RFC 2018): up to three blocks, the first containing the segment
//!   that triggered the ACK, then the most recently reported others.
//! - ECN, classic (RFC 3168 §6.1.3): after a CE data packet, set ECE on every
//!   ACK until a data segment arrives with CWR; CE also triggers quick-ACK,
//!   as in Linux.
//! - ECN, accurate (DCTCP, RFC 8257 §3.2): ECE mirrors the CE bit of the
//!   data being acknowledged. When the CE state flips while an ACK is being
//!   delayed, an ACK for the data received so far is sent at once with the
//!   old ECE value, so the sender sees exactly how many bytes were marked.
//!   (In Linux this logic sits in the receiving socket's `tcp_dctcp.c`; here
//!   it is a receiver mode chosen with the control, since the echo is a
//!   property of the receiver.)
//! - ECN, AccECN (`tcp::accecn`, for L4S controls): every ACK carries the
//!   count of CE packets received, modulo 8, in its ACE field; negotiated
//!   in the handshake, else the classic echo above.
//! - Timestamps (RFC 7323 §4.3, Linux `tcp_replace_ts_recent`): TS.Recent
//!   takes a segment's TSval only if the segment starts at or below the
//!   last ACK sent, so an ACK echoes the timestamp of the segment that
//!   filled the window's left edge: the original's if a delayed original
//!   filled a hole, the retransmission's if the retransmission did (what
//!   the sender's Eifel detection reads).
//! - D-SACK (RFC 2883 §4): a segment received twice is reported once, as
//!   the first SACK block of the next ACK (sent at once), before the
//!   regular blocks.
//! - GRO (`TcpConfig::gro`, `receiver/gro.rs`): the segments of one of the
//!   sender's TSO skbs taken as one skb, one ACK decision for all of them.

use super::ranges::RangeSet;
use super::{ts_before, ts_ms, Endpoints, Out, TimerKind};
use crate::config::TcpConfig;
use crate::net::packet::{flags, Ecn, Packet, Proto, SackBlock, MAX_SACK_BLOCKS};
use crate::sim::{Dur, LazyTimer, Time};
use gro::Gro;
use recent::RecentBlocks;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    Off,
    Classic,
    Accurate,
    /// AccECN's ACE counter (`tcp::accecn`).
    AccEcn,
}

pub struct Receiver {
    ep: Endpoints,
    header: u32,
    mss: u32,
    rwnd: u64,
    sack: bool,
    timestamps: bool,
    dsack: bool,
    /// TS.Recent (RFC 7323), echoed in every ACK.
    ts_recent: u32,
    /// A duplicate to report as a D-SACK block in the next ACK.
    dsack_block: Option<SackBlock>,
    delayed_ack: bool,
    delack_timeout: Dur,
    echo: EcnEcho,
    ecn_ok: bool,
    established: bool,
    pub rcv_nxt: u64,
    /// rcv_nxt advertised in the last ACK sent.
    rcv_wup: u64,
    ooo: RangeSet,
    /// Blocks in SACK order, most recent first (`receiver/recent.rs`).
    recent: RecentBlocks,
    quickacks: u32,
    delack: LazyTimer,
    /// Classic: ECE demanded until CWR. Accurate: CE state of the last data.
    ece: bool,
    /// AccECN: CE packets received (`r.cep`, from 5) and as last reported.
    cep: u32,
    cep_reported: u32,
    pub fin_received: bool,
    /// End of the stream, once a segment carrying FIN has arrived.
    fin_end: Option<u64>,
    pub completion: Option<Time>,
    /// Each TSO skb taken whole (`TcpConfig::gro`, `receiver/gro.rs`).
    gro: Gro,
    // Counters.
    pub ce_received: u64,
    pub acks_sent: u64,
    pub data_pkts_received: u64,
    /// Data segments that arrived above a hole (out of order): on a path
    /// without loss, a measure of reordering.
    pub ooo_received: u64,
}

impl Receiver {
    pub fn new(ep: Endpoints, cfg: &TcpConfig, echo: EcnEcho) -> Self {
        Receiver {
            ep,
            header: cfg.header_bytes,
            mss: cfg.mss_bytes,
            rwnd: cfg.rwnd_bytes,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            dsack: cfg.sack && cfg.dsack,
            ts_recent: 0,
            dsack_block: None,
            delayed_ack: cfg.delayed_ack,
            delack_timeout: Dur::from_ps(cfg.delack_timeout_ps),
            echo,
            ecn_ok: !cfg.handshake && echo != EcnEcho::Off,
            established: !cfg.handshake,
            rcv_nxt: 0,
            rcv_wup: 0,
            ooo: RangeSet::new(),
            recent: RecentBlocks::default(),
            quickacks: cfg.quickack_segments,
            delack: LazyTimer::default(),
            ece: false,
            cep: super::accecn::CEP_INIT,
            cep_reported: super::accecn::CEP_INIT,
            fin_received: false,
            fin_end: None,
            completion: None,
            gro: Gro::new(cfg.gro),
            ce_received: 0,
            acks_sent: 0,
            data_pkts_received: 0,
            ooo_received: 0,
        }
    }

    /// Handles a packet from the sender.
    pub fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Out) {
        if self.timestamps
            && p.ts_val != 0
            && p.seq <= self.rcv_wup
            && !ts_before(p.ts_val, self.ts_recent)
        {
            self.ts_recent = p.ts_val;
        }
        if p.has(flags::SYN) {
            // (Re)answer the SYN; ECN is agreed if asked and supported.
            self.ecn_ok = self.echo != EcnEcho::Off && p.has(flags::ECE) && p.has(flags::CWR);
            let mut f = flags::SYN | flags::ACK;
            if self.echo == EcnEcho::AccEcn && !super::accecn::syn_requests(p.tcp_flags) {
                self.echo = EcnEcho::Classic; // the sender asked for classic ECN
            }
            if self.ecn_ok && self.echo == EcnEcho::AccEcn {
                f |= super::accecn::SYN_ACK_ACCEPT;
            } else if self.ecn_ok {
                f |= flags::ECE;
            }
            self.emit(now, f, out);
            return;
        }
        self.established = true;
        if p.payload_bytes == 0 {
            return;
        }
        self.data_pkts_received += 1;
        // A merge of one skb's segments held (`receiver/gro.rs`): `p` joins
        // it or ends it.
        let alone = self.gro.is_open() && self.gro_before(now, p, out);
        let ce = p.ecn == Ecn::Ce;
        if ce {
            self.ce_received += 1;
        }
        let mut immediate = false;
        if self.ecn_ok {
            match self.echo {
                EcnEcho::Classic => {
                    if p.has(flags::CWR) {
                        self.ece = false;
                    }
                    if ce {
                        self.ece = true;
                        self.quickacks = self.quickacks.max(2);
                    }
                }
                EcnEcho::Accurate => {
                    if ce != self.ece {
                        if self.rcv_nxt > self.rcv_wup {
                            // ACK what came before, with the old CE state.
                            self.send_ack(now, out);
                        }
                        self.ece = ce;
                        immediate = true;
                    }
                }
                EcnEcho::AccEcn => {
                    if ce {
                        self.cep = self.cep.wrapping_add(1);
                        let unreported = self.cep.wrapping_sub(self.cep_reported);
                        immediate |= unreported >= super::accecn::ACE_IMMEDIATE;
                    }
                }
                EcnEcho::Off => {}
            }
        }

        let (s, e) = (p.seq, p.seq + p.payload_bytes as u64);
        if e <= self.rcv_nxt {
            // Duplicate: ACK at once so the sender learns where we are.
            self.set_dsack(s, e);
            self.send_ack(now, out);
            return;
        }
        let had_holes = !self.ooo.is_empty();
        if s <= self.rcv_nxt {
            if s < self.rcv_nxt {
                // Partly old (Linux tcp_data_queue: seq < rcv_nxt < end_seq).
                self.set_dsack(s, self.rcv_nxt);
            }
            self.rcv_nxt = e;
            if let Some(&(rs, re)) = self.ooo.ranges().first() {
                if rs <= self.rcv_nxt {
                    self.rcv_nxt = self.rcv_nxt.max(re);
                }
            }
            if had_holes {
                self.ooo.trim_below(self.rcv_nxt);
                self.recent.trimmed(self.rcv_nxt);
                immediate = true; // filled (part of) a hole
            }
        } else {
            // Above a hole. Inserting reports what is new; a segment with
            // nothing new was already held (inserting it changed nothing),
            // which one search tells, instead of a lookup before the insert.
            let mut fresh = false;
            let before = self.ooo.ranges().len();
            let idx = self.ooo.insert(s, e, |_, _| fresh = true);
            let merged = self.ooo.ranges().len() < before;
            if !fresh {
                // Already held out of order: the block holding it goes first
                // after the D-SACK (RFC 2883 §4.2: so the sender can tell).
                self.set_dsack(s, e);
                self.recent.touch(&self.ooo, idx, merged);
                self.send_ack(now, out);
                return;
            }
            self.ooo_received += 1;
            self.recent.touch(&self.ooo, idx, merged);
            immediate = true;
        }
        if p.has(flags::FIN) {
            self.fin_end = Some(e);
        }
        // The stream is complete when everything up to the FIN is in order,
        // also when the FIN segment itself arrived before a hole was filled.
        if !self.fin_received && self.fin_end.is_some_and(|end| self.rcv_nxt >= end) {
            self.fin_received = true;
            self.completion.get_or_insert(now);
            immediate = true;
        }

        let unacked = self.rcv_nxt - self.rcv_wup;
        let mut ack =
            !self.delayed_ack || immediate || self.quickacks > 0 || unacked > self.mss as u64;
        if self.gro.on {
            ack = self.gro_after(p, e, ack, alone);
        }
        if ack {
            self.send_ack(now, out);
        } else if let Some(at) = self.delack.arm(now + self.delack_timeout) {
            out.timers.push((at, TimerKind::DelAck));
        }
    }

    /// The delayed-ACK timer event.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Out) {
        match self.delack.on_fire(now) {
            crate::sim::TimerFire::Due => {
                if self.rcv_nxt > self.rcv_wup || self.gro_owes_ack() {
                    self.send_ack(now, out);
                }
            }
            crate::sim::TimerFire::Reschedule(at) => out.timers.push((at, TimerKind::DelAck)),
            crate::sim::TimerFire::Ignore => {}
        }
    }

    fn set_dsack(&mut self, start: u64, end: u64) {
        if self.dsack {
            self.dsack_block = Some(SackBlock { start, end });
        }
    }

    fn send_ack(&mut self, now: Time, out: &mut Out) {
        let mut f = flags::ACK;
        if self.ecn_ok && self.echo == EcnEcho::AccEcn {
            f |= super::accecn::ace_flags(self.cep);
            self.cep_reported = self.cep;
        } else if self.ecn_ok && self.ece {
            f |= flags::ECE;
        }
        self.emit(now, f, out);
        self.rcv_wup = self.rcv_nxt;
        self.delack.disarm();
        self.quickacks = self.quickacks.saturating_sub(1);
    }

    fn emit(&mut self, now: Time, tcp_flags: u8, out: &mut Out) {
        // The SACK blocks first: the D-SACK block, then the most recently
        // reported ranges still held.
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n = 0;
        if let Some(d) = self.dsack_block.take() {
            sack[0] = d;
            n = 1;
        }
        if self.sack && !self.ooo.is_empty() {
            n = self.recent.write(&self.ooo, &mut sack, n);
        }
        let (ts_val, ts_ecr) = if self.timestamps {
            (ts_ms(now), self.ts_recent)
        } else {
            (0, 0)
        };
        // Written whole, in 16-byte stores (see `Sender::transmit`).
        out.push_whole(Packet {
            size_bytes: self.header,
            payload_bytes: 0,
            flow: self.ep.flow,
            src: self.ep.dst,
            dst: self.ep.src,
            sport: self.ep.dport,
            dport: self.ep.sport,
            proto: Proto::Tcp,
            ecn: Ecn::NotEct,
            tcp_flags,
            n_sack: n as u8,
            ack: self.rcv_nxt,
            rwnd_bytes: self.rwnd,
            born_ps: now.ps(),
            sack,
            ts_val,
            ts_ecr,
            ..Default::default()
        });
        self.acks_sent += 1;
    }

    pub fn ecn_ok(&self) -> bool {
        self.ecn_ok
    }
}

mod gro;
mod recent;
#[cfg(test)]
mod tests;
