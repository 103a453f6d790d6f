//! Recovery and loss marking, as Linux's `tcp_fastretrans_alert()` and
//! its helpers: loss detection (RACK, RFC 6675 DupThresh, NewReno),
//! entering and leaving Recovery and CWR, the undo checks (D-SACK, Eifel,
//! F-RTO) and the proportional rate reduction of the window.

use super::*;

impl Sender {
    /// Linux `tcp_fastretrans_alert`: state exits at the recovery point,
    /// undo, loss detection, state entries.
    pub(super) fn fastretrans_alert(&mut self, now: Time, prior_una: u64, f: &mut AckFacts) {
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
    pub(super) fn time_to_recover(&self) -> bool {
        self.tp.lost_out > 0
    }

    /// Linux `tcp_identify_packet_loss`.
    pub(super) fn identify_packet_loss(&mut self, now: Time, f: &mut AckFacts) {
        if self.segs.is_empty() {
            return;
        }
        if !self.cfg.sack {
            // NewReno (Linux tcp_newreno_mark_lost): the head, at
            // DupThresh duplicate ACKs, or on a partial ACK in Recovery.
            let st = self.tp.ca_state;
            if (st < CaState::Recovery && self.tp.sacked_out >= self.reordering)
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
    /// after RACK's, or at the first still waiting: those after it, sent
    /// later, wait too, and the longest wait among them is found without
    /// walking them (`rack_tail.rs`). Cost: the segments decided, plus a
    /// short search per walk.
    pub(super) fn rack_detect_loss(&mut self, now: Time) -> Dur {
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
        while i < self.segs.len() {
            let seg = self.segs[i];
            if seg.bits & (SACKED | LOST | EVER_RETRANS) != 0 {
                i += 1;
                self.rack_hint = i;
                continue;
            }
            if !Rack::sent_after(rx, re, seg.sent, seg.end()) {
                break;
            }
            let waited = now.saturating_since(seg.sent);
            if waited >= limit {
                self.mark_lost(i);
                self.rack_hint = i + 1;
            } else {
                // The rest of the walk waits too (`rack_tail.rs`).
                wait = wait.max(limit - waited);
                wait = wait.max(self.rack_segs_tail(i, now, limit));
                break;
            }
            i += 1;
        }
        while let Some(&(seq, sent)) = self.retx_queue.front() {
            let Some(idx) = self.retx_live(seq, sent) else {
                // Delivered, found lost, or sent again since.
                self.retx_queue.pop_front();
                continue;
            };
            if !Rack::sent_after(rx, re, sent, self.segs[idx].end()) {
                break;
            }
            let waited = now.saturating_since(sent);
            if waited >= limit {
                self.mark_retransmission_lost(idx);
                self.retx_queue.pop_front();
            } else {
                // The rest of the walk waits too (`rack_tail.rs`).
                wait = wait.max(limit - waited);
                wait = wait.max(self.rack_retx_tail(0, now, limit));
                break;
            }
        }
        wait
    }

    /// RFC 6675 `IsLost`, with a hint that only moves forward: a hole is
    /// lost once DupThresh segments above it are SACKed.
    pub(super) fn mark_lost_from_sacks(&mut self) {
        if !self.cfg.sack || self.tp.sacked_out == 0 {
            return;
        }
        let thresh = self.reordering;
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
    pub(super) fn mark_lost_retransmits(&mut self, newest_delivered: (Time, u64)) {
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
    pub(super) fn mark_retransmission_lost(&mut self, i: usize) {
        let bits = self.segs[i].bits;
        self.segs[i].bits = (bits & !RETRANS) | LOST;
        self.tp.retrans_out -= 1;
        if bits & LOST == 0 {
            self.tp.lost_out += 1;
        }
        self.tp.lost += 1;
        self.notify_lost(i);
        self.stats.lost_retransmits += 1;
        self.retx_hint = self.retx_hint.min(i);
        self.lost_frontier = self.lost_frontier.max(i + 1);
    }

    pub(super) fn mark_lost(&mut self, i: usize) {
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
        self.notify_lost(i);
        self.retx_hint = self.retx_hint.min(i);
        self.lost_frontier = self.lost_frontier.max(i + 1);
    }

    /// Tells the control that segment `i` was just marked lost (Linux v3
    /// `tcp_mark_skb_lost` → `skb_marked_lost`), with its send-time snapshot.
    pub(super) fn notify_lost(&mut self, i: usize) {
        let tx = self.segs[i].tx;
        let seg = LostSegment {
            tx_in_flight: tx.in_flight,
            lost: self.tp.lost - tx.lost,
            is_app_limited: tx.app_limited,
        };
        self.cc.skb_marked_lost(&mut self.tp, &seg);
    }

    pub(super) fn set_state(&mut self, s: CaState) {
        if self.tp.ca_state != s {
            self.cc.set_state(&mut self.tp, s);
            self.tp.ca_state = s;
        }
    }

    /// Linux `tcp_current_ssthresh`.
    pub(super) fn current_ssthresh(&self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.snd_ssthresh
        } else {
            let w = self.tp.snd_cwnd;
            self.tp.snd_ssthresh.max((w >> 1) + (w >> 2))
        }
    }

    /// Linux `tcp_init_undo`: a reduction begins that may prove spurious.
    pub(super) fn init_undo(&mut self) {
        self.undo_marker = Some(self.tp.snd_una);
        let mut n = self.tp.retrans_out as i64;
        if self.tlp_high_seq.is_some() && self.tlp_retrans {
            n += 1;
        }
        self.undo_retrans = if n == 0 { -1 } else { n };
    }

    /// Linux `tcp_enter_recovery`.
    pub(super) fn enter_recovery(&mut self, ece: bool) {
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
    pub(super) fn init_cwnd_reduction(&mut self) {
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
    pub(super) fn end_cwnd_reduction(&mut self) {
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
    pub(super) fn enter_cwr(&mut self) {
        self.prior_ssthresh = 0;
        if self.tp.ca_state < CaState::Cwr {
            self.undo_marker = None;
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
        }
    }

    /// Linux `tcp_any_retrans_done`.
    pub(super) fn any_retrans_done(&self) -> bool {
        self.tp.retrans_out > 0
            || self
                .segs
                .front()
                .is_some_and(|s| s.bits & EVER_RETRANS != 0)
    }

    /// Linux `tcp_try_keep_open`: Open, or Disorder while holes or
    /// retransmissions remain.
    pub(super) fn try_keep_open(&mut self) {
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
    pub(super) fn try_to_open(&mut self, ece: bool) {
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
    pub(super) fn packet_delayed(&self) -> bool {
        self.retrans_stamp.is_some_and(|s| self.tsecr_before(s))
    }

    /// Linux `tcp_may_undo`: every retransmission came back duplicate, or
    /// the timestamps prove an original arrived.
    pub(super) fn may_undo(&self) -> bool {
        self.undo_marker.is_some() && (self.undo_retrans == 0 || self.packet_delayed())
    }

    /// Linux `tcp_undo_cwnd_reduction`: the control's `undo_cwnd`, the old
    /// ssthresh, and with `unmark_loss` every lost mark cleared.
    pub(super) fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
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
    pub(super) fn try_undo_recovery(&mut self) {
        if self.may_undo() {
            self.undo_cwnd_reduction(false);
        } else if self.rack.reo_wnd_persist > 0 {
            self.rack.reo_wnd_persist -= 1;
        }
        self.set_state(CaState::Open);
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission came back as a
    /// D-SACK.
    pub(super) fn try_undo_dsack(&mut self) -> bool {
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
    pub(super) fn try_undo_partial(&mut self, prior_una: u64) -> bool {
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
    pub(super) fn try_undo_loss(&mut self, frto_undo: bool) -> bool {
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
    pub(super) fn process_loss(&mut self, f: &AckFacts) {
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
    pub(super) fn cwnd_reduction(
        &mut self,
        newly_acked_sacked: u32,
        newly_lost: u32,
        una_advanced: bool,
    ) {
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
}
