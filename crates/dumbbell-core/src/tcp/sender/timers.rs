//! RTO and timers, as Linux's `tcp_timer.c` and `tcp_set_xmit_timer()`:
//! the one transmit timer (RTO, tail loss probe or RACK's reordering
//! timer), entering Loss on a timeout and the probes.

use super::*;

impl Sender {
    /// Arms the retransmission timer in `mode` for `at`; the event to
    /// schedule, if any, waits in `timer_push` until the entry point
    /// returns ([`Self::flush_timer`]).
    pub(super) fn arm_xmit(&mut self, mode: XmitTimer, at: Time) {
        self.xmit_mode = mode;
        if let Some(t) = self.rto_timer.arm(at) {
            // Each event the lazy timer asks for is earlier than the last.
            self.timer_push = Some(t);
        }
    }

    pub(super) fn flush_timer(&mut self, out: &mut Out) {
        if let Some(at) = self.timer_push.take() {
            out.timers.push((at, TimerKind::Rto));
        }
    }

    /// Time left until the RTO of the head segment, counted from its last
    /// transmission (Linux `tcp_rto_delta_us`); may be zero.
    pub(super) fn rto_delta(&self, now: Time) -> Dur {
        match self.segs.front() {
            Some(h) => (h.sent + self.rtt.rto()).saturating_since(now),
            None => self.rtt.rto(),
        }
    }

    /// Linux `tcp_rearm_rto`: the RTO from now, or, when it replaces a
    /// reordering timeout or a probe, from the head's transmission.
    pub(super) fn rearm_rto(&mut self, now: Time) {
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
    pub(super) fn schedule_loss_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
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
    pub(super) fn set_xmit_timer(&mut self, now: Time, out: &mut Out) {
        if !self.schedule_loss_probe(now, true) {
            self.rearm_rto(now);
        }
        self.flush_timer(out);
    }

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
    pub(super) fn on_rto(&mut self, now: Time, out: &mut Out) {
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
    pub(super) fn enter_loss(&mut self, now: Time) {
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
    pub(super) fn timeout_mark_lost(&mut self, now: Time) {
        // Without SACK the duplicate ACKs counted as SACKed are forgotten
        // (Linux `tcp_reset_reno_sack`): every segment is now lost.
        if !self.cfg.sack {
            self.tp.sacked_out = 0;
        }
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
            if seg.bits & RETRANS != 0 {
                self.tp.retrans_out -= 1;
            }
            self.segs[i].bits = (seg.bits | LOST) & !RETRANS;
            if seg.bits & LOST == 0 {
                self.tp.lost_out += 1;
                self.tp.lost += 1;
                self.notify_lost(i);
            }
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
    pub(super) fn on_reo_timeout(&mut self, now: Time, out: &mut Out) {
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
    pub(super) fn on_loss_probe(&mut self, now: Time, out: &mut Out) {
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
}
