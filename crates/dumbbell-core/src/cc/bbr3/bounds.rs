//! BBRv3's congestion signals and the bounds they set: the latest
//! delivery signals, ECN alpha, the lower bounds (`bw_lo`, `inflight_lo`),
//! the upper bound (`inflight_hi`) and the ProbeBW cycle that probes it.
//! Each function is named after its Linux v3 counterpart.

use super::*;

/// What decides "inflight too high": a rate sample's or a lost segment's
/// flight (Linux builds a `rate_sample` for both).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Flight {
    /// Packets lost over the flight, and what was in flight when its last
    /// packet left.
    pub lost: u64,
    pub tx_in_flight: u32,
    pub delivered: u64,
    pub delivered_ce: u64,
    pub is_app_limited: bool,
}

impl Flight {
    fn of(rs: &RateSample) -> Flight {
        Flight {
            lost: rs.lost,
            tx_in_flight: rs.tx_in_flight,
            delivered: rs.delivered.unwrap_or(0),
            delivered_ce: rs.delivered_ce,
            is_app_limited: rs.is_app_limited,
        }
    }
}

impl Bbr3 {
    /// Linux `bbr_is_probing_bandwidth`: Startup, REFILL, UP.
    pub(super) fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// Linux `bbr_target_inflight`: the BDP, unless congestion cut cwnd.
    fn target_inflight(&self, tp: &TcpSock) -> u32 {
        self.inflight(tp, self.bw(), BBR_UNIT).min(tp.snd_cwnd)
    }

    /// Linux `bbr_update_ecn_alpha`: once per round, alpha ← EWMA of the
    /// round's CE fraction (when ECN may be used); Startup may end on it.
    pub(super) fn update_ecn_alpha(&mut self, tp: &TcpSock) {
        let rtt_ok = self.p.ecn_max_rtt.is_zero() || self.min_rtt <= self.p.ecn_max_rtt;
        if !self.ecn_eligible && self.can_use_ecn() && self.p.ecn_factor > 0 && rtt_ok {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = tp.delivered - self.alpha_last_delivered;
        let delivered_ce = tp.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ce_ratio = ((delivered_ce << BBR_SCALE) / delivered) as u32;
        let gain = self.p.ecn_alpha_gain;
        let alpha =
            (((BBR_UNIT - gain) * self.ecn_alpha) >> BBR_SCALE) + ((gain * ce_ratio) >> BBR_SCALE);
        self.ecn_alpha = alpha.min(BBR_UNIT);
        self.alpha_last_delivered = tp.delivered;
        self.alpha_last_delivered_ce = tp.delivered_ce;
        self.check_ecn_too_high_in_startup(tp, ce_ratio);
    }

    /// Linux `bbr_check_ecn_too_high_in_startup`.
    fn check_ecn_too_high_in_startup(&mut self, tp: &TcpSock, ce_ratio: u32) {
        if self.full_bw_reached || self.p.full_ecn_cnt == 0 || self.p.ecn_thresh == 0 {
            return;
        }
        if ce_ratio >= self.p.ecn_thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= self.p.full_ecn_cnt {
            self.handle_queue_too_high_in_startup(tp);
        }
    }

    /// Linux `bbr_handle_queue_too_high_in_startup`.
    fn handle_queue_too_high_in_startup(&mut self, tp: &TcpSock) {
        self.full_bw_reached = true;
        let bdp = self.inflight(tp, self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// Linux `bbr_check_loss_too_high_in_startup`: at the end of a Recovery
    /// round with enough loss events and a loss rate above the threshold.
    pub(super) fn check_loss_too_high_in_startup(&mut self, tp: &TcpSock, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.p.full_loss_cnt > 0
            && self.loss_round_start
            && tp.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.p.full_loss_cnt
            && self.is_inflight_too_high(&Flight::of(rs))
        {
            self.handle_queue_too_high_in_startup(tp);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// Linux `bbr_is_inflight_too_high`: loss over the flight above
    /// `loss_thresh`, or CE over the sample above `ecn_thresh`.
    pub(super) fn is_inflight_too_high(&self, f: &Flight) -> bool {
        if f.lost > 0 && f.tx_in_flight > 0 {
            let thresh = scale(f.tx_in_flight as u64, self.p.loss_thresh);
            if f.lost > thresh {
                return true;
            }
        }
        if f.delivered_ce > 0 && f.delivered > 0 && self.ecn_eligible && self.p.ecn_thresh > 0 {
            let thresh = scale(f.delivered, self.p.ecn_thresh);
            if f.delivered_ce > thresh {
                return true;
            }
        }
        false
    }

    /// Linux `bbr_inflight_hi_from_lost_skb`: the in-flight level at which,
    /// within the lost segment's flight, losses crossed `loss_thresh`:
    /// solve (lost_prev + x) / (inflight_prev + x) = thresh for x.
    pub(super) fn inflight_hi_from_lost(&self, f: &Flight) -> u32 {
        let (Some(inflight_prev), Some(lost_prev)) =
            (f.tx_in_flight.checked_sub(1), f.lost.checked_sub(1))
        else {
            return NO_BOUND;
        };
        let t = self.p.loss_thresh as u64;
        let budget = (inflight_prev as u64 * t + BBR_UNIT as u64 - 1) >> BBR_SCALE;
        let prefix = if lost_prev >= budget {
            0
        } else {
            ((budget - lost_prev) << BBR_SCALE) / (BBR_UNIT as u64 - t)
        };
        (inflight_prev as u64 + prefix).min(NO_BOUND as u64) as u32
    }

    /// Linux `bbr_inflight_with_headroom`: inflight_hi less 15 %.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == NO_BOUND {
            return NO_BOUND;
        }
        let headroom = scale32(self.inflight_hi, self.p.inflight_headroom).max(1);
        self.inflight_hi
            .saturating_sub(headroom)
            .max(CWND_MIN_TARGET)
    }

    /// Linux `bbr_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&self, tp: &mut TcpSock) {
        let mut cap = NO_BOUND;
        let cruising = self.mode == Mode::ProbeBw && self.phase == Phase::Cruise;
        if self.mode == Mode::ProbeBw && !cruising {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || cruising {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        tp.snd_cwnd = tp.snd_cwnd.min(cap);
    }

    /// Linux `bbr_init_lower_bounds`.
    fn init_lower_bounds(&mut self, tp: &TcpSock, init_bw: bool) {
        if init_bw && self.bw_lo == NO_BW_BOUND {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == NO_BOUND {
            self.inflight_lo = tp.snd_cwnd;
        }
    }

    /// Linux `bbr_adapt_lower_bounds`: once per round, outside probing,
    /// cut inflight_lo for ECN (by ecn_factor · alpha) and bw_lo and
    /// inflight_lo for loss (by beta, not below the latest round's).
    fn adapt_lower_bounds(&mut self, tp: &TcpSock) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = NO_BOUND;
        if self.ecn_in_round && self.p.ecn_factor > 0 {
            self.init_lower_bounds(tp, false);
            let ecn_cut = BBR_UNIT - ((self.ecn_alpha * self.p.ecn_factor) >> BBR_SCALE);
            ecn_inflight_lo = scale32(self.inflight_lo, ecn_cut);
        }
        if self.loss_in_round {
            self.init_lower_bounds(tp, true);
            let loss_cut = BBR_UNIT - self.p.beta;
            self.bw_lo = self.bw_latest.max(scale(self.bw_lo, loss_cut));
            self.inflight_lo = self
                .inflight_latest
                .max(scale32(self.inflight_lo, loss_cut));
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(1);
    }

    #[cfg(test)]
    pub(super) fn adapt_lower_bounds_for_test(&mut self, tp: &TcpSock) {
        self.adapt_lower_bounds(tp);
    }

    /// Linux `bbr_reset_lower_bounds`.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = NO_BW_BOUND;
        self.inflight_lo = NO_BOUND;
    }

    /// Linux `bbr_reset_congestion_signals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// Linux `bbr_update_latest_delivery_signals`: the round's max rate and
    /// volume; a loss round ends as a packet-timed round does.
    pub(super) fn update_latest_delivery_signals(&mut self, tp: &TcpSock, rs: &RateSample) {
        self.loss_round_start = false;
        if !valid(rs) || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(self.sample_bw);
        let delivered = rs.delivered.unwrap_or(0).min(u32::MAX as u64) as u32;
        self.inflight_latest = self.inflight_latest.max(delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = tp.delivered;
            self.loss_round_start = true;
        }
    }

    /// Linux `bbr_advance_latest_delivery_signals`: a new round starts the
    /// latest filters from this sample.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample) {
        if self.loss_round_start {
            self.bw_latest = self.sample_bw;
            self.inflight_latest = rs.delivered.unwrap_or(0).min(u32::MAX as u64) as u32;
        }
    }

    /// Linux `bbr_update_congestion_signals`: the max filter, loss in the
    /// round, and once per round the lower bounds.
    pub(super) fn update_congestion_signals(&mut self, tp: &TcpSock, rs: &RateSample) {
        if !valid(rs) || rs.acked_sacked == 0 {
            return;
        }
        let bw = self.sample_bw;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(tp);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// Linux `bbr_note_loss`.
    fn note_loss(&mut self, tp: &TcpSock) {
        if !self.loss_in_round {
            self.loss_round_delivered = tp.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// Linux `bbr_skb_marked_lost`: while probing, find where in the lost
    /// segment's flight the loss rate went too high.
    pub(super) fn on_segment_lost(&mut self, tp: &TcpSock, seg: &LostSegment) {
        self.note_loss(tp);
        if !self.bw_probe_samples {
            return;
        }
        let mut f = Flight {
            lost: seg.lost,
            tx_in_flight: seg.tx_in_flight,
            is_app_limited: seg.is_app_limited,
            ..Flight::default()
        };
        if self.is_inflight_too_high(&f) {
            f.tx_in_flight = self.inflight_hi_from_lost(&f);
            self.handle_inflight_too_high(tp, &f);
        }
    }

    /// Linux `bbr_handle_inflight_too_high`: once per probe, cut
    /// inflight_hi; end UP.
    fn handle_inflight_too_high(&mut self, tp: &TcpSock, f: &Flight) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !f.is_app_limited {
            let target = scale32(self.target_inflight(tp), BBR_UNIT - self.p.beta);
            self.inflight_hi = f.tx_in_flight.max(target);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down(tp);
        }
    }

    /// Linux `bbr_raise_inflight_hi_slope`: each round of UP doubles the growth.
    fn raise_inflight_hi_slope(&mut self, tp: &TcpSock) {
        let growth = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (tp.snd_cwnd / growth).max(1);
    }

    /// Linux `bbr_probe_inflight_hi_upward`.
    fn probe_inflight_hi_upward(&mut self, tp: &TcpSock, rs: &RateSample) {
        if !tp.is_cwnd_limited || tp.snd_cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta);
        }
        if self.round_start {
            self.raise_inflight_hi_slope(tp);
        }
    }

    /// Linux `bbr_adapt_upper_bounds`; true if it decided a transition.
    fn adapt_upper_bounds(&mut self, tp: &TcpSock, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited && self.bw_hi[1] != 0 {
                // bbr_advance_max_bw_filter: a new cycle's slot.
                self.bw_hi = [self.bw_hi[1], 0];
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(tp, 0);
                return true;
            }
        }
        let f = Flight::of(rs);
        if self.is_inflight_too_high(&f) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(tp, &f);
            }
        } else {
            if self.inflight_hi == NO_BOUND {
                return false;
            }
            // Resilience to random loss: a larger flight was safe.
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(tp, rs);
            }
        }
        false
    }

    /// Linux `bbr_is_reno_coexistence_probe_time`.
    fn is_reno_coexistence_probe_time(&self, tp: &TcpSock) -> bool {
        let rounds = self.p.bw_probe_max_rounds.min(self.target_inflight(tp));
        self.rounds_since_probe >= rounds
    }

    /// Linux `bbr_pick_probe_wait`.
    fn pick_probe_wait(&mut self) {
        // `get_random_u32_below(n)` draws nothing for n <= 1
        let n = self.p.bw_probe_rand_rounds as u64;
        self.rounds_since_probe = if n <= 1 { 0 } else { self.rng.below(n) as u32 };
        self.probe_wait = self.p.bw_probe_base + self.draw_us(self.p.bw_probe_rand_us);
    }

    /// Linux `bbr_start_bw_probe_refill`.
    fn start_bw_probe_refill(&mut self, tp: &TcpSock, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds.min(30);
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = tp.delivered;
        self.phase = Phase::Refill;
    }

    /// Linux `bbr_start_bw_probe_up`.
    fn start_bw_probe_up(&mut self, tp: &TcpSock) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = tp.delivered;
        self.cycle_mstamp = tp.now;
        self.reset_full_bw();
        self.full_bw = self.sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(tp);
    }

    /// Linux `bbr_start_bw_probe_down`: a new cycle, its probe wait drawn.
    pub(super) fn start_bw_probe_down(&mut self, tp: &TcpSock) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = NO_BOUND;
        self.pick_probe_wait();
        self.cycle_mstamp = tp.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = tp.delivered;
        self.phase = Phase::Down;
    }

    /// Linux `bbr_start_bw_probe_cruise`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != NO_BOUND {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// Linux `bbr_check_time_to_probe_bw`.
    fn check_time_to_probe_bw(&mut self, tp: &TcpSock) -> bool {
        if self.p.ecn_reprobe_gain > 0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && tp.ca_state == CaState::Open
        {
            // Marks without loss, then none: re-probe quickly, growing
            // inflight_hi by about ecn_reprobe_gain of it in the first round.
            let v = scale(self.inflight_hi as u64, self.p.ecn_reprobe_gain).max(1);
            self.start_bw_probe_refill(tp, v.ilog2());
            return true;
        }
        // Linux: µs stamps (`tcp_stamp_us_delta(tcp_mstamp, cycle_mstamp + wait)`)
        let elapsed = stamp_us(tp.now) > stamp_us(self.cycle_mstamp) + whole_us(self.probe_wait);
        if elapsed || self.is_reno_coexistence_probe_time(tp) {
            self.start_bw_probe_refill(tp, 0);
            return true;
        }
        false
    }

    /// Linux `bbr_check_time_to_cruise`.
    fn check_time_to_cruise(&self, tp: &TcpSock, inflight: u32, bw: u64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// Linux `bbr_update_cycle_phase`: the ProbeBW state machine.
    pub(super) fn update_cycle_phase(&mut self, tp: &TcpSock, rs: &RateSample) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(tp, rs) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(tp);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(tp);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if tp.is_cwnd_limited && tp.snd_cwnd >= self.inflight_hi {
                    // inflight_hi limits growth: the plateau test restarts.
                    self.reset_full_bw();
                    self.full_bw = self.sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(tp);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(tp) {
                    return;
                }
                if self.check_time_to_cruise(tp, inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
