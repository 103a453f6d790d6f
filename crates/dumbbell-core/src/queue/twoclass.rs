//! A two-class egress port: a classifier splits arrivals between a
//! short-flow queue and a long-flow queue, and a scheduler picks which
//! queue sends next (the RAFLE paper's router, §3 and §4: Click's
//! classifier → two queues → `PrioSched` or `RoundRobinSched`).
//!
//! Each class queue is a whole queue discipline of its own (a FIFO with its
//! limit and any marking policy), so RED, step or hysteresis marking work
//! per class unchanged, and the pair is itself a [`QueueDisc`] the port
//! counts like any other. Two-class ports do not nest.
//!
//! Every decision is counted against the ground truth the application
//! carries (`Packet::long_flow`: the packet's flow or task transfers more
//! than `short_flow_max_bytes`), giving the paper's Table 1 figures for any
//! classifier: PA_c = P(short | truly short), PE_c = 1 − PA_c,
//! PA_l = P(long | truly long), PE_l = 1 − PA_l, and the index PA_c·PA_l.
//! Decisions are counted at arrival, dropped packets included.
//!
//! The port also counts, per true class, the arrivals whose flow (the
//! 4-tuple, RAFLE's flow id) is that of the arrival just before
//! (`same_flow_as_previous`): how bursty the arrival order is, which sets
//! how often RAFLE's probe finds a packet's own flow in its memory.

use super::classify::{Class, Classifier, FlowKey};
use super::sched::Scheduler;
use super::{Dequeued, QueueCtx, QueueDisc, Verdict};
use crate::packet::PktId;

/// Counters of one two-class port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts {
    /// `decisions[truth][decided]`, both indexed by `Class`.
    pub decisions: [[u64; 2]; 2],
    pub enqueued: [u64; 2],
    pub dequeued: [u64; 2],
    pub dropped: [u64; 2],
    pub max_pkts: [u32; 2],
    /// Arrivals, per true class, of the same flow as the arrival before.
    pub same_flow_as_previous: [u64; 2],
}

impl ClassCounts {
    fn rate(&self, truth: Class, decided: Class) -> f64 {
        let row = self.decisions[truth.index()];
        let n = row[0] + row[1];
        if n == 0 {
            f64::NAN
        } else {
            row[decided.index()] as f64 / n as f64
        }
    }
    /// PA_c: share of truly short packets classified short (NaN if none).
    pub fn pa_c(&self) -> f64 {
        self.rate(Class::Short, Class::Short)
    }
    /// PE_c = 1 − PA_c.
    pub fn pe_c(&self) -> f64 {
        self.rate(Class::Short, Class::Long)
    }
    /// PA_l: share of truly long packets classified long (NaN if none).
    pub fn pa_l(&self) -> f64 {
        self.rate(Class::Long, Class::Long)
    }
    /// PE_l = 1 − PA_l.
    pub fn pe_l(&self) -> f64 {
        self.rate(Class::Long, Class::Short)
    }
    /// The paper's index of correctness, PA_c · PA_l.
    pub fn index(&self) -> f64 {
        self.pa_c() * self.pa_l()
    }
}

/// What a two-class port reports at the end of a run.
#[derive(Clone, Debug)]
pub struct ClassReport {
    pub classifier: &'static str,
    pub scheduler: &'static str,
    pub counts: ClassCounts,
}

pub struct TwoClass {
    classifier: Box<dyn Classifier>,
    scheduler: Box<dyn Scheduler>,
    /// Indexed by `Class`.
    queues: [Box<dyn QueueDisc>; 2],
    pub counts: ClassCounts,
    /// The flow of the last arrival.
    previous: Option<FlowKey>,
}

impl TwoClass {
    pub fn new(
        classifier: Box<dyn Classifier>,
        scheduler: Box<dyn Scheduler>,
        short: Box<dyn QueueDisc>,
        long: Box<dyn QueueDisc>,
    ) -> Self {
        TwoClass {
            classifier,
            scheduler,
            queues: [short, long],
            counts: ClassCounts::default(),
            previous: None,
        }
    }

    pub fn queue(&self, class: Class) -> &dyn QueueDisc {
        self.queues[class.index()].as_ref()
    }
}

impl QueueDisc for TwoClass {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let p = cx.pool.get(pkt);
        let truth = Class::of_long(p.long_flow);
        let class = self.classifier.classify(p);
        let (t, c) = (truth.index(), class.index());
        self.counts.decisions[t][c] += 1;
        let key = FlowKey::of(p);
        if self.previous == Some(key) {
            self.counts.same_flow_as_previous[t] += 1;
        }
        self.previous = Some(key);
        let v = self.queues[c].enqueue(pkt, cx);
        match v {
            Verdict::Enqueued { .. } => {
                self.counts.enqueued[c] += 1;
                let len = self.queues[c].len_pkts();
                if len > self.counts.max_pkts[c] {
                    self.counts.max_pkts[c] = len;
                }
            }
            Verdict::Dropped(_) => self.counts.dropped[c] += 1,
        }
        v
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        let pool = &*cx.pool;
        let heads = [
            self.queues[0].peek().map(|p| pool.get(p).size_bytes),
            self.queues[1].peek().map(|p| pool.get(p).size_bytes),
        ];
        let class = self.scheduler.pick(heads)?;
        let d = self.queues[class.index()].dequeue(cx);
        debug_assert!(d.is_some(), "the scheduler picked an empty queue");
        if d.is_some() {
            self.counts.dequeued[class.index()] += 1;
        }
        d
    }

    fn len_pkts(&self) -> u32 {
        self.queues[0].len_pkts() + self.queues[1].len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queues[0].len_bytes() + self.queues[1].len_bytes()
    }

    /// Two-class ports do not nest, so nothing asks which packet would
    /// leave next; this is the short queue's head, else the long queue's.
    fn peek(&self) -> Option<PktId> {
        self.queues[0].peek().or_else(|| self.queues[1].peek())
    }

    fn for_each_packet(&self, f: &mut dyn FnMut(PktId)) {
        self.queues[0].for_each_packet(f);
        self.queues[1].for_each_packet(f);
    }

    fn class_report(&self) -> Option<ClassReport> {
        Some(ClassReport {
            classifier: self.classifier.name(),
            scheduler: self.scheduler.name(),
            counts: self.counts.clone(),
        })
    }
}

#[cfg(test)]
mod tests;
