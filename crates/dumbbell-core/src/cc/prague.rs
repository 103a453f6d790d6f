//! TCP Prague, the L4S team's scalable congestion control (their public
//! `tcp_prague.c`, and the requirements of RFC 9331 §4).
//!
//! - **ECT(1).** Data is sent with the L4S identifier, ECT(1)
//!   ([`CongestionControl::l4s`]), so a DualQ bottleneck (`queue::dualpi2`)
//!   puts it in its low-latency queue; the connection asks for Accurate ECN
//!   in the handshake (`tcp::accecn`) to learn how many packets were marked.
//! - **A DCTCP-like response per RTT.** Once per round (a window of data,
//!   as `tcp_prague.c`'s `prague_should_update_ewma`), alpha ← (1 − g)·alpha
//!   + g·F with g = 1/16 and F the CE-marked fraction of the packets
//!   delivered in the round (AccECN's CE packet counter over
//!   `tp.delivered`). An ACK reporting new marks enters CWR, at most once
//!   per round, with `ssthresh` = cwnd·(1 − alpha/2). Alpha is a float here
//!   (Linux: 24-bit fixed point, upscaled), starting at 1 as in Linux.
//! - **Loss** halves the window, as Reno (`tcp_prague.c`'s loss response).
//! - **Additive increase**: one segment per round (`tcp_reno_cong_avoid`);
//!   with `rtt_independence` on, the increase per round of a flow whose
//!   RTT is below `rtt_target_ps` (25 ms in Linux) is scaled by
//!   (srtt/target)², so flows of shorter RTTs grow as fast in rate as one
//!   at the target (Linux's `RTT_CONTROL_RATE`; Linux turns it on after 4
//!   rounds in congestion avoidance, here at once). Off by default.
//! - **Pacing**: the rate is cwnd·MTU/srtt, doubled while cwnd is under
//!   half ssthresh (`prague_update_pacing_rate`'s window mode), updated on
//!   every ACK.
//! - **Classic ECN fallback** (RFC 9331 §4.3: a scalable control must fall
//!   back to a Reno-friendly response on a classic ECN bottleneck). Linux's
//!   `prague_classic_ecn_detection` scores each round from the queueing
//!   delay and its variation (references of about 0.75 ms and 2 ms) and
//!   keeps the score sticky; it is off by default there
//!   (`prague_ecn_fallback = 0`). Here, a simpler detector in its spirit,
//!   **on by default**: at the end of each round that saw CE marks, the
//!   round's deepest queue (its largest RTT sample − min_rtt) is compared
//!   with `classic_depth_ps` (2 ms; an L4S queue marks above 1 ms of
//!   sojourn, a classic AQM lets the queue grow several ms before it
//!   marks); the score (0..1) moves up by 1/8 when deeper, down by 1/8 when
//!   shallower. Above 3/4 the flow turns classic (an ECN mark then halves
//!   the window, as Reno), below 1/4 it turns scalable again.
//! - **No Accurate ECN** (the peer answered the handshake with classic
//!   ECN): as Linux's `prague_reno` fallback, the flow is classic for good.
//!
//! Not modelled: Linux's fractional window (`frac_cwnd`), its rate mode,
//! the additive increase during CWR ("unsaturated marking"), and the AccECN TCP option (see `tcp::accecn`).

use super::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CaEvent, CaState, CongestionControl, TcpSock};
use crate::param::{Param, Range};
use crate::sim::{Dur, PS_PER_S};
use serde::{Deserialize, Serialize};

/// TCP Prague's parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PragueParams {
    /// g = 2^-shift_g (Linux `PRAGUE_SHIFT_G` = 4).
    pub shift_g: u32,
    /// Initial alpha in [0, 1] (Linux 1).
    pub alpha_init: f64,
    /// Scale the additive increase of flows below `rtt_target_ps`.
    pub rtt_independence: bool,
    pub rtt_target_ps: u64,
    /// Detect a classic ECN bottleneck and respond as Reno there.
    pub classic_fallback: bool,
    pub classic_depth_ps: u64,
}

impl Default for PragueParams {
    fn default() -> Self {
        PragueParams {
            shift_g: 4,
            alpha_init: 1.0,
            rtt_independence: false,
            rtt_target_ps: Dur::from_ms(25).ps(),
            classic_fallback: true,
            classic_depth_ps: Dur::from_ms(2).ps(),
        }
    }
}

const TIME: Range = Range::Time {
    lo: crate::sim::PS_PER_US,
    hi: 10 * PS_PER_S,
};

/// Prague's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::int_in("shift_g", Range::int(0, 10, ""),
        "Gain g = 2^-shift_g of the alpha estimate (Linux 4: g = 1/16).",
    ),
    Param::float_in("alpha_init", Range::float(0.0, false, 1.0, false),
        "Initial alpha in [0, 1] (Linux 1).",
    ),
    Param::flag("rtt_independence", "Scale the additive increase by (srtt/rtt_target)² below the target (Linux RTT_CONTROL_RATE).",
    ),
    Param::time_in("rtt_target_ps", TIME,
        "The RTT independence's target RTT (Linux 25 ms).",
    ),
    Param::flag("classic_fallback", "Detect a classic ECN bottleneck (queue depth) and halve on marks there (RFC 9331 §4.3).",
    ),
    Param::time_in("classic_depth_ps", TIME,
        "Queue depth (srtt − min_rtt) above which a marked round counts as classic (2 ms).",
    ),
];

super::registration! {
    /// `cc = "prague"`.
    name: "prague",
    about: "TCP Prague (L4S, RFC 9331; the L4S team's tcp_prague.c): ECT(1), Accurate ECN, a DCTCP-like per-RTT response, pacing, classic ECN fallback; needs ecn=True.",
    params: PARAMS,
    config: PragueParams,
    ranges: [shift_g, alpha_init, rtt_target_ps, classic_depth_ps],
    new: Prague::new,
}

/// IPv4 and TCP headers with timestamps, as Linux's `tcp_mss_to_mtu`.
const MTU_OVERHEAD_BYTES: u128 = 52;

/// `prague_burst_shift`: a TSO burst is 2^-12 s (about 0.25 ms) of the
/// pacing rate.
const BURST_SHIFT: u32 = 12;

/// Score steps and thresholds of the classic ECN detector.
const SCORE_STEP: f64 = 1.0 / 8.0;
const TO_CLASSIC: f64 = 0.75;
const TO_SCALABLE: f64 = 0.25;

#[derive(Clone, Debug)]
pub struct Prague {
    p: PragueParams,
    alpha: f64,
    next_seq: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    loss_cwnd: u32,
    /// Additive-increase credit, in 1/1000 packets (RTT independence).
    ai_credit: u64,
    /// Classic ECN detector's score in [0, 1], and its verdict.
    score: f64,
    classic: bool,
    /// No Accurate ECN on this connection: classic for good.
    no_accecn: bool,
    /// The latest RTT sample (traced as `rtt_sample_ms`: the queueing
    /// delay the flow sees, unsmoothed).
    last_rtt: Dur,
    /// The largest RTT sample of the current round.
    round_max_rtt: Dur,
}

impl Prague {
    pub fn new(p: PragueParams) -> Self {
        let alpha = p.alpha_init.clamp(0.0, 1.0);
        Prague {
            p,
            alpha,
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            loss_cwnd: 0,
            ai_credit: 0,
            score: 0.0,
            classic: false,
            no_accecn: false,
            last_rtt: Dur::ZERO,
            round_max_rtt: Dur::ZERO,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// True while the flow responds to marks as a classic (Reno) flow.
    pub fn is_classic(&self) -> bool {
        self.classic || self.no_accecn
    }

    fn reset_round(&mut self, tp: &TcpSock) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered = tp.delivered;
        self.old_delivered_ce = tp.delivered_ce;
    }

    /// The end of a round: alpha's EWMA and the classic detector.
    fn end_round(&mut self, tp: &TcpSock) {
        let delivered = tp.delivered.saturating_sub(self.old_delivered);
        let ce = tp.delivered_ce.saturating_sub(self.old_delivered_ce);
        let g = 1.0 / (1u64 << self.p.shift_g) as f64;
        let f = if delivered == 0 {
            0.0
        } else {
            (ce as f64 / delivered as f64).min(1.0)
        };
        self.alpha = (1.0 - g) * self.alpha + g * f;
        if self.p.classic_fallback && ce > 0 && tp.min_rtt != Dur::MAX {
            let depth = self.round_max_rtt.saturating_sub(tp.min_rtt);
            if depth > Dur::from_ps(self.p.classic_depth_ps) {
                self.score = (self.score + SCORE_STEP).min(1.0);
            } else {
                self.score = (self.score - SCORE_STEP).max(0.0);
            }
            if self.score >= TO_CLASSIC {
                self.classic = true;
            } else if self.score <= TO_SCALABLE {
                self.classic = false;
            }
        }
        self.round_max_rtt = Dur::ZERO;
        self.reset_round(tp);
    }

    fn react_to_loss(&mut self, tp: &mut TcpSock) {
        self.loss_cwnd = tp.snd_cwnd;
        tp.snd_ssthresh = (tp.snd_cwnd >> 1).max(2);
    }

    /// Pacing at cwnd·MTU/srtt, doubled early in slow start. Linux counts
    /// the MTU (`tcp_mss_to_mtu`: MSS plus 52 bytes of IP and TCP headers
    /// with timestamps), so the pacer runs a few per cent above the
    /// window's rate and the window, not the pacer, limits the flow.
    fn update_pacing(&self, tp: &mut TcpSock) {
        if tp.srtt.is_zero() {
            return;
        }
        let w = tp.snd_cwnd.max(tp.in_flight()) as u128;
        let mtu = tp.mss as u128 + MTU_OVERHEAD_BYTES;
        let mut bps = w * mtu * 8 * PS_PER_S as u128 / tp.srtt.ps() as u128;
        if tp.snd_cwnd < tp.snd_ssthresh / 2 {
            bps *= 2;
        }
        tp.pacing_rate_bps = bps.clamp(100_000, u64::MAX as u128) as u64;
    }

    /// Reno growth, with the increase per round scaled by (srtt/target)²
    /// when RTT independence is on and the RTT is below the target.
    fn grow(&mut self, tp: &mut TcpSock, acked: u32) {
        let target = Dur::from_ps(self.p.rtt_target_ps);
        if !self.p.rtt_independence || tp.in_slow_start() || tp.srtt >= target || tp.srtt.is_zero()
        {
            return tcp_reno_cong_avoid(tp, acked);
        }
        if !tp.is_cwnd_limited {
            return;
        }
        let r = tp.srtt.secs_f64() / target.secs_f64();
        // Credit in 1/1000 packet: acked/cwnd of one packet, scaled.
        let per_ack = (1000.0 * r * r * acked as f64 / tp.snd_cwnd.max(1) as f64) as u64;
        self.ai_credit += per_ack.max(1);
        let whole = (self.ai_credit / 1000) as u32;
        if whole > 0 {
            self.ai_credit -= whole as u64 * 1000;
            tp.snd_cwnd = (tp.snd_cwnd + whole).min(tp.snd_cwnd_clamp);
        }
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.no_accecn = !tp.accecn_ok;
        self.loss_cwnd = 0;
        self.reset_round(tp);
        self.update_pacing(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.loss_cwnd = tp.snd_cwnd;
        if self.is_classic() {
            return tcp_reno_ssthresh(tp);
        }
        let cut = (tp.snd_cwnd as f64 * self.alpha / 2.0) as u32;
        (tp.snd_cwnd - cut.min(tp.snd_cwnd)).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        self.grow(tp, acked);
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Recovery && new_state != tp.ca_state {
            self.react_to_loss(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev == CaEvent::Loss {
            self.react_to_loss(tp);
        }
    }

    fn in_ack_event(&mut self, tp: &mut TcpSock, _flags: u32) {
        if tp.snd_una >= self.next_seq {
            self.end_round(tp);
        }
        self.update_pacing(tp);
    }

    fn pkts_acked(&mut self, _tp: &mut TcpSock, sample: &super::AckSample) {
        if let Some(rtt) = sample.rtt {
            self.last_rtt = rtt;
            self.round_max_rtt = self.round_max_rtt.max(rtt);
        }
    }

    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd.max(self.loss_cwnd)
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn l4s(&self) -> bool {
        true
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    /// `prague_tso_segs`: the burst of `prague_update_pacing_rate`, the
    /// pacing rate's MTU-sized packets in 2^-`BURST_SHIFT` s (about
    /// 0.25 ms), at least one (`prague_max_tso_segs` 0: no other cap).
    fn tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64, _gso_max_bytes: u32) -> Option<u32> {
        let mtu = tp.mss as u64 + MTU_OVERHEAD_BYTES as u64;
        let burst = (pacing_bytes_per_s / mtu) >> BURST_SHIFT;
        Some(burst.clamp(1, u32::MAX as u64) as u32)
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
        out("classic", if self.is_classic() { 1.0 } else { 0.0 });
        out("classic_score", self.score);
        out("rtt_sample_ms", self.last_rtt.secs_f64() * 1e3);
    }
}

#[cfg(test)]
mod tests;
