//! Expolinear (Madeira and Mattos §4, eq. 1, 7, 8; the authors' module
//! `expolin01.c`): after a loss the window returns toward the window before
//! it along a saturating exponential, halving the remaining gap every
//! 1/σ ms, then grows linearly in time.
//!
//! With t in whole milliseconds since the last loss (or the session start)
//! and the phase machine of [`super::loss_phases`]:
//!
//! - slow start: J += max(⌊α·t³⌋, 2) per ACK event (eq. 1, α = 2);
//! - reduction on loss: the decrement D = ⌊J·R/100⌋ (R = 20) is taken away
//!   (the module's `cwnd − cwnd·2/10`, the new window rounded up); b_r is
//!   the new window and Δ_r = D, the *whole* reduction (the module's
//!   `drep = decrement`; Fractional's Δ_r is a tenth of it);
//! - recovery (eq. 7): J = b_r + ⌊η_r·Δ_r·(1 − 2^(−k))⌋ + 1 with
//!   k = ⌊σ·t⌋ (η_r = 1, σ = 1/4: the module's `expAdjust(t, 4, drep)`
//!   computes 2^(−⌊t/4⌋)). So J starts at b_r + 1 and tends to
//!   b_r + Δ_r + 1, one packet above the window before the loss, which is
//!   the threshold where recovery ends;
//! - congestion avoidance (eq. 8): J = b_A + ⌊η_A·t⌋ (η_A = 2), b_A the
//!   threshold, t still from the loss.
//!
//! 2^(−k) is taken in the module's 16-bit fixed point, `65536 >> k`, so it
//! is exactly zero from k = 17 on, and the adjustment is
//! ⌊Δ_r·(65536 − (65536 >> k)) / 65536⌋ (times η_r). Two defects of the C
//! are not reproduced: `Δ_r·adjustment` is a `u32` product that wraps once
//! Δ_r ≥ 65536 (we use 64 bits), and `65536 >> k` for k ≥ 32 is undefined
//! in C (on x86 the shift count is taken modulo 32, so at t = 128 ms the
//! window would fall back to b_r + 1); we keep 2^(−k) = 0.
//!
//! Like `linha01.c`, the `ssthresh` hook enters recovery, resets the time
//! origin and the recovery point, but not b_r or Δ_r: before any reduction
//! made in `cong_control` those are the module's initial 1 and 1, so a
//! recovery entered through the hook first holds the window at 2 to 3
//! packets (b_r + ⌊Δ_r·(1 − 2^(−k))⌋ + 1) until a loss reported after new
//! data was sent makes a reduction (the module does the same).

use super::loss_phases::{floor_mul, law_reads_params, Law, PhaseMachine, State};
use super::loss_phases::{
    INITIAL_BASE_ROW, INITIAL_THRESHOLD_ROW, SS_ALPHA_ROW, SS_MIN_PKTS_ROW, WRAP_SEQ_ROW,
};
use super::loss_phases::{MAX_SIGMA_PER_MS, PERCENT, SLOPE};
use super::{isn, Registration};
use crate::param::{self, Param, ParamError, Range};
use serde::{Deserialize, Serialize};

/// Expolinear (Madeira and Mattos §4, eq. 1, 7, 8; `expolin01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ExpolinearParams {
    /// Slow start adds α·t³ per ACK event, packets/ms³ (module: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 2).
    pub ss_min_pkts: u32,
    /// Reduction on loss, percent, 1..=99 (module: 20).
    pub reduction_pct: u32,
    /// Recovery gain η_r on Δ_r (module: 1).
    pub eta_r: f64,
    /// σ in 2^(−⌊σ·t⌋), per ms, > 0 (module: 1/4, i.e. ⌊t/4⌋).
    pub sigma_per_ms: f64,
    /// Avoidance slope: J = b_A + η_A·t, packets/ms (module: 2).
    pub eta_a: f64,
    /// Upper threshold before any reduction, packets (module: 200).
    pub initial_threshold_pkts: u32,
    /// Recovery base b_r before any reduction, packets (module: 1).
    pub initial_base_pkts: u32,
    /// Δ_r before any reduction, packets (module: 1).
    pub initial_delta_pkts: u32,
    /// 2^(−k) is the module's `65536 >> k` with the shift count taken
    /// modulo 32, as x86 executes it (a shift by 32 or more is undefined in
    /// C; GCC emits `sar %cl`, which masks the count): the recovery window
    /// falls back to b_r + 1 every 128 ms of t (k = 32, 64, ...). False:
    /// 2^(−k) = 0 from k = 17 on, the exponential the paper means.
    pub shift_mod_32: bool,
    /// The `ssthresh` hook enters recovery as `expolin01.c`'s does (see
    /// `cc::loss_phases`); false (default): a loss reduces the window as the
    /// paper's equations say.
    pub module_hook: bool,
    /// The reduction gate's 32-bit sequence comparison, exactly as
    /// Linear's ([`LinearParams::wrap_seq`](super::linear::LinearParams::wrap_seq)):
    /// unset (default), as `module_hook`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrap_seq: Option<bool>,
}

impl Default for ExpolinearParams {
    fn default() -> Self {
        ExpolinearParams {
            ss_alpha: 2.0,
            ss_min_pkts: 2,
            reduction_pct: 20,
            eta_r: 1.0,
            sigma_per_ms: 0.25,
            eta_a: 2.0,
            initial_threshold_pkts: 200,
            initial_base_pkts: 1,
            initial_delta_pkts: 1,
            shift_mod_32: true,
            module_hook: false,
            wrap_seq: None,
        }
    }
}

/// Expolinear's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    SS_ALPHA_ROW,
    SS_MIN_PKTS_ROW,
    Param::int_in(
        "reduction_pct",
        PERCENT,
        "Reduction on loss, percent (module: 20).",
    ),
    Param::float_in(
        "eta_r",
        SLOPE,
        "Recovery gain eta_r on Delta_r (module: 1).",
    ),
    Param::float_in(
        "sigma_per_ms",
        Range::float(0.0, true, MAX_SIGMA_PER_MS, false),
        "sigma in 2^(-floor(sigma*t)), per ms (module: 1/4).",
    ),
    Param::float_in(
        "eta_a",
        SLOPE,
        "Avoidance slope: J = b_A + eta_A*t, packets/ms (module: 2).",
    ),
    INITIAL_THRESHOLD_ROW,
    INITIAL_BASE_ROW,
    Param::int_in(
        "initial_delta_pkts",
        Range::U32,
        "Delta_r before any reduction, packets (module: 1).",
    ),
    Param::flag(
        "shift_mod_32",
        "2^(-k) with the shift count modulo 32, as x86 executes the module.",
    ),
    Param::flag(
        "module_hook",
        "The ssthresh hook enters recovery as expolin01.c's does.",
    ),
    WRAP_SEQ_ROW,
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &ExpolinearParams) -> Result<(), ParamError> {
    param::check_fields!(
        PARAMS,
        p,
        [
            ss_alpha,
            reduction_pct,
            eta_r,
            sigma_per_ms,
            eta_a,
            initial_threshold_pkts,
            initial_base_pkts,
        ]
    )
}

/// `cc = "expolinear"`: a variant of its own.
pub const REGISTRATION: Registration = super::registration! {
    name: "expolinear",
    about: "Expolinear (Madeira and Mattos; expolin01.c): exponential recovery, linear avoidance.",
    params: PARAMS,
    config: ExpolinearParams,
    check: check,
    build: |p, rng| Expolinear::new(p).with_isn(isn(rng)),
};

/// 1.0 in the module's fixed point for 2^(−k) (`FIXED_POINT_SCALE`).
const FIXED_ONE: u64 = 1 << 16;

/// Expolinear's law; the control is [`Expolinear`].
#[derive(Clone, Debug)]
pub struct ExpolinearLaw {
    p: ExpolinearParams,
    /// Δ_r, packets: the last reduction (`drep`).
    delta_pkts: u64,
}

/// The Expolinear control.
pub type Expolinear = PhaseMachine<ExpolinearLaw>;

impl PhaseMachine<ExpolinearLaw> {
    pub fn new(p: ExpolinearParams) -> Self {
        let delta_pkts = p.initial_delta_pkts as u64;
        PhaseMachine::with_law(ExpolinearLaw { p, delta_pkts })
    }
}

impl Law for ExpolinearLaw {
    const NAME: &'static str = "expolinear";

    law_reads_params!();

    fn reset(&mut self) {
        self.delta_pkts = self.p.initial_delta_pkts as u64;
    }

    fn reduce(&mut self, _st: &State, cwnd: u32) -> u64 {
        let cwnd = cwnd as u64;
        let decrement = cwnd * self.p.reduction_pct.min(100) as u64 / 100;
        self.delta_pkts = decrement;
        cwnd - decrement
    }

    fn recover(&mut self, st: &State, _cwnd: u32, t_ms: u64) -> u64 {
        let k = floor_mul(self.p.sigma_per_ms, t_ms as f64);
        let k = if self.p.shift_mod_32 { k % 32 } else { k };
        let two_to_minus_k = if k >= 17 { 0 } else { FIXED_ONE >> k };
        let scaled = self.delta_pkts.saturating_mul(FIXED_ONE - two_to_minus_k);
        // Division by a power of two: exact in f64 below 2^53.
        let adjustment = floor_mul(self.p.eta_r, scaled as f64 / FIXED_ONE as f64);
        (st.base_pkts as u64)
            .saturating_add(adjustment)
            .saturating_add(1)
    }

    fn avoid(&mut self, st: &State, _cwnd: u32, t_ms: u64) -> u64 {
        (st.threshold_pkts as u64).saturating_add(floor_mul(self.p.eta_a, t_ms as f64))
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("delta_pkts", self.delta_pkts as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::loss_phases::testkit::{law_with, Drive};
    use crate::cc::loss_phases::Phase;
    use crate::cc::CongestionControl;

    fn expolinear(f: impl FnOnce(&mut ExpolinearParams)) -> ExpolinearLaw {
        law_with(Expolinear::new, f)
    }

    fn default() -> ExpolinearLaw {
        expolinear(|_| {})
    }

    /// Eq. 7 in real numbers: b_r + ⌊η·Δ·(1 − 2^(−⌊σt⌋))⌋ + 1 (equal to
    /// the module's fixed point while ⌊σt⌋ ≤ 16).
    fn eq7(b_r: f64, eta: f64, delta: f64, sigma: f64, t_ms: u64) -> u32 {
        let k = (sigma * t_ms as f64).floor() as i32;
        (b_r + (eta * delta * (1.0 - 2f64.powi(-k))).floor() + 1.0) as u32
    }

    #[test]
    fn slow_start_adds_two_t_cubed_at_least_two() {
        let mut d = Drive::new(default(), 10);
        let mut cwnd: u64 = 10;
        for t in [0u64, 1, 4, 9, 30] {
            cwnd += (2 * t * t * t).max(2);
            assert_eq!(d.ack(t) as u64, cwnd, "t = {t} ms");
        }
    }

    #[test]
    fn loss_takes_twenty_percent_and_delta_is_the_whole_reduction() {
        for (cwnd, new, delta) in [(1000u32, 800u32, 200u32), (997, 798, 199), (3, 3, 0)] {
            let mut d = Drive::new(default(), cwnd);
            assert_eq!(d.loss(7, 1), new, "cwnd {cwnd}");
            assert_eq!(d.var("delta_pkts"), delta as f64);
            assert_eq!(d.cc.state.base_pkts, new);
            assert_eq!(d.cc.state.threshold_pkts, cwnd);
            assert_eq!(d.tp.snd_ssthresh, cwnd / 2);
            assert_eq!(d.var("phase"), Phase::Recovery as u8 as f64);
        }
    }

    #[test]
    fn recovery_approaches_the_threshold_exponentially_then_avoidance() {
        // Loss at 100 ms: 1000 → 800, Δ_r = 200, threshold 1000.
        let mut d = Drive::new(default(), 1000);
        d.loss(100, 1);
        let mut seen = Vec::new();
        for t in 0..32u64 {
            let want = eq7(800.0, 1.0, 200.0, 0.25, t);
            assert_eq!(d.ack(100 + t), want, "t = {t} ms");
            assert!(d.cc.state.recovery, "t = {t} ms");
            seen.push(want);
        }
        // Each 4 ms halve the gap to 1001: 801, 901, 951, 976, 988, 994,
        // 997, 999.
        let steps: Vec<u32> = seen.iter().step_by(4).copied().collect();
        assert_eq!(steps, vec![801, 901, 951, 976, 988, 994, 997, 999]);
        // t = 32 ms, k = 8: ⌊200·255/256⌋ = 199, J = 1000: recovery ends.
        assert_eq!(d.ack(132), 1000);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.var("phase"), Phase::Avoidance as u8 as f64);
        // Avoidance: J = 1000 + 2t.
        for t in [33u64, 50, 500] {
            assert_eq!(d.ack(100 + t) as u64, 1000 + 2 * t, "t = {t} ms");
        }
    }

    #[test]
    fn fixed_point_and_wide_arithmetic() {
        // Δ_r = 2·10⁶: the C product Δ_r·adjustment would wrap u32.
        let mut d = Drive::new(default(), 10_000_000);
        assert_eq!(d.loss(0, 1), 8_000_000);
        // k = 1: half of Δ_r.
        assert_eq!(d.ack(4), 9_000_001);
        // k = 16: ⌊2·10⁶·65535/65536⌋ = 1_999_969.
        assert_eq!(d.ack(64), 8_000_000 + 1_999_969 + 1);
        // k = 17: 2^-17 is 0 in 16-bit fixed point, the whole Δ_r (the
        // real 1 − 2^-17 would give 1_999_984).
        assert_eq!(d.ack(68), 10_000_001);
        assert!(!d.cc.state.recovery);
        // k ≥ 32 (t ≥ 128 ms), undefined in C, with `shift_mod_32` off:
        // still the whole Δ_r.
        let mut d = Drive::new(expolinear(|p| p.shift_mod_32 = false), 10_000_000);
        d.loss(0, 1);
        assert_eq!(d.ack(130), 10_000_001);
    }

    #[test]
    fn shift_count_is_taken_modulo_32_as_x86_does() {
        // The compiled module (GCC -O2, x86-64: `sar %cl`) shifts 65536 by
        // ⌊t/4⌋ mod 32, so the recovery window is periodic in t with period
        // 128 ms: b_r + 1 again at t = 128, 256, ... (checked against the
        // module's expAdjust compiled in user space: 801, 901, 951 at
        // t = 128, 132, 136 for b_r 800, Δ_r 200). Recovery lasts that long
        // only when no ACK arrives while the window is at the threshold:
        // here the ACKs come at t = 0, 4, 8, then 128, 132, 136.
        let mut d = Drive::new(default(), 1000);
        d.loss(0, 1);
        let got: Vec<u32> = [0u64, 4, 8].iter().map(|&t| d.ack(t)).collect();
        assert_eq!(got, [801, 901, 951]);
        let got: Vec<u32> = [128u64, 132, 136].iter().map(|&t| d.ack(t)).collect();
        assert_eq!(got, [801, 901, 951]);
        assert!(d.cc.state.recovery);
        // k mod 32 = 17..31 gives the whole Δ_r: J = 1001 ends recovery.
        assert_eq!(d.ack(200), 1001);
        assert!(!d.cc.state.recovery);
        // Without the mask the t = 128 ms ACK ends recovery.
        let mut d = Drive::new(expolinear(|p| p.shift_mod_32 = false), 1000);
        d.loss(0, 1);
        d.ack(8);
        assert_eq!(d.ack(128), 1001);
        assert!(!d.cc.state.recovery);
    }

    #[test]
    fn eta_and_sigma_are_parameters() {
        let mut d = Drive::new(
            expolinear(|p| {
                p.eta_r = 0.5;
                p.sigma_per_ms = 1.0;
                p.eta_a = 0.5;
            }),
            1000,
        );
        d.loss(0, 1); // 800, Δ 200
        for t in 1..=3u64 {
            assert_eq!(d.ack(t), eq7(800.0, 0.5, 200.0, 1.0, t), "t = {t}");
        }
        // η_r = 0.5: J tends to 800 + 100 + 1 and never reaches 1000.
        assert_eq!(d.ack(20), 901);
        assert!(d.cc.state.recovery);
    }

    #[test]
    fn paper_mode_hook_leaves_the_reduction_to_the_loss_it_reports() {
        // Default: the hook returns cwnd/2; the ACK's losses cut 20 %.
        let mut d = Drive::new(default(), 1000);
        d.enter_recovery(20);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.loss(20, 3), 800);
        // J = 800 + ⌊200·(1 − 2^-⌊t/4⌋)⌋ + 1: t = 4 → 901, t = 8 → 951.
        assert_eq!(d.ack(24), 901);
        assert_eq!(d.ack(28), 951);
    }

    #[test]
    fn ssthresh_hook_enters_recovery_with_the_stored_base_and_delta() {
        let mut d = Drive::new(expolinear(|p| p.module_hook = true), 1000);
        d.enter_recovery(20);
        assert_eq!(d.tp.snd_ssthresh, 500);
        assert!(d.cc.state.recovery);
        // The ACK's own losses are gated.
        assert_eq!(d.loss(20, 3), 1000);
        // b_r = 1, Δ_r = 1 before any reduction: J = 1 + ⌊1 − 2^-k⌋ + 1.
        assert_eq!(d.ack(21), 2);
        assert_eq!(d.ack(40), 2);
        assert_eq!(d.ack(88), 3); // k = 17: the whole Δ_r
        assert!(d.cc.state.recovery); // below the initial threshold 200
                                      // A loss after new data: reduction from 3 (D = 0), Δ_r = 0,
                                      // threshold 3; J = 3 + 0 + 1 = 4 ends recovery.
        d.send(1);
        assert_eq!(d.loss(90, 1), 3);
        assert_eq!(d.ack(91), 4);
        assert!(!d.cc.state.recovery);
        // 4 ≥ ssthresh 1: avoidance, 3 + 2·2.
        assert_eq!(d.ack(92), 7);

        // With a stored b_r and Δ_r: reduction 1000 → 800 in cong_control,
        // exit, then the stack enters Recovery at 200 ms.
        let mut d = Drive::new(expolinear(|p| p.module_hook = true), 1000);
        d.loss(0, 1);
        d.ack(40); // exit (k = 10)
        assert_eq!(d.ack(200), 1400);
        d.send(3);
        d.enter_recovery(200);
        assert_eq!(d.loss(200, 1), 1400);
        // J = 800 + ⌊200·(1 − 2^-k)⌋ + 1 from the hook's origin.
        assert_eq!(d.ack(204), 901);
        assert_eq!(d.ack(240), 1000);
        assert!(!d.cc.state.recovery);
    }

    #[test]
    fn undo_keeps_the_window_but_at_least_two() {
        let mut d = Drive::new(default(), 1);
        assert_eq!(d.cc.undo_cwnd(&d.tp), 2);
        d.tp.snd_cwnd = 70;
        assert_eq!(d.cc.undo_cwnd(&d.tp), 70);
        assert_eq!(d.cc.name(), "expolinear");
    }
}
