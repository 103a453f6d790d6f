//! PIE, Proportional Integral controller Enhanced, with Linux `sch_pie`
//! semantics.
//!
//! Pan, Natarajan, Piglione, Prabhu, Subramanian, Baker and VerSteeg,
//! RFC 8033, as Linux implements it (`net/sched/sch_pie.c`,
//! `include/net/pie.h`). The point of measurement: the drop decision is
//! taken at **enqueue** with a probability `prob` that a controller updates
//! every `tupdate` (15 ms) from the queueing delay:
//!
//! ```text
//! prob += alpha (qdelay - target) + beta (qdelay - qdelay_old)
//! ```
//!
//! with `target` 15 ms, `alpha` 1/8 and `beta` 1 + 1/4 per second of delay
//! (Linux's `alpha = 2`, `beta = 20` in units of 1/16), both scaled down
//! while `prob` is small (halved below 10 %, then divided by 4 more for each
//! decade below 1 %, down to 0.0001 %), an increase capped at 2 % per update
//! once `prob` is 10 % or more, 2 % added while the delay exceeds 250 ms,
//! and `prob` decayed by 1/64 per update while the delay stays zero.
//!
//! **Delay estimate: the timestamp mode, Linux's default**
//! (`dq_rate_estimator` off): `qdelay` is the sojourn time of the last
//! packet dequeued (zero when it left the queue empty). The departure-rate
//! estimator of RFC 8033 (backlog / measured drain rate) is not modelled.
//!
//! Early drop (`pie_drop_early`), for an arrival that finds the queue below
//! its limit: no drop during the burst allowance (`max_burst`, 150 ms,
//! consumed by the time between departures), nor while the delay is under
//! half the target and `prob` under 20 %, nor with less than two MTUs of
//! frames queued (each packet counted with its 14-byte link header, as
//! Linux's backlog counts `qdisc_pkt_len`; our sizes are IP packets);
//! otherwise Linux's derandomization: `accu_prob` sums `prob` over
//! arrivals, no drop below 0.85, a certain drop from 8.5, a drop with
//! probability `prob` between (which resets the sum). With ECN on, an ECT
//! packet chosen while `prob` is at most 10 % is marked and queued instead.
//! After two updates with a delay under half the target and `prob` zero,
//! the burst allowance is restored.
//!
//! The controller runs on Linux's timer: first 500 ms after the queue is
//! created (`HZ / 2`), then every `tupdate`. Here the ticks due are run, in
//! order, when the queue is next touched (an enqueue or a dequeue): nothing
//! the controller reads changes between two such events, so this is exact.
//!
//! Stated differences from Linux: `prob` is a float in [0, 1] (Linux: a
//! 56-bit fixed point it lets exceed 1); time is exact picoseconds; the MTU
//! is 1514 bytes; `bytemode` is not modelled.

use super::codel::AQM_TIME;
use super::codel::MTU_BYTES;
use super::dualpi2::LINK_HEADER_BYTES;
use super::timed_fifo::timed_fifo_accessors;
use super::MAX_AQM_TIME_PS;
use super::{set_ce, Dequeued, DropReason, Limit, QueueCtx, QueueDisc, Verdict};
use crate::packet::PktId;
use crate::param::{Param, Range};
use crate::sim::{Dur, Rng, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// PIE as a configuration names it (`{"kind": "pie", ...}`; Linux
/// `sch_pie`, timestamp mode).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    pub target_ps: u64,
    pub tupdate_ps: u64,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst_ps: u64,
    pub ecn: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target_ps: DEFAULT_TARGET.ps(),
            tupdate_ps: DEFAULT_TUPDATE.ps(),
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            max_burst_ps: DEFAULT_MAX_BURST.ps(),
            ecn: false,
        }
    }
}

const GAIN: Range = Range::float(0.0, false, MAX_GAIN, false);

/// PIE's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::time_in("target_ps", AQM_TIME, "Target queue delay (Linux 15 ms)."),
    Param::time_in(
        "tupdate_ps",
        AQM_TIME,
        "Period of the probability update (Linux 15 ms).",
    ),
    Param::float_in(
        "alpha",
        GAIN,
        "Gain on the delay's distance to target, per second (Linux 2/16).",
    ),
    Param::float_in(
        "beta",
        GAIN,
        "Gain on the delay's change, per second (Linux 20/16).",
    ),
    Param::time_in(
        "max_burst_ps",
        Range::Time {
            lo: 0,
            hi: MAX_AQM_TIME_PS,
        },
        "Burst allowance (Linux 150 ms); 0: none.",
    ),
    Param::flag(
        "ecn",
        "Mark ECN-capable packets while the probability is at most 10 %.",
    ),
];

super::registration! {
    /// `aqm = {kind = "pie"}`.
    name: "pie",
    about: "PIE (RFC 8033; Linux sch_pie): drops at enqueue with a probability driven by the queue delay.",
    params: PARAMS,
    config: PieConfig,
    ranges: [target_ps, tupdate_ps, max_burst_ps, alpha, beta],
    variant: super::AqmConfig::Pie,
}

/// Linux `pie_params_init` / `pie_vars_init` defaults.
pub const DEFAULT_TARGET: Dur = Dur::from_ms(15);
pub const DEFAULT_TUPDATE: Dur = Dur::from_ms(15);
pub const DEFAULT_ALPHA: f64 = 2.0 / 16.0;
pub const DEFAULT_BETA: f64 = 20.0 / 16.0;
pub const DEFAULT_MAX_BURST: Dur = Dur::from_ms(150);
pub const DEFAULT_LIMIT_PKTS: u32 = 1000;
/// The controller's first update after the queue is created (`HZ / 2`).
pub const FIRST_UPDATE: Dur = Dur::from_ms(500);
/// Linux keeps alpha and beta in 0..=32 sixteenths.
pub const MAX_GAIN: f64 = 2.0;
/// ECN marks replace drops while `prob` is at most this.
pub const MAX_ECN_PROB: f64 = 0.1;

#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    pub target: Dur,
    pub tupdate: Dur,
    /// Gains per second of delay error and of delay change.
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Dur,
    pub ecn: bool,
    pub mtu_bytes: u32,
}

impl Default for PieParams {
    /// Linux's defaults (ECN off).
    fn default() -> Self {
        PieParams {
            target: DEFAULT_TARGET,
            tupdate: DEFAULT_TUPDATE,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            max_burst: DEFAULT_MAX_BURST,
            ecn: false,
            mtu_bytes: MTU_BYTES,
        }
    }
}

/// The controller's state (Linux `struct pie_vars`, timestamp mode).
#[derive(Clone, Debug, PartialEq)]
pub struct PieVars {
    pub qdelay: Dur,
    pub qdelay_old: Dur,
    /// Burst allowance left.
    pub burst_time: Dur,
    /// Time of the last departure; None after a reset.
    pub dq_tstamp: Option<Time>,
    pub prob: f64,
    pub accu_prob: f64,
}

pub struct Pie {
    q: VecDeque<(PktId, Time)>,
    bytes: u64,
    limit: Limit,
    p: PieParams,
    v: PieVars,
    next_update: Time,
}

impl Pie {
    pub fn new(limit: Limit, p: PieParams) -> Self {
        let v = PieVars {
            qdelay: Dur::ZERO,
            qdelay_old: Dur::ZERO,
            burst_time: p.max_burst,
            dq_tstamp: None,
            prob: 0.0,
            accu_prob: 0.0,
        };
        Pie {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            p,
            v,
            next_update: Time::ZERO + FIRST_UPDATE,
        }
    }

    pub fn params(&self) -> &PieParams {
        &self.p
    }

    pub fn vars(&self) -> &PieVars {
        &self.v
    }

    /// Linux `pie_vars_init` (the parts it resets).
    fn reset_vars(&mut self) {
        self.v.burst_time = self.p.max_burst;
        self.v.dq_tstamp = None;
        self.v.accu_prob = 0.0;
    }

    /// Runs every controller update due at or before `now`.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let before = self.v.clone();
            self.calculate_probability();
            self.next_update += self.p.tupdate;
            if self.v == before && self.next_update <= now {
                // A fixed point (an idle queue): the ticks left change
                // nothing, skip to the first one after `now`.
                let left = now.since(self.next_update).ps() / self.p.tupdate.ps() + 1;
                self.next_update += self.p.tupdate.mul(left);
            }
        }
    }

    /// Linux `pie_calculate_probability` (timestamp mode).
    pub fn calculate_probability(&mut self) {
        let (qdelay, qdelay_old) = (self.v.qdelay, self.v.qdelay_old);
        let mut update_prob = !(qdelay.is_zero() && self.bytes != 0);
        let (mut alpha, mut beta) = (self.p.alpha, self.p.beta);
        let prob = self.v.prob;
        if prob < 0.1 {
            alpha /= 2.0;
            beta /= 2.0;
            let mut power = 100.0;
            while prob < 1.0 / power && power <= 1e6 {
                alpha /= 4.0;
                beta /= 4.0;
                power *= 10.0;
            }
        }
        let secs = |d: Dur| d.secs_f64();
        let mut delta =
            alpha * (secs(qdelay) - secs(self.p.target)) + beta * (secs(qdelay) - secs(qdelay_old));
        // Increase in steps of at most 2 % once prob is high.
        if delta > 0.02 && prob >= 0.1 {
            delta = 0.02;
        }
        // Non-linear boost for very high delays.
        if qdelay > Dur::from_ms(250) {
            delta += 0.02;
        }
        let mut p = prob + delta;
        if p >= 1.0 {
            p = 1.0;
            update_prob = false;
        } else if p < 0.0 {
            p = 0.0;
        }
        // Delay zero for two updates: decay quickly.
        if qdelay.is_zero() && qdelay_old.is_zero() && update_prob {
            p -= p / 64.0;
        }
        self.v.prob = p;
        let half = self.p.target.div(2);
        if qdelay < half && qdelay_old < half && p == 0.0 {
            self.reset_vars();
        }
        self.v.qdelay_old = qdelay;
    }

    /// Linux `pie_drop_early`, for an arrival finding `backlog` bytes of
    /// frames (Linux's `sch->qstats.backlog`, compared with 2 × MTU).
    fn drop_early(&mut self, backlog: u64, rng: &mut Rng) -> bool {
        if !self.v.burst_time.is_zero() {
            return false;
        }
        if self.v.qdelay < self.p.target.div(2) && self.v.prob < 0.2 {
            return false;
        }
        if backlog < 2 * self.p.mtu_bytes as u64 {
            return false;
        }
        let local = self.v.prob;
        if local == 0.0 {
            self.v.accu_prob = 0.0;
        } else {
            self.v.accu_prob += local;
        }
        if self.v.accu_prob < 0.85 {
            return false;
        }
        if self.v.accu_prob >= 8.5 {
            return true;
        }
        if rng.uniform() < local {
            self.v.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// Linux `pie_process_dequeue` (timestamp mode).
    fn process_dequeue(&mut self, stamp: Time, now: Time) {
        self.v.qdelay = now.since(stamp);
        let dtime = self.v.dq_tstamp.map_or(Dur::ZERO, |t| now.since(t));
        self.v.dq_tstamp = Some(now);
        if self.bytes == 0 {
            self.v.qdelay = Dur::ZERO;
        }
        if dtime.is_zero() {
            return;
        }
        self.v.burst_time = self.v.burst_time.saturating_sub(dtime);
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        self.catch_up(cx.now);
        let size = cx.pool.get(pkt).size_bytes;
        if !self.limit.admits(self.q.len() as u32, self.bytes, size) {
            self.v.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        let mut marked = false;
        let frames = self.bytes + LINK_HEADER_BYTES * self.q.len() as u64;
        if self.drop_early(frames, cx.rng) {
            if self.p.ecn && self.v.prob <= MAX_ECN_PROB && set_ce(cx.pool, pkt) {
                marked = true;
            } else {
                self.v.accu_prob = 0.0;
                return Verdict::Dropped(DropReason::Pie);
            }
        }
        self.q.push_back((pkt, cx.now));
        self.bytes += size as u64;
        Verdict::Enqueued { marked }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        self.catch_up(cx.now);
        let (pkt, stamp) = self.q.pop_front()?;
        self.bytes -= cx.pool.get(pkt).size_bytes as u64;
        self.process_dequeue(stamp, cx.now);
        Some(Dequeued { pkt, marked: false })
    }

    // len_pkts, len_bytes, peek, for_each_packet
    timed_fifo_accessors!();
}

#[cfg(test)]
mod tests;
