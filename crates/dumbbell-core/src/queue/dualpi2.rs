//! DualPI2, the DualQ Coupled AQM of RFC 9332 (De Schepper, Briscoe and
//! White), with the defaults of Linux `sch_dualpi2`.
//!
//! Two FIFOs share the port: the **L queue** holds L4S packets (ECN
//! codepoint ECT(1) or CE, Linux's default `ecn_mask`), the **C queue**
//! everything else. One PI2 controller (De Schepper, Bondarenko, Tsang and
//! Briscoe, "PI2: A Linearized AQM for both Classic and Scalable TCP",
//! ACM CoNEXT 2016) updates a base probability p' every `tupdate` (16 ms)
//! from the larger of the two head packets' sojourn times:
//!
//! ```text
//! p' += alpha (qdelay - target) + beta (qdelay - qdelay_old)
//! ```
//!
//! with `target` 15 ms, `alpha` 0.16 and `beta` 3.2 per second of delay
//! (Linux's 41/256 and 819/256), p' kept in [0, 1].
//!
//! Decisions are taken at **dequeue** (Linux `drop_early` off), as Linux's
//! `must_drop` takes them, on the packet already off its queue:
//!
//! - **the 2-MTU floor:** while the two queues together hold less than
//!   2 × [`MTU_BYTES`] of frames (the packet leaving not counted; each
//!   packet counted with its 14-byte link header, as Linux's backlog counts
//!   it), nothing probabilistic happens: no classic drop or mark, no
//!   coupled mark, no overload drop;
//! - **overload** is k·p' > 1;
//! - **the C queue:** with p_C = p'² (Linux rolls two random numbers
//!   against p'; here one draw against p'², the same distribution), a hit
//!   drops the packet when overloaded or Not-ECT, else CE-marks it;
//! - **the L queue:** overloaded, with `drop_overload` (Linux's default) a
//!   hit at p'² drops the packet whatever its codepoint, and every packet
//!   not dropped is CE-marked (without `drop_overload`, every packet is);
//!   not overloaded, the coupled p_L = k·p' (k = 2) CE-marks it;
//! - **then the step**, floor or not: a packet of the L queue that found at
//!   least `min_qlen_step` (0) packets in the L queue on arrival (Linux
//!   decides this at enqueue) and waited more than the step threshold
//!   (1 ms) is CE-marked and counted as a step mark, already CE or not
//!   (Linux's `INET_ECN_set_ce` succeeds on a CE packet).
//!
//! **Scheduler: Linux's weighted round robin by byte credit** (`c_protection`,
//! not RFC 9332's time-shifted FIFO): the C queue's weight is `wc` = 10 %,
//! the L queue's `wl` = 90 %. A signed credit starts at MTU·(wc − wl)
//! (negative: the L queue first). The L queue sends while the credit is ≤ 0
//! (or the C queue is empty), otherwise the C queue. A packet sent while
//! the other queue holds packets changes the credit by its frame (IP packet
//! and 14-byte link header, Linux's `qdisc_pkt_len`): + frame × wc from the
//! L queue, − frame × wl from the C queue. With the other queue empty the
//! credit stays as it is, a packet dropped at dequeue changes nothing, and
//! the credit returns to its start value only when a dequeue finds both
//! queues empty (Linux `dequeue_packet`, `dualpi2_qdisc_dequeue`).
//!
//! The controller runs on Linux's timer, every `tupdate` from the queue's
//! creation; here the ticks due are run when the queue is next touched, as
//! in [`pie`](super::pie) (nothing the controller reads changes between two
//! events). The port's packet limit (Linux 10 000 packets) applies to both
//! queues together; Linux's memory limit is not modelled.

use super::codel::{AQM_TIME, MTU_BYTES};
use super::{set_ce, Dequeued, DropReason, Limit, QueueCtx, QueueDisc, Verdict};
use crate::packet::{Ecn, PktId};
use crate::param::{Param, Range};
use crate::sim::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// DualPI2 as a configuration names it (`{"kind": "dualpi2", ...}`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DualPi2Config {
    pub target_ps: u64,
    pub tupdate_ps: u64,
    pub alpha: f64,
    pub beta: f64,
    pub step_thresh_ps: u64,
    pub min_qlen_step: u32,
    pub k: f64,
    pub c_protection_pct: u32,
    pub drop_overload: bool,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target_ps: DEFAULT_TARGET.ps(),
            tupdate_ps: DEFAULT_TUPDATE.ps(),
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            step_thresh_ps: DEFAULT_STEP.ps(),
            min_qlen_step: 0,
            k: DEFAULT_K,
            c_protection_pct: DEFAULT_WC,
            drop_overload: true,
        }
    }
}

/// Linux `dualpi2_reset_default`.
pub const DEFAULT_TARGET: Dur = Dur::from_ms(15);
pub const DEFAULT_TUPDATE: Dur = Dur::from_ms(16);
pub const DEFAULT_ALPHA: f64 = 41.0 / 256.0;
pub const DEFAULT_BETA: f64 = 819.0 / 256.0;
pub const DEFAULT_STEP: Dur = Dur::from_ms(1);
pub const DEFAULT_K: f64 = 2.0;
pub const DEFAULT_WC: u32 = 10;
pub const DEFAULT_LIMIT_PKTS: u32 = 10_000;
/// Largest gain accepted, per second (Linux: 2^23 − 1 in 1/256 Hz).
pub const MAX_GAIN: f64 = 32768.0;
/// Largest coupling factor (Linux keeps k in a byte).
pub const MAX_K: f64 = 255.0;

/// DualPI2's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::time_in(
        "target_ps",
        AQM_TIME,
        "PI2's target queue delay (Linux 15 ms).",
    ),
    Param::time_in(
        "tupdate_ps",
        AQM_TIME,
        "Period of the probability update (Linux 16 ms).",
    ),
    Param::float_in(
        "alpha",
        Range::float(0.0, true, MAX_GAIN, false),
        "Integral gain, per second of delay error (Linux 0.16).",
    ),
    Param::float_in(
        "beta",
        Range::float(0.0, true, MAX_GAIN, false),
        "Proportional gain, per second of delay change (Linux 3.2).",
    ),
    Param::time_in(
        "step_thresh_ps",
        AQM_TIME,
        "L queue: mark every packet whose sojourn exceeds this (Linux 1 ms).",
    ),
    Param::int_in(
        "min_qlen_step",
        Range::int(0, u32::MAX as u128, " packets"),
        "L queue: the step applies to a packet that found at least this many packets there on arrival (Linux 0).",
    ),
    Param::float_in(
        "k",
        Range::float(0.0, true, MAX_K, false),
        "Coupling factor: p_L = k·p', p_C = p'² (Linux 2).",
    ),
    Param::int_in(
        "c_protection_pct",
        Range::int(0, 100, " %"),
        "The C queue's scheduler weight, % (Linux 10; the L queue has the rest).",
    ),
    Param::flag(
        "drop_overload",
        "Once k·p' > 1, drop L packets with p'² and mark the rest (Linux on); off: mark them all.",
    ),
];

super::registration! {
    /// `aqm = {kind = "dualpi2"}`.
    name: "dualpi2",
    about: "DualPI2 (RFC 9332; Linux sch_dualpi2): an L4S queue (ECT(1), CE) with a 1 ms step and a classic queue with PI2, coupled by k.",
    params: PARAMS,
    config: DualPi2Config,
    ranges: [
        target_ps, tupdate_ps, alpha, beta, step_thresh_ps, min_qlen_step, k, c_protection_pct,
    ],
    variant: super::AqmConfig::Dualpi2,
}

/// Which of the two queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    L = 0,
    C = 1,
}

impl Lane {
    /// Linux's default classification: ECT(1) and CE go to the L queue.
    pub fn of(ecn: Ecn) -> Lane {
        if matches!(ecn, Ecn::Ect1 | Ecn::Ce) {
            Lane::L
        } else {
            Lane::C
        }
    }
}

/// Counters of one DualPI2 port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DualPi2Counts {
    /// Packets admitted, per lane (indexed by `Lane`).
    pub enqueued: [u64; 2],
    /// CE marks from the step threshold (L queue), a packet the probability
    /// marked first included (Linux's `step_marks`).
    pub step_marks: u64,
    /// CE marks from the probability (either queue; overload included).
    pub prob_marks: u64,
    /// Drops by the probability (either queue; overload included).
    pub prob_drops: u64,
    /// Packets that left while p' > 0 under the 2-MTU floor, per lane
    /// (indexed by `Lane`): the floor spared them any probabilistic
    /// decision.
    pub floor_spared: [u64; 2],
    /// Packets judged while overloaded (k·p' > 1), and the drops among them.
    pub overloaded: u64,
    pub overload_drops: u64,
}

/// Linux `must_drop`: no probabilistic decision while both queues together
/// hold less than two MTUs (`psched_mtu`), the leaving packet not counted.
pub const FLOOR_BYTES: u64 = 2 * MTU_BYTES as u64;

/// The link header Linux's backlog counts in every packet (`qdisc_pkt_len`
/// is the frame: `psched_mtu`'s 14 bytes beyond the 1500 of IP packet) and
/// our sizes, IP packets, leave out: two full 1500-byte packets held are
/// 3028 bytes there, at the floor, not under it.
pub const LINK_HEADER_BYTES: u64 = MTU_BYTES as u64 - 1500;

/// What the probability does to a packet.
enum Act {
    Pass,
    Mark,
    Drop,
}

/// A packet held: its id, its arrival, and whether the step may mark it
/// (decided on arrival, as Linux's `apply_step`).
#[derive(Clone, Copy, Debug)]
struct Held {
    pkt: PktId,
    stamp: Time,
    step: bool,
}

pub struct DualPi2 {
    q: [VecDeque<Held>; 2],
    bytes: [u64; 2],
    limit: Limit,
    c: DualPi2Config,
    target: Dur,
    tupdate: Dur,
    /// The base probability p' in [0, 1].
    prob: f64,
    last_qdelay: Dur,
    next_update: Time,
    credit: i64,
    credit_init: i64,
    /// Packets dropped at dequeue, for `take_drop`.
    drops: VecDeque<PktId>,
    pub counts: DualPi2Counts,
}

impl DualPi2 {
    pub fn new(limit: Limit, c: DualPi2Config) -> Self {
        let wc = c.c_protection_pct as i64;
        let credit_init = MTU_BYTES as i64 * (wc - (100 - wc));
        let tupdate = Dur::from_ps(c.tupdate_ps);
        DualPi2 {
            q: [VecDeque::new(), VecDeque::new()],
            bytes: [0, 0],
            limit,
            target: Dur::from_ps(c.target_ps),
            tupdate,
            c,
            prob: 0.0,
            last_qdelay: Dur::ZERO,
            next_update: Time::ZERO + tupdate,
            credit: credit_init,
            credit_init,
            drops: VecDeque::new(),
            counts: DualPi2Counts::default(),
        }
    }

    /// The base probability p'.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// Packets held in one queue.
    pub fn lane_len(&self, lane: Lane) -> usize {
        self.q[lane as usize].len()
    }

    /// Runs every controller update due at or before `now`.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let at = self.next_update;
            let before = (self.prob, self.last_qdelay);
            self.update(at);
            self.next_update += self.tupdate;
            let idle = self.q[0].is_empty() && self.q[1].is_empty();
            if idle && before == (self.prob, self.last_qdelay) && self.next_update <= now {
                // An idle fixed point: the ticks left change nothing.
                let left = now.since(self.next_update).ps() / self.tupdate.ps() + 1;
                self.next_update += self.tupdate.mul(left);
            }
        }
    }

    /// Linux `calculate_probability`, at the tick `at`.
    fn update(&mut self, at: Time) {
        let head = |q: &VecDeque<Held>| q.front().map_or(Dur::ZERO, |h| at.since(h.stamp));
        let qdelay = head(&self.q[0]).max(head(&self.q[1]));
        let s = |d: Dur| d.secs_f64();
        let delta = self.c.alpha * (s(qdelay) - s(self.target))
            + self.c.beta * (s(qdelay) - s(self.last_qdelay));
        self.last_qdelay = qdelay;
        let mut p = (self.prob + delta).clamp(0.0, 1.0);
        if !self.c.drop_overload {
            p = p.min(1.0 / self.c.k);
        }
        self.prob = p;
    }

    /// Linux's WRR by credit (`dequeue_packet`): the lane that sends next
    /// and the change its packet makes to the credit if it is sent: its
    /// frame × wc when the L queue sends with the C queue non-empty, its
    /// frame × −wl when the C queue sends with the L queue non-empty, none
    /// with the other queue empty. The credit returns to its start value
    /// only when both queues are found empty.
    fn pick(&mut self, cx: &QueueCtx) -> Option<(Lane, i64)> {
        let frame = |q: &VecDeque<Held>| {
            q.front()
                .map(|h| cx.pool.get(h.pkt).size_bytes as i64 + LINK_HEADER_BYTES as i64)
        };
        let (l, c) = (frame(&self.q[0]), frame(&self.q[1]));
        let wc = self.c.c_protection_pct as i64;
        match (l, c) {
            (None, None) => {
                self.credit = self.credit_init;
                None
            }
            (Some(_), None) => Some((Lane::L, 0)),
            (None, Some(_)) => Some((Lane::C, 0)),
            (Some(len), Some(_)) if self.credit <= 0 => Some((Lane::L, len * wc)),
            (Some(_), Some(len)) => Some((Lane::C, -len * (100 - wc))),
        }
    }

    /// One draw against p'² (Linux: two rolls against p').
    fn hit_squared(&self, cx: &mut QueueCtx) -> bool {
        let p_c = self.prob * self.prob;
        p_c > 0.0 && cx.rng.uniform() < p_c
    }

    /// Linux `must_drop` past its floor: the probabilistic decision on
    /// `pkt` leaving `lane`, Ok(marked) or Err(drop).
    fn decide(&mut self, lane: Lane, pkt: PktId, cx: &mut QueueCtx) -> Result<bool, ()> {
        let p_l = self.c.k * self.prob;
        let overload = p_l > 1.0;
        self.counts.overloaded += overload as u64;
        let ect = cx.pool.get(pkt).ecn.is_ect();
        let mark_or_drop = |m: bool| if m { Act::Mark } else { Act::Drop };
        let act = match lane {
            // Overloaded, a hit drops even an ECN-capable packet.
            Lane::C if self.hit_squared(cx) => mark_or_drop(!overload && ect),
            Lane::C => Act::Pass,
            Lane::L if overload && self.c.drop_overload && self.hit_squared(cx) => Act::Drop,
            // Overloaded, every L packet not dropped is marked.
            Lane::L if overload => Act::Mark,
            // The coupled k·p' (Not-ECT never reaches the L queue here).
            Lane::L if p_l > 0.0 && cx.rng.uniform() < p_l => mark_or_drop(ect),
            Lane::L => Act::Pass,
        };
        match act {
            Act::Pass => Ok(false),
            Act::Mark => {
                set_ce(cx.pool, pkt);
                self.counts.prob_marks += 1;
                Ok(true)
            }
            Act::Drop => {
                self.counts.prob_drops += 1;
                self.counts.overload_drops += overload as u64;
                Err(())
            }
        }
    }

    /// The AQM's decision on `h` leaving `lane` (the backlog already
    /// without it): Ok(marked) or Err(drop).
    fn judge(&mut self, lane: Lane, h: Held, cx: &mut QueueCtx) -> Result<bool, ()> {
        let mut marked = false;
        let backlog = self.len_bytes() + LINK_HEADER_BYTES * self.len_pkts() as u64;
        if backlog >= FLOOR_BYTES {
            marked = self.decide(lane, h.pkt, cx)?;
        } else {
            self.counts.floor_spared[lane as usize] += (self.prob > 0.0) as u64;
        }
        // The step: only L4S-classified packets, all ECN-capable here (the
        // L queue takes ECT(1) and CE), so Linux's Not-ECT drop never fires.
        if h.step && cx.now.since(h.stamp) > Dur::from_ps(self.c.step_thresh_ps) {
            let m = set_ce(cx.pool, h.pkt);
            self.counts.step_marks += m as u64;
            marked |= m;
        }
        Ok(marked)
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        self.catch_up(cx.now);
        let p = cx.pool.get(pkt);
        let (size, lane) = (p.size_bytes, Lane::of(p.ecn));
        let (n, b) = (self.len_pkts(), self.len_bytes());
        if !self.limit.admits(n, b, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        // Linux `skb_apply_step`: the L queue's length before this packet.
        let step = lane == Lane::L && self.q[0].len() as u64 >= self.c.min_qlen_step as u64;
        let held = Held {
            pkt,
            stamp: cx.now,
            step,
        };
        self.q[lane as usize].push_back(held);
        self.bytes[lane as usize] += size as u64;
        self.counts.enqueued[lane as usize] += 1;
        Verdict::Enqueued { marked: false }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        self.catch_up(cx.now);
        loop {
            let (lane, change) = self.pick(cx)?;
            let i = lane as usize;
            let h = self.q[i].pop_front()?;
            self.bytes[i] -= cx.pool.get(h.pkt).size_bytes as u64;
            match self.judge(lane, h, cx) {
                Ok(marked) => {
                    // Linux charges the credit for the packet sent only.
                    self.credit += change;
                    return Some(Dequeued { pkt: h.pkt, marked });
                }
                Err(()) => self.drops.push_back(h.pkt),
            }
        }
    }

    fn len_pkts(&self) -> u32 {
        (self.q[0].len() + self.q[1].len()) as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes[0] + self.bytes[1]
    }

    /// The head of the queue the scheduler would pick with a non-positive
    /// credit (the L queue's), else the C queue's.
    fn peek(&self) -> Option<PktId> {
        let head = |i: usize| self.q[i].front().map(|h| h.pkt);
        if self.credit <= 0 {
            head(0).or_else(|| head(1))
        } else {
            head(1).or_else(|| head(0))
        }
    }

    fn for_each_packet(&self, f: &mut dyn FnMut(PktId)) {
        self.q.iter().flatten().for_each(|h| f(h.pkt));
        self.drops.iter().for_each(|&p| f(p));
    }

    fn take_drop(&mut self) -> Option<(PktId, DropReason)> {
        self.drops.pop_front().map(|p| (p, DropReason::DualPi2))
    }

    fn dualpi2_counts(&self) -> Option<&DualPi2Counts> {
        Some(&self.counts)
    }
}

#[cfg(test)]
mod tests;
