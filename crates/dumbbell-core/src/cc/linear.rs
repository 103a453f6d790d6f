//! Linear (Madeira and Mattos §4, eq. 1–4; the authors' module `linha01.c`): after a
//! loss the window grows linearly in time, first from the reduced window
//! back toward the window before the loss, then beyond it.
//!
//! With t in whole milliseconds since the last loss (or the session start)
//! and the phase machine of [`super::loss_phases`]:
//!
//! - slow start: J += max(⌊α·t³⌋, 2) per ACK event (eq. 1, α = 2);
//! - reduction on loss: J ← ⌊J·(100 − R)/100⌋ (the module's `cwnd·9/10`
//!   rounds the *new window* down), R = `reduction_pct` (10; the paper's
//!   variants 20 and 50), or with `adaptive` R = 15 + 35·lost/sent (eq. 3),
//!   lost/sent counted as the module docs of [`super::loss_phases`] define
//!   (over the current window by default, as eq. 3 says; with
//!   `adaptive_count = round` over the current and the previous round of
//!   data, with `ack` over the loss-reporting ACK alone), and kept exact (no rounding of R to whole
//!   percents);
//! - recovery: J = b_r + ⌊β_r·t⌋ (eq. 4, β_r = 1), b_r the window right
//!   after the last reduction; it ends when J reaches the threshold (the
//!   window before that reduction);
//! - congestion avoidance: J = b_A + ⌊β_A·t⌋ (eq. 2, β_A = 2), where the
//!   module takes b_A to be the stored threshold, not the window at which
//!   avoidance began; t keeps running from the loss, so the window jumps on
//!   the first ACK of avoidance from about the threshold to threshold + 2t.
//!
//! The adaptive reduction has no published module; the paper reports that
//! it behaved like the fixed 50 %.

use super::loss_phases::{floor_mul, law_reads_params, Law, PhaseMachine, State};
use super::loss_phases::{
    INITIAL_BASE_ROW, INITIAL_THRESHOLD_ROW, SS_ALPHA_ROW, SS_MIN_PKTS_ROW, WRAP_SEQ_ROW,
};
use super::loss_phases::{PERCENT, SLOPE};
use super::{isn, Registration};
use crate::param::{self, Param, ParamError, Range, Ty};
use serde::{Deserialize, Serialize};

// ---- Madeira and Mattos's controls (cc/loss_phases.rs, linear.rs, fractional.rs,
// expolinear.rs). Defaults are the constants of the authors' kernel modules
// (linha01.c, frac01.c, expolin01.c); t is in whole milliseconds since the
// session start or the last loss. Checked by each file's `check`.

/// What Linear's adaptive reduction R = min + span·lost/sent counts.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveCount {
    /// Packets lost in the current window over the packets sent in it
    /// (paper eq. 3: "enviados na janela atual"), the window being the
    /// packets in flight when the round of data began.
    #[default]
    Window,
    /// Packets lost and sent (delivered plus lost) over the current and
    /// the previous round of data: at least one full round.
    Round,
    /// The packets the loss-reporting ACK itself revealed: its losses over
    /// its losses plus the packets it acked or SACKed.
    Ack,
}

/// Linear (Madeira and Mattos §4, eq. 1–4; `linha01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinearParams {
    /// Slow start adds α·t³ per ACK event, packets/ms³ (module: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 2).
    pub ss_min_pkts: u32,
    /// Recovery slope: J = b_r + β_r·t, packets/ms (module: 1).
    pub beta_r: f64,
    /// Avoidance slope: J = b_A + β_A·t, packets/ms (module: 2).
    pub beta_a: f64,
    /// Fixed reduction on loss, percent, 1..=99 (module: 10; the paper's
    /// variants: 20, 50).
    pub reduction_pct: u32,
    /// Adaptive reduction R = min + span·lost/sent (paper eq. 3) instead of
    /// `reduction_pct`.
    pub adaptive: bool,
    /// R's floor, percent (paper: 15).
    pub adaptive_min_pct: u32,
    /// R's span, percent; min + span ≤ 99 (paper: 35).
    pub adaptive_span_pct: u32,
    /// What lost/sent counts (see [`AdaptiveCount`]).
    pub adaptive_count: AdaptiveCount,
    /// Upper threshold before any reduction, packets (module: 200).
    pub initial_threshold_pkts: u32,
    /// Recovery base b_r before any reduction, packets (module: 1).
    pub initial_base_pkts: u32,
    /// The `ssthresh` hook enters recovery as `linha01.c`'s does (see
    /// `cc::loss_phases`); false (default): a loss reduces the window as the
    /// paper's equations say.
    pub module_hook: bool,
    /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
    /// sequence numbers from a random initial one, as the module's `u32`
    /// comparison does in Linux: once per 4 GiB sent, a recovery point just
    /// below the wrap keeps the gate shut until the point moves again.
    /// False: 64-bit, never wraps. Unset (default): as `module_hook`. The
    /// module's hook moves the point at every Recovery entry, which bounds
    /// a wrap's effect to milliseconds; without the hook only a reduction
    /// moves it, and the hook's reset of t (which keeps the recovery window
    /// at b_r under frequent losses) can keep the gate shut for 4 GiB of
    /// data: a state neither the module nor the paper's equations reach
    /// (`cc::loss_phases`, "The compiled modules against their source", 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrap_seq: Option<bool>,
}

impl Default for LinearParams {
    fn default() -> Self {
        LinearParams {
            ss_alpha: 2.0,
            ss_min_pkts: 2,
            beta_r: 1.0,
            beta_a: 2.0,
            reduction_pct: 10,
            adaptive: false,
            adaptive_min_pct: 15,
            adaptive_span_pct: 35,
            adaptive_count: AdaptiveCount::Window,
            initial_threshold_pkts: 200,
            initial_base_pkts: 1,
            module_hook: false,
            wrap_seq: None,
        }
    }
}

/// Linear's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    SS_ALPHA_ROW,
    SS_MIN_PKTS_ROW,
    Param::float_in(
        "beta_r",
        SLOPE,
        "Recovery slope: J = b_r + beta_r*t, packets/ms (module: 1).",
    ),
    Param::float_in(
        "beta_a",
        SLOPE,
        "Avoidance slope: J = b_A + beta_A*t, packets/ms (module: 2).",
    ),
    Param::int_in(
        "reduction_pct",
        PERCENT,
        "Fixed reduction on loss, percent (module: 10).",
    ),
    Param::flag(
        "adaptive",
        "Adaptive reduction R = min + span*lost/sent (paper eq. 3).",
    ),
    Param::int_in(
        "adaptive_min_pct",
        PERCENT,
        "R's floor, percent (paper: 15).",
    ),
    Param::int_in(
        "adaptive_span_pct",
        Range::int(0, 98, ""),
        "R's span, percent; min + span <= 99 (paper: 35).",
    ),
    Param::new(
        "adaptive_count",
        Ty::Choice(&["window", "round", "ack"]),
        Range::Any,
        "What lost/sent counts: the current window's, two rounds' or the ACK's packets.",
    ),
    INITIAL_THRESHOLD_ROW,
    INITIAL_BASE_ROW,
    Param::flag(
        "module_hook",
        "The ssthresh hook enters recovery as linha01.c's does.",
    ),
    WRAP_SEQ_ROW,
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &LinearParams) -> Result<(), ParamError> {
    param::check_fields!(
        PARAMS,
        p,
        [
            ss_alpha,
            beta_r,
            beta_a,
            reduction_pct,
            adaptive_min_pct,
            adaptive_span_pct,
        ]
    )?;
    if p.adaptive_min_pct.saturating_add(p.adaptive_span_pct) > 99 {
        return Err(ParamError::new(
            "adaptive_span_pct",
            "adaptive_min_pct + adaptive_span_pct must be at most 99",
        ));
    }
    param::check_fields!(PARAMS, p, [initial_threshold_pkts, initial_base_pkts])
}

/// `cc = "linear"`: a variant of its own.
pub const REGISTRATION: Registration = super::registration! {
    name: "linear",
    about: "Linear (Madeira and Mattos; linha01.c): windows linear in the time since the last loss.",
    params: PARAMS,
    config: LinearParams,
    check: check,
    build: |p, rng| Linear::new(p).with_isn(isn(rng)),
};

/// Linear's law; the control is [`Linear`].
#[derive(Clone, Debug)]
pub struct LinearLaw {
    p: LinearParams,
    /// R of the last reduction, percent (traced).
    last_reduction_pct: f64,
}

/// The Linear control.
pub type Linear = PhaseMachine<LinearLaw>;

impl PhaseMachine<LinearLaw> {
    pub fn new(p: LinearParams) -> Self {
        PhaseMachine::with_law(LinearLaw {
            p,
            last_reduction_pct: 0.0,
        })
    }
}

impl Law for LinearLaw {
    const NAME: &'static str = "linear";

    law_reads_params!();

    fn reset(&mut self) {
        self.last_reduction_pct = 0.0;
    }

    fn reduce(&mut self, st: &State, cwnd: u32) -> u64 {
        let cwnd = cwnd as u128;
        if !self.p.adaptive {
            let r = self.p.reduction_pct.min(100) as u128;
            self.last_reduction_pct = r as f64;
            return (cwnd * (100 - r) / 100) as u64;
        }
        // R/100 = (min·sent + span·lost) / (100·sent), exactly.
        let (lost, sent) = match self.p.adaptive_count {
            AdaptiveCount::Window => st.current_window_counts(),
            AdaptiveCount::Round => st.window_counts(),
            AdaptiveCount::Ack => st.ack_counts(),
        };
        let (lost, sent) = (lost as u128, sent.max(1) as u128);
        let lost = lost.min(sent);
        let (min, span) = (
            self.p.adaptive_min_pct as u128,
            self.p.adaptive_span_pct as u128,
        );
        let cut = (min * sent + span * lost).min(100 * sent);
        self.last_reduction_pct = cut as f64 / sent as f64;
        (cwnd * (100 * sent - cut) / (100 * sent)) as u64
    }

    fn recover(&mut self, st: &State, _cwnd: u32, t_ms: u64) -> u64 {
        (st.base_pkts as u64).saturating_add(floor_mul(self.p.beta_r, t_ms as f64))
    }

    fn avoid(&mut self, st: &State, _cwnd: u32, t_ms: u64) -> u64 {
        (st.threshold_pkts as u64).saturating_add(floor_mul(self.p.beta_a, t_ms as f64))
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("reduction_pct", self.last_reduction_pct);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::loss_phases::testkit::{law_with, Drive, MSS};
    use crate::cc::loss_phases::Phase;
    use crate::cc::{CongestionControl, INFINITE_SSTHRESH};

    fn linear(f: impl FnOnce(&mut LinearParams)) -> LinearLaw {
        law_with(Linear::new, f)
    }

    fn default() -> LinearLaw {
        linear(|_| {})
    }

    /// A flow in recovery after one reduction of `cwnd` at `ms`, driven
    /// without the `ssthresh` hook (losses reported while the stack is
    /// already in Recovery).
    fn reduced(cwnd: u32, ms: u64) -> Drive<LinearLaw> {
        let mut d = Drive::new(default(), cwnd);
        d.loss(ms, 1);
        d
    }

    #[test]
    fn slow_start_adds_two_t_cubed_per_ack_event() {
        let mut d = Drive::new(default(), 10);
        assert_eq!(d.tp.snd_ssthresh, INFINITE_SSTHRESH);
        assert_eq!(d.var("phase"), Phase::SlowStart as u8 as f64);
        let mut cwnd: u64 = 10;
        for t in [0u64, 1, 2, 3, 5, 10, 20, 40] {
            // J += max(2·t³, 2): 2, 2, 16, 54, 250, 2000, 16000, 128000.
            cwnd += (2 * t * t * t).max(2);
            assert_eq!(d.ack(t) as u64, cwnd, "t = {t} ms");
        }
        assert_eq!(cwnd, 10 + 2 + 2 + 16 + 54 + 250 + 2000 + 16000 + 128000);
        // Per ACK event, not per packet: an ACK of 7 packets adds the same.
        let before = d.tp.snd_cwnd;
        assert_eq!(d.ack_lost(40, 7, 0), before + 128000);
        // The time unit is the whole millisecond: 40.999 ms is t = 40.
        d.tp.now += crate::sim::Dur::from_us(999);
        let ack = d.tp.snd_una;
        d.cc.cong_control(
            &mut d.tp,
            ack,
            &crate::cc::RateSample {
                acked_sacked: 1,
                ..Default::default()
            },
        );
        assert_eq!(d.tp.snd_cwnd, before + 2 * 128000);
        // An ACK that delivers nothing changes nothing.
        let before = d.tp.snd_cwnd;
        assert_eq!(d.ack_lost(50, 0, 0), before);
    }

    #[test]
    fn slow_start_saturates_at_the_clamp_where_c_would_wrap() {
        // 2·t³ still fits u32 at t = 1000 ms: 10 + 2·10⁹ is below the
        // default clamp (u32::MAX / 2).
        let mut d = Drive::new(default(), 10);
        assert_eq!(d.ack(1000), 2_000_000_010);
        // From t = 1291 ms, 2·t³ exceeds u32 (C would wrap): we saturate at
        // the clamp.
        let mut d = Drive::new(default(), 10);
        assert_eq!(d.ack(1291), u32::MAX / 2);
        // The default clamp equals the initial ssthresh (Linux's
        // TCP_INFINITE_SSTHRESH): cwnd is no longer below it, so the next
        // ACK is congestion avoidance, J = b_A + 2t with the initial
        // threshold 200, as the module's branch order gives.
        assert_eq!(d.ack(1300), 200 + 2 * 1300);
        let mut d = Drive::new(default(), 10);
        d.tp.snd_cwnd_clamp = 1_000_000;
        // 10 + 2·80³ = 1_024_010 is above a clamp of 10⁶.
        assert!(10 + 2 * 80u32.pow(3) > 1_000_000);
        assert_eq!(d.ack(80), 1_000_000);
    }

    #[test]
    fn loss_reduces_by_the_fixed_percentage_and_stores_the_threshold() {
        // (reduction_pct, cwnd, ⌊cwnd·(100 − R)/100⌋)
        for (r, cwnd, want) in [
            (10, 1000, 900),
            (10, 997, 897), // 897.3
            (10, 9, 8),     // 8.1
            (20, 1000, 800),
            (20, 997, 797), // 797.6
            (50, 1000, 500),
            (50, 997, 498), // 498.5
        ] {
            let mut d = Drive::new(linear(|p| p.reduction_pct = r), cwnd);
            d.at(30);
            d.loss(30, 1);
            assert_eq!(d.tp.snd_cwnd, want, "R = {r} %, cwnd {cwnd}");
            assert_eq!(d.cc.state.threshold_pkts, cwnd);
            assert_eq!(d.cc.state.base_pkts, want);
            assert_eq!(d.tp.snd_ssthresh, cwnd / 2);
            assert_eq!(d.var("t_origin_s"), d.tp.now.secs_f64());
            assert_eq!(d.var("phase"), Phase::Recovery as u8 as f64);
            assert_eq!(d.var("reduction_pct"), r as f64);
            assert_eq!(d.cc.state.recovery_point, d.tp.snd_nxt);
        }
        // A window of 1 is not reduced to 0 (the module's 1·9/10).
        let mut d = Drive::new(default(), 1);
        assert_eq!(d.loss(0, 1), 1);
    }

    /// Adaptive reduction counting two rounds, from a window of `cwnd`.
    fn adaptive_over_rounds(cwnd: u32) -> Drive<LinearLaw> {
        let law = linear(|p| {
            p.adaptive = true;
            p.adaptive_count = AdaptiveCount::Round;
        });
        Drive::new(law, cwnd)
    }

    #[test]
    fn adaptive_reduction_is_15_plus_35_lost_over_sent() {
        // Round 1 (no previous round): 9 ACKs of 2 packets in slow start at
        // t = 0 (+2 each), then an ACK reporting 2 losses.
        let mut d = adaptive_over_rounds(1000);
        for _ in 0..9 {
            d.ack(0);
        }
        assert_eq!(d.tp.snd_cwnd, 1018);
        d.loss(0, 2);
        // lost 2, sent 18 + 2 = 20: R = 15 + 35·0.1 = 18.5 %.
        assert_eq!(d.var("window_loss_ratio"), 2.0 / 20.0);
        assert_eq!(d.var("reduction_pct"), 18.5);
        assert_eq!(d.tp.snd_cwnd, 1018 * 815 / 1000); // ⌊829.67⌋ = 829
        assert_eq!(d.tp.snd_cwnd, 829);

        // The previous complete round counts too. Round 1 runs until
        // snd_una reaches the snd_nxt of the start (1000 packets): 499 ACKs
        // of 2 packets; the 500th ACK reaches it and opens round 2 (it
        // belongs to round 2), whose end is the snd_nxt of that moment.
        let mut d = adaptive_over_rounds(500);
        for _ in 0..499 {
            d.ack(0);
        }
        d.send(100);
        d.ack(0);
        let cwnd = d.tp.snd_cwnd as u64;
        // Round 2's second ACK reports one loss and one delivery.
        d.ack_lost(0, 1, 1);
        // lost 1; sent 998 (round 1) + 2 + 2 (round 2): R = 15 + 35/1002 %.
        let r = 15.0 + 35.0 / 1002.0;
        assert!((d.var("reduction_pct") - r).abs() < 1e-12);
        // ⌊cwnd·(100·1002 − (15·1002 + 35·1))/(100·1002)⌋
        assert_eq!(
            d.tp.snd_cwnd as u64,
            cwnd * (100_200 - 15_030 - 35) / 100_200
        );

        // Everything lost: R = 50 %.
        let mut d = adaptive_over_rounds(1000);
        d.loss(0, 5);
        assert_eq!(d.var("reduction_pct"), 50.0);
        assert_eq!(d.tp.snd_cwnd, 500);
    }

    #[test]
    fn adaptive_reduction_over_the_current_window_as_eq_3() {
        // The default counts as the paper's eq. 3: R = 15 + 35·lost/sent,
        // sent the packets of the current window.
        assert_eq!(
            LinearParams::default().adaptive_count,
            AdaptiveCount::Window
        );
        let adaptive = |p: &mut LinearParams| p.adaptive = true;
        // Window 1: the 1000 packets in flight at init. 9 ACKs of 2, then an
        // ACK reporting 2 losses: R = 15 + 35·2/1000 = 15.07 %.
        let mut d = Drive::new(linear(adaptive), 1000);
        for _ in 0..9 {
            d.ack(0);
        }
        assert_eq!(d.tp.snd_cwnd, 1018);
        d.loss(0, 2);
        assert!((d.var("reduction_pct") - 15.07).abs() < 1e-12);
        // ⌊1018·(100·1000 − (15·1000 + 35·2))/(100·1000)⌋ = ⌊864.59⌋
        assert_eq!(d.tp.snd_cwnd, 864);

        // Window 2 holds the 100 packets in flight when it begins: the ACK
        // that reaches window 1's end (snd_una = 1000 packets, snd_nxt =
        // 1100). Its next ACK reports 3 losses: R = 15 + 35·3/100 = 16.05 %,
        // where the two-round count would see 3 of 1004 (15.105 %).
        for (count, sent) in [
            (AdaptiveCount::Window, 100u64),
            (AdaptiveCount::Round, 1004),
        ] {
            let mut d = Drive::new(
                linear(|p| {
                    p.adaptive = true;
                    p.adaptive_count = count;
                }),
                500,
            );
            for _ in 0..499 {
                d.ack(0);
            }
            d.send(100);
            d.ack(0);
            assert_eq!(d.cc.state.current_window_counts(), (0, 100));
            let cwnd = d.tp.snd_cwnd as u64;
            d.ack_lost(0, 1, 3);
            let r = 15.0 + 35.0 * 3.0 / sent as f64;
            assert!((d.var("reduction_pct") - r).abs() < 1e-12, "{count:?}");
            let cut = 15 * sent + 35 * 3;
            assert_eq!(
                d.tp.snd_cwnd as u64,
                cwnd * (100 * sent - cut) / (100 * sent)
            );
        }
    }

    #[test]
    fn adaptive_reduction_per_loss_reporting_ack() {
        // The same history as above, counted on the reporting ACK alone: it
        // revealed 2 lost and none delivered: R = 15 + 35 = 50 %.
        let ack = |p: &mut LinearParams| {
            p.adaptive = true;
            p.adaptive_count = AdaptiveCount::Ack;
        };
        let mut d = Drive::new(linear(ack), 1000);
        for _ in 0..9 {
            d.ack(0);
        }
        d.loss(0, 2);
        assert_eq!(d.var("reduction_pct"), 50.0);
        assert_eq!(d.tp.snd_cwnd, 509);
        // One lost and one SACKed on that ACK: R = 15 + 35/2 = 32.5 %.
        let mut d = Drive::new(linear(ack), 1000);
        d.ack(0);
        d.ack_lost(1, 1, 1);
        assert_eq!(d.var("reduction_pct"), 32.5);
        // The round count sees 1 lost of 4: 23.75 %.
        let mut d = adaptive_over_rounds(1000);
        d.ack(0);
        d.ack_lost(1, 1, 1);
        assert_eq!(d.var("reduction_pct"), 15.0 + 35.0 / 4.0);
    }

    #[test]
    fn at_most_one_reduction_until_snd_nxt_passes_the_recovery_point() {
        let mut d = reduced(1000, 10);
        assert_eq!(d.tp.snd_cwnd, 900);
        let point = d.cc.state.recovery_point;
        // More losses, nothing new sent: nothing changes, not even growth.
        assert_eq!(d.loss(12, 3), 900);
        assert_eq!(d.loss(15, 1), 900);
        assert_eq!(d.cc.state.threshold_pkts, 1000);
        assert_eq!(d.cc.state.recovery_point, point);
        // Recovery goes on from the first reduction's origin: 900 + (20 − 10).
        assert_eq!(d.ack(20), 910);
        // One new segment leaves: snd_nxt > recovery point, the next loss
        // reduces again, from the current window, and resets the threshold.
        d.send(1);
        assert_eq!(d.loss(25, 1), 910 * 9 / 10);
        assert_eq!(d.tp.snd_cwnd, 819);
        assert_eq!(d.cc.state.threshold_pkts, 910);
        assert_eq!(d.cc.state.base_pkts, 819);
        assert_eq!(d.tp.snd_ssthresh, 455);
        assert_eq!(d.cc.state.recovery_point, point + MSS);
        // The time origin moved to the second loss: 819 + (30 − 25).
        assert_eq!(d.ack(30), 824);
    }

    #[test]
    fn recovery_is_linear_then_exits_at_the_threshold_into_avoidance() {
        // Loss at 10 ms: 1000 → 900, threshold 1000, ssthresh 500.
        let mut d = reduced(1000, 10);
        for t in [0u64, 1, 2, 10, 50, 99] {
            // J = b_r + β_r·t = 900 + t.
            assert_eq!(d.ack(10 + t) as u64, 900 + t, "t = {t}");
            assert_eq!(d.var("phase"), Phase::Recovery as u8 as f64);
        }
        // t = 100: J = 1000 reaches the threshold: recovery ends.
        assert_eq!(d.ack(110), 1000);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.var("phase"), Phase::Avoidance as u8 as f64);
        // Avoidance: J = b_A + β_A·t = 1000 + 2t, t still from the loss.
        for t in [101u64, 102, 150, 1000] {
            assert_eq!(d.ack(10 + t) as u64, 1000 + 2 * t, "t = {t}");
        }
        // A loss in avoidance reduces at once (not in recovery: no gate).
        let cwnd = d.tp.snd_cwnd;
        assert_eq!(cwnd, 3000);
        assert_eq!(d.loss(1010, 1), 2700);
        assert_eq!(d.cc.state.threshold_pkts, 3000);
        // Recovery from the new base: 2700 + (1100 − 1010) = 2790.
        assert_eq!(d.ack(1100), 2790);
    }

    #[test]
    fn slopes_are_parameters() {
        let mut d = Drive::new(
            linear(|p| {
                p.beta_r = 0.5;
                p.beta_a = 3.0;
                p.ss_alpha = 0.25;
                p.ss_min_pkts = 5;
            }),
            100,
        );
        // Slow start: max(⌊0.25·t³⌋, 5): t = 1 → 5; t = 4 → 16.
        assert_eq!(d.ack(1), 105);
        assert_eq!(d.ack(4), 121);
        d.loss(4, 1); // 121 → 108, threshold 121
        assert_eq!(d.tp.snd_cwnd, 108);
        // Recovery J = 108 + ⌊0.5·t⌋: t = 7 → 111.
        assert_eq!(d.ack(11), 111);
        // Exit at t = 26: 108 + 13 = 121.
        assert_eq!(d.ack(30), 121);
        // Avoidance 121 + 3t: t = 27 → 202.
        assert_eq!(d.ack(31), 202);
    }

    #[test]
    fn paper_mode_hook_leaves_the_reduction_to_the_loss_it_reports() {
        // Default (module_hook = false): the stack enters Recovery at 40 ms
        // with cwnd 1000; the hook returns cwnd/2 and resets t only, and the
        // same ACK's losses reduce by 10 %: threshold 1000, b_r 900.
        let mut d = Drive::new(default(), 1000);
        d.enter_recovery(40);
        assert_eq!(d.tp.snd_ssthresh, 500);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.loss(40, 1), 900);
        assert_eq!(d.cc.state.threshold_pkts, 1000);
        // Recovery J = 900 + t, exit at 1000, then avoidance 1000 + 2t.
        assert_eq!(d.ack(50), 910);
        assert_eq!(d.ack(140), 1000);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.ack(141), 1202);
        // An RTO (hook, then the stack sets cwnd to 1): 1 < ssthresh 601,
        // so the next ACK is slow start from the hook's origin: 1 + 2·10³.
        d.at(400);
        d.tp.snd_ssthresh = d.cc.ssthresh(&d.tp);
        assert_eq!(d.tp.snd_ssthresh, 601);
        d.tp.snd_cwnd = 1;
        assert_eq!(d.ack(410), 2001);
    }

    fn module() -> LinearLaw {
        linear(|p| p.module_hook = true)
    }

    #[test]
    fn ssthresh_hook_enters_recovery_and_closes_the_gate_for_that_ack() {
        // module_hook: first loss of the connection, through the stack: at
        // 40 ms cwnd is 1000 (set), the stack enters Recovery.
        let mut d = Drive::new(module(), 1000);
        d.enter_recovery(40);
        assert_eq!(d.tp.snd_ssthresh, 500); // cwnd/2
        assert!(d.cc.state.recovery);
        assert_eq!(d.cc.state.recovery_point, d.tp.snd_nxt);
        assert_eq!(d.var("t_origin_s"), d.tp.now.secs_f64());
        // The same ACK's rate sample reports the loss: the gate is closed.
        assert_eq!(d.loss(40, 1), 1000);
        assert_eq!(d.cc.state.threshold_pkts, 200); // still the initial one
                                                    // The next delivering ACK: J = b_r + t with the stored b_r, which
                                                    // is the initial 1 before any reduction: 1 + 3.
        assert_eq!(d.ack(43), 4);
        // Recovery ends at the initial threshold, 200, at t = 199.
        assert_eq!(d.ack(239), 200);
        assert!(!d.cc.state.recovery);
        // 200 < ssthresh 500: slow start, t still from the hook's origin.
        assert_eq!(d.ack(240) as u64, 200 + 2 * 200u64.pow(3));

        // Later, with a stored b_r: a reduction in cong_control (1000 → 900),
        // exit, avoidance; then the stack enters Recovery again.
        let mut d = Drive::new(module(), 1000);
        d.loss(0, 1);
        d.ack(100); // exit at 1000
        assert_eq!(d.ack(150), 1300);
        d.send(10);
        d.enter_recovery(150);
        assert_eq!(d.tp.snd_ssthresh, 650);
        assert_eq!(d.loss(150, 2), 1300); // gated
                                          // Restarts from b_r = 900, t from 150 ms; threshold still 1000.
        assert_eq!(d.ack(160), 910);
        assert_eq!(d.ack(250), 1000);
        assert!(!d.cc.state.recovery);
        // 1000 ≥ ssthresh 650: avoidance, 1000 + 2·101.
        assert_eq!(d.ack(251), 1202);
    }

    #[test]
    fn rto_restarts_from_the_stored_base() {
        let mut d = Drive::new(module(), 1000);
        d.loss(0, 1); // b_r 900, threshold 1000
        d.ack(100); // exit
        d.send(5);
        // RTO: the stack calls ssthresh() then sets cwnd = in_flight + 1.
        d.at(400);
        d.tp.snd_ssthresh = d.cc.ssthresh(&d.tp);
        d.tp.snd_cwnd = 1;
        assert_eq!(d.tp.snd_ssthresh, 500); // cwnd/2 of 1000
                                            // J = 900 + (410 − 400).
        assert_eq!(d.ack(410), 910);
    }

    #[test]
    fn undo_keeps_the_window_but_at_least_two() {
        let mut d = Drive::new(default(), 1);
        assert_eq!(d.cc.undo_cwnd(&d.tp), 2);
        d.tp.snd_cwnd = 700;
        assert_eq!(d.cc.undo_cwnd(&d.tp), 700);
    }

    #[test]
    fn each_connection_has_its_own_state() {
        let mut a = reduced(1000, 0);
        let b = Drive::new(default(), 10);
        assert!(a.cc.state.recovery && !b.cc.state.recovery);
        assert_eq!(b.cc.state.threshold_pkts, 200);
        assert_eq!(b.cc.state.base_pkts, 1);
        // Init of a second connection does not touch the first.
        assert_eq!(a.cc.state.threshold_pkts, 1000);
        assert_eq!(a.ack(5), 905);
        assert_eq!(a.cc.name(), "linear");
    }

    #[test]
    fn a_wrapped_recovery_point_freezes_the_window_only_in_the_hybrid_of_hook_and_gate() {
        // E3's loss part (10 Gb/s, 3 % loss): a reduction 100 → 90 sets
        // the recovery point 100 bytes below 2^32 in sequence space, then
        // every millisecond one segment leaves, the stack enters Recovery
        // (the hook resets t), an ACK delivers and the next one reports a
        // loss after new data was sent. With the paper's hook and the
        // module's 32-bit gate, the wrapped snd_nxt looks smaller than the
        // point: the gate stays shut and, t being reset before every ACK,
        // the recovery window stays at b_r = 90 whatever the losses (a
        // round in this state ran at 8.9 Gb/s until 4 GiB more were sent).
        // The module's hook moves the point at each Recovery entry, and a
        // 64-bit gate never wraps: both reduce on the first loss.
        let cases = [
            (false, None, 81),
            (false, Some(false), 81),
            (false, Some(true), 90),
            (true, None, 81),
            (true, Some(true), 81),
            (true, Some(false), 81),
        ];
        for (hook, wrap, want) in cases {
            let mut d = Drive::new(
                linear(|p| {
                    p.module_hook = hook;
                    p.wrap_seq = wrap;
                }),
                100,
            );
            d.set_isn(0u32.wrapping_sub(100).wrapping_sub(1000 * MSS as u32));
            assert_eq!(d.loss(0, 1), 90);
            let mut lows = u32::MAX;
            for ms in 1..=20 {
                d.send(1);
                d.enter_recovery(ms);
                d.ack(ms);
                d.send(1);
                lows = lows.min(d.loss(ms, 1));
                if ms == 1 {
                    assert_eq!(d.tp.snd_cwnd, want, "module_hook {hook}, wrap_seq {wrap:?}");
                }
            }
            if want == 90 {
                assert_eq!(lows, 90, "frozen at b_r for 20 ms of losses");
                assert!(d.cc.state.recovery);
            } else {
                assert!(lows < 30, "a reduction per loss: {lows}");
            }
        }
    }
}
