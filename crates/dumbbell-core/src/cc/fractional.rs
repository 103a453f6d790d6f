//! Fractional, "Fracionário" (Madeira and Mattos §4, eq. 1, 5, 6; the authors' module
//! `frac01.c`): after a loss the window climbs back in fixed fractions of
//! the reduction, then grows by a fixed fraction of itself per ACK event;
//! its growth does not depend on time, hence the paper's finding that it
//! suffers most from long delays.
//!
//! With the phase machine of [`super::loss_phases`]:
//!
//! - slow start: J += 1 per ACK event, what `frac01.c` does as compiled
//!   (below); `slow_start = cubic_time` gives the paper's eq. 1 instead,
//!   J += max(⌊α·t³⌋, 1) (the source's floor is 1, the others' 2);
//! - reduction on loss: the decrement D = ⌊J·R/100⌋ (R = 20) is taken away,
//!   so the new window is rounded *up* (the module's `cwnd − cwnd·2/10`),
//!   and Δ_r = ⌊D·10/100⌋ (`delta_pct`), the γ cycle restarts;
//! - recovery: J += γ_r·Δ_r per ACK event (eq. 5), γ_r taking in turn the
//!   values of `gamma_r`, {0, 4, 5, 1} (sum 10: one cycle of four ACK
//!   events gives back the whole decrement); it ends when J reaches the
//!   threshold (the window before the reduction);
//! - congestion avoidance: J += max(⌊J·γ_A/100⌋, 1) per ACK event (eq. 6,
//!   γ_A = 5 %, the module's integer `cwnd·5/100`).
//!
//! The module's `ssthresh` hook only returns cwnd/2: it neither enters
//! recovery nor resets anything, so the ACK that makes the stack enter
//! Recovery reduces the window here (unlike Linear and Expolinear).
//!
//! # The compiled slow start
//!
//! `frac01.c` declares `u32 time_in_ms` in its `cong_control` and never
//! assigns it (nor the unused `current_time_ns`); its slow-start branch
//! adds `max(2·time_in_ms³, 1U)`. Reading an unassigned automatic variable
//! is undefined behaviour, and GCC resolves it: compiled at -O1, -O2, -O3
//! or -Os for x86-64 (GCC 12.2), with or without the kernel's
//! `-fno-strict-overflow` and `-ftrivial-auto-var-init=zero`, the branch is
//! a compare of `snd_cwnd` with `snd_ssthresh` followed by `addl $1` and a
//! store: one segment per ACK event, whatever the time. (GCC also warns
//! "'time_in_ms' may be used uninitialized".) The module the paper
//! measured is the compiled one, so that is the default here
//! (`slow_start = per_ack`, step `ss_min_pkts` = 1); `cubic_time` keeps
//! the 2·t³ the source seems to say, with the time origin of
//! [`super::loss_phases`] (reset by the hook too, so that slow start after an
//! RTO starts again from t = 0).
//!
//! To check: copy `simple_cong_control` from `frac01.c` into a user-space
//! file with the kernel types it touches reduced to plain structs
//! (`tcp_sock`: `snd_cwnd`, `snd_ssthresh`, `snd_nxt`; `rate_sample`:
//! `losses`, `acked_sacked`; `max` as a plain comparison), run
//! `gcc -O2 -S`, and read the branch taken when not in recovery and
//! `snd_cwnd < snd_ssthresh`.
//!
//! One segment per ACK event is slower than Reno's slow start with delayed
//! ACKs (one per segment acked): with an ACK for every second segment the
//! window grows by half per round trip instead of doubling.
//!
//! Δ_r is integer as in the module, so a reduction of fewer than 10 packets
//! (a window below 50 at R = 20) gives Δ_r = 0: recovery then adds nothing
//! and the window stays at its reduced value until the next loss reduces it
//! again (or until the reduction itself is 0, at a window of 4 or less,
//! when recovery ends on the next ACK). We reproduce this.

use super::loss_phases::{floor_mul, Law, PhaseMachine, State};
use super::loss_phases::{PERCENT, SLOPE};
use super::{isn, Registration};
use crate::param::{self, Param, ParamError, Range, Ty};
use serde::{Deserialize, Serialize};

/// Fractional's slow start.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum FractionalSlowStart {
    /// `ss_min_pkts` per ACK event: what `frac01.c` does as compiled (its
    /// `time_in_ms` is never assigned; GCC folds `max(2·t³, 1)` to 1, see
    /// `cc/fractional.rs`).
    #[default]
    PerAck,
    /// max(⌊α·t³⌋, `ss_min_pkts`) per ACK event, t in ms since the session
    /// start or the last loss: the paper's eq. 1, what the source seems to say.
    CubicTime,
}

/// Fractional, "Fracionário" (Madeira and Mattos §4, eq. 1, 5, 6; `frac01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FractionalParams {
    /// Slow start: the compiled module's one segment per ACK event
    /// (default) or the paper's α·t³.
    pub slow_start: FractionalSlowStart,
    /// Slow start adds α·t³ per ACK event with `slow_start = cubic_time`,
    /// packets/ms³ (source: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 1); the
    /// whole step with `slow_start = per_ack`.
    pub ss_min_pkts: u32,
    /// Reduction on loss, percent, 1..=99 (module: 20).
    pub reduction_pct: u32,
    /// Δ_r as a percentage of the last reduction, 1..=100 (module: 10).
    pub delta_pct: u32,
    /// The recovery multipliers γ_r, one per ACK event, cycled (module:
    /// [0, 4, 5, 1]); not empty.
    pub gamma_r: Vec<u32>,
    /// Avoidance growth γ_A per ACK event, percent of cwnd (module: 5).
    pub gamma_a_pct: u32,
    /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
    /// sequence numbers from a random initial one, as the module's `u32`
    /// comparison does in Linux: once per 4 GiB sent, a recovery point just
    /// below the wrap keeps the gate shut until recovery ends (or, if it
    /// never ends, until 4 GiB more are sent). False: 64-bit, never wraps.
    pub wrap_seq: bool,
}

impl Default for FractionalParams {
    fn default() -> Self {
        FractionalParams {
            slow_start: FractionalSlowStart::PerAck,
            ss_alpha: 2.0,
            ss_min_pkts: 1,
            reduction_pct: 20,
            delta_pct: 10,
            gamma_r: vec![0, 4, 5, 1],
            gamma_a_pct: 5,
            wrap_seq: true,
        }
    }
}

/// Fractional's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::new("slow_start", Ty::Choice(&["per_ack", "cubic_time"]), Range::Any, "The compiled module's one segment per ACK event, or the paper's alpha*t^3."),
    Param::float_in("ss_alpha", SLOPE, "Slow start adds alpha*t^3 per ACK event with cubic_time, packets/ms^3 (source: 2)."),
    Param::int_in("ss_min_pkts", Range::U32, "Smallest slow-start step per ACK event, packets (module: 1)."),
    Param::int_in("reduction_pct", PERCENT, "Reduction on loss, percent (module: 20)."),
    Param::int_in("delta_pct", Range::int(1, 100, ""), "Delta_r as a percentage of the last reduction (module: 10)."),
    Param::new("gamma_r", Ty::IntList, Range::int(0, MAX_GAMMA as u128, ""), "Recovery multipliers gamma_r, one per ACK event, cycled; not empty (module: [0, 4, 5, 1])."),
    Param::int_in("gamma_a_pct", Range::int(0, MAX_GAMMA as u128, ""), "Avoidance growth gamma_A per ACK event, percent of cwnd (module: 5)."),
    Param::flag("wrap_seq", "32-bit sequence comparison of the reduction gate, as the module in Linux."),
];

/// Largest recovery multiplier and avoidance growth (percent).
pub const MAX_GAMMA: u32 = 1000;

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &FractionalParams) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, p, [ss_alpha, reduction_pct, delta_pct])?;
    if p.gamma_r.is_empty() {
        return Err(ParamError::new("gamma_r", "needs at least one multiplier"));
    }
    param::check_fields!(PARAMS, p, [gamma_r, gamma_a_pct])
}

/// `cc = "fractional"`: a variant of its own.
pub const REGISTRATION: Registration = super::registration! {
    name: "fractional",
    about: "Fractional (Madeira and Mattos; frac01.c): recovery by fractions of the last reduction.",
    params: PARAMS,
    config: FractionalParams,
    check: check,
    build: |p, rng| Fractional::new(p).with_isn(isn(rng)),
};

/// The module's `snd_second_thresh` before any reduction. Recovery is only
/// entered by a reduction, which sets the threshold, so it is never read.
const INITIAL_THRESHOLD_PKTS: u32 = 200;

/// Fractional's law; the control is [`Fractional`].
#[derive(Clone, Debug)]
pub struct FractionalLaw {
    p: FractionalParams,
    /// Δ_r, packets (the module's `drep`, 1 before any reduction).
    delta_pkts: u64,
    /// Index in `gamma_r` of the next recovery multiplier (`kcount`).
    gamma_idx: usize,
}

/// The Fractional control.
pub type Fractional = PhaseMachine<FractionalLaw>;

impl PhaseMachine<FractionalLaw> {
    pub fn new(p: FractionalParams) -> Self {
        PhaseMachine::with_law(FractionalLaw {
            p,
            delta_pkts: 1,
            gamma_idx: 0,
        })
    }
}

impl Law for FractionalLaw {
    const NAME: &'static str = "fractional";

    fn hook_enters_recovery(&self) -> bool {
        false
    }
    fn ss_alpha(&self) -> f64 {
        self.p.ss_alpha
    }
    fn ss_min_pkts(&self) -> u32 {
        self.p.ss_min_pkts
    }
    fn slow_start_step(&self, t_ms: u64) -> u64 {
        match self.p.slow_start {
            FractionalSlowStart::PerAck => self.p.ss_min_pkts as u64,
            FractionalSlowStart::CubicTime => {
                let t = t_ms as f64;
                floor_mul(self.p.ss_alpha, t * t * t).max(self.p.ss_min_pkts as u64)
            }
        }
    }
    fn initial_threshold_pkts(&self) -> u32 {
        INITIAL_THRESHOLD_PKTS
    }
    fn initial_base_pkts(&self) -> u32 {
        1
    }

    fn reset(&mut self) {
        self.delta_pkts = 1;
        self.gamma_idx = 0;
    }

    fn reduce(&mut self, _st: &State, cwnd: u32) -> u64 {
        let cwnd = cwnd as u64;
        let decrement = cwnd * self.p.reduction_pct.min(100) as u64 / 100;
        self.delta_pkts = decrement * self.p.delta_pct as u64 / 100;
        self.gamma_idx = 0;
        cwnd - decrement
    }

    fn recover(&mut self, _st: &State, cwnd: u32, _t_ms: u64) -> u64 {
        let n = self.p.gamma_r.len();
        if n == 0 {
            return cwnd as u64;
        }
        let gamma = self.p.gamma_r[self.gamma_idx % n] as u64;
        self.gamma_idx = (self.gamma_idx + 1) % n;
        (cwnd as u64).saturating_add(gamma.saturating_mul(self.delta_pkts))
    }

    fn avoid(&mut self, _st: &State, cwnd: u32, _t_ms: u64) -> u64 {
        let step = (cwnd as u64 * self.p.gamma_a_pct as u64 / 100).max(1);
        (cwnd as u64).saturating_add(step)
    }

    fn wrap_seq(&self) -> bool {
        self.p.wrap_seq
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("delta_pkts", self.delta_pkts as f64);
        out("gamma_idx", self.gamma_idx as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::loss_phases::testkit::{law_with, Drive};
    use crate::cc::loss_phases::Phase;
    use crate::cc::CongestionControl;

    fn fractional(f: impl FnOnce(&mut FractionalParams)) -> FractionalLaw {
        law_with(Fractional::new, f)
    }

    fn default() -> FractionalLaw {
        fractional(|_| {})
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_event_as_compiled() {
        // frac01.c's `2·time_in_ms³` reads a variable never assigned; GCC
        // (-O1 to -O3, x86-64) compiles the branch to `cwnd += 1`.
        let mut d = Drive::new(default(), 10);
        for (i, t) in [0u64, 1, 3, 7, 20, 500].into_iter().enumerate() {
            assert_eq!(d.ack(t), 11 + i as u32, "t = {t} ms");
            assert_eq!(d.var("phase"), Phase::SlowStart as u8 as f64);
        }
        // Per ACK event, whatever it acks.
        assert_eq!(d.ack_lost(501, 9, 0), 17);
        let mut d = Drive::new(fractional(|p| p.ss_min_pkts = 3), 10);
        assert_eq!(d.ack(50), 13);
    }

    /// Fractional with the paper's cubic-time slow start, from 10 packets.
    fn cubic_time_from_10() -> Drive<FractionalLaw> {
        let law = fractional(|p| p.slow_start = FractionalSlowStart::CubicTime);
        Drive::new(law, 10)
    }

    #[test]
    fn cubic_time_slow_start_adds_two_t_cubed_at_least_one() {
        let mut d = cubic_time_from_10();
        let mut cwnd: u64 = 10;
        for t in [0u64, 0, 1, 3, 7, 20] {
            // J += max(2·t³, 1): 1, 1, 2, 54, 686, 16000.
            cwnd += (2 * t * t * t).max(1);
            assert_eq!(d.ack(t) as u64, cwnd, "t = {t} ms");
            assert_eq!(d.var("phase"), Phase::SlowStart as u8 as f64);
        }
    }

    #[test]
    fn loss_takes_twenty_percent_and_sets_delta_to_a_tenth_of_it() {
        // (cwnd, D = ⌊cwnd/5⌋, new = cwnd − D, Δ_r = ⌊D/10⌋)
        for (cwnd, dec, new, delta) in [
            (1000u32, 200u32, 800u32, 20u32),
            (997, 199, 798, 19),
            (49, 9, 40, 0),
            (4, 0, 4, 0),
        ] {
            let mut d = Drive::new(default(), cwnd);
            d.loss(5, 1);
            assert_eq!(cwnd - dec, new);
            assert_eq!(d.tp.snd_cwnd, new, "cwnd {cwnd}");
            assert_eq!(d.var("delta_pkts"), delta as f64, "cwnd {cwnd}");
            assert_eq!(d.cc.state.threshold_pkts, cwnd);
            assert_eq!(d.tp.snd_ssthresh, cwnd / 2);
            assert_eq!(d.var("gamma_idx"), 0.0);
            assert_eq!(d.var("t_origin_s"), d.tp.now.secs_f64());
        }
    }

    #[test]
    fn recovery_cycles_gamma_0_4_5_1_then_exits_at_the_threshold() {
        // 997 → 798, Δ_r = 19, threshold 997.
        let mut d = Drive::new(default(), 997);
        d.loss(0, 1);
        let mut want = 798u32;
        // The increments γ_r·Δ_r with γ_r = 0, 4, 5, 1, 0, 4, ...: time
        // plays no part (the ACKs are 1 ms apart, any spacing would do).
        let gammas = [0u32, 4, 5, 1, 0, 4];
        for (i, g) in gammas.iter().enumerate() {
            want += g * 19;
            assert_eq!(d.ack(1 + i as u64), want, "ACK {i}");
            let in_recovery = want < 997;
            assert_eq!(d.cc.state.recovery, in_recovery, "ACK {i}");
        }
        // 798, 874, 969, 988, 988, 1064: the sixth ACK passes 997.
        assert_eq!(want, 1064);
        assert_eq!(d.var("phase"), Phase::Avoidance as u8 as f64);
        // Avoidance: +⌊1064·5/100⌋ = +53.
        assert_eq!(d.ack(10), 1117);
    }

    #[test]
    fn avoidance_adds_five_percent_per_ack_event_at_least_one() {
        let mut d = Drive::new(default(), 10);
        d.tp.snd_ssthresh = 2; // not in slow start, not in recovery
        let mut cwnd: u64 = 10;
        for _ in 0..100 {
            cwnd += (cwnd * 5 / 100).max(1);
            assert_eq!(d.ack(0) as u64, cwnd);
        }
        // 10 → 11 (⌊0.5⌋ = 0 → 1) ... 20 → 21 ... and 5 % steps above.
        assert_eq!(cwnd, 964);
        // Per ACK event, whatever it acks.
        assert_eq!(d.ack_lost(0, 9, 0) as u64, cwnd + cwnd * 5 / 100);
    }

    #[test]
    fn ssthresh_hook_does_not_enter_recovery_so_the_same_ack_reduces() {
        let mut d = Drive::new(default(), 1000);
        d.enter_recovery(30);
        assert_eq!(d.tp.snd_ssthresh, 500);
        assert!(!d.cc.state.recovery);
        assert_eq!(d.var("t_origin_s"), d.tp.now.secs_f64());
        // The rate sample of that ACK reports the loss: reduction.
        assert_eq!(d.loss(30, 1), 800);
        assert!(d.cc.state.recovery);
    }

    #[test]
    fn at_most_one_reduction_until_snd_nxt_passes_the_recovery_point() {
        let mut d = Drive::new(default(), 1000);
        d.loss(0, 1); // 800, Δ 20
        d.ack(1); // +0
        assert_eq!(d.ack(2), 880); // +80, next γ is 5
        assert_eq!(d.loss(3, 4), 880);
        assert_eq!(d.var("gamma_idx"), 2.0);
        assert_eq!(d.cc.state.threshold_pkts, 1000);
        d.send(1);
        // 880 − 176 = 704; Δ_r = 17; threshold 880; γ restarts.
        assert_eq!(d.loss(4, 1), 704);
        assert_eq!(d.var("delta_pkts"), 17.0);
        assert_eq!(d.cc.state.threshold_pkts, 880);
        assert_eq!(d.var("gamma_idx"), 0.0);
        assert_eq!(d.ack(5), 704);
        assert_eq!(d.ack(6), 704 + 4 * 17);
    }

    #[test]
    fn a_zero_delta_holds_the_window_until_the_next_loss() {
        // 40 → 32 with Δ_r = ⌊8/10⌋ = 0: the module's recovery never grows.
        let mut d = Drive::new(default(), 40);
        d.loss(0, 1);
        for t in 1..50 {
            assert_eq!(d.ack(t), 32);
        }
        assert!(d.cc.state.recovery);
        // A window of 4: the decrement is 0, recovery ends on the next ACK.
        let mut d = Drive::new(default(), 4);
        assert_eq!(d.loss(0, 1), 4);
        assert_eq!(d.ack(1), 4);
        assert!(!d.cc.state.recovery);
        // 4 ≥ ssthresh 2: avoidance, +1.
        assert_eq!(d.ack(2), 5);
    }

    #[test]
    fn gate_compares_32_bit_sequence_numbers_as_the_module() {
        // 40 → 32 with Δ_r = 0: recovery never ends by itself, so only the
        // gate `snd_nxt > recovery_point` lets the next loss reduce. With
        // the recovery point 100 bytes below 2^32 in sequence space (the
        // drive's snd_nxt is 1000 MSS), one more segment wraps snd_nxt.
        for (wrap, want, then) in [(true, 32, 32), (false, 26, 21)] {
            let mut d = Drive::new(fractional(|p| p.wrap_seq = wrap), 40);
            d.set_isn(0u32.wrapping_sub(100).wrapping_sub(1000 * 1448));
            assert_eq!(d.loss(0, 1), 32);
            d.send(1);
            // Wrapped: 1348 > 4294967196 is false in 32 bits, the gate
            // stays shut and the window frozen; in 64 bits, 32 − 6.
            assert_eq!(d.loss(1, 1), want, "wrap_seq {wrap}");
            d.send(1);
            // Shut still (32 bits), or a third reduction, 26 − 5 (64 bits).
            assert_eq!(d.loss(2, 1), then, "wrap_seq {wrap}");
        }
        // Without a wrap the two agree.
        let mut d = Drive::new(default(), 40);
        d.set_isn(12345);
        d.loss(0, 1);
        d.send(1);
        assert_eq!(d.loss(1, 1), 26);
    }

    #[test]
    fn gamma_cycle_and_percentages_are_parameters() {
        let mut d = Drive::new(
            fractional(|p| {
                p.gamma_r = vec![3, 0];
                p.delta_pct = 20;
                p.reduction_pct = 50;
                p.gamma_a_pct = 10;
            }),
            1000,
        );
        // D = 500, new 500, Δ_r = 100; increments 300, 0, 300 → 1100.
        assert_eq!(d.loss(0, 1), 500);
        assert_eq!(d.ack(1), 800);
        assert_eq!(d.ack(2), 800);
        assert_eq!(d.ack(3), 1100);
        assert!(!d.cc.state.recovery);
        // Avoidance +10 %.
        assert_eq!(d.ack(4), 1210);
    }

    #[test]
    fn slow_start_after_an_rto_restarts_from_t_zero() {
        let mut d = cubic_time_from_10();
        // RTO at 500 ms: ssthresh() = 5, then the stack sets cwnd = 1.
        d.at(500);
        d.tp.snd_ssthresh = d.cc.ssthresh(&d.tp);
        d.tp.snd_cwnd = 1;
        assert_eq!(d.tp.snd_ssthresh, 5);
        // t = 2 ms since the hook, not 502: 1 + max(2·8, 1).
        assert_eq!(d.ack(502), 17);
    }

    #[test]
    fn undo_keeps_the_window_but_at_least_two() {
        let mut d = Drive::new(default(), 1);
        assert_eq!(d.cc.undo_cwnd(&d.tp), 2);
        d.tp.snd_cwnd = 33;
        assert_eq!(d.cc.undo_cwnd(&d.tp), 33);
        assert_eq!(d.cc.name(), "fractional");
    }
}
