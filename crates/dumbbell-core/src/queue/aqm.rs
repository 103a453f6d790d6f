//! Marking policies a FIFO consults: none, RED, step at K, hysteresis.
//!
//! The congestion *decision* of the step and hysteresis policies lives in one
//! place, [`StepMark::decide`] and [`Hysteresis::decide`], wrapped by
//! [`Decision`]. The marking policies below and the packet-return policy of
//! `queue::feedback` both consult these same objects, so "congested" means
//! the same thing whether the answer is a CE mark or a copy sent back.
//!
//! Points of measurement, stated once:
//! - at **enqueue** a policy sees the occupancy the arriving packet finds,
//!   not counting itself (the DCTCP switch: "the queue the packet joins");
//! - at **dequeue** it sees what is left behind the leaving packet (a P4
//!   egress pipeline reading the queue depth as the packet departs).

use super::Registration;
use super::{set_ce, AqmAction, Occupancy, QueueCtx, Red};
use crate::packet::PktId;
use crate::param::{self, Param, ParamError, Range, Ty};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

/// Step marking as a configuration names it (`{"kind": "step", ...}`):
/// exactly one of `k_pkts`, `k_bytes`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct StepConfig {
    pub k_pkts: Option<u32>,
    pub k_bytes: Option<u64>,
    pub at: MarkAt,
}

/// Hysteresis marking as a configuration names it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HysteresisConfig {
    pub upper_pkts: u32,
    pub lower_pkts: u32,
    #[serde(default = "dequeue")]
    pub at: MarkAt,
}

fn dequeue() -> MarkAt {
    MarkAt::Dequeue
}

const AT: Ty = Ty::Choice(&["enqueue", "dequeue"]);

/// Step marking's parameters.
pub const STEP_PARAMS: &[Param] = &[
    Param::new(
        "k_pkts",
        Ty::Optional(&Ty::Int),
        Range::U32,
        "Threshold K, packets (or k_bytes).",
    ),
    Param::new(
        "k_bytes",
        Ty::Optional(&Ty::Int),
        Range::U64,
        "Threshold K, bytes (or k_pkts).",
    ),
    Param::new(
        "at",
        AT,
        Range::Any,
        "Where the queue is read: at enqueue (default) or dequeue.",
    ),
];

/// Hysteresis marking's parameters.
pub const HYSTERESIS_PARAMS: &[Param] = &[
    Param::int_in(
        "upper_pkts",
        Range::int(1, u32::MAX as u128, " packets"),
        "Upper threshold L_S: marking starts here, packets.",
    ),
    Param::int_in(
        "lower_pkts",
        Range::U32,
        "Lower threshold L_I: marking goes on down to here, packets; below upper_pkts.",
    ),
    Param::new(
        "at",
        AT,
        Range::Any,
        "Where the queue is read: at dequeue (default) or enqueue.",
    ),
];

/// Refuses a step with no threshold or two (naming the `aqm` table).
pub fn check_step(c: &StepConfig) -> Result<(), ParamError> {
    if c.k_pkts.is_some() == c.k_bytes.is_some() {
        return Err(ParamError {
            param: None,
            why: "step marking needs exactly one of k_pkts, k_bytes".into(),
        });
    }
    Ok(())
}

/// Refuses thresholds out of range or out of order.
pub fn check_hysteresis(c: &HysteresisConfig) -> Result<(), ParamError> {
    check_thresholds(HYSTERESIS_PARAMS, c.upper_pkts, c.lower_pkts)
}

/// A hysteresis's thresholds (here and in `feedback`): upper in range,
/// lower below it.
pub fn check_thresholds(table: &'static [Param], upper: u32, lower: u32) -> Result<(), ParamError> {
    param::param(table, "upper_pkts").int(upper)?;
    if lower >= upper {
        return Err(ParamError::new(
            "lower_pkts",
            "hysteresis needs lower (L_I) < upper (L_S)",
        ));
    }
    Ok(())
}

/// `aqm = {kind = "step", k_pkts = ...}`.
pub const STEP: Registration = super::registration! {
    name: "step",
    about: "Step marking at K (DCTCP, RFC 8257 section 3.1): CE on every ECT packet while the queue is at or above K.",
    params: STEP_PARAMS,
    config: StepConfig,
    check: check_step,
    variant: super::AqmConfig::Step,
};

/// `aqm = {kind = "hysteresis", upper_pkts = ..., lower_pkts = ...}`.
pub const HYSTERESIS: Registration = super::registration! {
    name: "hysteresis",
    about: "Hysteresis marking (DCTCP with hysteresis in P4 switches): mark from L_S up, keep marking down to L_I.",
    params: HYSTERESIS_PARAMS,
    config: HysteresisConfig,
    required: {"upper_pkts": 2, "lower_pkts": 1},
    check: check_hysteresis,
    variant: super::AqmConfig::Hysteresis,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkPoint {
    Enqueue,
    Dequeue,
}

/// Unit a threshold is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    Pkts(u32),
    Bytes(u64),
}

impl Threshold {
    pub fn reached(self, occ: Occupancy) -> bool {
        match self {
            Threshold::Pkts(k) => occ.pkts >= k,
            Threshold::Bytes(k) => occ.bytes >= k,
        }
    }
}

/// DCTCP's step marking (RFC 8257 §3.1): CE on every ECT packet while the
/// instantaneous queue is at or above K.
#[derive(Clone, Debug)]
pub struct StepMark {
    pub k: Threshold,
    pub at: MarkPoint,
}

impl StepMark {
    /// RFC 8257 §3.1: congested while the queue is at or above K.
    pub fn decide(&self, occ: Occupancy) -> bool {
        self.k.reached(occ)
    }
}

/// Hysteresis marking (Silva, Vieira and Nacif, Algorithm 1): mark from the upper threshold
/// L_S up; keep marking while the queue stays at or above the lower threshold
/// L_I after having reached L_S; stop below L_I.
#[derive(Clone, Debug)]
pub struct Hysteresis {
    pub upper: Threshold,
    pub lower: Threshold,
    pub at: MarkPoint,
    /// The one state bit per queue: "congested".
    pub congested: bool,
}

impl Hysteresis {
    /// Algorithm 1: decide and update the state bit.
    pub fn decide(&mut self, occ: Occupancy) -> bool {
        if self.upper.reached(occ) {
            self.congested = true;
        } else if !(self.congested && self.lower.reached(occ)) {
            self.congested = false;
        }
        self.congested
    }
}

/// A congestion decision, step or hysteresis, shared by the marking policy
/// ([`Aqm`]) and the packet-return policy (`queue::feedback`).
#[derive(Clone, Debug)]
pub enum Decision {
    Step(StepMark),
    Hysteresis(Hysteresis),
}

impl Decision {
    /// Where the decision reads the queue.
    pub fn at(&self) -> MarkPoint {
        match self {
            Decision::Step(s) => s.at,
            Decision::Hysteresis(h) => h.at,
        }
    }

    /// Decides for one packet at the point of measurement (and, for
    /// hysteresis, moves the state bit).
    pub fn decide(&mut self, occ: Occupancy) -> bool {
        match self {
            Decision::Step(s) => s.decide(occ),
            Decision::Hysteresis(h) => h.decide(occ),
        }
    }

    /// The state a trace reports, without deciding: Algorithm 1's bit, or
    /// for a step whether `occ` is at or above K.
    pub fn congested(&self, occ: Occupancy) -> bool {
        match self {
            Decision::Step(s) => s.decide(occ),
            Decision::Hysteresis(h) => h.congested,
        }
    }
}

/// The marking/dropping policy of a FIFO.
#[derive(Clone, Debug)]
pub enum Aqm {
    None,
    Red(Box<Red>),
    Step(StepMark),
    Hysteresis(Hysteresis),
}

impl Aqm {
    /// The policy's decision for an arriving packet. A FIFO without a
    /// policy (drop-tail) answers inline, without a call.
    #[inline]
    pub(super) fn at_enqueue(
        &mut self,
        occ: Occupancy,
        pkt: PktId,
        cx: &mut QueueCtx,
    ) -> AqmAction {
        if matches!(self, Aqm::None) {
            return AqmAction::Pass;
        }
        self.policy_at_enqueue(occ, pkt, cx)
    }

    /// Returns true if the policy marked the departing packet (inline
    /// without a policy, as [`Self::at_enqueue`]).
    #[inline]
    pub(super) fn at_dequeue(&mut self, occ: Occupancy, pkt: PktId, cx: &mut QueueCtx) -> bool {
        !matches!(self, Aqm::None) && self.policy_at_dequeue(occ, pkt, cx)
    }

    #[inline(never)]
    fn policy_at_enqueue(&mut self, occ: Occupancy, pkt: PktId, cx: &mut QueueCtx) -> AqmAction {
        match self {
            Aqm::None => AqmAction::Pass,
            Aqm::Red(red) => red.on_enqueue(occ, pkt, cx),
            Aqm::Step(s) if s.at == MarkPoint::Enqueue => mark_if(s.decide(occ), pkt, cx),
            Aqm::Hysteresis(h) if h.at == MarkPoint::Enqueue => {
                let m = h.decide(occ);
                mark_if(m, pkt, cx)
            }
            _ => AqmAction::Pass,
        }
    }

    #[inline(never)]
    fn policy_at_dequeue(&mut self, occ: Occupancy, pkt: PktId, cx: &mut QueueCtx) -> bool {
        match self {
            Aqm::Red(red) => {
                red.on_dequeue(occ, cx.now);
                false
            }
            Aqm::Step(s) if s.at == MarkPoint::Dequeue => s.decide(occ) && set_ce(cx.pool, pkt),
            Aqm::Hysteresis(h) if h.at == MarkPoint::Dequeue => {
                h.decide(occ) && set_ce(cx.pool, pkt)
            }
            _ => false,
        }
    }
}

impl Aqm {
    /// The marking state a trace reports for occupancy `occ` (see
    /// [`Decision::congested`]); None for policies without one.
    pub fn congested(&self, occ: Occupancy) -> Option<bool> {
        match self {
            Aqm::Step(s) => Some(s.decide(occ)),
            Aqm::Hysteresis(h) => Some(h.congested),
            _ => None,
        }
    }
}

fn mark_if(cond: bool, pkt: PktId, cx: &mut QueueCtx) -> AqmAction {
    if cond && set_ce(cx.pool, pkt) {
        AqmAction::Mark
    } else {
        AqmAction::Pass
    }
}
