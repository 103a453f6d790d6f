//! Random Early Detection with Linux `sch_red` semantics.
//!
//! Floyd and Jacobson 1993 as Linux implements it (`include/net/red.h`):
//! - the average queue `avg` is an EWMA of the backlog, updated at every
//!   enqueue with weight W = 2^-Wlog, on the backlog found by the arriving
//!   packet;
//! - after an idle period the average decays as if `idle / xmit_time` empty
//!   packets had arrived, `xmit_time = avpkt / bandwidth`;
//! - below `min` nothing happens; between `min` and `max` a packet is marked
//!   (ECT, with ECN on) or dropped with probability
//!   `pb = max_p (avg - min) / (max - min)`, spread by the packet counter so
//!   that marks are roughly uniform (mark when `pb · count ≥ R`, R uniform in
//!   [0, 1) and drawn anew after each mark);
//! - above `max` every packet is marked (ECT, ECN on, no `harddrop`) or
//!   dropped. With `gentle`, between `max` and `2 max` the probability rises
//!   linearly from `max_p` to 1 instead (Floyd's gentle RED).
//!
//! Thresholds are in bytes (`byte mode`, like Linux) or in packets.
//! `tc red ... burst B avpkt A min M` chooses Wlog as the smallest with
//! `B + 1 - M/A <= (1 - (1 - W)^B) / W`; [`RedParams::wlog_for_burst`]
//! does the same computation.

use super::Registration;
use super::{set_ce, AqmAction, DropReason, Occupancy, QueueCtx};
use crate::packet::PktId;
use crate::param::{self, Param, ParamError, Range};
use crate::sim::MAX_RATE_BPS;
use crate::sim::{Time, PS_PER_S};
use serde::{Deserialize, Serialize};

/// RED as a configuration names it (`{"kind": "red", ...}`); the run
/// builds [`RedParams`] from it and the link's rate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Thresholds in bytes (`bytes_mode`) or packets.
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub wlog: u32,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub harddrop: bool,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "yes")]
    pub bytes_mode: bool,
    #[serde(default = "default_avpkt")]
    pub avpkt_bytes: u32,
    /// For idle decay; 0 means "the link's rate".
    #[serde(default)]
    pub bandwidth_bps: u64,
}

fn yes() -> bool {
    true
}
fn default_avpkt() -> u32 {
    1000
}

/// Largest RED threshold, bytes or packets.
pub const MAX_RED_TH: f64 = 1e12;
/// Largest RED average packet size: the largest packet.
pub const MAX_AVPKT_BYTES: u32 = 65_535;

/// RED's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::float_in(
        "min_th",
        Range::float(0.0, false, MAX_RED_TH, false),
        "Lower threshold, bytes (bytes_mode) or packets.",
    ),
    Param::float_in(
        "max_th",
        Range::float(0.0, true, MAX_RED_TH, false),
        "Upper threshold, bytes (bytes_mode) or packets; above min_th.",
    ),
    Param::float_in(
        "max_p",
        Range::float(0.0, true, 1.0, false),
        "Marking probability at max_th.",
    ),
    Param::int_in(
        "wlog",
        Range::int(1, 31, ""),
        "EWMA weight of the average queue, W = 2^-wlog.",
    ),
    Param::flag("ecn", "Mark ECN-capable packets instead of dropping them."),
    Param::flag("harddrop", "Above max_th drop even ECN-capable packets."),
    Param::flag(
        "gentle",
        "Between max_th and 2 max_th the probability rises to 1 (gentle RED).",
    ),
    Param::flag("bytes_mode", "Thresholds in bytes (Linux), or in packets."),
    Param::int_in(
        "avpkt_bytes",
        Range::int(1, MAX_AVPKT_BYTES as u128, " bytes"),
        "Average packet size, for idle decay, bytes.",
    ),
    Param::int_in(
        "bandwidth_bps",
        Range::int(0, MAX_RATE_BPS as u128, " bit/s"),
        "Rate for idle decay, bit/s; 0: the link's rate.",
    ),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(c: &RedConfig) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, c, [min_th, max_th])?;
    if c.max_th <= c.min_th {
        return Err(ParamError::new(
            "max_th",
            format!("must exceed min_th ({} <= {})", c.max_th, c.min_th),
        ));
    }
    param::check_fields!(PARAMS, c, [max_p, wlog, avpkt_bytes, bandwidth_bps])
}

/// `aqm = {kind = "red", ...}`.
pub const REGISTRATION: Registration = super::registration! {
    name: "red",
    about: "RED (Floyd and Jacobson 1993; Linux sch_red): early drop or mark on the average queue.",
    params: PARAMS,
    config: RedConfig,
    required: {"min_th": 1, "max_th": 2, "max_p": 0.1, "wlog": 1},
    check: check,
    variant: super::AqmConfig::Red,
};

#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds in bytes if `bytes_mode`, else in packets.
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight W = 2^-wlog.
    pub wlog: u32,
    pub ecn: bool,
    pub harddrop: bool,
    pub gentle: bool,
    pub bytes_mode: bool,
    /// Average packet size in bytes and the link rate, for idle decay.
    pub avpkt_bytes: u32,
    pub bandwidth_bps: u64,
}

impl RedParams {
    /// `tc`'s choice of Wlog from a burst size (packets), min (bytes) and
    /// average packet size (bytes). `None` if no weight fits.
    pub fn wlog_for_burst(burst: u32, min_bytes: f64, avpkt: u32) -> Option<u32> {
        let a = burst as f64 + 1.0 - min_bytes / avpkt as f64;
        if a < 1.0 {
            return None;
        }
        let mut w = 0.5;
        for wlog in 1..32u32 {
            if a <= (1.0 - libm::pow(1.0 - w, burst as f64)) / w {
                return Some(wlog);
            }
            w /= 2.0;
        }
        None
    }
}

#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    w: f64,
    avg: f64,
    /// Packets since the last mark; -1 when below min or above max.
    count: i64,
    r: f64,
    idle_since: Option<Time>,
}

impl Red {
    pub fn new(p: RedParams) -> Self {
        let w = libm::ldexp(1.0, -(p.wlog as i32));
        Red {
            p,
            w,
            avg: 0.0,
            count: -1,
            r: 0.0,
            idle_since: Some(Time::ZERO),
        }
    }

    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn params(&self) -> &RedParams {
        &self.p
    }

    fn backlog(&self, occ: Occupancy) -> f64 {
        if self.p.bytes_mode {
            occ.bytes as f64
        } else {
            occ.pkts as f64
        }
    }

    pub(super) fn on_dequeue(&mut self, occ: Occupancy, now: Time) {
        if occ.pkts == 0 {
            self.idle_since = Some(now);
        }
    }

    fn update_avg(&mut self, occ: Occupancy, now: Time) {
        if let Some(since) = self.idle_since.take() {
            // m = idle / xmit_time in whole packet times, computed in
            // integers: the float quotient of an exact multiple can fall
            // just short of it (5 packet times gave 4.999…, floored to 4).
            let idle_bits = now.since(since).ps() as u128 * self.p.bandwidth_bps.max(1) as u128;
            let m = idle_bits / (self.p.avpkt_bytes.max(1) as u128 * 8 * PS_PER_S as u128);
            self.avg *= libm::pow(1.0 - self.w, m as f64);
        } else {
            self.avg += (self.backlog(occ) - self.avg) * self.w;
        }
    }

    /// Probability of marking for the current average, by region.
    fn region(&self) -> Region {
        let (min, max) = (self.p.min_th, self.p.max_th);
        if self.avg < min {
            Region::Below
        } else if self.avg < max {
            Region::Between(self.p.max_p * (self.avg - min) / (max - min))
        } else if self.p.gentle && self.avg < 2.0 * max {
            Region::Between(self.p.max_p + (1.0 - self.p.max_p) * (self.avg - max) / max)
        } else {
            Region::Above
        }
    }

    pub(super) fn on_enqueue(
        &mut self,
        occ: Occupancy,
        pkt: PktId,
        cx: &mut QueueCtx,
    ) -> AqmAction {
        self.update_avg(occ, cx.now);
        match self.region() {
            Region::Below => {
                self.count = -1;
                AqmAction::Pass
            }
            Region::Between(pb) => {
                self.count += 1;
                if self.count == 0 {
                    self.r = cx.rng.uniform();
                    return AqmAction::Pass;
                }
                if pb * self.count as f64 >= self.r {
                    self.count = 0;
                    self.r = cx.rng.uniform();
                    if self.p.ecn && set_ce(cx.pool, pkt) {
                        AqmAction::Mark
                    } else {
                        AqmAction::Drop(DropReason::RedEarly)
                    }
                } else {
                    AqmAction::Pass
                }
            }
            Region::Above => {
                self.count = -1;
                if self.p.ecn && !self.p.harddrop && set_ce(cx.pool, pkt) {
                    AqmAction::Mark
                } else {
                    AqmAction::Drop(DropReason::RedForced)
                }
            }
        }
    }
}

enum Region {
    Below,
    Between(f64),
    Above,
}
