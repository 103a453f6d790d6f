//! BBRv3: BBR with a model of the path's safe operating range, bounded
//! from above and below by loss and ECN. Follows the public v3 source
//! (`google/bbr`, branch `v3`, `net/ipv4/tcp_bbr.c`) hook for hook, and
//! the IETF description (Cardwell, Swett, Beshay, "BBR Congestion
//! Control", draft-ietf-ccwg-bbr). BBR v1 stays as `bbr` (`cc/bbr.rs`).
//!
//! # What v3 adds to v1
//!
//! - **Bandwidth**: the max filter is two slots, one per ProbeBW cycle
//!   (`bw_hi`); the estimate in use is `min(bw_hi, bw_lo)`.
//! - **inflight_hi** (upper bound, long term): set when a bandwidth probe
//!   sees a loss rate above `loss_thresh` (2 %) over its flight or a CE
//!   fraction above `ecn_thresh` (1/2) in a sample; cut to
//!   `max(tx_in_flight, (1 − beta) · target)`, where `tx_in_flight` is what
//!   was in flight when the lost packet left. When the stack marks a packet
//!   lost during a probe (`skb_marked_lost`), v3 solves for the prefix of
//!   that flight at which losses crossed 2 % and uses it. Raised during UP
//!   (slope doubling each round), and whenever a sample shows a larger
//!   flight was safe.
//! - **inflight_lo / bw_lo** (lower bounds, short term): outside probing,
//!   at the end of each round with a loss they are cut by `beta` (30 %) —
//!   never below the latest round's delivered volume and rate — and with CE
//!   marks `inflight_lo` by `ecn_factor · alpha`. Reset when the next probe
//!   starts.
//! - **ECN**: `alpha`, an EWMA (gain 1/16) of the CE fraction per round,
//!   used only when the path marks at a shallow threshold (`ecn_low`, Linux's
//!   route feature) and min RTT ≤ `ecn_max_rtt_ms` (5 ms).
//! - **Startup** also ends on loss (a Recovery round with ≥ 6 loss events
//!   and a loss rate above 2 %) or ECN (2 rounds with CE fraction ≥ 1/2);
//!   then inflight_hi = max(BDP, the latest round's delivered volume).
//! - **ProbeBW** is a cycle of four phases with wall-clock and round timing:
//!
//! ```text
//!   DOWN (pacing 0.91) --inflight <= min(BDP, inflight_hi - headroom)--> CRUISE (1.0)
//!     ^                                                                     |
//!     |                       2-3 s, or min(63, BDP) rounds, since DOWN     |
//!     |                                                                     v
//!   UP (1.25, cwnd_gain 2.25) <----------- one round ------------------ REFILL (1.0)
//!     loss/ECN too high, or in flight reached a too-high inflight_hi, or bw plateau: DOWN
//! ```
//!
//!   Cruise and ProbeRTT leave `inflight_headroom` (15 %) of inflight_hi
//!   free; cwnd is capped by inflight_hi in the other phases, by
//!   inflight_lo always.
//! - **ProbeRTT** comes every `probe_rtt_win_ms` (5 s) and holds cwnd at
//!   half the BDP (not 4 packets) for 200 ms.
//! - The v1 long-term (policer) estimator and packet conservation in
//!   Recovery are gone; on leaving Loss (RTO) cwnd goes back to the cwnd
//!   saved on entry.
//!
//! # Fixed point, time, random draws
//!
//! As in `cc/bbr.rs`: gains in 1/256, bandwidth in packets/µs · 2^24 (in a
//! `u64`), time in picoseconds where Linux uses µs or jiffies. The probe
//! waits (`bw_probe_rand_rounds`, `bw_probe_rand_s`) are drawn from the
//! flow's stream `flow:<name>:cc`.
//!
//! # What is not modelled
//!
//! - The fast path for app-limited ACKs (`bbr_run_fast_path`): a CPU
//!   saving in Linux; we always run the full update.
//! - Protective load balancing (PLB), the TLP-repaired-loss event
//!   (`CA_EVENT_TLP_RECOVERY`: our stack raises no such event) and the
//!   TLP-retransmit exception of the latest-delivery filter.
//! - TSO: the quantization budget keeps v3's formula (at least three TSO
//!   bursts of about 1 ms of pacing, plus 64 KB halved per 512 µs of min
//!   RTT) though the stack sends one segment at a time.
//!
//! # Trace variables
//!
//! `mode` (0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT), `phase` (ProbeBW's
//! cycle: 0 UP, 1 DOWN, 2 CRUISE, 3 REFILL), `inflight_hi`, `inflight_lo`
//! (packets; −1 while unbounded, Linux's `~0U`), `bw_pps` (the estimate in
//! use), `max_bw_pps` (bw_hi), `bw_lo_pps` (−1 while unbounded),
//! `inflight_latest`, `min_rtt_s`, `pacing_rate_bps`, `pacing_gain`,
//! `cwnd_gain`, `full_bw_reached`, `round`, `ecn_alpha`, `ecn_eligible`,
//! `loss_in_round`, `extra_acked_pkts`, `prior_cwnd`.

use super::{
    CaEvent, CaState, CongestionControl, LostSegment, RateSample, TcpSock, INFINITE_SSTHRESH,
};
use crate::sim::{Dur, Rng, Time, PS_PER_S, PS_PER_US};

mod bounds;
mod params;
pub use params::{check, Bbr3Params, MAX_GAIN, PARAMS, REGISTRATION};

/// Unbounded (Linux `~0U`) for inflight_hi/lo and the ACK-count slope.
const NO_BOUND: u32 = u32::MAX;
/// Unbounded bw_lo.
const NO_BW_BOUND: u64 = u64::MAX;
/// TSO (with v1's `GSO_MAX_BYTES` and `PACING_SHIFT`): 64 KB
/// (`GSO_LEGACY_MAX_SIZE`), the RTT halving step (2^9 µs),
/// `tcp_min_tso_segs`.
const GSO_LEGACY_MAX: u64 = 65_536;
const TSO_RTT_SHIFT: u32 = 9;
const MIN_TSO_SEGS: u32 = 2;

/// BBR's modes (Linux `enum bbr_mode`), the `mode` trace variable: v1's.
pub use super::bbr_common::Mode;
use super::bbr_common::{
    saved_cwnd, stamp_us, whole_us, AckAggregation, Estimates, Pacer, Pacing, ProbeRtt, BBR_SCALE,
    BBR_UNIT, BW_SCALE, BW_UNIT, CWND_MIN_TARGET, EXTRA_ACKED_MAX_US, EXTRA_ACKED_WIN_RTTS,
    GSO_MAX_BYTES, PACING_SHIFT,
};

crate::u8_enum::u8_enum! {
    /// ProbeBW's phases (Linux `enum bbr_pacing_gain_phase`), the `phase`
    /// trace variable: its code, 0 to 3 in Linux's order, and the index of
    /// its gain in `pacing_gain`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Phase {
        Up,
        Down,
        Cruise,
        Refill,
    }
}

/// How the ACKs relate to bandwidth probing (Linux `enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The parameters in Linux's units.
#[derive(Clone, Debug)]
struct Tunables {
    startup_pacing_gain: u32,
    startup_cwnd_gain: u32,
    drain_gain: u32,
    cwnd_gain: u32,
    /// UP, DOWN, CRUISE, REFILL.
    pacing_gain: [u32; Phase::COUNT],
    probe_up_cwnd_quarters: u32,
    beta: u32,
    loss_thresh: u32,
    ecn_thresh: u32,
    ecn_factor: u32,
    ecn_alpha_gain: u32,
    ecn_alpha_init: u32,
    ecn_reprobe_gain: u32,
    ecn_low: bool,
    ecn_max_rtt: Dur,
    inflight_headroom: u32,
    full_loss_cnt: u32,
    full_ecn_cnt: u32,
    full_bw_thresh: u32,
    full_bw_cnt: u32,
    bw_probe_max_rounds: u32,
    bw_probe_rand_rounds: u32,
    bw_probe_base: Dur,
    bw_probe_rand_us: u64,
    /// The min-RTT and ProbeRTT windows and the ProbeRTT hold, in jiffies
    /// (Linux: `min_rtt_win_sec * HZ`, `msecs_to_jiffies(...)`).
    min_rtt_win: u64,
    probe_rtt_win: u64,
    probe_rtt_mode: u64,
    probe_rtt_cwnd_gain: u32,
    margin_percent: u64,
    extra_acked: bool,
}

/// A fraction as a multiple of 1/256, rounded to the nearest.
fn to_fixed(x: f64) -> u32 {
    (x.clamp(0.0, MAX_GAIN) * BBR_UNIT as f64).round() as u32
}

impl Tunables {
    fn new(p: &Bbr3Params) -> Tunables {
        Tunables {
            startup_pacing_gain: to_fixed(p.startup_pacing_gain),
            startup_cwnd_gain: to_fixed(p.startup_cwnd_gain),
            drain_gain: to_fixed(p.drain_gain),
            cwnd_gain: to_fixed(p.cwnd_gain),
            pacing_gain: [
                to_fixed(p.probe_up_gain),
                to_fixed(p.probe_down_gain),
                BBR_UNIT,
                BBR_UNIT,
            ],
            probe_up_cwnd_quarters: p.probe_up_cwnd_quarters,
            beta: to_fixed(p.beta),
            loss_thresh: to_fixed(p.loss_thresh).clamp(1, BBR_UNIT - 1),
            ecn_thresh: to_fixed(p.ecn_thresh),
            ecn_factor: to_fixed(p.ecn_factor),
            ecn_alpha_gain: to_fixed(p.ecn_alpha_gain),
            ecn_alpha_init: to_fixed(p.ecn_alpha_init),
            ecn_reprobe_gain: to_fixed(p.ecn_reprobe_gain),
            ecn_low: p.ecn_low,
            ecn_max_rtt: Dur::from_secs_f64(p.ecn_max_rtt_ms / 1e3),
            inflight_headroom: to_fixed(p.inflight_headroom),
            full_loss_cnt: p.full_loss_cnt,
            full_ecn_cnt: p.full_ecn_cnt,
            full_bw_thresh: to_fixed(p.full_bw_thresh),
            full_bw_cnt: p.full_bw_cnt,
            bw_probe_max_rounds: p.bw_probe_max_rounds,
            bw_probe_rand_rounds: p.bw_probe_rand_rounds.max(1),
            bw_probe_base: Dur::from_secs_f64(p.bw_probe_base_s),
            bw_probe_rand_us: (p.bw_probe_rand_s * 1e6).round() as u64,
            min_rtt_win: to_jiffies(Dur::from_secs_f64(p.min_rtt_win_s)),
            probe_rtt_win: to_jiffies(Dur::from_secs_f64(p.probe_rtt_win_ms / 1e3)),
            probe_rtt_mode: to_jiffies(Dur::from_secs_f64(p.probe_rtt_mode_ms / 1e3)),
            probe_rtt_cwnd_gain: to_fixed(p.probe_rtt_cwnd_gain),
            margin_percent: p.pacing_margin_percent.min(99) as u64,
            extra_acked: p.extra_acked,
        }
    }
}

/// `x · f / 256` for a fraction `f` in 1/256.
#[inline]
fn scale(x: u64, f: u32) -> u64 {
    ((x as u128 * f as u128) >> BBR_SCALE) as u64
}

/// `scale` for a packet count, saturating at `u32::MAX`.
#[inline]
fn scale32(x: u32, f: u32) -> u32 {
    scale(x as u64, f).min(u32::MAX as u64) as u32
}

/// BBRv3's state (Linux v3 `struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr3 {
    p: Tunables,
    rng: Rng,
    mss: u32,
    init_cwnd: u32,
    mode: Mode,
    phase: Phase,
    ack_phase: AckPhase,
    // Min RTT: the 10 s filter and the 5 s ProbeRTT filter (`Dur::MAX`: none).
    min_rtt: Dur,
    // Their stamps, and ProbeRTT's end, in jiffies (as Linux's).
    min_rtt_stamp: u64,
    probe_rtt_min: Dur,
    probe_rtt_min_stamp: u64,
    probe_rtt: ProbeRtt<u64>,
    // Rounds.
    next_rtt_delivered: u64,
    round_start: bool,
    rounds: u64,
    rounds_since_probe: u32,
    loss_round_delivered: u64,
    loss_round_start: bool,
    // Phase timing.
    cycle_mstamp: Time,
    probe_wait: Dur,
    prev_ca_state: CaState,
    idle_restart: bool,
    pacing_gain: u32,
    cwnd_gain: u32,
    // Full pipe.
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw_cnt: u32,
    full_bw: u64,
    pacer: Pacer,
    prior_cwnd: u32,
    // ACK aggregation.
    aggr: AckAggregation,
    // The model's bounds (v3).
    bw_hi: [u64; 2],
    bw_lo: u64,
    bw_latest: u64,
    inflight_hi: u32,
    inflight_lo: u32,
    inflight_latest: u32,
    undo_bw_lo: u64,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
    // Probing UP.
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    bw_probe_up_rounds: u32,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    // Congestion signals.
    loss_in_round: bool,
    ecn_in_round: bool,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    loss_events_in_round: u32,
    startup_ecn_rounds: u32,
    // ECN.
    ecn_ok: bool,
    ecn_eligible: bool,
    ecn_alpha: u32,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    /// This ACK's bandwidth sample (Linux `bbr_context.sample_bw`).
    sample_bw: u64,
}

impl Bbr3 {
    /// `rng` is the flow's stream for the probe waits.
    pub fn new(p: Bbr3Params, rng: Rng) -> Self {
        Bbr3::with_tunables(Tunables::new(&p), rng)
    }

    fn with_tunables(p: Tunables, rng: Rng) -> Self {
        Bbr3 {
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.startup_cwnd_gain,
            ecn_alpha: p.ecn_alpha_init,
            p,
            rng,
            mss: 1448,
            init_cwnd: 10,
            mode: Mode::Startup,
            phase: Phase::Up,
            ack_phase: AckPhase::Init,
            min_rtt: Dur::MAX,
            min_rtt_stamp: 0,
            probe_rtt_min: Dur::MAX,
            probe_rtt_min_stamp: 0,
            probe_rtt: ProbeRtt::default(),
            next_rtt_delivered: 0,
            round_start: false,
            rounds: 0,
            rounds_since_probe: 0,
            loss_round_delivered: 1,
            loss_round_start: false,
            cycle_mstamp: Time::ZERO,
            probe_wait: Dur::ZERO,
            prev_ca_state: CaState::Open,
            idle_restart: false,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw_cnt: 0,
            full_bw: 0,
            pacer: Pacer::default(),
            prior_cwnd: 0,
            aggr: AckAggregation::new(Time::ZERO),
            bw_hi: [0; 2],
            bw_lo: NO_BW_BOUND,
            bw_latest: 0,
            inflight_hi: NO_BOUND,
            inflight_lo: NO_BOUND,
            inflight_latest: 0,
            undo_bw_lo: 0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_probe_up_cnt: NO_BOUND,
            bw_probe_up_acks: 0,
            bw_probe_up_rounds: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            loss_in_round: false,
            ecn_in_round: false,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_events_in_round: 0,
            startup_ecn_rounds: 0,
            ecn_ok: false,
            ecn_eligible: false,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            sample_bw: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The upper bound on data in flight, packets (None: unbounded).
    pub fn inflight_hi(&self) -> Option<u32> {
        (self.inflight_hi != NO_BOUND).then_some(self.inflight_hi)
    }

    /// The lower bound on data in flight, packets (None: unbounded).
    pub fn inflight_lo(&self) -> Option<u32> {
        (self.inflight_lo != NO_BOUND).then_some(self.inflight_lo)
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn ecn_alpha(&self) -> f64 {
        self.ecn_alpha as f64 / BBR_UNIT as f64
    }

    /// Linux `bbr_max_bw`: the two cycles' max filter.
    fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    fn extra_acked_max(&self) -> u32 {
        self.aggr.max()
    }

    /// Linux `bbr_can_use_ecn`: negotiated, and a shallow-threshold path.
    fn can_use_ecn(&self) -> bool {
        self.ecn_ok && self.p.ecn_low
    }

    /// Linux `bbr_rate_bytes_per_sec`, at least 1.
    fn rate_bytes_per_sec(&self, bw: u64, gain: u32, margin: u64) -> u64 {
        let mut rate = bw as u128 * self.mss as u128;
        rate = (rate * gain as u128) >> BBR_SCALE;
        rate *= (PS_PER_S / PS_PER_US / 100 * (100 - margin)) as u128;
        (rate >> BW_SCALE).clamp(1, u64::MAX as u128 / 8) as u64
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, tp: &TcpSock) {
        self.prior_cwnd = saved_cwnd(self.prev_ca_state, self.mode, self.prior_cwnd, tp.snd_cwnd);
    }

    /// Linux `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.p.extra_acked {
            return 0;
        }
        let max_aggr = self.bw() as u128 * EXTRA_ACKED_MAX_US as u128 / BW_UNIT as u128;
        (self.extra_acked_max() as u128).min(max_aggr) as u32
    }

    /// Linux `bbr_probe_rtt_cwnd`.
    fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp(self.bw(), self.p.probe_rtt_cwnd_gain)
            .max(CWND_MIN_TARGET)
    }

    /// Linux v3 `bbr_set_cwnd`: grow toward the target, or snap down to it
    /// once the pipe was found full.
    fn set_cwnd(&mut self, tp: &mut TcpSock, acked: u32, bw: u64, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked > 0 {
            let mut target = self.bdp(bw, gain);
            target = target.saturating_add(self.ack_aggregation_cwnd());
            target = self.quantization_budget(tp, target);
            if self.full_bw_reached {
                cwnd = cwnd.saturating_add(acked).min(target);
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd = cwnd.saturating_add(acked);
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// Linux `bbr_update_round_start`.
    fn update_round_start(&mut self, tp: &TcpSock, rs: &RateSample) {
        self.round_start = false;
        if valid(rs) && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = tp.delivered;
            self.round_start = true;
            self.rounds += 1;
        }
    }

    /// Linux `bbr_calculate_bw_sample`: rounded up.
    fn calculate_bw_sample(&mut self, rs: &RateSample) {
        self.sample_bw = match rs.delivered {
            // Linux's `interval_us`: whole microseconds
            Some(d) if whole_us(rs.interval) > 0 => {
                let n = d as u128 * BW_UNIT as u128;
                n.div_ceil(whole_us(rs.interval) as u128)
                    .min(u64::MAX as u128) as u64
            }
            _ => 0,
        };
    }

    /// Linux `bbr_update_ack_aggregation` (v3: a 1-round window in Startup).
    fn update_ack_aggregation(&mut self, tp: &TcpSock, rs: &RateSample) {
        if !self.p.extra_acked || rs.acked_sacked == 0 || !valid(rs) {
            return;
        }
        if self.round_start {
            let window = if self.full_bw_reached {
                EXTRA_ACKED_WIN_RTTS
            } else {
                1
            };
            self.aggr.round_start(window);
        }
        // Linux: the difference of two µs stamps
        let epoch_us =
            stamp_us(tp.delivered_mstamp).saturating_sub(stamp_us(self.aggr.epoch_start));
        let expected =
            (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128).min(u32::MAX as u128) as u32;
        self.aggr
            .on_ack(expected, rs.acked_sacked, tp.delivered_mstamp, tp.snd_cwnd);
    }

    /// Linux `bbr_exit_probe_rtt`.
    fn exit_probe_rtt(&mut self, tp: &TcpSock) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux v3 `bbr_update_min_rtt`: the 5 s ProbeRTT filter feeds the
    /// 10 s min-RTT filter; ProbeRTT entry and exit.
    fn update_min_rtt(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        let now = jiffies(tp.now);
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + self.p.probe_rtt_win;
        if let Some(rtt) = rs.rtt {
            // Linux's `rtt_us`: whole microseconds
            let rtt = Dur::from_us(whole_us(rtt));
            if rtt < self.probe_rtt_min || probe_rtt_expired {
                self.probe_rtt_min = rtt;
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + self.p.min_rtt_win;
        if self.probe_rtt_min <= self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if self.p.probe_rtt_mode > 0
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt.done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = tp.delivered;
        }
        self.update_probe_rtt(tp, rs, |s, _| {
            (s.probe_rtt_cwnd(), now + s.p.probe_rtt_mode)
        });
    }

    super::bbr_common::update_probe_rtt!(u64);

    /// Linux v3 `bbr_update_gains`.
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.p.startup_pacing_gain, self.p.startup_cwnd_gain),
            Mode::Drain => (self.p.drain_gain, self.p.startup_cwnd_gain),
            Mode::ProbeBw => {
                let mut cwnd = self.p.cwnd_gain;
                if self.phase == Phase::Up {
                    cwnd += BBR_UNIT * self.p.probe_up_cwnd_quarters / 4;
                }
                (self.p.pacing_gain[self.phase as usize], cwnd)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// Linux `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// Linux v3 `bbr_check_full_bw_reached`: on this ACK's sample.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        if self.sample_bw >= scale(self.full_bw, self.p.full_bw_thresh) {
            self.reset_full_bw();
            self.full_bw = self.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.p.full_bw_cnt;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// Linux v3 `bbr_check_drain`.
    fn check_drain(&mut self, tp: &mut TcpSock) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, tp.in_flight())
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
        }
    }

    /// Linux v3 `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        self.update_congestion_signals(tp, rs);
        self.update_ack_aggregation(tp, rs);
        self.check_loss_too_high_in_startup(tp, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_cycle_phase(tp, rs);
        self.update_min_rtt(tp, rs);
    }

    /// A picosecond-clock draw below `n` µs (Linux `get_random_u32_below`).
    fn draw_us(&mut self, n: u64) -> Dur {
        if n <= 1 {
            return Dur::ZERO;
        }
        Dur::from_us(self.rng.below(n))
    }
}

impl Pacing for Bbr3 {
    /// Linux `bbr_bw_to_pacing_rate`, in bit/s.
    fn pacing_rate_bps_for(&self, bw: u64, gain: u32) -> u64 {
        self.rate_bytes_per_sec(bw, gain, self.p.margin_percent) * 8
    }

    fn startup_pacing_gain(&self) -> u32 {
        self.p.startup_pacing_gain
    }

    super::bbr_common::pacing_state_fields!();

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpSock) {
        match self.probe_rtt.done_stamp {
            Some(done) if jiffies(tp.now) > done => {}
            _ => return,
        }
        self.probe_rtt_min_stamp = jiffies(tp.now);
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(tp);
    }
}

impl Estimates for Bbr3 {
    /// Linux `bbr_bw`: the estimate in use.
    fn bw(&self) -> u64 {
        self.max_bw().min(self.bw_lo)
    }

    /// Linux v3 `bbr_tso_segs_goal`: about 1 ms of pacing, plus 64 KB
    /// halved for every 512 µs of min RTT, in segments.
    fn tso_segs_goal(&self, tp: &TcpSock) -> u32 {
        self.tso_segs_generic(tp.pacing_rate_bps / 8, GSO_MAX_BYTES)
    }

    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉ packets; the initial cwnd
    /// before any RTT sample.
    fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt == Dur::MAX {
            return self.init_cwnd;
        }
        // Linux: whole microseconds of min RTT
        let w = bw as u128 * whole_us(self.min_rtt) as u128;
        let scaled = (w * gain as u128) >> BBR_SCALE;
        scaled.div_ceil(BW_UNIT as u128).min(u32::MAX as u128) as u32
    }

    /// Linux v3 `bbr_quantization_budget`: at least three TSO bursts and
    /// 4 packets, 2 more in UP.
    fn quantization_budget(&self, tp: &TcpSock, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal(tp)).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd = cwnd.saturating_add(2);
        }
        cwnd
    }

    fn probing_up(&self) -> bool {
        self.pacing_gain > BBR_UNIT
    }
}

/// Linux's `rs->interval_us > 0`: the sample has a delivery interval of
/// at least a whole microsecond.
#[inline]
fn valid(rs: &RateSample) -> bool {
    rs.delivered.is_some() && whole_us(rs.interval) > 0
}

/// The kernel's clock tick: `HZ` of Debian's kernel (250, as Cubic's
/// default `hz` and `dumbbell module compare`'s default build).
const HZ: u64 = 250;

/// Jiffies since the start of the run (Linux's `tcp_jiffies32`; only
/// differences are used, so the kernel's starting offset does not matter).
#[inline]
fn jiffies(t: Time) -> u64 {
    t.ps() / (PS_PER_S / HZ)
}

/// A duration as Linux's `msecs_to_jiffies` rounds it: up to a whole jiffy.
fn to_jiffies(d: Dur) -> u64 {
    (d.ps() as u128 * HZ as u128).div_ceil(PS_PER_S as u128) as u64
}

/// A min RTT in whole microseconds (`Dur::MAX`, none, stays).
#[inline]
fn min_rtt_us(d: Dur) -> Dur {
    if d == Dur::MAX {
        d
    } else {
        Dur::from_us(whole_us(d))
    }
}

/// `BW_UNIT` packets/µs to packets/s.
fn to_pps(bw: u64) -> f64 {
    bw as f64 * (PS_PER_S / PS_PER_US) as f64 / BW_UNIT as f64
}

/// A bound for the trace: −1 while unbounded.
fn bound(v: u32) -> f64 {
    if v == NO_BOUND {
        -1.0
    } else {
        v as f64
    }
}

impl Bbr3 {
    /// Linux v3 `bbr_tso_segs_generic`: `pacing_bytes_per_s` over 2^10 s,
    /// plus 64 KB halved for every 512 µs of min RTT, at most `cap_bytes`,
    /// in segments, at least two.
    fn tso_segs_generic(&self, pacing_bytes_per_s: u64, cap_bytes: u64) -> u32 {
        let mut bytes = pacing_bytes_per_s >> PACING_SHIFT;
        if self.min_rtt != Dur::MAX {
            let r = self.min_rtt.us() >> TSO_RTT_SHIFT;
            if r < 32 {
                bytes += GSO_LEGACY_MAX >> r;
            }
        }
        let bytes = bytes.min(cap_bytes);
        ((bytes / self.mss as u64) as u32).max(MIN_TSO_SEGS)
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// Linux v3 `bbr_init`.
    fn init(&mut self, tp: &mut TcpSock) {
        let p = self.p.clone();
        *self = Bbr3::with_tunables(p, self.rng.clone());
        self.mss = tp.mss;
        self.init_cwnd = tp.snd_cwnd.min(0x7f);
        self.prior_cwnd = tp.prior_cwnd;
        tp.snd_ssthresh = INFINITE_SSTHRESH;
        self.next_rtt_delivered = tp.delivered;
        // Linux `tcp_min_rtt`: whole microseconds
        self.probe_rtt_min = min_rtt_us(tp.min_rtt);
        self.probe_rtt_min_stamp = jiffies(tp.now);
        self.min_rtt = self.probe_rtt_min;
        self.min_rtt_stamp = self.probe_rtt_min_stamp;
        self.init_pacing_rate_from_rtt(tp);
        self.aggr.epoch_start = tp.now;
        // ECN mark rates are sampled from the first full flight on.
        self.loss_round_delivered = tp.delivered + 1;
        self.ecn_ok = tp.ecn_ok;
    }

    /// Linux v3 `bbr_ssthresh`: save cwnd and the loss-adapted bounds for undo.
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.save_cwnd(tp);
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        tp.snd_ssthresh
    }

    /// Never called: `cong_control` replaces it.
    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u64, _acked: u32) {}

    /// Linux v3 `bbr_set_state`.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == NO_BOUND {
                // adapt_lower_bounds needs the cwnd from before the RTO.
                self.inflight_lo = tp.snd_cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            // bbr_exit_loss_recovery
            tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        }
    }

    /// Linux v3 `bbr_cwnd_event`: restarting from idle while app-limited.
    /// (CE events are the receiver's; the TLP-recovery event is not raised.)
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        self.restart_from_idle(tp, ev);
    }

    /// Linux v3 `bbr_undo_cwnd`: a spurious loss episode restores the bounds.
    fn undo_cwnd(&mut self, _tp: &TcpSock) -> u32 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.prior_cwnd
    }

    /// Linux v3 `bbr_skb_marked_lost`.
    fn skb_marked_lost(&mut self, tp: &mut TcpSock, seg: &LostSegment) {
        self.on_segment_lost(tp, seg);
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// Linux v3 `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpSock, _ack: u64, rs: &RateSample) {
        self.update_round_start(tp, rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
            self.update_ecn_alpha(tp);
        }
        self.ecn_in_round |= self.ecn_eligible && rs.is_ece;
        self.calculate_bw_sample(rs);
        self.update_latest_delivery_signals(tp, rs);
        self.update_model(tp, rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(tp, bw, self.pacing_gain);
        self.set_cwnd(tp, rs.acked_sacked, bw, self.cwnd_gain);
        self.bound_cwnd_for_inflight_model(tp);
        self.advance_latest_delivery_signals(rs);
        self.prev_ca_state = tp.ca_state;
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= rs.delivered_ce > 0;
    }

    /// ECN with the precise (DCTCP-style) echo on a shallow-threshold path.
    fn needs_ecn(&self) -> bool {
        self.p.ecn_low
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    /// Linux v3 `bbr_tso_segs`, the `tso_segs` hook: its generic size
    /// with the largest skb less `MAX_TCP_HEADER` the cap.
    fn tso_segs(&self, _tp: &TcpSock, pacing_bytes_per_s: u64, gso_max_bytes: u32) -> Option<u32> {
        let cap = (gso_max_bytes as u64).saturating_sub(GSO_LEGACY_MAX - GSO_MAX_BYTES);
        Some(self.tso_segs_generic(pacing_bytes_per_s, cap))
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("mode", self.mode as u8 as f64);
        out("phase", self.phase as u8 as f64);
        out("inflight_hi", bound(self.inflight_hi));
        out("inflight_lo", bound(self.inflight_lo));
        out("bw_pps", to_pps(self.bw()));
        out("max_bw_pps", to_pps(self.max_bw()));
        let bw_lo = if self.bw_lo == NO_BW_BOUND {
            -1.0
        } else {
            to_pps(self.bw_lo)
        };
        out("bw_lo_pps", bw_lo);
        out("inflight_latest", self.inflight_latest as f64);
        let min_rtt = if self.min_rtt == Dur::MAX {
            0.0
        } else {
            self.min_rtt.secs_f64()
        };
        out("min_rtt_s", min_rtt);
        out("pacing_rate_bps", self.pacer.rate_bps as f64);
        out("pacing_gain", self.pacing_gain as f64 / BBR_UNIT as f64);
        out("cwnd_gain", self.cwnd_gain as f64 / BBR_UNIT as f64);
        out("full_bw_reached", self.full_bw_reached as u8 as f64);
        out("round", self.rounds as f64);
        out("ecn_alpha", self.ecn_alpha());
        out("ecn_eligible", self.ecn_eligible as u8 as f64);
        out("loss_in_round", self.loss_in_round as u8 as f64);
        out("extra_acked_pkts", self.extra_acked_max() as f64);
        out("prior_cwnd", self.prior_cwnd as f64);
    }
}

#[cfg(test)]
mod tests;
