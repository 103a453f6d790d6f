//! TCP Vegas: a delay-based control that keeps a few of its packets queued
//! in the network, estimated from how far the RTT rises above the smallest
//! RTT ever seen.
//!
//! Follows Linux `net/ipv4/tcp_vegas.c` (after Brakmo and Peterson, "TCP
//! Vegas: End to End Congestion Avoidance on a Global Internet", IEEE JSAC
//! 13(8), 1995) hook for hook:
//!
//! - `pkts_acked` takes every RTT sample, in microseconds plus one (so it
//!   is never zero): `base_rtt` is the minimum ever seen (the propagation
//!   delay), `min_rtt` the minimum since the last decision (filtering out
//!   delayed ACKs), `cnt_rtt` counts the samples.
//! - `cong_avoid` decides once per RTT, on the first ACK beyond
//!   `beg_snd_nxt` (the `snd_nxt` of the previous decision), then moves
//!   `beg_snd_nxt` to the current `snd_nxt` and clears `min_rtt`/`cnt_rtt`.
//!   With two samples or fewer in that RTT (probably delayed ACKs only) it
//!   does what Reno would on that ACK. Otherwise, with `rtt = min_rtt`:
//!   `diff = cwnd·(rtt − base_rtt)/base_rtt` packets (integer division), and
//!   - in slow start, if `diff > gamma`, cwnd becomes
//!     min(cwnd, cwnd·base_rtt/rtt + 1) — the window that matches the rate
//!     actually achieved — and ssthresh follows it down, which ends slow
//!     start; otherwise `tcp_slow_start`;
//!   - in congestion avoidance, `diff > beta`: one packet less (and ssthresh
//!     follows); `diff < alpha`: one packet more; else unchanged;
//!   - then cwnd is kept in [2, clamp] and ssthresh raised to
//!     `tcp_current_ssthresh` (max(ssthresh, ¾·cwnd) outside a reduction).
//! - Between decisions only slow start grows the window (every ACK, as
//!   Reno: Linux does not keep the original Vegas's growth every other RTT).
//! - Vegas runs only in the Open state: `set_state` turns it on (a new RTT
//!   of samples starts) when the state becomes Open and off otherwise, and
//!   while it is off `cong_avoid` is `tcp_reno_cong_avoid`.
//!   `cwnd_event(TxStart)` (sending after idle) and `CwndRestart` restart
//!   it from scratch, `base_rtt` included, as does `init`.
//! - `ssthresh` and `undo_cwnd` are Reno's.
//! - In the Vegas branch the window grows whether or not the sender was
//!   window-limited (Linux checks `tcp_is_cwnd_limited` only in the Reno
//!   fallback).
//!
//! # Linux's diff and the paper's
//!
//! The paper defines Diff = (Expected − Actual)·BaseRTT
//! = cwnd·(rtt − base_rtt)/rtt, which equals the packets queued at the
//! bottleneck. Linux divides by `base_rtt` instead, which overstates the
//! queue by the factor rtt/base_rtt; we keep Linux's. The two agree when
//! the queue is small next to the path's bandwidth-delay product (the
//! regime Vegas aims at), and Linux's leans toward smaller queues on
//! short paths. The products are taken in 64 bits where Linux's 32-bit
//! `cwnd·(rtt − base_rtt)` could wrap (a window of thousands of packets
//! and a queueing delay of a second).
//!
//! # What to expect
//!
//! In slow start each decision judges the previous RTT by its minimum,
//! which the head of every slow-start burst keeps near the base RTT, so the
//! exit comes late: on an idle 100 Mb/s, 20 ms path the window reaches
//! about 630 packets for a bandwidth-delay product of 169, with 460 queued
//! (a large enough buffer loses nothing). Congestion avoidance then drains
//! the excess at one packet per RTT, some 20 s there, and settles with
//! between alpha and beta packets queued, at the beta end when it comes
//! from above (`tests/vegas.rs`).

use super::Registration;
use super::{
    tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_slow_start, AckSample, CaEvent, CaState,
    CongestionControl, TcpSock,
};
use crate::param::{Param, ParamError, Range};
use serde::{Deserialize, Serialize};

/// TCP Vegas (Linux `tcp_vegas.c`). Thresholds on the estimated number of
/// this flow's packets queued in the network.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasParams {
    /// Below this many packets queued, grow by one packet per RTT (2).
    pub alpha: u32,
    /// Above this many, shrink by one packet per RTT (4).
    pub beta: u32,
    /// Leave slow start above this many (1).
    pub gamma: u32,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 2,
            beta: 4,
            gamma: 1,
        }
    }
}

/// Vegas's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::int_in(
        "alpha",
        Range::U32,
        "Below this many packets queued, grow one packet per RTT (2).",
    ),
    Param::int_in(
        "beta",
        Range::U32,
        "Above this many, shrink one packet per RTT; at least alpha (4).",
    ),
    Param::int_in("gamma", Range::U32, "Leave slow start above this many (1)."),
];

/// Refuses parameters Vegas cannot run with, naming the one at fault.
pub fn check(p: &VegasParams) -> Result<(), ParamError> {
    if p.alpha > p.beta {
        return Err(ParamError::new("beta", "Vegas needs alpha <= beta"));
    }
    Ok(())
}

/// `cc = "vegas"`: a variant of its own.
pub const REGISTRATION: Registration = super::registration! {
    name: "vegas",
    about: "TCP Vegas (Brakmo and Peterson 1995; Linux tcp_vegas.c): keeps alpha to beta packets queued.",
    params: PARAMS,
    config: VegasParams,
    check: check,
    new: Vegas::new,
};

/// "No sample yet" for `base_rtt` and `min_rtt` (Linux 0x7fffffff).
const NO_RTT_US: u32 = 0x7fff_ffff;

/// Fewer samples than this in an RTT: Reno's behaviour for that RTT
/// (Linux: `cntRTT <= 2`).
const MIN_SAMPLES: u32 = 3;

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: u32,
    beta: u32,
    gamma: u32,
    /// Vegas decisions are on (Linux `doing_vegas_now`).
    enabled: bool,
    /// The next decision is due on the first ACK beyond this sequence.
    beg_snd_nxt: u64,
    /// RTT samples since the last decision.
    cnt_rtt: u32,
    /// Smallest RTT since the last decision, µs + 1.
    min_rtt_us: u32,
    /// Smallest RTT ever (the propagation delay), µs + 1.
    base_rtt_us: u32,
    /// `diff` of the last decision, packets (for tracing).
    last_diff: u32,
}

impl Vegas {
    pub fn new(p: VegasParams) -> Self {
        Vegas {
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            enabled: false,
            beg_snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt_us: NO_RTT_US,
            base_rtt_us: NO_RTT_US,
            last_diff: 0,
        }
    }

    /// True while Vegas makes the decisions (Open state).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The propagation-delay estimate, µs + 1 (`NO_RTT_US` before a sample).
    pub fn base_rtt_us(&self) -> u32 {
        self.base_rtt_us
    }

    /// Linux `vegas_enable`: a fresh RTT of samples from the current send point.
    fn enable(&mut self, tp: &TcpSock) {
        self.enabled = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt_us = NO_RTT_US;
    }

    /// Linux `tcp_vegas_init`: forget the base RTT too.
    fn restart(&mut self, tp: &TcpSock) {
        self.base_rtt_us = NO_RTT_US;
        self.enable(tp);
    }

    /// The once-per-RTT decision, with at least [`MIN_SAMPLES`] samples.
    fn decide(&mut self, tp: &mut TcpSock, acked: u32) {
        let rtt = self.min_rtt_us as u64;
        let base = self.base_rtt_us as u64;
        let cwnd = tp.snd_cwnd as u64;
        // The window that would carry the rate achieved at base_rtt.
        let target_cwnd = cwnd * base / rtt;
        let diff = (cwnd * rtt.saturating_sub(base) / base).min(u32::MAX as u64) as u32;
        self.last_diff = diff;
        if diff > self.gamma && tp.in_slow_start() {
            tp.snd_cwnd = tp
                .snd_cwnd
                .min((target_cwnd + 1).min(u32::MAX as u64) as u32);
            tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
        } else if tp.in_slow_start() {
            tcp_slow_start(tp, acked);
        } else if diff > self.beta {
            tp.snd_cwnd = tp.snd_cwnd.saturating_sub(1);
            tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
        } else if diff < self.alpha {
            tp.snd_cwnd += 1;
        }
        tp.snd_cwnd = tp.snd_cwnd.clamp(2, tp.snd_cwnd_clamp.max(2));
        tp.snd_ssthresh = current_ssthresh(tp);
    }
}

/// Linux `tcp_current_ssthresh`: during a reduction the threshold as set;
/// otherwise at least ¾ of the window.
fn current_ssthresh(tp: &TcpSock) -> u32 {
    if matches!(tp.ca_state, CaState::Cwr | CaState::Recovery) {
        tp.snd_ssthresh
    } else {
        tp.snd_ssthresh.max((tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2))
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.restart(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, _tp: &mut TcpSock, sample: &AckSample) {
        let Some(rtt) = sample.rtt else {
            return;
        };
        let vrtt = rtt.us().min(NO_RTT_US as u64 - 1) as u32 + 1;
        self.base_rtt_us = self.base_rtt_us.min(vrtt);
        self.min_rtt_us = self.min_rtt_us.min(vrtt);
        self.cnt_rtt += 1;
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(tp);
        } else {
            self.enabled = false;
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if matches!(ev, CaEvent::TxStart | CaEvent::CwndRestart) {
            self.restart(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32) {
        if !self.enabled {
            tcp_reno_cong_avoid(tp, acked);
            return;
        }
        if ack > self.beg_snd_nxt {
            self.beg_snd_nxt = tp.snd_nxt;
            if self.cnt_rtt < MIN_SAMPLES {
                tcp_reno_cong_avoid(tp, acked);
            } else {
                self.decide(tp, acked);
            }
            self.cnt_rtt = 0;
            self.min_rtt_us = NO_RTT_US;
        } else if tp.in_slow_start() {
            tcp_slow_start(tp, acked);
        }
    }

    /// As Linux's `tcp_vegas_get_info`, plus the last decision's `diff`.
    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("vegas_enabled", if self.enabled { 1.0 } else { 0.0 });
        out("base_rtt_us", self.base_rtt_us as f64);
        out("min_rtt_us", self.min_rtt_us as f64);
        out("cnt_rtt", self.cnt_rtt as f64);
        out("diff_pkts", self.last_diff as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check as the run reports it, under the control's field.
    fn validate(p: &VegasParams, field: &str) -> Result<(), crate::param::ConfigError> {
        check(p).map_err(|e| e.at(field, field))
    }
    use crate::cc::INFINITE_SSTHRESH;
    use crate::sim::Dur;

    /// The base RTT of the scripted paths: 10 ms, 10001 in Vegas's µs + 1.
    const BASE: Dur = Dur::from_ms(10);

    /// A sender that sends a window per round trip; sequence numbers count
    /// packets. The hooks run in the order of `cc/mod.rs`.
    struct Flow {
        tp: TcpSock,
        cc: Vegas,
    }

    impl Flow {
        fn new(cwnd: u32, ssthresh: u32) -> Flow {
            let mut tp = TcpSock::new(1448, cwnd);
            tp.snd_ssthresh = ssthresh;
            tp.is_cwnd_limited = true;
            tp.snd_nxt = cwnd as u64;
            let mut cc = Vegas::new(VegasParams::default());
            cc.init(&mut tp);
            Flow { tp, cc }
        }

        /// One round trip: the window in flight is acked `per_ack` packets
        /// per ACK, the first `sampled` ACKs carrying the RTT sample `rtt`
        /// (the rest none, as for retransmitted data); then the next window
        /// is sent.
        fn round_sampled(&mut self, rtt: Dur, per_ack: u32, sampled: u32) {
            let tp = &mut self.tp;
            let mut left = (tp.snd_nxt - tp.snd_una) as u32;
            let mut i = 0;
            while left > 0 {
                let k = per_ack.min(left);
                left -= k;
                let in_flight = (tp.snd_nxt - tp.snd_una) as u32;
                tp.snd_una += k as u64;
                let sample = AckSample {
                    pkts_acked: k,
                    rtt: (i < sampled).then_some(rtt),
                    in_flight,
                };
                self.cc.pkts_acked(tp, &sample);
                self.cc.cong_avoid(tp, tp.snd_una, k);
                i += 1;
            }
            tp.snd_nxt = tp.snd_una + tp.snd_cwnd as u64;
        }

        fn round(&mut self, rtt: Dur) {
            self.round_sampled(rtt, 1, u32::MAX);
        }

        /// `rounds` round trips at `rtt`; the window after each.
        fn rounds(&mut self, rtt: Dur, rounds: usize) -> Vec<u32> {
            (0..rounds)
                .map(|_| {
                    self.round(rtt);
                    self.tp.snd_cwnd
                })
                .collect()
        }
    }

    /// Linux's diff for a window and an RTT above BASE (µs + 1 as Vegas
    /// keeps them).
    fn diff(cwnd: u32, extra_us: u64) -> u64 {
        let base = BASE.us() + 1;
        cwnd as u64 * extra_us / base
    }

    /// In congestion avoidance at 100 packets, after one round that sets
    /// the base RTT.
    fn avoiding() -> Flow {
        let mut f = Flow::new(100, 50);
        f.round(BASE);
        assert_eq!(f.cc.base_rtt_us(), 10_001);
        f
    }

    #[test]
    fn few_packets_queued_grow_one_packet_per_rtt() {
        let mut f = avoiding();
        let w0 = f.tp.snd_cwnd;
        // 150 µs of queueing: diff = 100·150/10001 = 1 < alpha.
        let extra = Dur::from_us(150);
        assert_eq!(diff(w0, 150), 1);
        let w = f.rounds(BASE + extra, 10);
        // The first round's decision uses the previous round's samples
        // (at BASE: diff 0), so it grows too: one packet per round.
        assert_eq!(w, (1..=10).map(|i| w0 + i).collect::<Vec<_>>());
        assert_eq!(f.cc.last_diff, 1);
        // Between decisions the window holds still.
        assert_eq!(f.tp.snd_cwnd_cnt, 0);
    }

    #[test]
    fn many_packets_queued_shrink_one_packet_per_rtt_down_to_beta() {
        let mut f = avoiding();
        // 600 µs: diff = 100·600/10001 = 5 > beta; it stays above beta
        // down to 84 packets (84·600/10001 = 5.04) and not at 83 (4.98).
        let extra = 600;
        assert_eq!(diff(84, extra), 5);
        assert_eq!(diff(83, extra), 4);
        let w = f.rounds(BASE + Dur::from_us(extra), 30);
        // The first decision still sees the base-RTT round: +1.
        assert_eq!(w[0], 101);
        for (i, &cwnd) in w.iter().enumerate().take(19).skip(1) {
            assert_eq!(cwnd, 101 - i as u32, "round {i}");
        }
        assert!(w[18..].iter().all(|&x| x == 83), "{w:?}");
        // tcp_current_ssthresh raised ssthresh from 50 to ¾ of the largest
        // window (101); the window never fell below it, so it stayed.
        assert_eq!(f.tp.snd_ssthresh, (101 >> 1) + (101 >> 2));
        assert!(!f.tp.in_slow_start());
    }

    #[test]
    fn between_alpha_and_beta_the_window_holds() {
        let mut f = avoiding();
        f.round(BASE + Dur::from_us(300)); // decides on the BASE round: +1
        let w0 = f.tp.snd_cwnd;
        assert_eq!(w0, 101);
        // 101·300/10001 = 3: alpha <= 3 <= beta.
        assert_eq!(diff(w0, 300), 3);
        assert_eq!(f.rounds(BASE + Dur::from_us(300), 10), vec![w0; 10]);
        assert_eq!(f.cc.last_diff, 3);
    }

    #[test]
    fn slow_start_ends_at_the_achieved_rate_when_diff_exceeds_gamma() {
        let mut f = Flow::new(10, INFINITE_SSTHRESH);
        // At the base RTT slow start doubles the window every round.
        assert_eq!(f.rounds(BASE, 3), vec![20, 40, 80]);
        assert!(f.tp.in_slow_start());
        // One packet of queueing at 80 packets: 80·125/10001 = 0 <= gamma,
        // still slow start.
        f.round(BASE + Dur::from_us(125));
        assert_eq!(f.tp.snd_cwnd, 160);
        assert!(f.tp.in_slow_start());
        // 2 ms of queueing: diff = 160·2000/10001 = 31 > gamma. The decision
        // (first ACK of the next round) sets cwnd to the window that gives
        // the achieved rate at the base RTT, plus one, and ends slow start.
        f.round(BASE + Dur::from_ms(2));
        // The decision came on the first ACK of that round, which judged
        // the previous round (diff 0: slow start went on); the round ends
        // at 320. The next decision sees the 2 ms round:
        assert_eq!(f.tp.snd_cwnd, 320);
        f.round(BASE + Dur::from_ms(2));
        let target = 320u64 * 10_001 / 12_001;
        assert_eq!(f.cc.last_diff, (320u64 * 2000 / 10_001) as u32);
        // The rest of that round is congestion avoidance: no growth.
        assert_eq!(f.tp.snd_cwnd as u64, target + 1);
        assert_eq!(f.tp.snd_ssthresh, f.tp.snd_cwnd);
        assert!(!f.tp.in_slow_start());
    }

    #[test]
    fn too_few_samples_in_an_rtt_fall_back_to_reno() {
        // With at most two RTT samples per round the decision is Reno's,
        // however large the queueing delay.
        let mut f = avoiding();
        let w0 = f.tp.snd_cwnd;
        f.round_sampled(BASE + Dur::from_ms(5), 1, 2);
        f.round_sampled(BASE + Dur::from_ms(5), 1, 2);
        // Reno counts one acked packet at each decision: no visible change.
        assert_eq!(f.tp.snd_cwnd, w0 + 1); // the first decision saw BASE
        assert_eq!(f.tp.snd_cwnd_cnt, 1);
        // Three samples are enough: diff = 101·5000/10001 = 50 > beta.
        f.round_sampled(BASE + Dur::from_ms(5), 1, 3);
        f.round_sampled(BASE + Dur::from_ms(5), 1, 3);
        assert_eq!(f.tp.snd_cwnd, w0);
        assert_eq!(f.cc.last_diff, 50);
    }

    #[test]
    fn delayed_acks_give_the_same_decisions() {
        // Two packets per ACK: half the samples, the same minimum.
        let mut f = avoiding();
        let w0 = f.tp.snd_cwnd;
        for _ in 0..5 {
            f.round_sampled(BASE + Dur::from_us(150), 2, u32::MAX);
        }
        assert_eq!(f.tp.snd_cwnd, w0 + 5);
    }

    #[test]
    fn vegas_runs_only_in_the_open_state() {
        let mut f = avoiding();
        f.round(BASE + Dur::from_us(300));
        let w0 = f.tp.snd_cwnd;
        // Disorder (SACKs, dupacks) turns it off: Reno, +1 per window.
        f.cc.set_state(&mut f.tp, CaState::Disorder);
        f.tp.ca_state = CaState::Disorder;
        assert!(!f.cc.enabled());
        f.round(BASE + Dur::from_ms(5));
        assert_eq!(f.tp.snd_cwnd, w0 + 1);
        // Back to Open: a fresh RTT of samples from the current snd_nxt,
        // base RTT kept.
        f.cc.set_state(&mut f.tp, CaState::Open);
        f.tp.ca_state = CaState::Open;
        assert!(f.cc.enabled());
        assert_eq!(f.cc.beg_snd_nxt, f.tp.snd_nxt);
        assert_eq!((f.cc.cnt_rtt, f.cc.min_rtt_us), (0, NO_RTT_US));
        assert_eq!(f.cc.base_rtt_us(), 10_001);
        // Loss or recovery: off again.
        for s in [CaState::Recovery, CaState::Loss, CaState::Cwr] {
            f.cc.set_state(&mut f.tp, s);
            assert!(!f.cc.enabled(), "{s:?}");
            f.cc.set_state(&mut f.tp, CaState::Open);
        }
    }

    #[test]
    fn restart_after_idle_forgets_the_base_rtt() {
        for ev in [CaEvent::TxStart, CaEvent::CwndRestart] {
            let mut f = avoiding();
            f.cc.set_state(&mut f.tp, CaState::Loss);
            f.cc.cwnd_event(&mut f.tp, ev);
            assert!(f.cc.enabled());
            assert_eq!(f.cc.base_rtt_us(), NO_RTT_US);
            assert_eq!(f.cc.beg_snd_nxt, f.tp.snd_nxt);
        }
        // Other events change nothing.
        let mut f = avoiding();
        f.cc.cwnd_event(&mut f.tp, CaEvent::CompleteCwr);
        f.cc.cwnd_event(&mut f.tp, CaEvent::Loss);
        assert_eq!(f.cc.base_rtt_us(), 10_001);
    }

    #[test]
    fn samples_are_microseconds_plus_one() {
        let mut f = Flow::new(10, 5);
        let s = |us: u64| AckSample {
            pkts_acked: 1,
            rtt: Some(Dur::from_ps(us * 1_000_000 + 999_999)),
            in_flight: 10,
        };
        f.cc.pkts_acked(&mut f.tp, &s(0));
        assert_eq!((f.cc.base_rtt_us, f.cc.min_rtt_us, f.cc.cnt_rtt), (1, 1, 1));
        f.cc.pkts_acked(&mut f.tp, &s(40));
        assert_eq!((f.cc.base_rtt_us, f.cc.min_rtt_us, f.cc.cnt_rtt), (1, 1, 2));
        // No sample: not counted.
        let none = AckSample { rtt: None, ..s(0) };
        f.cc.pkts_acked(&mut f.tp, &none);
        assert_eq!(f.cc.cnt_rtt, 2);
    }

    #[test]
    fn loss_reactions_are_renos() {
        let mut f = avoiding();
        f.tp.snd_cwnd = 101;
        assert_eq!(f.cc.ssthresh(&f.tp), 50);
        f.tp.snd_cwnd = 3;
        assert_eq!(f.cc.ssthresh(&f.tp), 2);
        f.tp.prior_cwnd = 80;
        f.tp.snd_cwnd = 40;
        assert_eq!(f.cc.undo_cwnd(&f.tp), 80);
    }

    #[test]
    fn trace_reports_the_vegas_state() {
        let mut f = avoiding();
        f.round(BASE + Dur::from_us(300));
        f.round(BASE + Dur::from_us(300));
        let mut v = Vec::new();
        f.cc.trace_vars(&mut |k, x| v.push((k, x)));
        assert_eq!(
            v,
            vec![
                ("vegas_enabled", 1.0),
                ("base_rtt_us", 10_001.0),
                ("min_rtt_us", 10_301.0),
                ("cnt_rtt", 100.0),
                ("diff_pkts", 3.0),
            ]
        );
    }

    #[test]
    fn validation_wants_alpha_at_most_beta() {
        let p = |alpha, beta| VegasParams {
            alpha,
            beta,
            gamma: 1,
        };
        assert!(validate(&p(2, 4), "cc").is_ok());
        assert!(validate(&p(3, 3), "cc").is_ok());
        let e = validate(&p(5, 4), "flows[1].cc").unwrap_err();
        assert_eq!(e.field, "flows[1].cc.beta");
    }
}
