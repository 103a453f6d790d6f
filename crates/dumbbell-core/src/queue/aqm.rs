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

use super::{set_ce, AqmAction, Occupancy, QueueCtx, Red};
use crate::net::packet::PktId;

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

/// Hysteresis marking (seed 000, Algorithm 1): mark from the upper threshold
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
    pub(super) fn at_enqueue(
        &mut self,
        occ: Occupancy,
        pkt: PktId,
        cx: &mut QueueCtx,
    ) -> AqmAction {
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

    /// Returns true if the policy marked the departing packet.
    pub(super) fn at_dequeue(&mut self, occ: Occupancy, pkt: PktId, cx: &mut QueueCtx) -> bool {
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
