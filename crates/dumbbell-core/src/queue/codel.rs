//! CoDel, the Controlled-Delay AQM, with Linux `sch_codel` semantics.
//!
//! Nichols and Jacobson, "Controlling Queue Delay" (ACM Queue, 2012), as
//! RFC 8289 specifies it and Linux implements it (`include/net/codel_impl.h`,
//! `net/sched/sch_codel.c`). The point of measurement is the **dequeue**:
//!
//! - every packet is stamped when it is admitted; when it reaches the head
//!   its *sojourn time* (now − stamp) is compared with `target` (5 ms);
//! - CoDel may drop once the sojourn time has stayed at or above `target`
//!   for a whole `interval` (100 ms) while more than one MTU stays queued
//!   behind the packet (Linux's `backlog <= mtu`: a queue of about one
//!   packet is never dropped from);
//! - it then enters the dropping state: it drops the head packet (or, with
//!   ECN, marks an ECT one and sends it) and schedules the next drop at
//!   `drop_next = previous + interval / sqrt(count)`, `count` counting the
//!   drops of the episode: the **control law**, a drop rate growing as
//!   sqrt(count), matched to TCP's throughput falling as 1/sqrt(p);
//! - it leaves the dropping state at the first head packet below `target`
//!   (or when the queue empties);
//! - re-entering less than 16 intervals after the last scheduled drop, it
//!   starts from the drop rate that controlled the queue last time: `count`
//!   becomes the drops of the last episode, `count - lastcount`, when that
//!   is above 1, else 1 (Linux's carry-over; RFC 8289's pseudocode used
//!   `count - 2` within 8 intervals).
//!
//! Stated differences from Linux: time is exact picoseconds, not 1024-ns
//! units; 1/sqrt(count) is computed exactly, where Linux keeps a 16-bit
//! estimate refined by one Newton step per change of `count` (within a
//! fraction of a percent once `count` has moved a few steps); the MTU is an
//! Ethernet device's 1514 bytes (`psched_mtu`). Linux's optional
//! `ce_threshold` is not modelled.
//!
//! [`CodelVars::dequeue`] is the algorithm, shared by [`Codel`] (one FIFO)
//! and `fq_codel` (one instance per flow queue).

use super::timed_fifo::timed_fifo_accessors;
use super::{set_ce, Dequeued, DropReason, Limit, QueueCtx, QueueDisc, Verdict};
use super::{Registration, MAX_AQM_TIME_PS, MIN_AQM_TIME_PS};
use crate::packet::{PacketPool, PktId};
use crate::param::{self, Param, ParamError, Range};
use crate::sim::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// CoDel as a configuration names it (`{"kind": "codel", ...}`); the queue's
/// limit applies.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    pub target_ps: u64,
    pub interval_ps: u64,
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target_ps: DEFAULT_TARGET.ps(),
            interval_ps: DEFAULT_INTERVAL.ps(),
            ecn: false,
        }
    }
}

/// The range of CoDel's, FQ-CoDel's and PIE's target and interval.
pub const AQM_TIME: Range = Range::Time {
    lo: MIN_AQM_TIME_PS,
    hi: MAX_AQM_TIME_PS,
};

/// CoDel's target (here and in FQ-CoDel).
pub const TARGET: Param = Param::time_in(
    "target_ps",
    AQM_TIME,
    "Acceptable standing queue delay (Linux 5 ms).",
);
/// CoDel's interval (here and in FQ-CoDel).
pub const INTERVAL: Param = Param::time_in(
    "interval_ps",
    AQM_TIME,
    "Window over which the delay must stay above target (Linux 100 ms).",
);

/// CoDel's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    TARGET,
    INTERVAL,
    Param::flag("ecn", "Mark ECN-capable packets instead of dropping them."),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(c: &CodelConfig) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, c, [target_ps, interval_ps])
}

/// `aqm = {kind = "codel"}`.
pub const REGISTRATION: Registration = super::registration! {
    name: "codel",
    about: "CoDel (RFC 8289; Linux sch_codel): drops at dequeue while the sojourn time stays above target.",
    params: PARAMS,
    config: CodelConfig,
    check: check,
    variant: super::AqmConfig::Codel,
};

/// An Ethernet device's MTU as Linux's `psched_mtu` counts it: 1500 bytes
/// of IP packet and a 14-byte header.
pub const MTU_BYTES: u32 = 1514;
/// Linux `codel_params_init`: 5 ms and 100 ms.
pub const DEFAULT_TARGET: Dur = Dur::from_ms(5);
pub const DEFAULT_INTERVAL: Dur = Dur::from_ms(100);
/// `sch_codel`'s default limit, packets.
pub const DEFAULT_LIMIT_PKTS: u32 = 1000;
/// Re-entry within this many intervals of the last scheduled drop carries
/// the last episode's count over (Linux `codel_dequeue`).
pub const CARRY_OVER_INTERVALS: u64 = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing sojourn time.
    pub target: Dur,
    /// Sliding window over which the sojourn time must stay above target
    /// before dropping starts; the control law's time scale.
    pub interval: Dur,
    /// Mark ECT packets instead of dropping them.
    pub ecn: bool,
    /// No drop while at most this many bytes stay queued.
    pub mtu_bytes: u32,
}

impl Default for CodelParams {
    /// Linux's defaults (`sch_codel`: ECN off).
    fn default() -> Self {
        CodelParams {
            target: DEFAULT_TARGET,
            interval: DEFAULT_INTERVAL,
            ecn: false,
            mtu_bytes: MTU_BYTES,
        }
    }
}

/// `t + interval / sqrt(count)`: when the next drop is due.
pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    let step = interval.ps() as f64 / (count.max(1) as f64).sqrt();
    t + Dur::from_ps(step.round() as u64)
}

/// The state of one CoDel instance (Linux `struct codel_vars`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodelVars {
    /// Drops (or marks) in the current dropping episode.
    pub count: u32,
    /// `count` when the episode began (for the carry-over on re-entry).
    pub lastcount: u32,
    pub dropping: bool,
    /// When the sojourn time will have been above target for an interval;
    /// None while it is below.
    pub first_above_time: Option<Time>,
    /// When the next drop is due in the dropping state.
    pub drop_next: Time,
    /// Sojourn time of the last head packet examined.
    pub ldelay: Dur,
}

/// The queue CoDel takes packets from.
pub(super) trait CodelSource {
    /// Removes the head packet; returns it with its enqueue time.
    fn pop(&mut self, pool: &PacketPool) -> Option<(PktId, Time)>;
    /// Bytes left in the whole discipline (Linux `sch->qstats.backlog`).
    fn backlog_bytes(&self) -> u64;
}

impl CodelVars {
    /// Linux `codel_should_drop`: has the sojourn time of `head` been at or
    /// above target for an interval?
    fn should_drop(
        &mut self,
        head: Option<(PktId, Time)>,
        now: Time,
        backlog_bytes: u64,
        p: &CodelParams,
    ) -> bool {
        let Some((_, stamp)) = head else {
            self.first_above_time = None;
            return false;
        };
        self.ldelay = now.since(stamp);
        if self.ldelay < p.target || backlog_bytes <= p.mtu_bytes as u64 {
            // Went below: it must stay above for a whole interval again.
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Linux `codel_dequeue`: the next packet to send, after dropping what
    /// the control law says. Dropped packets go to `drops`.
    pub(super) fn dequeue(
        &mut self,
        p: &CodelParams,
        src: &mut dyn CodelSource,
        cx: &mut QueueCtx,
        drops: &mut VecDeque<(PktId, DropReason)>,
    ) -> Option<Dequeued> {
        let now = cx.now;
        let mut head = src.pop(cx.pool);
        if head.is_none() {
            self.dropping = false;
            return None;
        }
        let drop = self.should_drop(head, now, src.backlog_bytes(), p);
        let mut marked = false;
        if self.dropping {
            if !drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            } else {
                // Every drop now due (a large backlog can make several due
                // at once); the dequeue may end the dropping state.
                while self.dropping && now >= self.drop_next {
                    self.count += 1;
                    let (pkt, _) = head.expect("a head packet in the dropping state");
                    if p.ecn && set_ce(cx.pool, pkt) {
                        marked = true;
                        self.drop_next = control_law(self.drop_next, p.interval, self.count);
                        break;
                    }
                    drops.push_back((pkt, DropReason::Codel));
                    head = src.pop(cx.pool);
                    if self.should_drop(head, now, src.backlog_bytes(), p) {
                        self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            let (pkt, _) = head.expect("a head packet");
            if p.ecn && set_ce(cx.pool, pkt) {
                marked = true;
            } else {
                drops.push_back((pkt, DropReason::Codel));
                head = src.pop(cx.pool);
                // Linux re-evaluates for the new head (its timers move).
                self.should_drop(head, now, src.backlog_bytes(), p);
            }
            self.dropping = true;
            // Re-entering soon after the last episode: start from the drop
            // rate that controlled the queue then.
            let delta = self.count.saturating_sub(self.lastcount);
            let soon = now < self.drop_next + p.interval.mul(CARRY_OVER_INTERVALS);
            self.count = if delta > 1 && soon { delta } else { 1 };
            self.lastcount = self.count;
            self.drop_next = control_law(now, p.interval, self.count);
        }
        head.map(|(pkt, _)| Dequeued { pkt, marked })
    }
}

/// A FIFO of stamped packets: the source of a single CoDel queue.
struct Stamped<'a> {
    q: &'a mut VecDeque<(PktId, Time)>,
    bytes: &'a mut u64,
}

impl CodelSource for Stamped<'_> {
    fn pop(&mut self, pool: &PacketPool) -> Option<(PktId, Time)> {
        let (pkt, t) = self.q.pop_front()?;
        *self.bytes -= pool.get(pkt).size_bytes as u64;
        Some((pkt, t))
    }
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// `sch_codel`: one FIFO managed by CoDel; arrivals beyond the limit are
/// dropped (tail drop, `Overflow`).
pub struct Codel {
    q: VecDeque<(PktId, Time)>,
    bytes: u64,
    limit: Limit,
    params: CodelParams,
    vars: CodelVars,
    drops: VecDeque<(PktId, DropReason)>,
}

impl Codel {
    pub fn new(limit: Limit, params: CodelParams) -> Self {
        Codel {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            params,
            vars: CodelVars::default(),
            drops: VecDeque::new(),
        }
    }

    pub fn params(&self) -> &CodelParams {
        &self.params
    }

    /// The control law's state (count, dropping, next drop, last sojourn).
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let size = cx.pool.get(pkt).size_bytes;
        if !self.limit.admits(self.q.len() as u32, self.bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.q.push_back((pkt, cx.now));
        self.bytes += size as u64;
        Verdict::Enqueued { marked: false }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        let mut src = Stamped {
            q: &mut self.q,
            bytes: &mut self.bytes,
        };
        self.vars
            .dequeue(&self.params, &mut src, cx, &mut self.drops)
    }

    // len_pkts, len_bytes, peek, for_each_packet
    timed_fifo_accessors!();

    fn take_drop(&mut self) -> Option<(PktId, DropReason)> {
        self.drops.pop_front()
    }
}

#[cfg(test)]
mod tests;
