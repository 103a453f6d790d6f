//! Queue disciplines at egress ports.
//!
//! A discipline implements [`QueueDisc`]: `enqueue` decides admission (and may
//! mark), `dequeue` hands out the next packet (and may mark). Drops carry a
//! typed [`DropReason`]. Marking policies (RED, step at K, hysteresis) are
//! [`Aqm`] values that the FIFO consults at enqueue or dequeue, not copies of
//! the queue. Counting (enqueues, drops by reason, marks, occupancy traces) is
//! done once, by the port that wraps the discipline (`net::port`). The
//! packet-return policy (`feedback`) is consulted by the port too, around
//! whatever discipline it wraps, with the same [`Decision`] objects.
//!
//! A two-class port ([`twoclass::TwoClass`]) is a discipline made of two
//! disciplines, a [`classify::Classifier`] and a [`sched::Scheduler`].
//!
//! The delay-based disciplines Linux ships beside RED are disciplines of
//! their own, not FIFO policies, because they keep each packet's arrival
//! time: [`codel::Codel`] (`sch_codel`), [`fq_codel::FqCodel`]
//! (`sch_fq_codel`), [`pie::Pie`] (`sch_pie`) and [`cake::Cake`]
//! (`sch_cake`, whose shaper the port applies: `net::port`). CoDel, FQ-CoDel
//! and CAKE drop packets that are already queued (at dequeue, or from the
//! fattest flow on overflow); such drops are handed to the port through
//! [`QueueDisc::take_drop`], so the port still counts and frees every packet.

pub mod aqm;
pub mod cake;
pub mod classify;
pub mod codel;
pub mod dualpi2;
pub mod feedback;
mod flow_queues;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod registry;
pub mod sched;
mod timed_fifo;
pub mod twoclass;

pub use aqm::{Aqm, Decision, Hysteresis, MarkPoint, StepMark};
pub use cake::{Cake, CakeParams};
pub use codel::{Codel, CodelParams};
pub use feedback::{CopySize, Feedback};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};
pub use twoclass::{ClassCounts, ClassReport, TwoClass};

use crate::packet::{Ecn, PacketPool, PktId};
use crate::param::{ParamError, Params};
use crate::sim::{Rng, Time, PS_PER_S, PS_PER_US};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A port's discipline as a configuration names it (`queue.aqm`): a FIFO
/// with a marking policy (none, RED, step, hysteresis) or a discipline of
/// its own (CoDel, FQ-CoDel, PIE). Each kind's parameters live in its own
/// file, with their ranges ([`registry`] lists them).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    #[default]
    None,
    Red(red::RedConfig),
    Step(aqm::StepConfig),
    Hysteresis(aqm::HysteresisConfig),
    /// CoDel (`queue::codel`, Linux `sch_codel`); the queue's limit applies.
    Codel(codel::CodelConfig),
    /// FQ-CoDel (`queue::fq_codel`, Linux `sch_fq_codel`); the queue's
    /// limit applies to all flow queues together.
    FqCodel(fq_codel::FqCodelConfig),
    /// PIE (`queue::pie`, Linux `sch_pie`, timestamp mode).
    Pie(pie::PieConfig),
    /// CAKE (`queue::cake`, Linux `sch_cake`); the queue's limits set its
    /// buffer, its `rate_bps` the port's shaper.
    Cake(cake::CakeConfig),
    /// DualPI2 (`queue::dualpi2`, RFC 9332, Linux `sch_dualpi2`); the
    /// queue's limit applies to both queues together.
    Dualpi2(dualpi2::DualPi2Config),
}

impl AqmConfig {
    /// A discipline of its own (CoDel, FQ-CoDel, PIE) rather than a policy
    /// of the FIFO.
    pub fn is_own_discipline(&self) -> bool {
        matches!(
            self,
            AqmConfig::Codel(_)
                | AqmConfig::FqCodel(_)
                | AqmConfig::Pie(_)
                | AqmConfig::Cake(_)
                | AqmConfig::Dualpi2(_)
        )
    }

    /// Refuses out-of-range parameters, naming the one at fault (relative
    /// to the `aqm` table); each kind's file checks its own.
    pub fn check(&self) -> Result<(), ParamError> {
        match self {
            AqmConfig::None => Ok(()),
            AqmConfig::Red(c) => red::check(c),
            AqmConfig::Step(c) => aqm::check_step(c),
            AqmConfig::Hysteresis(c) => aqm::check_hysteresis(c),
            AqmConfig::Codel(c) => codel::check(c),
            AqmConfig::FqCodel(c) => fq_codel::check(c),
            AqmConfig::Pie(c) => pie::check(c),
            AqmConfig::Cake(c) => cake::check(c),
            AqmConfig::Dualpi2(c) => dualpi2::check(c),
        }
    }
}

/// How a discipline's configuration is made from its parameters (unset
/// ones at their defaults), or why they are refused.
pub type MakeFn = fn(&Params) -> Result<AqmConfig, ParamError>;

/// One discipline as a configuration names it (`queue/<name>.rs` declares
/// its own; [`registry`] lists them).
pub type Registration = crate::param::Registration<MakeFn>;

/// A discipline's [`Registration`], as its file declares it: its name and
/// sentence, its parameters (the `PARAMS` table, the configuration struct
/// whose `Default` holds the defaults, and the `check` of its ranges and
/// rules) and the [`AqmConfig`] variant it makes. A discipline with
/// required parameters gives, as `required`, a valid value for each (the
/// schema shows them without a default). A discipline whose only rules are
/// its ranges gives `ranges: [field, ...]` in place of `check` and writes
/// the macro as a statement: it writes `check` and `REGISTRATION` both
/// (`param::ranged_registration!`).
macro_rules! registration {
    { name: $name:literal, about: $about:literal, params: $params:expr, config: $config:ty,
      check: $check:expr, variant: $variant:path $(,)? } => {
        $crate::queue::Registration::new::<$config>($name, $about, $params, |params| {
            $crate::param::made::<$config, _>(params, $check, $variant)
        })
    };
    { name: $name:literal, about: $about:literal, params: $params:expr, config: $config:ty,
      required: $required:tt, check: $check:expr, variant: $variant:path $(,)? } => {
        $crate::queue::Registration {
            name: $name, about: $about, params: $params,
            defaults: || $crate::param::defaults_beside_required::<$config>(serde_json::json!($required)),
            make: |params| $crate::param::made::<$config, _>(params, $check, $variant),
        }
    };
    // `ranges: [...]` in place of `check:`: a statement that writes the
    // `check` of those ranges and the `REGISTRATION` (param.rs).
    { $($item:tt)+ } => { $crate::param::ranged_registration! { queue, $($item)+ } };
}
pub(crate) use registration;

/// CoDel's, FQ-CoDel's and PIE's times (target, interval, tupdate): 1 µs
/// to one hour. PIE's burst allowance may also be zero (none).
pub const MIN_AQM_TIME_PS: u64 = PS_PER_US;
pub const MAX_AQM_TIME_PS: u64 = 3600 * PS_PER_S;

crate::u8_enum::u8_enum! {
    /// Why a packet was dropped. Fixed and small: counters are indexed by it;
    /// its name is the `reason` in the drop log and the packet trace.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum DropReason {
        /// The queue's packet or byte limit was reached.
        Overflow = "overflow",
        /// RED's probabilistic drop between its thresholds (non-ECT packet).
        RedEarly = "red_early",
        /// RED's forced drop above its maximum threshold.
        RedForced = "red_forced",
        /// Random loss on the link (Bernoulli).
        LinkLoss = "link_loss",
        /// No route to the destination.
        NoRoute = "no_route",
        /// A software switch's packet-processing pipeline was full (`net::pipeline`).
        Pipeline = "pipeline",
        /// CoDel's control law dropped a queued packet at dequeue (CoDel and
        /// FQ-CoDel; Linux `drop_count`).
        Codel = "codel",
        /// PIE's probabilistic early drop at enqueue (Linux `pie_drop_early`).
        Pie = "pie",
        /// DualPI2's drop at dequeue, classic (p'²) or L on overload.
        DualPi2 = "dualpi2",
    }
}

/// The result of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted; `marked` if the discipline set CE on it.
    Enqueued { marked: bool },
    /// Not admitted; the caller frees the packet and counts the reason.
    Dropped(DropReason),
}

/// A packet leaving a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dequeued {
    pub pkt: PktId,
    /// The discipline set CE on it at dequeue.
    pub marked: bool,
}

/// What a queue discipline may use besides its own state.
pub struct QueueCtx<'a> {
    pub now: Time,
    pub pool: &'a mut PacketPool,
    pub rng: &'a mut Rng,
}

/// An egress queue discipline.
pub trait QueueDisc {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict;
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued>;
    fn len_pkts(&self) -> u32;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_pkts() == 0
    }
    /// The packet `dequeue` would hand out next, without taking it (a
    /// deficit round robin scheduler reads its size).
    fn peek(&self) -> Option<PktId>;
    /// Every packet held, for the end-of-run conservation audit.
    fn for_each_packet(&self, f: &mut dyn FnMut(PktId));
    /// Classification counters, for a two-class port.
    fn class_report(&self) -> Option<ClassReport> {
        None
    }
    /// A DualPI2 port's counters (the `queues` table's `dualpi2_*`
    /// columns); None for every other discipline.
    fn dualpi2_counts(&self) -> Option<&dualpi2::DualPi2Counts> {
        None
    }
    /// The marking policy's congestion state, for traces (Algorithm 1's
    /// bit, or occupancy ≥ K for a step); None without such a policy.
    fn marking_state(&self) -> Option<bool> {
        None
    }
    /// A packet the discipline dropped from inside since the last call
    /// (CoDel's drops at dequeue, FQ-CoDel's drops from the fattest flow),
    /// oldest first. The port calls it after every `enqueue` and `dequeue`
    /// until it returns None, then counts and frees each packet. A FIFO
    /// only ever drops the arriving packet (its `Verdict`) and has none.
    fn take_drop(&mut self) -> Option<(PktId, DropReason)> {
        None
    }
}

/// Limits of a queue; `None` means unlimited in that unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub pkts: Option<u32>,
    pub bytes: Option<u64>,
}

impl Limit {
    pub(crate) fn admits(&self, len_pkts: u32, len_bytes: u64, size: u32) -> bool {
        self.pkts.map_or(true, |l| len_pkts < l)
            && self.bytes.map_or(true, |l| len_bytes + size as u64 <= l)
    }
}

/// Sets CE on an ECN-capable packet; false if it is Not-ECT.
pub fn set_ce(pool: &mut PacketPool, pkt: PktId) -> bool {
    let p = pool.get_mut(pkt);
    if p.ecn.is_ect() {
        p.ecn = Ecn::Ce;
        true
    } else {
        false
    }
}

/// A first-in first-out queue with a limit and an optional marking policy.
pub struct Fifo {
    q: VecDeque<PktId>,
    bytes: u64,
    limit: Limit,
    aqm: Aqm,
}

impl Fifo {
    pub fn new(limit: Limit, aqm: Aqm) -> Self {
        // The ring grows as packets arrive (an idle port of a 100 000-host
        // topology holds nothing), never reserved from the limit.
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            aqm,
        }
    }

    pub fn drop_tail(limit: Limit) -> Self {
        Self::new(limit, Aqm::None)
    }

    pub fn aqm(&self) -> &Aqm {
        &self.aqm
    }

    /// Whether a packet of `size` bytes would pass straight through: the
    /// queue is empty, has no marking policy and admits it. Then
    /// `enqueue` followed at once by `dequeue` hands the same packet back
    /// unmarked and leaves the queue as it was (empty, no bytes), which
    /// is what an idle port's `World::enqueue` would do.
    #[inline]
    pub fn passes_through(&self, size: u32) -> bool {
        self.q.is_empty() && matches!(self.aqm, Aqm::None) && self.limit.admits(0, 0, size)
    }
}

impl QueueDisc for Fifo {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let size = cx.pool.get(pkt).size_bytes;
        let occ = Occupancy {
            pkts: self.q.len() as u32,
            bytes: self.bytes,
        };
        let mut marked = false;
        match self.aqm.at_enqueue(occ, pkt, cx) {
            AqmAction::Pass => {}
            AqmAction::Mark => marked = true,
            AqmAction::Drop(r) => return Verdict::Dropped(r),
        }
        if !self.limit.admits(occ.pkts, occ.bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.q.push_back(pkt);
        self.bytes += size as u64;
        Verdict::Enqueued { marked }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        let pkt = self.q.pop_front()?;
        if let Some(&next) = self.q.front() {
            cx.pool.prefetch(next); // read by the next dequeue (see `prefetch`)
        }
        self.bytes -= cx.pool.get(pkt).size_bytes as u64;
        let occ = Occupancy {
            pkts: self.q.len() as u32,
            bytes: self.bytes,
        };
        let marked = self.aqm.at_dequeue(occ, pkt, cx);
        Some(Dequeued { pkt, marked })
    }

    fn len_pkts(&self) -> u32 {
        self.q.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn peek(&self) -> Option<PktId> {
        self.q.front().copied()
    }

    fn for_each_packet(&self, f: &mut dyn FnMut(PktId)) {
        self.q.iter().for_each(|p| f(*p));
    }

    fn marking_state(&self) -> Option<bool> {
        self.aqm.congested(Occupancy {
            pkts: self.q.len() as u32,
            bytes: self.bytes,
        })
    }
}

/// Queue occupancy seen by a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    pub pkts: u32,
    pub bytes: u64,
}

/// A policy's decision at enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AqmAction {
    Pass,
    Mark,
    Drop(DropReason),
}

#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;
