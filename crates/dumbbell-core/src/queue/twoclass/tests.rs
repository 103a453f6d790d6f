//! Tests of the two-class port: routing by class, the schedulers in place,
//! per-class disciplines, and the confusion matrix.

use super::*;
use crate::packet::{Ecn, Packet, PacketPool};
use crate::queue::aqm::Threshold;
use crate::queue::classify::{Ideal, Run2c};
use crate::queue::sched::{RoundRobin, StrictPriority};
use crate::queue::{Aqm, Fifo, Limit, MarkPoint, StepMark};
use crate::sim::{rng_for, Rng, Time};

struct Bench {
    pool: PacketPool,
    rng: Rng,
}

impl Bench {
    fn new() -> Self {
        Bench {
            pool: PacketPool::with_capacity(64),
            rng: rng_for(1, "queue:r->c:aqm"),
        }
    }
    /// Offers a packet tagged `tag` (in `seq`'s high bits, so RuN2C sees
    /// offset `offset`), truly long or short.
    fn offer(&mut self, q: &mut TwoClass, tag: u64, long: bool, offset: u64) -> Verdict {
        let pkt = self.pool.alloc(Packet {
            size_bytes: 1500,
            payload_bytes: 1460,
            long_flow: long,
            seq: offset,
            born_ps: tag,
            ecn: Ecn::Ect0,
            ..Default::default()
        });
        let mut cx = QueueCtx {
            now: Time::ZERO,
            pool: &mut self.pool,
            rng: &mut self.rng,
        };
        let v = q.enqueue(pkt, &mut cx);
        if matches!(v, Verdict::Dropped(_)) {
            self.pool.free(pkt);
        }
        v
    }
    fn take(&mut self, q: &mut TwoClass) -> Option<(u64, bool, bool)> {
        let mut cx = QueueCtx {
            now: Time::ZERO,
            pool: &mut self.pool,
            rng: &mut self.rng,
        };
        let d = q.dequeue(&mut cx)?;
        let p = *self.pool.get(d.pkt);
        self.pool.free(d.pkt);
        Some((p.born_ps, p.long_flow, p.ecn == Ecn::Ce))
    }
}

fn fifo(limit: u32) -> Box<dyn QueueDisc> {
    Box::new(Fifo::drop_tail(Limit {
        pkts: Some(limit),
        bytes: None,
    }))
}

/// A strict-priority port with the ideal classifier and two drop-tail
/// queues of `limit` packets.
fn ideal_strict(limit: u32) -> TwoClass {
    TwoClass::new(
        Box::new(Ideal),
        Box::new(StrictPriority),
        fifo(limit),
        fifo(limit),
    )
}

#[test]
fn strict_priority_port_sends_every_short_packet_before_any_long_one() {
    let mut b = Bench::new();
    let mut q = ideal_strict(100);
    for tag in 0..10 {
        b.offer(&mut q, tag, tag % 3 != 0, 0); // tags 0, 3, 6, 9 short
    }
    assert_eq!(q.len_pkts(), 10);
    assert_eq!(q.queue(Class::Short).len_pkts(), 4);
    let order: Vec<u64> = std::iter::from_fn(|| b.take(&mut q)).map(|x| x.0).collect();
    assert_eq!(
        order,
        vec![0, 3, 6, 9, 1, 2, 4, 5, 7, 8],
        "FIFO within a class"
    );
    assert_eq!(q.counts.dequeued, [4, 6]);
    assert!(q.is_empty());
}

#[test]
fn round_robin_port_alternates_classes() {
    let mut b = Bench::new();
    let mut q = TwoClass::new(
        Box::new(Ideal),
        Box::new(RoundRobin::default()),
        fifo(100),
        fifo(100),
    );
    for tag in 0..6 {
        b.offer(&mut q, tag, true, 0);
    }
    for tag in 10..12 {
        b.offer(&mut q, tag, false, 0);
    }
    let order: Vec<u64> = std::iter::from_fn(|| b.take(&mut q)).map(|x| x.0).collect();
    assert_eq!(order, vec![10, 0, 11, 1, 2, 3, 4, 5]);
}

#[test]
fn each_class_queue_keeps_its_own_limit_and_marking_policy() {
    let mut b = Bench::new();
    let marking = Box::new(Fifo::new(
        Limit {
            pkts: Some(5),
            bytes: None,
        },
        Aqm::Step(StepMark {
            k: Threshold::Pkts(2),
            at: MarkPoint::Enqueue,
        }),
    ));
    let mut q = TwoClass::new(
        Box::new(Ideal),
        Box::new(StrictPriority),
        fifo(100),
        marking,
    );
    // Twenty short packets: no limit or mark touches them.
    for tag in 0..20 {
        assert_eq!(
            b.offer(&mut q, tag, false, 0),
            Verdict::Enqueued { marked: false }
        );
    }
    // The long queue marks from its own third packet on and holds five.
    let verdicts: Vec<Verdict> = (100..107).map(|t| b.offer(&mut q, t, true, 0)).collect();
    let marks = verdicts
        .iter()
        .filter(|v| **v == Verdict::Enqueued { marked: true })
        .count();
    let drops = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Dropped(_)))
        .count();
    assert_eq!((marks, drops), (3, 2));
    assert_eq!(q.counts.dropped, [0, 2]);
    assert_eq!(q.counts.max_pkts, [20, 5]);
    assert_eq!(q.len_pkts(), 25);
    let mut held = 0;
    q.for_each_packet(&mut |_| held += 1);
    assert_eq!(held, 25);
}

#[test]
fn every_decision_is_counted_against_the_truth() {
    let mut b = Bench::new();
    // RuN2C at 16 KB on: a short flow (offsets below TH), a long flow's
    // head (below TH: misclassified short) and tail (long).
    let mut q = TwoClass::new(
        Box::new(Run2c::new(16384)),
        Box::new(StrictPriority),
        fifo(1000),
        fifo(1000),
    );
    for k in 0..8u64 {
        b.offer(&mut q, k, false, k * 1448); // short flow, 8 packets
    }
    for k in 0..30u64 {
        b.offer(&mut q, 100 + k, true, k * 1448); // long flow, 30 packets
    }
    let c = &q.counts;
    assert_eq!(c.decisions, [[8, 0], [12, 18]]);
    assert_eq!(c.pa_c(), 1.0);
    assert_eq!(c.pe_c(), 0.0);
    assert!((c.pa_l() - 0.6).abs() < 1e-12);
    assert!((c.pe_l() - 0.4).abs() < 1e-12);
    assert!((c.index() - 0.6).abs() < 1e-12);
    let r = q.class_report().expect("a two-class port reports");
    assert_eq!((r.classifier, r.scheduler), ("run2c", "prio"));
    // Under strict priority the misclassified head of the long flow leaves
    // among the short packets, in arrival order.
    let first: Vec<(u64, bool, bool)> = (0..20).filter_map(|_| b.take(&mut q)).collect();
    assert!(first.iter().take(20).all(|x| x.0 < 112), "{first:?}");
}

#[test]
fn an_empty_confusion_row_is_nan_not_zero() {
    let c = ClassCounts::default();
    assert!(c.pa_c().is_nan() && c.pa_l().is_nan() && c.index().is_nan());
}

/// Arrivals of the same 4-tuple as the one before are counted per true
/// class: the burstiness RAFLE's probe feeds on.
#[test]
fn same_flow_runs_are_counted_per_true_class() {
    let mut b = Bench::new();
    let mut q = ideal_strict(1000);
    let mut offer = |sport: u16, long: bool| {
        let pkt = b.pool.alloc(Packet {
            size_bytes: 1500,
            payload_bytes: 1460,
            sport,
            long_flow: long,
            ..Default::default()
        });
        let mut cx = QueueCtx {
            now: Time::ZERO,
            pool: &mut b.pool,
            rng: &mut b.rng,
        };
        assert!(matches!(q.enqueue(pkt, &mut cx), Verdict::Enqueued { .. }));
    };
    // Long flow 1 in a run of 4, short flow 2 alone, long flow 3 and 1
    // alternating, then short flow 2 twice.
    for sport in [1, 1, 1, 1] {
        offer(sport, true);
    }
    offer(2, false);
    for sport in [3, 1, 3, 1] {
        offer(sport, true);
    }
    offer(2, false);
    offer(2, false);
    let c = &q.counts;
    assert_eq!(
        c.same_flow_as_previous[Class::Long.index()],
        3,
        "three repeats in the run of 4, none alternating"
    );
    assert_eq!(c.same_flow_as_previous[Class::Short.index()], 1);
}
