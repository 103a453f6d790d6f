//! COBALT, CAKE's AQM: CoDel and BLUE run side by side on each flow queue
//! (Høiland-Jørgensen, Täht and Morton, "Piece of CAKE", IEEE LANMAN 2018,
//! section on COBALT; Linux `sch_cake.c`, `cobalt_should_drop`,
//! `cobalt_queue_full`, `cobalt_queue_empty`).
//!
//! - **CoDel part** (at dequeue): a packet whose sojourn time exceeds
//!   `target` (and four MTUs' serialization at the shaped rate) puts the
//!   queue in the dropping state; the first signal comes `interval` later,
//!   the next ones at `interval / sqrt(count)`. A signal is a CE mark on an
//!   ECN-capable packet, a drop otherwise. Unlike RFC 8289's CoDel, `count`
//!   is not reset when the dropping state ends: it decays, one step per
//!   `interval / sqrt(count)` while the queue stays below target or empty,
//!   so a queue that soon needs control again resumes near the old rate.
//! - **BLUE part**: each overflow drop from a queue (the fattest, see
//!   `cake.rs`) raises its drop probability `p_drop` by 1/256 (at most once
//!   per `target`); finding the queue empty lowers it by 1/4096 (same
//!   pacing). While `p_drop` is nonzero every dequeued packet is dropped
//!   with that probability, ECN-capable or not (BLUE targets unresponsive
//!   flows, which ECN would not slow).
//!
//! Linux keeps `1/sqrt(count)` in 32-bit fixed point (a table for small
//! counts, one Newton step above); we compute `interval / sqrt(count)` in
//! floating point, rounded to the picosecond, as `queue::codel` does.

use crate::packet::PktId;
use crate::queue::{set_ce, QueueCtx};
use crate::sim::{Dur, Time};

/// Linux `cake_set_rate`: BLUE's increment (1/256) and decrement (1/4096)
/// of `p_drop`, in 0.32 fixed point.
pub const P_INC: u32 = 1 << 24;
pub const P_DEC: u32 = 1 << 20;

/// COBALT's parameters (Linux `struct cobalt_params`), derived from the
/// configured target and interval and the shaped rate by `cake_set_rate`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CobaltParams {
    pub target: Dur,
    pub interval: Dur,
    /// Serialization of one MTU at the shaped rate (zero when unshaped).
    pub mtu_time: Dur,
}

impl CobaltParams {
    /// Linux `cake_set_rate`: the target is at least 1.5 MTU times at the
    /// shaped rate, and the interval grows by as much (at least twice the
    /// target), so that a slow link is not starved of its last packets.
    pub fn derive(target: Dur, interval: Dur, mtu_time: Dur) -> Self {
        let t = target.max(Dur::from_ps(mtu_time.ps() * 3 / 2));
        let i = (interval + t.saturating_sub(target)).max(t.mul(2));
        CobaltParams {
            target: t,
            interval: i,
            mtu_time,
        }
    }
}

/// `t + interval / sqrt(count)` (count 0 counts as 1, as Linux's table).
fn control(t: Time, interval: Dur, count: u32) -> Time {
    let step = interval.ps() as f64 / (count.max(1) as f64).sqrt();
    t + Dur::from_ps(step.round() as u64)
}

/// Signed `a - b` in picoseconds (Linux compares `ktime_t`s by sign).
fn diff(a: Time, b: Time) -> i128 {
    a.ps() as i128 - b.ps() as i128
}

/// One flow queue's COBALT state (Linux `struct cobalt_vars`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CobaltVars {
    /// CoDel's signalling frequency (decays instead of resetting).
    pub count: u32,
    /// When the next signal is due; also, with `count` zero, the end of
    /// an activity timeout.
    pub drop_next: Time,
    /// When BLUE last changed `p_drop`.
    pub blue_timer: Time,
    /// BLUE's drop probability, 0.32 fixed point.
    pub p_drop: u32,
    pub dropping: bool,
}

impl CobaltVars {
    /// Linux `cobalt_queue_full`: the queue overflowed (a packet was
    /// dropped from its head). Returns true if BLUE went from rest to
    /// active.
    pub fn queue_full(&mut self, p: &CobaltParams, now: Time) -> bool {
        let mut up = false;
        if diff(now, self.blue_timer) > p.target.ps() as i128 {
            up = self.p_drop == 0;
            self.p_drop = self.p_drop.saturating_add(P_INC);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
        up
    }

    /// Linux `cobalt_queue_empty`: the queue was served but held nothing.
    /// Returns true if BLUE went from active to rest.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: Time) -> bool {
        let mut down = false;
        if self.p_drop != 0 && diff(now, self.blue_timer) > p.target.ps() as i128 {
            self.p_drop = self.p_drop.saturating_sub(P_DEC);
            self.blue_timer = now;
            down = self.p_drop == 0;
        }
        self.dropping = false;
        if self.count != 0 && diff(now, self.drop_next) >= 0 {
            self.count -= 1;
            self.drop_next = control(self.drop_next, p.interval, self.count);
        }
        down
    }

    /// The flow's state has decayed to rest: no BLUE probability, no
    /// CoDel count and no activity timeout pending (Linux keeps a flow in
    /// the decaying rotation until then).
    pub fn at_rest(&self, now: Time) -> bool {
        self.p_drop == 0 && self.count == 0 && now >= self.drop_next
    }

    /// Linux `cobalt_should_drop`, for a packet just taken from the queue
    /// with its enqueue time `stamp`. Marks it CE when CoDel signals and it
    /// is ECN-capable. Returns (drop, marked). `bulk_flows` enters the
    /// over-target test only in Linux's ingress mode (0 here).
    pub fn should_drop(
        &mut self,
        p: &CobaltParams,
        stamp: Time,
        pkt: PktId,
        cx: &mut QueueCtx,
        bulk_flows: u64,
    ) -> (bool, bool) {
        let now = cx.now;
        let sojourn = now.since(stamp).ps();
        let mtu = p.mtu_time.ps();
        let mut schedule = diff(now, self.drop_next);
        let over_target =
            sojourn > p.target.ps() && sojourn > mtu * bulk_flows * 2 && sojourn > mtu * 4;
        let mut next_due = self.count != 0 && schedule >= 0;
        let (mut drop, mut marked) = (false, false);
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control(now, p.interval, self.count);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        if next_due && self.dropping {
            marked = set_ce(cx.pool, pkt);
            drop = !marked;
            self.count = self.count.saturating_add(1);
            self.drop_next = control(self.drop_next, p.interval, self.count);
            schedule = diff(now, self.drop_next);
        } else {
            // Below target: the count decays, one step per control interval.
            while next_due {
                self.count -= 1;
                self.drop_next = control(self.drop_next, p.interval, self.count);
                schedule = diff(now, self.drop_next);
                next_due = self.count != 0 && schedule >= 0;
            }
        }
        // BLUE, without ECN on purpose.
        if self.p_drop != 0 {
            drop |= ((cx.rng.next_u64() >> 32) as u32) < self.p_drop;
        }
        // drop_next doubles as an activity timeout.
        if self.count == 0 {
            self.drop_next = now + p.interval;
        } else if schedule > 0 && !drop {
            self.drop_next = now;
        }
        (drop, marked)
    }
}
