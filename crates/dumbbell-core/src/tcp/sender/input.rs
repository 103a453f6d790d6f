//! Input: an ACK (or a returned copy) reaching the sender, as Linux's
//! `tcp_ack()` in `tcp_input.c`: the scoreboard (SACK, D-SACK, the
//! cumulative ACK), RTT samples, reordering, the control's per-ACK hooks,
//! the tail-loss-probe check and the delivery-rate sample (`tcp_rate.c`).
//! The hook order is written out in `cc/mod.rs`.

use super::*;

impl Sender {
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
        // AccECN: the CE packets the ACE counter newly reports.
        let ce_delta = if self.tp.accecn_ok {
            self.ace.delta(p.tcp_flags)
        } else {
            0
        };
        let mut f = AckFacts {
            ece: self.tp.ecn_ok && (ce_delta > 0 || !self.tp.accecn_ok && p.has(flags::ECE)),
            ..Default::default()
        };
        let mut rs = RateSample {
            prior_in_flight,
            is_ece: f.ece,
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
            // A duplicate ACK without SACK (Linux tcp_add_reno_sack); one
            // more than the window allows is reordering.
            if self.tp.sacked_out + 1 < self.tp.packets_out {
                self.tp.sacked_out += 1;
                f.newly += 1;
            } else {
                self.check_reno_reordering(0);
            }
        }
        self.tp.delivered += f.newly as u64;
        if f.ece {
            self.tp.delivered_ce += if self.tp.accecn_ok {
                ce_delta as u64
            } else {
                f.newly as u64
            };
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
            let counted = if self.cfg.growth_per_ack { 1 } else { f.newly };
            self.cc.cong_avoid(&mut self.tp, ack, counted);
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
    pub(super) fn on_syn_ack(&mut self, now: Time, p: &Packet, out: &mut Out) {
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
        if self.wants_ecn() && self.caps.l4s {
            let agreed = crate::tcp::accecn::agreed(p.tcp_flags);
            self.tp.ecn_ok = agreed != crate::tcp::accecn::Agreed::None;
            self.tp.accecn_ok = agreed == crate::tcp::accecn::Agreed::AccEcn;
        } else {
            self.tp.ecn_ok = self.wants_ecn() && p.has(flags::ECE);
        }
        self.sync_tp(now);
        self.establish(now, out);
    }

    /// The end of the highest SACKed segment, or `snd_una` (Linux
    /// `tcp_highest_sack_seq`).
    pub(super) fn highest_sacked(&self) -> u64 {
        self.sacked.ranges().last().map_or(self.tp.snd_una, |r| r.1)
    }

    pub(super) fn rack_on(&self) -> bool {
        self.cfg.sack && self.cfg.rack
    }

    /// Step 1a: the SACK blocks. A first block below the cumulative ACK, or
    /// inside the second block, is a D-SACK (RFC 2883 §4); the others mark
    /// newly SACKed segments.
    pub(super) fn sack_blocks(
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
        let mut taken = [(0, 0); crate::net::packet::MAX_SACK_BLOCKS];
        let mut n_taken = 0;
        for b in &blocks[dsack as usize..] {
            let s = b.start.max(self.tp.snd_una);
            let e = b.end.min(self.tp.snd_nxt);
            if s < e {
                if !self.sack_cache.covers(s, e) {
                    let scratch = &mut self.scratch;
                    self.sacked.insert(s, e, |x, y| scratch.push((x, y)));
                }
                taken[n_taken] = (s, e);
                n_taken += 1;
            }
        }
        self.sack_cache.replace(taken, n_taken);
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
    pub(super) fn dsack_block(&mut self, start: u64, end: u64, prior_una: u64, f: &mut AckFacts) {
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
    pub(super) fn cumulative_ack(
        &mut self,
        now: Time,
        ack: u64,
        f: &mut AckFacts,
        rs: &mut RateSample,
    ) {
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
        if !self.sacked.is_empty() {
            self.sacked.trim_below(ack);
        }
        if !self.cfg.sack {
            // Linux tcp_remove_reno_sacks: one ACK fills the hole, the
            // rest of what it acks ate duplicate ACKs, whose segments
            // were counted as delivered when they arrived.
            let acked = popped as u32;
            if acked > 0 {
                f.newly = acked.saturating_sub(self.tp.sacked_out).max(1);
                self.tp.sacked_out = self.tp.sacked_out.saturating_sub(acked - 1);
            }
            let holes = self.tp.lost_out.max(1).min(self.tp.packets_out);
            if self.tp.sacked_out + holes > self.tp.packets_out {
                self.check_reno_reordering(acked);
            }
            self.tp.sacked_out = self.tp.sacked_out.min(self.tp.packets_out);
            f.reord = None;
        }
    }

    /// A retransmitted segment acked by an ACK that echoes a timestamp
    /// older than the retransmission: the original was acked (Linux
    /// `tcp_skb_spurious_retrans`).
    pub(super) fn spurious_retrans(&self, seg: &Seg) -> bool {
        seg.bits & EVER_RETRANS != 0 && self.tsecr_before(ts_ms(seg.sent))
    }

    /// The ACK echoes a timestamp earlier than `when` (Linux
    /// `tcp_tsopt_ecr_before`).
    pub(super) fn tsecr_before(&self, when: u32) -> bool {
        self.ack_tsecr != 0 && ts_before(self.ack_tsecr, when)
    }

    /// Step 1c: RTT samples (Linux `tcp_ack_update_rtt`). The oldest newly
    /// acked never-retransmitted segment feeds the RTO estimator and the
    /// newest the control; SACKed ones if nothing was cumulatively acked;
    /// with timestamps, an ACK that advances `snd_una` and allows no such
    /// sample (Karn) is timed by its echo, to the millisecond. Returns the
    /// control's RTT.
    pub(super) fn ack_rtt(&mut self, now: Time, f: &AckFacts) -> Option<Dur> {
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
    /// order; `reordering` (the DupThresh of loss marking and RACK's
    /// switch) grows to that distance in segments, up to `max_reordering`
    /// (Linux `tcp_max_reordering`), unless `reordering_adapt` is off; RACK
    /// keeps its window open either way.
    pub(super) fn check_reordering(&mut self, low: u64, fack: u64) {
        if low >= fack {
            return;
        }
        let mss = self.cfg.mss_bytes as u64;
        let metric = (fack - low).div_ceil(mss);
        self.raise_reordering(metric);
        self.rack.reord_seen = true;
    }

    /// Raises `reordering` to `metric` segments, capped at
    /// `max_reordering`; never lowers it (a timeout does, `enter_loss`).
    pub(super) fn raise_reordering(&mut self, metric: u64) {
        if self.cfg.reordering_adapt && metric > self.reordering as u64 {
            let cap = self.cfg.max_reordering.max(self.cfg.dupthresh);
            self.reordering = metric.min(cap as u64) as u32;
        }
    }

    /// Linux `tcp_check_reno_reordering` (no SACK): more duplicate ACKs
    /// than segments could have caused them means reordering; the
    /// threshold becomes the window plus `addend` (the segments just
    /// cumulatively acked).
    pub(super) fn check_reno_reordering(&mut self, addend: u32) {
        self.raise_reordering((self.tp.packets_out + addend) as u64);
        self.rack.reord_seen = true;
    }

    /// Steps 2 and 3: `in_ack_event`, then `pkts_acked` if anything was
    /// delivered.
    pub(super) fn notify_ack(
        &mut self,
        p: &Packet,
        f: &AckFacts,
        ca_rtt: Option<Dur>,
        prior_in_flight: u32,
    ) {
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
    pub(super) fn process_tlp_ack(&mut self, ack: u64, f: &AckFacts) {
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
        self.on_returned_ce(now);
    }

    /// A returned copy, handled as `TcpConfig::copy_effect` says: a
    /// congestion echo ([`Self::on_returned`]) or, as Linux, dropped as out
    /// of window with a duplicate ACK to the peer.
    pub fn on_returned_copy(&mut self, now: Time, out: &mut Out) {
        match self.cfg.copy_effect {
            CopyEffect::Ce => self.on_returned_ce(now),
            CopyEffect::Linux => {
                self.stats.returns_received += 1;
                if self.phase == Phase::Established {
                    out.pkts
                        .push(self.packet(now, flags::ACK, 0, 0, Ecn::NotEct));
                }
            }
        }
    }

    fn on_returned_ce(&mut self, now: Time) {
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
    pub(super) fn mark_sacked(&mut self, i: usize, rs: &mut RateSample) -> bool {
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

    /// `tcp_rate_skb_delivered`: keep the most recently sent delivered segment.
    pub(super) fn rate_delivered(&mut self, seg: &Seg, rs: &mut RateSample) {
        if seg.bits & RATE_DONE != 0 {
            return;
        }
        let tx = seg.tx;
        if rs.delivered.is_none() || tx.delivered >= rs.prior_delivered {
            rs.prior_delivered = tx.delivered;
            rs.prior_delivered_ce = tx.delivered_ce;
            rs.prior_time = tx.delivered_time;
            rs.is_app_limited = tx.app_limited;
            rs.tx_in_flight = tx.in_flight;
            rs.prior_lost = tx.lost;
            rs.is_retrans = seg.bits & EVER_RETRANS != 0;
            rs.snd_interval = seg.sent.saturating_since(tx.first_tx);
            // Later segments' send phase starts at this one's send time.
            self.first_tx_time = seg.sent;
            rs.delivered = Some(0); // marks "have a candidate"
        }
    }

    /// `tcp_rate_gen`.
    pub(super) fn rate_gen(
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
        rs.lost = self.tp.lost - rs.prior_lost;
        rs.rcv_interval = now.saturating_since(rs.prior_time);
        rs.interval = rs.snd_interval.max(rs.rcv_interval);
        // An interval shorter than min RTT means the ACKs were compressed:
        // the rate is not trustworthy. Linux invalidates the interval only
        // (`interval_us = -1`); the delivered count stays (BBR reads it).
        if rs.interval < self.tp.min_rtt && self.tp.min_rtt != Dur::MAX {
            rs.interval = Dur::ZERO;
        }
    }
}
