//! HighSpeed TCP: Reno whose additive increase a(w) grows and whose
//! multiplicative decrease b(w) shrinks as the window grows, so that large
//! windows survive realistic loss rates.
//!
//! Follows RFC 3649 (Floyd, "HighSpeed TCP for Large Congestion Windows")
//! as de Rezende, Costa and Rubinstein §III restate it (the highspeed
//! experiment's paper), with Linux `net/ipv4/tcp_highspeed.c` as an
//! alternative mode ([`HighSpeedMode::LinuxTable`]).
//! Equation numbers below are that paper's.
//!
//! - Slow start is standard (`tcp_slow_start`), and so is everything at or
//!   below `Low_Window`: a(w) = 1, b(w) = 0.5.
//! - In congestion avoidance each acked packet adds a(w)/w packets
//!   (eq. 10). The fraction is kept in `snd_cwnd_cnt` in units of
//!   1/1024 packet, the scaled analogue of Linux's `tcp_cong_avoid_ai`, so
//!   an integer window grows by a(w) packets per window of acked packets
//!   (delayed ACKs do not slow it: it counts packets, not ACKs).
//! - On loss (`ssthresh`) the window becomes w·(1 − b(w)), at least 2
//!   (eq. 11).
//! - `undo_cwnd` is Reno's.
//!
//! # The response function and a(w), b(w) (formula mode)
//!
//! The HighSpeed response function is a straight line in log-log scale
//! through (Low_P, Low_Window) and (High_P, High_Window) (eq. 6–8,
//! RFC 3649 §5): w(p) = Low_Window·(p/Low_P)^S with
//! S = (ln High_Window − ln Low_Window)/(ln High_P − ln Low_P), about
//! w = 0.12/p^0.835 for the defaults (eq. 9). Its inverse p(w) feeds
//!
//! - b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)
//!   /(ln High_Window − ln Low_Window) + 0.5 (eq. 12), and
//! - a(w) = w²·p(w)·2·b(w)/(2 − b(w)) (RFC 3649 §5; eq. 13).
//!
//! For the defaults p(w) = 0.07805/w^1.1979. Eq. 13 writes it rounded,
//! 1/(12.8·w^1.2) (RFC 3649's "p = 0.078/w^1.2"), and RFC 3649's
//! appendix B table, which Linux uses, matches the rounded constants (each
//! row starts where eq. 13 reaches the next integer a). We use the
//! unrounded line so that every parameter counts; the two differ by at most
//! 2.5 % in a(w) between Low_Window and High_Window (a(High_Window) = 72.5
//! here, 70.8 with the rounded constants). b(w) is the same in both.
//!
//! Two guards the formulas need:
//!
//! - a(w) is at least 1. At w = Low_Window the formula gives 0.96, not 1,
//!   because TCP's response function 1.2/√p that fixed Low_P is itself a
//!   rounding of √1.5/√p; it stays below 1 up to w = 40. The floor makes
//!   a(w) continuous and non-decreasing. (ns-2 avoids the gap by taking
//!   Low_P = 1.5/Low_Window² instead of the parameter.)
//! - Above High_Window a(w) and b(w) keep their values at High_Window.
//!   The RFC does not extend them, and eq. 12 would reach b = 0 at about
//!   6.8× High_Window (570 000 packets). Linux's table likewise stops at its
//!   last row.
//!
//! a(w) and b(w) cost a logarithm and an exponential, so they are computed
//! only when the window has changed since they were last computed (a few
//! times per RTT in congestion avoidance, never per ACK otherwise).
//!
//! # Linux table mode
//!
//! [`HighSpeedMode::LinuxTable`] reproduces `tcp_highspeed.c`: a 72-row
//! table ([`LINUX_AIMD_TABLE`], RFC 3649 appendix B) of window bounds and
//! decrease factors in 1/256; an index `ai` follows the window up and down
//! in congestion avoidance only, and a(w) = ai + 1. Its behaviour, which we
//! keep:
//!
//! - the increase is counted per ACK, not per acked packet: every call to
//!   `cong_avoid` adds ai + 1 to `snd_cwnd_cnt` whatever `acked` is, so with
//!   delayed ACKs the window grows by about a(w)/2 per RTT;
//! - slow start does not move `ai`, so a loss ending slow start uses the
//!   row of the last congestion-avoidance window (0 at the start: a halving);
//! - ssthresh = cwnd − (cwnd·md >> 8), at least 2, and the window is capped
//!   at (2^32 − 1)/128 packets so that the product cannot overflow 32 bits;
//! - the leftover of `tcp_slow_start` is dropped when slow start ends.
//!
//! The formula-mode window is capped at 2^22 − 1 packets so that
//! `snd_cwnd_cnt`, in 1/1024 packet, fits in 32 bits.

use super::Registration;
use super::{slow_start_then_avoid, tcp_slow_start, CongestionControl, TcpSock};
use crate::param::{self, Param, ParamError, Range, Ty};
use serde::{Deserialize, Serialize};

/// How HighSpeed TCP gets its a(w) and b(w).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum HighSpeedMode {
    /// RFC 3649 §5 formulas (de Rezende, Costa and Rubinstein eq. 12–13),
    /// from the parameters below.
    #[default]
    Formula,
    /// Linux `tcp_highspeed.c`: the 72-row table of RFC 3649 appendix B;
    /// the parameters below are not used.
    LinuxTable,
}

/// HighSpeed TCP (RFC 3649; de Rezende, Costa and Rubinstein §III; Linux
/// `tcp_highspeed.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedParams {
    pub mode: HighSpeedMode,
    /// At and below this window (packets) the control is standard TCP (38).
    pub low_window: u32,
    /// Window (packets) reached at loss rate `high_p` (83000).
    pub high_window: u32,
    /// Loss rate at `low_window` (1e-3).
    pub low_p: f64,
    /// Loss rate at `high_window` (1e-7).
    pub high_p: f64,
    /// Decrease factor b(w) at `high_window` (0.1).
    pub high_decrease: f64,
}

impl Default for HighSpeedParams {
    fn default() -> Self {
        HighSpeedParams {
            mode: HighSpeedMode::Formula,
            low_window: 38,
            high_window: 83000,
            low_p: 1e-3,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

/// HighSpeed TCP's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::new(
        "mode",
        Ty::Choice(&["formula", "linux_table"]),
        Range::Any,
        "RFC 3649's formulas, or Linux's 72-row table (which ignores the rest).",
    ),
    Param::int_in(
        "low_window",
        Range::int(1, u32::MAX as u128, " packets"),
        "At and below this window the control is standard TCP, packets (38).",
    ),
    Param::int_in(
        "high_window",
        Range::U32,
        "Window reached at loss rate high_p, packets, above low_window (83000).",
    ),
    Param::float_in(
        "low_p",
        Range::float(0.0, true, 1.0, true),
        "Loss rate at low_window (1e-3).",
    ),
    Param::float_in(
        "high_p",
        Range::float(0.0, true, 1.0, true),
        "Loss rate at high_window, below low_p (1e-7).",
    ),
    Param::float_in(
        "high_decrease",
        Range::float(0.0, true, STANDARD_B, false),
        "Decrease factor b(w) at high_window (0.1).",
    ),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &HighSpeedParams) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, p, [low_window])?;
    if p.high_window <= p.low_window {
        return Err(ParamError::new(
            "high_window",
            "high_window must be above low_window",
        ));
    }
    param::check_fields!(PARAMS, p, [low_p, high_p])?;
    if p.high_p >= p.low_p {
        return Err(ParamError::new("high_p", "high_p must be in (0, low_p)"));
    }
    param::check_fields!(PARAMS, p, [high_decrease])
}

/// `cc = "highspeed"`: a variant of its own.
pub const REGISTRATION: Registration = super::registration! {
    name: "highspeed",
    about: "HighSpeed TCP (RFC 3649; Linux tcp_highspeed.c): a(w) and b(w) grow with the window.",
    params: PARAMS,
    config: HighSpeedParams,
    check: check,
    new: HighSpeed::new,
};

/// RFC 3649 appendix B as Linux `hstcp_aimd_vals` has it: for row `ai`,
/// windows up to `.0` packets (and above the previous row's) use
/// a(w) = ai + 1 and b(w) = `.1`/256.
pub const LINUX_AIMD_TABLE: [(u32, u32); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

/// log2 of the fixed-point unit of a(w) and of `snd_cwnd_cnt` in formula
/// mode: 1/1024 packet.
const A_SHIFT: u32 = 10;

/// Largest window in formula mode: `snd_cwnd_cnt` < cwnd·2^10 fits in u32.
const FORMULA_CWND_MAX: u32 = u32::MAX >> A_SHIFT;

/// Largest window in table mode (Linux `hstcp_init`: cwnd·md < 2^32).
const TABLE_CWND_MAX: u32 = 0xffff_ffff / 128;

/// Standard TCP's increase and decrease, used up to Low_Window.
const STANDARD_A: f64 = 1.0;
const STANDARD_B: f64 = 0.5;

/// The response function's constants, precomputed from the parameters.
#[derive(Clone, Debug)]
struct Response {
    low_window: f64,
    high_window: f64,
    ln_low_window: f64,
    /// db/d(ln w) (eq. 12).
    b_slope: f64,
    ln_low_p: f64,
    /// d(ln p)/d(ln w) = 1/S (eq. 7–8).
    p_slope: f64,
}

impl Response {
    fn new(p: &HighSpeedParams) -> Self {
        let ln_lw = libm::log(p.low_window as f64);
        let ln_hw = libm::log(p.high_window as f64);
        let ln_lp = libm::log(p.low_p);
        let ln_hp = libm::log(p.high_p);
        Response {
            low_window: p.low_window as f64,
            high_window: p.high_window as f64,
            ln_low_window: ln_lw,
            b_slope: (p.high_decrease - STANDARD_B) / (ln_hw - ln_lw),
            ln_low_p: ln_lp,
            p_slope: (ln_hp - ln_lp) / (ln_hw - ln_lw),
        }
    }

    /// (a(w), b(w)) for a window of `w` packets.
    fn a_b(&self, w: f64) -> (f64, f64) {
        if w <= self.low_window {
            return (STANDARD_A, STANDARD_B);
        }
        let w = w.min(self.high_window);
        let x = libm::log(w) - self.ln_low_window;
        let b = STANDARD_B + self.b_slope * x;
        // w²·p(w) = exp(2 ln w + ln p(w)).
        let w2p = libm::exp(2.0 * libm::log(w) + self.ln_low_p + self.p_slope * x);
        let a = w2p * 2.0 * b / (2.0 - b);
        (a.max(STANDARD_A), b)
    }
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    mode: HighSpeedMode,
    response: Response,
    /// The window a(w) and b(w) were last computed for (0: never).
    cached_cwnd: u32,
    /// a(w) in 1/1024 packet.
    a_fixed: u64,
    b: f64,
    /// Row of [`LINUX_AIMD_TABLE`] (Linux `ca->ai`), table mode.
    ai: usize,
}

impl HighSpeed {
    pub fn new(p: HighSpeedParams) -> Self {
        HighSpeed {
            mode: p.mode,
            response: Response::new(&p),
            cached_cwnd: 0,
            a_fixed: 1 << A_SHIFT,
            b: STANDARD_B,
            ai: 0,
        }
    }

    /// (a(w), b(w)) of the formula mode for a window of `w` packets.
    pub fn formula_a_b(&self, w: f64) -> (f64, f64) {
        self.response.a_b(w)
    }

    /// The table row in use (Linux `ca->ai`).
    pub fn table_row(&self) -> usize {
        self.ai
    }

    /// Brings the cached a(w), b(w) to the window `cwnd`.
    fn refresh(&mut self, cwnd: u32) {
        if cwnd == self.cached_cwnd {
            return;
        }
        let (a, b) = self.response.a_b(cwnd as f64);
        self.cached_cwnd = cwnd;
        self.a_fixed = (a * (1u64 << A_SHIFT) as f64).round() as u64;
        self.b = b;
    }

    /// Congestion avoidance, formula mode: cwnd += a(w)/w per acked packet.
    fn formula_increase(&mut self, tp: &mut TcpSock, acked: u32) {
        self.refresh(tp.snd_cwnd);
        let per_packet = (tp.snd_cwnd as u64) << A_SHIFT;
        let mut cnt = tp.snd_cwnd_cnt as u64;
        let mut cwnd = tp.snd_cwnd as u64;
        // As tcp_cong_avoid_ai: a counter left over from a larger window
        // is worth one packet, not several.
        if cnt >= per_packet {
            cnt = 0;
            cwnd += 1;
        }
        cnt += self.a_fixed * acked as u64;
        if cnt >= per_packet {
            let delta = cnt / per_packet;
            cnt -= delta * per_packet;
            cwnd += delta;
        }
        tp.snd_cwnd_cnt = cnt as u32;
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp as u64) as u32;
    }

    /// Congestion avoidance, Linux table mode (`hstcp_cong_avoid`).
    fn table_increase(&mut self, tp: &mut TcpSock) {
        let cwnd = tp.snd_cwnd;
        // Keep table[ai − 1].0 < cwnd <= table[ai].0 (or the last row).
        while cwnd > LINUX_AIMD_TABLE[self.ai].0 && self.ai < LINUX_AIMD_TABLE.len() - 1 {
            self.ai += 1;
        }
        while self.ai > 0 && cwnd <= LINUX_AIMD_TABLE[self.ai - 1].0 {
            self.ai -= 1;
        }
        if cwnd < tp.snd_cwnd_clamp {
            // ai + 1 per ACK, whatever the ACK covers.
            tp.snd_cwnd_cnt += self.ai as u32 + 1;
            if tp.snd_cwnd_cnt >= cwnd {
                tp.snd_cwnd_cnt -= cwnd;
                tp.snd_cwnd = cwnd + 1;
            }
        }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.ai = 0;
        let cap = match self.mode {
            HighSpeedMode::Formula => FORMULA_CWND_MAX,
            HighSpeedMode::LinuxTable => TABLE_CWND_MAX,
        };
        tp.snd_cwnd_clamp = tp.snd_cwnd_clamp.min(cap);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        let cwnd = tp.snd_cwnd;
        match self.mode {
            HighSpeedMode::Formula => {
                self.refresh(cwnd);
                ((cwnd as f64 * (1.0 - self.b)).floor() as u32).max(2)
            }
            HighSpeedMode::LinuxTable => {
                let md = LINUX_AIMD_TABLE[self.ai].1 as u64;
                (cwnd - ((cwnd as u64 * md) >> 8) as u32).max(2)
            }
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        if !tp.is_cwnd_limited {
            return;
        }
        match self.mode {
            HighSpeedMode::Formula => {
                if let Some(acked) = slow_start_then_avoid(tp, acked) {
                    self.formula_increase(tp, acked);
                }
            }
            HighSpeedMode::LinuxTable => {
                if tp.in_slow_start() {
                    tcp_slow_start(tp, acked);
                } else {
                    self.table_increase(tp);
                }
            }
        }
    }

    /// `hs_a` and `hs_b` are the a(w) and b(w) in use: in formula mode,
    /// those of `hs_w`, the window they were last computed for (the
    /// current window in congestion avoidance; slow start does not compute
    /// them); in table mode, those of row `hs_row`.
    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        match self.mode {
            HighSpeedMode::Formula => {
                out("hs_a", self.a_fixed as f64 / (1u64 << A_SHIFT) as f64);
                out("hs_b", self.b);
                out("hs_w", self.cached_cwnd as f64);
            }
            HighSpeedMode::LinuxTable => {
                out("hs_a", (self.ai + 1) as f64);
                out("hs_b", LINUX_AIMD_TABLE[self.ai].1 as f64 / 256.0);
                out("hs_row", self.ai as f64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check as the run reports it, under the control's field.
    fn validate(p: &HighSpeedParams, field: &str) -> Result<(), crate::param::ConfigError> {
        check(p).map_err(|e| e.at(field, field))
    }
    use crate::cc::reno::Reno;
    use crate::cc::{CaEvent, CaState};

    fn params(mode: HighSpeedMode) -> HighSpeedParams {
        HighSpeedParams {
            mode,
            ..HighSpeedParams::default()
        }
    }

    fn formula() -> HighSpeed {
        HighSpeed::new(params(HighSpeedMode::Formula))
    }

    /// Eq. 12, written out from the defaults.
    fn b_eq12(w: f64) -> f64 {
        (0.1 - 0.5) * (w.ln() - 38f64.ln()) / (83000f64.ln() - 38f64.ln()) + 0.5
    }

    /// RFC 3649 §5 with p(w) on the line through (1e-3, 38), (1e-7, 83000).
    fn a_rfc(w: f64) -> f64 {
        let s = (83000f64.ln() - 38f64.ln()) / (1e-7f64.ln() - 1e-3f64.ln());
        let p = 1e-3 * (w / 38.0).powf(1.0 / s);
        let b = b_eq12(w);
        w * w * p * 2.0 * b / (2.0 - b)
    }

    /// de Rezende, Costa and Rubinstein eq. 13: the same with RFC 3649's
    /// rounded p = 1/(12.8·w^1.2).
    fn a_eq13(w: f64) -> f64 {
        let b = b_eq12(w);
        w * w * 2.0 * b / ((2.0 - b) * w.powf(1.2) * 12.8)
    }

    /// A sender in congestion avoidance (or slow start below `ssthresh`)
    /// whose window is always full.
    fn sock(cwnd: u32, ssthresh: u32) -> TcpSock {
        let mut tp = TcpSock::new(1448, cwnd);
        tp.snd_ssthresh = ssthresh;
        tp.is_cwnd_limited = true;
        tp
    }

    /// `n` ACKs of `per_ack` packets each.
    fn acks(cc: &mut dyn CongestionControl, tp: &mut TcpSock, n: u32, per_ack: u32) {
        for _ in 0..n {
            tp.snd_una += per_ack as u64;
            cc.cong_avoid(tp, tp.snd_una, per_ack);
        }
    }

    #[test]
    fn a_and_b_at_the_ends_of_the_range() {
        let hs = formula();
        for w in [1.0, 2.0, 20.0, 37.0, 38.0] {
            assert_eq!(hs.formula_a_b(w), (1.0, 0.5), "standard TCP at w = {w}");
        }
        let (a, b) = hs.formula_a_b(83000.0);
        assert!((b - 0.1).abs() < 1e-12, "b(High_Window) = {b}");
        // 83000²·1e-7·0.2/1.9 = 72.5: at High_Window, p(w) is High_P.
        let want = 83000f64 * 83000.0 * 1e-7 * 2.0 * 0.1 / 1.9;
        assert!(
            (a - want).abs() < 1e-9 * want,
            "a(High_Window) = {a}, want {want}"
        );
        assert!((a - 72.5).abs() < 0.05);
        assert!((a - a_rfc(83000.0)).abs() < 1e-9 * want);
        // Eq. 13's rounded constants give 70.8 there: 2.4 % less.
        let rounded = a_eq13(83000.0);
        assert!((rounded - 70.8).abs() < 0.05, "eq. 13: {rounded}");
        assert!(a / rounded - 1.0 < 0.025);
    }

    #[test]
    fn formula_matches_eq_13_within_the_rounding_of_its_constants() {
        let hs = formula();
        let mut w = 39.0;
        while w <= 83000.0 {
            let (a, b) = hs.formula_a_b(w);
            assert!((b - b_eq12(w)).abs() < 1e-12, "b({w})");
            let exact = a_rfc(w).max(1.0);
            assert!(
                (a - exact).abs() < 1e-9 * exact,
                "a({w}) = {a}, want {exact}"
            );
            let ratio = a / a_eq13(w).max(1.0);
            assert!((0.995..1.025).contains(&ratio), "a({w}) / eq. 13 = {ratio}");
            w *= 1.1;
        }
    }

    #[test]
    fn a_grows_and_b_shrinks_with_the_window() {
        let hs = formula();
        let (mut prev_a, mut prev_b) = hs.formula_a_b(1.0);
        for w in 2..=200_000u32 {
            let (a, b) = hs.formula_a_b(w as f64);
            assert!(a >= prev_a, "a({w}) = {a} < a({}) = {prev_a}", w - 1);
            assert!(b <= prev_b, "b({w}) = {b} > b({}) = {prev_b}", w - 1);
            assert!(a >= 1.0 && (0.1 - 1e-12..=0.5).contains(&b));
            (prev_a, prev_b) = (a, b);
        }
        // The floor of 1 holds until the formula crosses it, between 40 and 41.
        assert_eq!(hs.formula_a_b(40.0).0, 1.0);
        assert!(hs.formula_a_b(42.0).0 > 1.0);
        // Frozen above High_Window.
        assert_eq!(hs.formula_a_b(200_000.0), hs.formula_a_b(83000.0));
    }

    #[test]
    fn formula_reproduces_the_rfc_appendix_b_table() {
        // The table (Linux's) was built from the rounded constants:
        // a = ai + 1 where eq. 13 crosses it, md = ⌊256·b(w)⌋. Ours is up
        // to 2.5 % above in a, identical in b.
        let hs = formula();
        for (ai, &(w, md)) in LINUX_AIMD_TABLE.iter().enumerate().skip(1) {
            if w > 83000 {
                break;
            }
            let (a, b) = hs.formula_a_b(w as f64);
            let ratio = a / (ai + 1) as f64;
            assert!((1.0..1.03).contains(&ratio), "row {ai} (w {w}): a {a}");
            assert_eq!((b * 256.0).floor() as u32, md, "row {ai} (w {w}): b {b}");
        }
    }

    #[test]
    fn formula_grows_by_a_w_per_window_of_acked_packets() {
        for w0 in [100u32, 1000, 10_000, 60_000] {
            // One ACK per packet, and delayed ACKs (two per ACK): the same.
            for per_ack in [1u32, 2] {
                let mut hs = formula();
                let mut tp = sock(w0, w0);
                hs.init(&mut tp);
                acks(&mut hs, &mut tp, w0 / per_ack, per_ack);
                let grown = (tp.snd_cwnd - w0) as f64;
                let (a, _) = hs.formula_a_b(w0 as f64);
                // The window grows during the window, so the last increments
                // take slightly more packets: at most one packet short.
                assert!(
                    grown <= a + 1e-9 && grown > a - 1.0,
                    "w0 {w0}, {per_ack} per ACK: +{grown}, a(w0) = {a}"
                );
            }
        }
        // The first increment takes exactly ⌈w·1024/a⌉ acked packets.
        let mut hs = formula();
        let mut tp = sock(1000, 1000);
        hs.init(&mut tp);
        let (a, _) = hs.formula_a_b(1000.0);
        let a_fixed = (a * 1024.0).round() as u64;
        let need = (1000u64 * 1024).div_ceil(a_fixed) as u32;
        acks(&mut hs, &mut tp, need - 1, 1);
        assert_eq!(tp.snd_cwnd, 1000);
        acks(&mut hs, &mut tp, 1, 1);
        assert_eq!(tp.snd_cwnd, 1001);
    }

    #[test]
    fn formula_ssthresh_is_w_times_one_minus_b() {
        for w in [2u32, 3, 38, 39, 100, 1000, 10_000, 83000, 150_000] {
            let mut hs = formula();
            let tp = sock(w, 2);
            let b = if w <= 38 {
                0.5
            } else {
                b_eq12(w.min(83000) as f64)
            };
            let want = ((w as f64 * (1.0 - b)).floor() as u32).max(2);
            assert_eq!(hs.ssthresh(&tp), want, "w {w}");
        }
        // Some values by hand: b(1000) = 0.3299, b(83000) = 0.1.
        let mut hs = formula();
        assert_eq!(hs.ssthresh(&sock(1000, 2)), 670);
        assert_eq!(hs.ssthresh(&sock(83000, 2)), 74700);
        assert_eq!(hs.ssthresh(&sock(37, 2)), 18);
    }

    #[test]
    fn formula_is_reno_up_to_low_window() {
        // The same scripted ACKs, losses and an RTO for both: every window,
        // threshold and counter agrees while cwnd stays at or below 38.
        let mut hs = formula();
        let mut reno = Reno;
        let mut a = sock(2, u32::MAX >> 1);
        let mut b = a.clone();
        hs.init(&mut a);
        reno.init(&mut b);
        let mut max_cwnd = 0;
        for step in 0..20_000u32 {
            let per_ack = 1 + step % 2;
            for (cc, tp) in [
                (&mut hs as &mut dyn CongestionControl, &mut a),
                (&mut reno as &mut dyn CongestionControl, &mut b),
            ] {
                tp.snd_una += per_ack as u64;
                if tp.snd_cwnd >= 36 || step % 997 == 500 {
                    // Loss: ssthresh, Recovery, and the window at ssthresh
                    // with the counter reset (the stack's PRR end).
                    tp.prior_cwnd = tp.snd_cwnd;
                    tp.snd_ssthresh = cc.ssthresh(tp);
                    tp.snd_cwnd_cnt = 0;
                    cc.set_state(tp, CaState::Recovery);
                    tp.snd_cwnd = tp.snd_ssthresh;
                    cc.cwnd_event(tp, CaEvent::CompleteCwr);
                    cc.set_state(tp, CaState::Open);
                } else if step % 4999 == 4000 {
                    // RTO.
                    tp.snd_ssthresh = cc.ssthresh(tp);
                    cc.cwnd_event(tp, CaEvent::Loss);
                    tp.snd_cwnd = 1;
                    tp.snd_cwnd_cnt = 0;
                } else {
                    cc.cong_avoid(tp, tp.snd_una, per_ack);
                }
            }
            assert_eq!(a.snd_cwnd, b.snd_cwnd, "cwnd at step {step}");
            assert_eq!(a.snd_ssthresh, b.snd_ssthresh, "ssthresh at step {step}");
            assert_eq!(a.snd_cwnd_cnt, b.snd_cwnd_cnt << A_SHIFT, "cnt at {step}");
            max_cwnd = max_cwnd.max(a.snd_cwnd);
        }
        assert!((36..=38).contains(&max_cwnd), "max cwnd {max_cwnd}");
    }

    #[test]
    fn table_mode_picks_the_row_and_cuts_as_linux() {
        let mut hs = HighSpeed::new(params(HighSpeedMode::LinuxTable));
        let mut tp = sock(10, 2);
        hs.init(&mut tp);
        // (cwnd, row, ssthresh = cwnd − (cwnd·md >> 8)), moving up then down.
        for (w, row, ssthresh) in [
            (38u32, 0usize, 19u32), // md 128: a halving
            (39, 1, 22),            // md 112: 39 − 4368 >> 8 = 39 − 17
            (1000, 7, 676),         // md 83: 1000 − 324
            (83000, 70, 74895),     // md 25: 83000 − 8105
            (100_000, 71, 90625),   // beyond the table: its last row, md 24
            (500, 5, 327),          // back down: md 89, 500 − 173
            (38, 0, 19),
        ] {
            tp.snd_cwnd = w;
            tp.snd_cwnd_cnt = 0;
            hs.cong_avoid(&mut tp, 0, 1);
            assert_eq!(hs.table_row(), row, "w {w}");
            assert_eq!(tp.snd_cwnd, w);
            let md = LINUX_AIMD_TABLE[row].1;
            assert_eq!(ssthresh, w - ((w * md) >> 8));
            assert_eq!(hs.ssthresh(&tp), ssthresh, "w {w}");
        }
        // Slow start does not move the row: a loss that ends slow start at
        // 1000 packets halves, as in Linux.
        let mut hs = HighSpeed::new(params(HighSpeedMode::LinuxTable));
        let mut tp = sock(990, u32::MAX >> 1);
        hs.init(&mut tp);
        acks(&mut hs, &mut tp, 10, 1);
        assert_eq!((tp.snd_cwnd, hs.table_row()), (1000, 0));
        assert_eq!(hs.ssthresh(&tp), 500);
        // The window cap that keeps cwnd·md in 32 bits.
        assert_eq!(tp.snd_cwnd_clamp, 0xffff_ffff / 128);
    }

    #[test]
    fn table_mode_adds_a_per_ack_not_per_packet() {
        // Row 7 (851 < w <= 1058): a = 8. A window of 1000 packets acked
        // one per ACK grows by a; acked two per ACK, by a/2. (As in the
        // formula test, the growing window makes the last step fall a few
        // ACKs late: at most one packet short.)
        for (per_ack, grown) in [(1u32, 8u32), (2, 4)] {
            let mut hs = HighSpeed::new(params(HighSpeedMode::LinuxTable));
            let mut tp = sock(1000, 2);
            hs.init(&mut tp);
            acks(&mut hs, &mut tp, 1000 / per_ack, per_ack);
            let got = tp.snd_cwnd - 1000;
            assert!(
                got == grown || got == grown - 1,
                "{per_ack} per ACK: +{got}"
            );
            acks(&mut hs, &mut tp, 10 / per_ack, per_ack);
            assert_eq!(tp.snd_cwnd, 1000 + grown, "{per_ack} per ACK");
        }
    }

    #[test]
    fn trace_reports_a_and_b_in_use() {
        let vars = |hs: &HighSpeed| {
            let mut v = Vec::new();
            hs.trace_vars(&mut |k, x| v.push((k, x)));
            v
        };
        let mut hs = formula();
        let mut tp = sock(1000, 2);
        hs.init(&mut tp);
        assert_eq!(vars(&hs), vec![("hs_a", 1.0), ("hs_b", 0.5), ("hs_w", 0.0)]);
        hs.cong_avoid(&mut tp, 1, 1);
        let (a, b) = hs.formula_a_b(1000.0);
        let v = vars(&hs);
        assert!((v[0].1 - a).abs() < 1.0 / 1024.0 && v[1].1 == b && v[2].1 == 1000.0);
        let mut hs = HighSpeed::new(params(HighSpeedMode::LinuxTable));
        hs.cong_avoid(&mut tp, 1, 1);
        assert_eq!(
            vars(&hs),
            vec![("hs_a", 8.0), ("hs_b", 83.0 / 256.0), ("hs_row", 7.0)]
        );
    }

    #[test]
    fn validation_names_the_bad_parameter() {
        let check = |f: fn(&mut HighSpeedParams), name: &str| {
            let mut p = HighSpeedParams::default();
            f(&mut p);
            let e = validate(&p, "flows[3].cc").unwrap_err();
            assert_eq!(e.field, format!("flows[3].cc.{name}"));
        };
        assert!(validate(&HighSpeedParams::default(), "cc").is_ok());
        check(|p| p.low_window = 0, "low_window");
        check(|p| p.high_window = 38, "high_window");
        check(|p| p.low_p = 1.0, "low_p");
        check(|p| p.low_p = f64::NAN, "low_p");
        check(|p| p.high_p = 1e-3, "high_p");
        check(|p| p.high_p = 0.0, "high_p");
        check(|p| p.high_decrease = 0.0, "high_decrease");
        check(|p| p.high_decrease = 0.6, "high_decrease");
    }
}
