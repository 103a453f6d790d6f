//! DCTCP, Data Center TCP: Reno whose reaction to an ECN echo is
//! proportional to the fraction of marked packets.
//!
//! Follows RFC 8257 and Linux `net/ipv4/tcp_dctcp.c` hook for hook:
//!
//! - `in_ack_event` keeps alpha, an estimate of the fraction of delivered
//!   packets that were CE-marked, updated once per window of data (RFC 8257
//!   §3.3): `alpha ← (1 − g)·alpha + g·F`, where F is the marked fraction of
//!   the packets delivered since the previous window boundary. The counts are
//!   the deltas of `tp.delivered` and `tp.delivered_ce`, which the stack
//!   maintains (`delivered_ce` grows by the newly delivered count on an ACK
//!   carrying ECE), so the accurate echo of the DCTCP receiver and the
//!   switch feedback packets of Silva, Vieira and Nacif (hysteresis) both
//!   arrive here as CE counts.
//! - `ssthresh`, called when the stack enters CWR on ECE, returns
//!   `cwnd·(1 − alpha/2)` (RFC 8257 §3.3) and remembers the window for undo.
//! - Loss is handled as Reno (RFC 8257 §3.5): entering Recovery or an RTO
//!   halves the window.
//! - Growth is `tcp_reno_cong_avoid`.
//!
//! Alpha is kept in Linux's fixed point, an integer in `0..=1024`
//! ([`DCTCP_MAX_ALPHA`] is 1.0), with Linux's rounding: the decay step
//! `alpha >> shift_g` is truncated, and once it is zero a non-zero alpha
//! drops straight to zero (`min_not_zero` in Linux). A constant marked
//! fraction F is therefore reached within about `2^shift_g / 1024` (1/64 for
//! g = 1/16), from above or below.
//!
//! # Reno fallback
//!
//! Linux replaces the module by `dctcp-reno` when ECN was not negotiated.
//! We do the same at [`CongestionControl::init`]: if `tp.ecn_ok` is false the
//! control is Reno from then on (`tcp_reno_ssthresh`, `tcp_reno_cong_avoid`,
//! `tcp_reno_undo_cwnd`, no `set_state`, `cwnd_event` or `in_ack_event`), and
//! alpha is reported as 0 as Linux's `get_info` does for `dctcp-reno`.
//! `needs_ecn` stays true (the stack asks it before negotiating).
//!
//! Not modelled: Protective Load Balancing (`tcp_plb`), which only rehashes
//! the flow label and has no meaning on our static routes, and the receiver
//! side (`dctcp_ece_ack_update`), which lives in `tcp::receiver`.

use super::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CaEvent, CaState, CongestionControl, TcpSock};
use crate::param::{Param, Range};
use serde::{Deserialize, Serialize};

/// DCTCP (RFC 8257, Linux `tcp_dctcp.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// g = 2^-shift_g (Linux `dctcp_shift_g` = 4, g = 1/16).
    pub shift_g: u32,
    /// Initial alpha in [0, 1] (Linux `dctcp_alpha_on_init` = 1024/1024).
    pub alpha_init: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            shift_g: 4,
            alpha_init: 1.0,
        }
    }
}

/// DCTCP's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::int_in(
        "shift_g",
        Range::int(0, MAX_DCTCP_SHIFT_G as u128, ""),
        "Gain g = 2^-shift_g of the alpha estimate (Linux 4).",
    ),
    Param::float_in(
        "alpha_init",
        Range::float(0.0, false, 1.0, false),
        "Initial alpha in [0, 1] (Linux 1).",
    ),
];

/// Largest DCTCP gain exponent, g = 2^-shift_g (Linux's default 4).
pub const MAX_DCTCP_SHIFT_G: u32 = 31;

super::registration! {
    /// `cc = "dctcp"`: a variant of its own.
    name: "dctcp",
    about: "DCTCP (RFC 8257; Linux tcp_dctcp.c): reduces in proportion to the fraction of ECN-marked packets; needs ECN.",
    params: PARAMS,
    config: DctcpParams,
    ranges: [shift_g, alpha_init],
    new: Dctcp::new,
}

/// Alpha of 1.0 in fixed point (Linux `DCTCP_MAX_ALPHA`).
pub const DCTCP_MAX_ALPHA: u32 = 1024;

/// Largest accepted `shift_g` (Linux's `dctcp_shift_g` module parameter is
/// limited to 0..=10, so that `10 − shift_g` is a valid shift).
pub const DCTCP_MAX_SHIFT_G: u32 = 10;

#[derive(Clone, Debug)]
pub struct Dctcp {
    /// log2(1/g); g = 2^-shift_g.
    shift_g: u32,
    /// Alpha in units of 1/[`DCTCP_MAX_ALPHA`].
    alpha: u32,
    /// The window ends when `snd_una` reaches this sequence (`snd_nxt` at
    /// the last boundary).
    next_seq: u64,
    /// `tp.delivered` and `tp.delivered_ce` at the last boundary.
    old_delivered: u64,
    old_delivered_ce: u64,
    /// cwnd when the last reduction started, restored by `undo_cwnd`.
    loss_cwnd: u32,
    /// False once `init` found no ECN: the control is Reno.
    ecn_enabled: bool,
}

impl Dctcp {
    /// `shift_g` above [`DCTCP_MAX_SHIFT_G`] is clamped to it (Linux refuses
    /// such values); `alpha_init` is clamped to [0, 1] and rounded to the
    /// nearest 1/1024.
    pub fn new(p: DctcpParams) -> Self {
        let alpha_init = if p.alpha_init.is_nan() {
            0.0
        } else {
            p.alpha_init.clamp(0.0, 1.0)
        };
        Dctcp {
            shift_g: p.shift_g.min(DCTCP_MAX_SHIFT_G),
            alpha: (alpha_init * DCTCP_MAX_ALPHA as f64).round() as u32,
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            loss_cwnd: 0,
            ecn_enabled: true,
        }
    }

    /// Alpha as a fraction in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / DCTCP_MAX_ALPHA as f64
    }

    /// True unless `init` fell back to Reno for want of ECN.
    pub fn ecn_enabled(&self) -> bool {
        self.ecn_enabled
    }

    /// Starts a new observation window at the current send point.
    fn reset_window(&mut self, tp: &TcpSock) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered = tp.delivered;
        self.old_delivered_ce = tp.delivered_ce;
    }

    /// Reno's reaction to loss: remember the window, halve ssthresh.
    fn react_to_loss(&mut self, tp: &mut TcpSock) {
        self.loss_cwnd = tp.snd_cwnd;
        tp.snd_ssthresh = (tp.snd_cwnd >> 1).max(2);
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        if !tp.ecn_ok {
            self.ecn_enabled = false;
            return;
        }
        self.ecn_enabled = true;
        self.loss_cwnd = 0;
        self.reset_window(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        if !self.ecn_enabled {
            return tcp_reno_ssthresh(tp);
        }
        self.loss_cwnd = tp.snd_cwnd;
        // cwnd·alpha/2 with alpha in 1/1024: a shift by 11.
        let cut = (tp.snd_cwnd as u64 * self.alpha as u64) >> 11;
        (tp.snd_cwnd - cut as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        tcp_reno_cong_avoid(tp, acked)
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        // An RTO is handled by `cwnd_event(Loss)` so that it reacts once.
        if self.ecn_enabled && new_state == CaState::Recovery && new_state != tp.ca_state {
            self.react_to_loss(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if self.ecn_enabled && ev == CaEvent::Loss {
            self.react_to_loss(tp);
        }
    }

    fn in_ack_event(&mut self, tp: &mut TcpSock, _flags: u32) {
        if !self.ecn_enabled || tp.snd_una < self.next_seq {
            return;
        }
        let delivered = tp.delivered.saturating_sub(self.old_delivered);
        let delivered_ce = tp.delivered_ce.saturating_sub(self.old_delivered_ce);
        let mut alpha = self.alpha;
        // (1 − g)·alpha; a step that truncates to zero takes all of alpha.
        let decay = alpha >> self.shift_g;
        alpha -= if decay == 0 { alpha } else { decay };
        if delivered_ce > 0 {
            // g·F in 1/1024: (ce << 10 >> shift_g) / delivered.
            let gf = (delivered_ce << (10 - self.shift_g)) / delivered.max(1);
            alpha = (alpha as u64 + gf).min(DCTCP_MAX_ALPHA as u64) as u32;
        }
        self.alpha = alpha;
        self.reset_window(tp);
    }

    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        if self.ecn_enabled {
            tp.snd_cwnd.max(self.loss_cwnd)
        } else {
            tp.snd_cwnd.max(tp.prior_cwnd)
        }
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", if self.ecn_enabled { self.alpha() } else { 0.0 });
        out("dctcp_enabled", if self.ecn_enabled { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_flags::{ECE, SLOWPATH};
    use crate::cc::reno::Reno;
    use crate::cc::AckSample;
    use crate::sim::Dur;

    /// A sender with `window` packets always in flight, one ACK per packet,
    /// at a fixed RTT, driving the hooks in the order of `cc/mod.rs`.
    struct Flow {
        tp: TcpSock,
        cc: Dctcp,
        window: u64,
        rtt: Dur,
    }

    impl Flow {
        fn new(params: DctcpParams, ecn: bool, window: u32) -> Flow {
            let mut tp = TcpSock::new(1448, window);
            tp.ecn_ok = ecn;
            tp.snd_nxt = window as u64;
            let mut cc = Dctcp::new(params);
            cc.init(&mut tp);
            Flow {
                tp,
                cc,
                window: window as u64,
                rtt: Dur::from_us(100),
            }
        }

        /// One ACK for one packet; `ce` if it echoes a CE mark. The window
        /// does not grow (the alpha tests need a constant window).
        fn ack(&mut self, ce: bool) {
            let tp = &mut self.tp;
            tp.now += self.rtt.div(self.window);
            tp.snd_una += 1;
            tp.delivered += 1;
            if ce {
                tp.delivered_ce += 1;
            }
            let flags = SLOWPATH | if ce { ECE } else { 0 };
            self.cc.in_ack_event(tp, flags);
            let sample = AckSample {
                pkts_acked: 1,
                rtt: Some(self.rtt),
                in_flight: 0,
            };
            self.cc.pkts_acked(tp, &sample);
            // Send one new packet: the window stays full.
            tp.snd_nxt = tp.snd_una + self.window;
        }
    }

    fn params(alpha_init: f64) -> DctcpParams {
        DctcpParams {
            shift_g: 4,
            alpha_init,
        }
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        // F = 1/4 of packets CE-echoed (every fourth), from both ends.
        // 101 packets in flight make windows of exactly 100 packets.
        for alpha_init in [0.0, 1.0] {
            let mut f = Flow::new(params(alpha_init), true, 101);
            for seq in 0..100 * 200u64 {
                f.ack(seq % 4 == 0);
            }
            let a = f.cc.alpha();
            // Within Linux's fixed-point bias of 2^shift_g / 1024 = 1/64.
            assert!(
                (a - 0.25).abs() <= 1.0 / 64.0 + 1e-9,
                "alpha {a} from {alpha_init}"
            );
        }
        // A different fraction, F = 0.6 (three in five).
        let mut f = Flow::new(params(0.0), true, 101);
        for seq in 0..100 * 200u64 {
            f.ack(seq % 5 < 3);
        }
        assert!(
            (f.cc.alpha() - 0.6).abs() <= 1.0 / 64.0 + 1e-9,
            "alpha {}",
            f.cc.alpha()
        );
    }

    #[test]
    fn alpha_changes_only_at_window_boundaries() {
        let mut f = Flow::new(params(0.0), true, 100);
        // The first window ends when snd_una reaches the initial snd_nxt.
        for _ in 0..99 {
            f.ack(true);
            assert_eq!(f.cc.alpha, 0);
        }
        f.ack(true);
        // F = 1: alpha = 0 + g·1 = 64/1024.
        assert_eq!(f.cc.alpha, 64);
    }

    #[test]
    fn alpha_decays_by_one_minus_g_per_window_without_marks() {
        let mut f = Flow::new(params(1.0), true, 100);
        assert_eq!(f.cc.alpha, 1024);
        let mut expected = 1024u32;
        for window in 1..=20 {
            // The first window is 100 packets, later ones 99 (snd_nxt is
            // sampled before the ACK's new packet is sent).
            let n = if window == 1 { 100 } else { 99 };
            for _ in 0..n {
                f.ack(false);
            }
            expected -= expected >> 4;
            assert_eq!(f.cc.alpha, expected, "window {window}");
            let exact = (15.0f64 / 16.0).powi(window);
            assert!((f.cc.alpha() - exact).abs() < window as f64 / 1024.0);
        }
        // 1024·(15/16)^20 ≈ 281.7; each truncated step leaves a little more.
        assert_eq!(f.cc.alpha, 287);
        // Once the step truncates to zero, alpha drops to zero.
        for _ in 0..99 * 100 {
            f.ack(false);
        }
        assert_eq!(f.cc.alpha(), 0.0);
    }

    #[test]
    fn ssthresh_is_cwnd_times_one_minus_half_alpha() {
        let cases = [
            // (alpha_init, cwnd, ssthresh): cwnd − (cwnd·alpha) >> 11.
            (1.0, 100, 50),
            (0.5, 100, 75),
            (0.0, 100, 100),
            (0.25, 10, 9),    // 10 − 2560 >> 11 = 10 − 1
            (1.0, 3, 2),      // 3 − 1
            (1.0, 2, 2),      // floor of 2
            (0.3, 1000, 851), // alpha 307/1024: 1000 − 307000 >> 11 = 1000 − 149
        ];
        for (alpha_init, cwnd, want) in cases {
            let mut tp = TcpSock::new(1448, cwnd);
            tp.ecn_ok = true;
            let mut cc = Dctcp::new(params(alpha_init));
            cc.init(&mut tp);
            assert_eq!(cc.ssthresh(&tp), want, "alpha {alpha_init} cwnd {cwnd}");
        }
    }

    /// An ECN connection with a window of 100 packets and DCTCP started
    /// at `alpha_init`.
    fn ecn_at_100(alpha_init: f64) -> (TcpSock, Dctcp) {
        let mut tp = TcpSock::new(1448, 100);
        tp.ecn_ok = true;
        let mut cc = Dctcp::new(params(alpha_init));
        cc.init(&mut tp);
        (tp, cc)
    }

    #[test]
    fn entering_recovery_halves_the_window_as_reno() {
        let (mut tp, mut cc) = ecn_at_100(0.0);
        // The stack: ssthresh() on entering the reduction, then set_state.
        tp.snd_ssthresh = cc.ssthresh(&tp);
        assert_eq!(tp.snd_ssthresh, 100); // alpha 0: no ECN cut
        cc.set_state(&mut tp, CaState::Recovery);
        assert_eq!(tp.snd_ssthresh, 50);
        tp.ca_state = CaState::Recovery;
        // Staying in Recovery does not cut again.
        tp.snd_cwnd = 60;
        cc.set_state(&mut tp, CaState::Recovery);
        assert_eq!(tp.snd_ssthresh, 50);
        // An RTO halves through cwnd_event(Loss); set_state(Loss) does not.
        tp.snd_cwnd = 40;
        cc.set_state(&mut tp, CaState::Loss);
        assert_eq!(tp.snd_ssthresh, 50);
        cc.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!(tp.snd_ssthresh, 20);
        assert_eq!(cc.loss_cwnd, 40);
        // Never below 2.
        tp.snd_cwnd = 3;
        cc.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!(tp.snd_ssthresh, 2);
    }

    #[test]
    fn undo_restores_the_window_before_the_reduction() {
        let (mut tp, mut cc) = ecn_at_100(1.0);
        tp.snd_ssthresh = cc.ssthresh(&tp);
        assert_eq!(tp.snd_ssthresh, 50);
        tp.snd_cwnd = 50;
        assert_eq!(cc.undo_cwnd(&tp), 100);
        // A window that has since grown past it is kept.
        tp.snd_cwnd = 120;
        assert_eq!(cc.undo_cwnd(&tp), 120);
        // Loss remembers the window too.
        tp.snd_cwnd = 80;
        cc.set_state(&mut tp, CaState::Recovery);
        tp.snd_cwnd = 40;
        assert_eq!(cc.undo_cwnd(&tp), 80);
    }

    #[test]
    fn without_ecn_it_is_reno() {
        let mut f = Flow::new(params(1.0), false, 20);
        assert!(!f.cc.ecn_enabled());
        assert!(f.cc.needs_ecn());
        let mut reno = Reno;
        let mut tp_reno = f.tp.clone();
        let mut step = |f: &mut Flow, tp_reno: &mut TcpSock, i: u32| {
            let tp = &mut f.tp;
            tp.is_cwnd_limited = true;
            tp_reno.is_cwnd_limited = true;
            // ECE flags are ignored; alpha never moves.
            let flags = SLOWPATH | if i % 3 == 0 { ECE } else { 0 };
            tp.snd_una += 1;
            tp.delivered += 1;
            tp.delivered_ce += (i % 3 == 0) as u64;
            tp.snd_nxt = tp.snd_una + tp.snd_cwnd as u64;
            f.cc.in_ack_event(tp, flags);
            reno.in_ack_event(tp_reno, flags);
            match i % 97 {
                50 => {
                    // Loss: ssthresh, then set_state(Recovery).
                    tp.prior_cwnd = tp.snd_cwnd;
                    tp_reno.prior_cwnd = tp_reno.snd_cwnd;
                    tp.snd_ssthresh = f.cc.ssthresh(tp);
                    tp_reno.snd_ssthresh = reno.ssthresh(tp_reno);
                    f.cc.set_state(tp, CaState::Recovery);
                    reno.set_state(tp_reno, CaState::Recovery);
                    tp.snd_cwnd = tp.snd_ssthresh;
                    tp_reno.snd_cwnd = tp_reno.snd_ssthresh;
                }
                70 => {
                    // The reduction turns out spurious.
                    tp.snd_cwnd = f.cc.undo_cwnd(tp);
                    tp_reno.snd_cwnd = reno.undo_cwnd(tp_reno);
                }
                90 => {
                    // RTO.
                    tp.snd_ssthresh = f.cc.ssthresh(tp);
                    tp_reno.snd_ssthresh = reno.ssthresh(tp_reno);
                    f.cc.set_state(tp, CaState::Loss);
                    reno.set_state(tp_reno, CaState::Loss);
                    f.cc.cwnd_event(tp, CaEvent::Loss);
                    reno.cwnd_event(tp_reno, CaEvent::Loss);
                    tp.snd_cwnd = 1;
                    tp_reno.snd_cwnd = 1;
                }
                _ => {
                    f.cc.cong_avoid(tp, tp.snd_una, 1);
                    reno.cong_avoid(tp_reno, tp_reno.snd_una, 1);
                }
            }
            // Keep the sequence fields equal so the comparison is of windows.
            tp_reno.snd_una = tp.snd_una;
            tp_reno.snd_nxt = tp.snd_nxt;
            tp_reno.delivered = tp.delivered;
            tp_reno.delivered_ce = tp.delivered_ce;
        };
        for i in 0..2000 {
            step(&mut f, &mut tp_reno, i);
            assert_eq!(f.tp.snd_cwnd, tp_reno.snd_cwnd, "cwnd at step {i}");
            assert_eq!(
                f.tp.snd_ssthresh, tp_reno.snd_ssthresh,
                "ssthresh at step {i}"
            );
            assert_eq!(
                f.tp.snd_cwnd_cnt, tp_reno.snd_cwnd_cnt,
                "cwnd_cnt at step {i}"
            );
        }
        assert_eq!(f.cc.alpha, 1024);
        let mut vars = Vec::new();
        f.cc.trace_vars(&mut |k, v| vars.push((k, v)));
        assert_eq!(vars, vec![("alpha", 0.0), ("dctcp_enabled", 0.0)]);
    }

    #[test]
    fn trace_reports_alpha_as_a_fraction() {
        let mut f = Flow::new(params(0.5), true, 10);
        let mut vars = Vec::new();
        f.cc.trace_vars(&mut |k, v| vars.push((k, v)));
        assert_eq!(vars, vec![("alpha", 0.5), ("dctcp_enabled", 1.0)]);
        for _ in 0..10 {
            f.ack(false);
        }
        vars.clear();
        f.cc.trace_vars(&mut |k, v| vars.push((k, v)));
        assert_eq!(vars[0], ("alpha", 480.0 / 1024.0));
    }

    #[test]
    fn params_are_clamped_to_linux_ranges() {
        let cc = Dctcp::new(DctcpParams {
            shift_g: 30,
            alpha_init: 2.0,
        });
        assert_eq!(cc.shift_g, DCTCP_MAX_SHIFT_G);
        assert_eq!(cc.alpha, DCTCP_MAX_ALPHA);
        let cc = Dctcp::new(DctcpParams {
            shift_g: 0,
            alpha_init: f64::NAN,
        });
        assert_eq!(cc.alpha, 0);
    }
}
