//! Tests of the queue disciplines.
//!
//! Drop-tail limits and byte accounting (with a property test over random
//! enqueue/dequeue sequences), step marking at K and the hysteresis of Silva,
//! Vieira and Nacif at both points of measurement (walks through every
//! region, and property tests against a literal transcription of their
//! Algorithm 1), and RED checked against
//! Linux `sch_red`: `tc`'s choice of Wlog, the three regions, the count-based
//! spreading of marks, idle decay, gentle mode and determinism.
//!
//! Packets carry a tag in `seq` (the pool recycles ids, tags are never
//! reused), so order is checked on tags.

use super::aqm::Threshold;
use super::testkit::UNLIMITED;
use super::*;
use crate::packet::Packet;
use crate::sim::{rng_for, Dur, Rng, Time};
use proptest::prelude::*;

/// Wire size of a full-sized packet (an Ethernet MTU, as in the papers).
const FULL: u32 = 1500;

const ECT: Ecn = Ecn::Ect0;

/// A packet as it left a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Out {
    tag: u64,
    size: u32,
    ecn: Ecn,
    marked: bool,
}

/// What a port hands its discipline: the packet pool, a random stream, the
/// clock. Dropped and dequeued packets are freed at once, so `pool.live()`
/// always equals the number of packets the queue holds.
struct Bench {
    pool: PacketPool,
    rng: Rng,
    now: Time,
    next_tag: u64,
    /// ECN codepoint of each held packet as it was admitted, by tag.
    admitted_ecn: std::collections::HashMap<u64, Ecn>,
}

impl Bench {
    fn new(seed: u64) -> Self {
        Bench {
            pool: PacketPool::with_capacity(64),
            rng: rng_for(seed, "queue:s1->C"),
            now: Time::ZERO,
            next_tag: 0,
            admitted_ecn: Default::default(),
        }
    }

    /// Offers a new packet of `size` bytes with codepoint `ecn`. Checks that
    /// the verdict agrees with what happened to the packet's ECN bits.
    #[track_caller]
    fn offer(&mut self, q: &mut dyn QueueDisc, size: u32, ecn: Ecn) -> Verdict {
        let tag = self.next_tag;
        self.next_tag += 1;
        let pkt = self.pool.alloc(Packet {
            size_bytes: size,
            ecn,
            seq: tag,
            ..Default::default()
        });
        let mut cx = QueueCtx {
            now: self.now,
            pool: &mut self.pool,
            rng: &mut self.rng,
        };
        let v = q.enqueue(pkt, &mut cx);
        match v {
            Verdict::Enqueued { marked: true } => {
                assert!(ecn.is_ect(), "a Not-ECT packet was marked");
                assert_eq!(self.pool.get(pkt).ecn, Ecn::Ce, "marked but CE not set");
            }
            Verdict::Enqueued { marked: false } => {
                assert_eq!(
                    self.pool.get(pkt).ecn,
                    ecn,
                    "ECN bits changed without a mark"
                );
            }
            Verdict::Dropped(_) => self.pool.free(pkt),
        }
        if admitted(v) {
            self.admitted_ecn.insert(tag, self.pool.get(pkt).ecn);
        }
        v
    }

    /// Dequeues the head packet and frees it. Checks that the packet's ECN
    /// bits changed at dequeue exactly when it says it was marked.
    #[track_caller]
    fn take(&mut self, q: &mut dyn QueueDisc) -> Option<Out> {
        let mut cx = QueueCtx {
            now: self.now,
            pool: &mut self.pool,
            rng: &mut self.rng,
        };
        let d = q.dequeue(&mut cx)?;
        let p = *self.pool.get(d.pkt);
        self.pool.free(d.pkt);
        let before = self
            .admitted_ecn
            .remove(&p.seq)
            .expect("dequeued a packet never admitted");
        if d.marked {
            assert!(before.is_ect(), "a Not-ECT packet was marked at dequeue");
            assert_eq!(p.ecn, Ecn::Ce, "marked at dequeue but CE not set");
        } else {
            assert_eq!(p.ecn, before, "ECN bits changed at dequeue without a mark");
        }
        Some(Out {
            tag: p.seq,
            size: p.size_bytes,
            ecn: p.ecn,
            marked: d.marked,
        })
    }
}

fn marked(v: Verdict) -> bool {
    matches!(v, Verdict::Enqueued { marked: true })
}

fn admitted(v: Verdict) -> bool {
    matches!(v, Verdict::Enqueued { .. })
}

const PASS: Verdict = Verdict::Enqueued { marked: false };
const MARK: Verdict = Verdict::Enqueued { marked: true };

/// Tags held by a queue, head first.
fn held_tags(q: &dyn QueueDisc, pool: &PacketPool) -> Vec<u64> {
    let mut v = Vec::new();
    q.for_each_packet(&mut |id| v.push(pool.get(id).seq));
    v
}

// ---------------------------------------------------------------------------
// Drop-tail
// ---------------------------------------------------------------------------

#[test]
fn drop_tail_pkts_admits_up_to_limit_then_overflows() {
    let mut b = Bench::new(1);
    let mut q = Fifo::drop_tail(Limit {
        pkts: Some(5),
        bytes: None,
    });
    for i in 0..5 {
        assert_eq!(b.offer(&mut q, FULL, ECT), PASS, "packet {i} fits");
    }
    assert_eq!(q.len_pkts(), 5);
    assert_eq!(q.len_bytes(), 5 * FULL as u64);
    for _ in 0..3 {
        assert_eq!(
            b.offer(&mut q, 40, ECT),
            Verdict::Dropped(DropReason::Overflow)
        );
    }
    assert_eq!(
        (q.len_pkts(), q.len_bytes()),
        (5, 5 * FULL as u64),
        "drops change nothing"
    );
    assert_eq!(b.pool.live(), 5);

    // One leaves, one more fits, and the next overflows again.
    assert_eq!(b.take(&mut q).unwrap().tag, 0);
    assert_eq!(b.offer(&mut q, 40, ECT), PASS);
    assert_eq!(
        b.offer(&mut q, 40, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(q.len_bytes(), 4 * FULL as u64 + 40);

    // FIFO order: 1..=4, then the 40-byte packet admitted after the first
    // dequeue (tag 8; tags 5, 6, 7 and 9 were dropped).
    let out: Vec<(u64, u32)> = std::iter::from_fn(|| b.take(&mut q))
        .map(|o| (o.tag, o.size))
        .collect();
    assert_eq!(
        out,
        vec![(1, FULL), (2, FULL), (3, FULL), (4, FULL), (8, 40)]
    );
    assert!(q.is_empty());
    assert_eq!(q.len_bytes(), 0);
    assert_eq!(b.pool.live(), 0);
    assert!(b.take(&mut q).is_none(), "an empty queue yields nothing");
}

#[test]
fn drop_tail_bytes_admits_exactly_up_to_limit() {
    let mut b = Bench::new(1);
    let mut q = Fifo::drop_tail(Limit {
        pkts: None,
        bytes: Some(4000),
    });
    assert_eq!(b.offer(&mut q, 1500, ECT), PASS);
    assert_eq!(b.offer(&mut q, 1500, ECT), PASS);
    // 3000 + 1001 > 4000; a smaller packet that fits exactly is still taken.
    assert_eq!(
        b.offer(&mut q, 1001, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(b.offer(&mut q, 1000, ECT), PASS);
    assert_eq!(
        q.len_bytes(),
        4000,
        "a queue may fill its byte limit exactly"
    );
    assert_eq!(
        b.offer(&mut q, 1, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(q.len_pkts(), 3);

    let first = b.take(&mut q).unwrap();
    assert_eq!((first.tag, first.size), (0, 1500));
    assert_eq!(q.len_bytes(), 2500);
    assert_eq!(
        b.offer(&mut q, 1501, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(b.offer(&mut q, 1500, ECT), PASS);
    assert_eq!(q.len_bytes(), 4000);
    let tags: Vec<u64> = std::iter::from_fn(|| b.take(&mut q))
        .map(|o| o.tag)
        .collect();
    assert_eq!(tags, vec![1, 3, 6]);
    assert_eq!(q.len_bytes(), 0);
}

#[test]
fn drop_tail_with_both_limits_stops_at_the_first_reached() {
    let mut b = Bench::new(1);
    let mut q = Fifo::drop_tail(Limit {
        pkts: Some(3),
        bytes: Some(3000),
    });
    // Small packets: the packet limit binds.
    for _ in 0..3 {
        assert_eq!(b.offer(&mut q, 100, ECT), PASS);
    }
    assert_eq!(
        b.offer(&mut q, 100, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    while b.take(&mut q).is_some() {}
    // Large packets: the byte limit binds.
    assert_eq!(b.offer(&mut q, 1500, ECT), PASS);
    assert_eq!(b.offer(&mut q, 1500, ECT), PASS);
    assert_eq!(
        b.offer(&mut q, 100, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(q.len_pkts(), 2);
}

#[test]
fn drop_tail_never_touches_ecn_and_lists_packets_in_order() {
    let mut b = Bench::new(1);
    let mut q = Fifo::drop_tail(UNLIMITED);
    let codepoints = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce];
    for i in 0..1000 {
        assert_eq!(
            b.offer(&mut q, 64 + i, codepoints[i as usize % 4]),
            PASS,
            "no limit, no AQM"
        );
    }
    assert_eq!(held_tags(&q, &b.pool), (0..1000).collect::<Vec<u64>>());
    for i in 0..1000u64 {
        let o = b.take(&mut q).unwrap();
        assert_eq!(
            (o.tag, o.size, o.ecn, o.marked),
            (i, 64 + i as u32, codepoints[i as usize % 4], false)
        );
    }
}

#[test]
fn drop_reasons_are_indexable_and_named_uniquely() {
    assert_eq!(DropReason::ALL.len(), DropReason::COUNT);
    for (i, r) in DropReason::ALL.iter().enumerate() {
        assert_eq!(
            *r as usize, i,
            "ALL is in discriminant order, so counters index by it"
        );
    }
    let mut names: Vec<&str> = DropReason::ALL.iter().map(|r| r.name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), DropReason::COUNT);
}

#[test]
fn fifo_limit_applies_after_the_marking_policy() {
    // As in Linux (RED, then the child's limit): a packet the policy marks is
    // still refused when the queue is full, and the drop is an overflow.
    let mut b = Bench::new(1);
    let aqm = Aqm::Step(StepMark {
        k: Threshold::Pkts(0),
        at: MarkPoint::Enqueue,
    });
    let mut q = Fifo::new(
        Limit {
            pkts: Some(2),
            bytes: None,
        },
        aqm,
    );
    assert_eq!(b.offer(&mut q, FULL, ECT), MARK);
    assert_eq!(b.offer(&mut q, FULL, ECT), MARK);
    assert_eq!(
        b.offer(&mut q, FULL, ECT),
        Verdict::Dropped(DropReason::Overflow)
    );
    assert_eq!(q.len_pkts(), 2);
}

#[derive(Clone, Debug)]
enum Op {
    Enqueue(u32),
    Dequeue,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![3 => (1u32..=9000).prop_map(Op::Enqueue), 2 => Just(Op::Dequeue)],
        0..300,
    )
}

fn limits() -> impl Strategy<Value = Limit> {
    (prop::option::of(0u32..40), prop::option::of(0u64..60_000))
        .prop_map(|(pkts, bytes)| Limit { pkts, bytes })
}

proptest! {
    /// Packets out = packets in − drops − still queued; the byte count is the
    /// sum of the sizes held; order is preserved; admission is exactly
    /// "fits under every limit".
    #[test]
    fn drop_tail_conserves_packets_bytes_and_order(limit in limits(), ops in ops()) {
        let mut b = Bench::new(1);
        let mut q = Fifo::drop_tail(limit);
        let mut model: std::collections::VecDeque<(u64, u32)> = Default::default();
        let (mut n_in, mut n_out, mut n_drop) = (0u64, 0u64, 0u64);
        for op in ops {
            match op {
                Op::Enqueue(size) => {
                    n_in += 1;
                    let tag = b.next_tag;
                    let held: u64 = model.iter().map(|&(_, s)| s as u64).sum();
                    let fits = limit.pkts.map_or(true, |l| (model.len() as u32) < l)
                        && limit.bytes.map_or(true, |l| held + size as u64 <= l);
                    match b.offer(&mut q, size, ECT) {
                        Verdict::Enqueued { marked } => {
                            prop_assert!(fits && !marked);
                            model.push_back((tag, size));
                        }
                        Verdict::Dropped(r) => {
                            prop_assert!(!fits);
                            prop_assert_eq!(r, DropReason::Overflow);
                            n_drop += 1;
                        }
                    }
                }
                Op::Dequeue => match b.take(&mut q) {
                    Some(o) => {
                        n_out += 1;
                        prop_assert_eq!(Some((o.tag, o.size)), model.pop_front());
                    }
                    None => prop_assert!(model.is_empty()),
                },
            }
            prop_assert_eq!(q.len_pkts() as usize, model.len());
            prop_assert_eq!(q.len_bytes(), model.iter().map(|&(_, s)| s as u64).sum::<u64>());
            prop_assert_eq!(n_out, n_in - n_drop - q.len_pkts() as u64);
            prop_assert_eq!(b.pool.live(), q.len_pkts() as u64);
        }
        let tags: Vec<u64> = model.iter().map(|&(t, _)| t).collect();
        prop_assert_eq!(held_tags(&q, &b.pool), tags);
    }
}

// ---------------------------------------------------------------------------
// Step marking at K (DCTCP)
// ---------------------------------------------------------------------------

fn step(k: Threshold, at: MarkPoint) -> Fifo {
    Fifo::new(UNLIMITED, Aqm::Step(StepMark { k, at }))
}

#[test]
fn step_at_enqueue_marks_the_packet_that_finds_k() {
    let mut b = Bench::new(1);
    let mut q = step(Threshold::Pkts(20), MarkPoint::Enqueue);
    for found in 0..19 {
        assert_eq!(b.offer(&mut q, FULL, ECT), PASS, "finds {found} < K");
    }
    assert_eq!(q.len_pkts(), 19);
    assert_eq!(b.offer(&mut q, FULL, ECT), PASS, "finds 19: not marked");
    assert_eq!(b.offer(&mut q, FULL, ECT), MARK, "finds 20: marked");
    assert_eq!(
        b.offer(&mut q, FULL, Ecn::Ect1),
        MARK,
        "ECT(1) is marked too"
    );
    // Dequeues never mark with the enqueue point, and once the queue is back
    // under K arrivals pass again.
    for _ in 0..3 {
        assert!(!b.take(&mut q).unwrap().marked);
    }
    assert_eq!(q.len_pkts(), 19);
    assert_eq!(b.offer(&mut q, FULL, ECT), PASS, "finds 19 again");
}

#[test]
fn step_never_marks_or_drops_not_ect() {
    for at in [MarkPoint::Enqueue, MarkPoint::Dequeue] {
        let mut b = Bench::new(1);
        let mut q = step(Threshold::Pkts(20), at);
        for _ in 0..100 {
            assert_eq!(b.offer(&mut q, FULL, Ecn::NotEct), PASS, "{at:?}");
        }
        assert_eq!(q.len_pkts(), 100, "the step policy never drops");
        while let Some(o) = b.take(&mut q) {
            assert_eq!((o.ecn, o.marked), (Ecn::NotEct, false), "{at:?}");
        }
    }
}

#[test]
fn step_at_dequeue_marks_on_what_is_left_behind() {
    let mut b = Bench::new(1);
    let mut q = step(Threshold::Pkts(20), MarkPoint::Dequeue);
    for _ in 0..25 {
        assert_eq!(
            b.offer(&mut q, FULL, ECT),
            PASS,
            "the dequeue point does not mark arrivals"
        );
    }
    for left in (0..25).rev() {
        let o = b.take(&mut q).unwrap();
        assert_eq!(q.len_pkts(), left);
        assert_eq!(o.marked, left >= 20, "leaves {left} behind");
        assert_eq!(o.ecn, if left >= 20 { Ecn::Ce } else { ECT });
    }
}

#[test]
fn step_in_bytes_compares_the_byte_backlog() {
    let mut b = Bench::new(1);
    let mut q = step(Threshold::Bytes(30_000), MarkPoint::Enqueue);
    for _ in 0..19 {
        assert_eq!(b.offer(&mut q, FULL, ECT), PASS);
    }
    assert_eq!(q.len_bytes(), 28_500);
    assert_eq!(b.offer(&mut q, 1499, ECT), PASS, "finds 28500");
    assert_eq!(b.offer(&mut q, 40, ECT), PASS, "finds 29999");
    assert_eq!(b.offer(&mut q, 40, ECT), MARK, "finds 30039");

    let mut q = step(Threshold::Bytes(30_000), MarkPoint::Enqueue);
    for _ in 0..20 {
        assert_eq!(b.offer(&mut q, FULL, ECT), PASS);
    }
    assert_eq!(b.offer(&mut q, 40, ECT), MARK, "finds exactly 30000");
}

proptest! {
    /// Step marking at either point: a packet is marked iff it is ECN-capable
    /// and the occupancy seen (found at enqueue, left at dequeue) is ≥ K.
    #[test]
    fn step_marks_iff_ect_and_at_or_above_k(
        k in 0u32..30,
        at_enqueue in any::<bool>(),
        ops in prop::collection::vec(prop_oneof![
            3 => any::<bool>().prop_map(Some), 2 => Just(None::<bool>)], 0..300),
    ) {
        let at = if at_enqueue { MarkPoint::Enqueue } else { MarkPoint::Dequeue };
        let mut b = Bench::new(1);
        let mut q = step(Threshold::Pkts(k), at);
        let mut ect_of: std::collections::HashMap<u64, bool> = Default::default();
        for op in ops {
            match op {
                Some(ect) => {
                    let found = q.len_pkts();
                    ect_of.insert(b.next_tag, ect);
                    let v = b.offer(&mut q, FULL, if ect { ECT } else { Ecn::NotEct });
                    prop_assert_eq!(v, Verdict::Enqueued { marked: at_enqueue && ect && found >= k });
                }
                None => {
                    if let Some(o) = b.take(&mut q) {
                        let left = q.len_pkts();
                        prop_assert_eq!(o.marked, !at_enqueue && ect_of[&o.tag] && left >= k);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Hysteresis (Silva, Vieira and Nacif, Algorithm 1)
// ---------------------------------------------------------------------------

/// The paper's defaults: L_S = 42 (0.17 · 1 Gb/s · 3 ms / 1500 B), L_I = 36.
const L_S: u32 = 42;
const L_I: u32 = 36;

fn hysteresis(at: MarkPoint) -> Fifo {
    let h = Hysteresis {
        upper: Threshold::Pkts(L_S),
        lower: Threshold::Pkts(L_I),
        at,
        congested: false,
    };
    Fifo::new(UNLIMITED, Aqm::Hysteresis(h))
}

/// The packet's mark and the port's state bit are both `want` (`step`
/// and `n` name the step: "up, finds" 37).
#[track_caller]
fn assert_mark_and_state(marked: bool, q: &Fifo, want: bool, step: &str, n: u32) {
    assert_eq!(marked, want, "{step} {n}");
    assert_eq!(congested(q), want, "state, {step} {n}");
}

fn congested(q: &Fifo) -> bool {
    match q.aqm() {
        Aqm::Hysteresis(h) => h.congested,
        other => panic!("not a hysteresis queue: {other:?}"),
    }
}

/// Algorithm 1 of Silva, Vieira and Nacif, transcribed literally.
fn algorithm_1(state: &mut bool, queue: u32, l_s: u32, l_i: u32) -> bool {
    if queue >= l_s {
        *state = true;
        true
    } else if queue >= l_i && *state {
        true
    } else {
        *state = false;
        false
    }
}

#[test]
fn hysteresis_decide_follows_algorithm_1() {
    let occ = |pkts| Occupancy {
        pkts,
        bytes: pkts as u64 * FULL as u64,
    };
    let mut h = Hysteresis {
        upper: Threshold::Pkts(L_S),
        lower: Threshold::Pkts(L_I),
        at: MarkPoint::Dequeue,
        congested: false,
    };
    // (queue, expected mark = expected state after)
    let walk = [
        (0, false),
        (36, false), // in [L_I, L_S) but never congested
        (41, false),
        (42, true), // reaches L_S
        (50, true),
        (41, true), // back in [L_I, L_S): still congested
        (36, true),
        (35, false), // below L_I: released
        (40, false), // in [L_I, L_S) again: not congested, no mark
        (42, true),
        (0, false),
    ];
    for (queue, want) in walk {
        assert_eq!(h.decide(occ(queue)), want, "queue {queue}");
        assert_eq!(h.congested, want, "state after queue {queue}");
    }
}

#[test]
fn hysteresis_at_enqueue_walk_up_down_and_up() {
    let mut b = Bench::new(1);
    let mut q = hysteresis(MarkPoint::Enqueue);
    // Up: the arrival that finds `found` packets.
    for found in 0..50 {
        assert_eq!(q.len_pkts(), found);
        let v = b.offer(&mut q, FULL, ECT);
        assert_mark_and_state(marked(v), &q, found >= L_S, "up, finds", found);
    }
    // Down: each probe finds one packet fewer than the one before.
    for found in (30..49).rev() {
        while q.len_pkts() > found {
            let o = b.take(&mut q).unwrap();
            assert!(!o.marked, "the enqueue point never marks departures");
        }
        let v = b.offer(&mut q, FULL, ECT);
        assert_mark_and_state(marked(v), &q, found >= L_I, "down, finds", found);
    }
    // Up again from below L_I: no marks in [L_I, L_S) until L_S is reached.
    assert_eq!(q.len_pkts(), 31);
    for found in 31..46 {
        let v = b.offer(&mut q, FULL, ECT);
        assert_mark_and_state(marked(v), &q, found >= L_S, "up again, finds", found);
    }
}

#[test]
fn hysteresis_at_dequeue_walk_down_up_and_down() {
    let mut b = Bench::new(1);
    let mut q = hysteresis(MarkPoint::Dequeue);
    for _ in 0..50 {
        assert_eq!(
            b.offer(&mut q, FULL, ECT),
            PASS,
            "the dequeue point ignores arrivals"
        );
        assert!(!congested(&q), "and arrivals do not move the state bit");
    }
    // Down: what each departure leaves behind.
    for left in (0..50).rev() {
        let o = b.take(&mut q).unwrap();
        assert_mark_and_state(o.marked, &q, left >= L_I, "down, leaves", left);
    }
    // Up: two arrivals, one departure; each departure leaves one more behind.
    for left in 1..46 {
        b.offer(&mut q, FULL, ECT);
        b.offer(&mut q, FULL, ECT);
        let o = b.take(&mut q).unwrap();
        assert_eq!(q.len_pkts(), left);
        assert_mark_and_state(o.marked, &q, left >= L_S, "up, leaves", left);
    }
    // Down again through [L_I, L_S): marked, since L_S was reached.
    for left in (30..45).rev() {
        let o = b.take(&mut q).unwrap();
        assert_mark_and_state(o.marked, &q, left >= L_I, "down again, leaves", left);
    }
}

#[test]
fn hysteresis_state_moves_on_not_ect_departures_which_are_never_marked() {
    let mut b = Bench::new(1);
    let mut q = hysteresis(MarkPoint::Dequeue);
    // 44 packets, all Not-ECT but the seventh (tag 6).
    for tag in 0..44 {
        b.offer(&mut q, FULL, if tag == 6 { ECT } else { Ecn::NotEct });
    }
    assert!(!b.take(&mut q).unwrap().marked);
    assert!(
        congested(&q),
        "a Not-ECT departure leaving 43 sets the state bit"
    );
    for _ in 1..6 {
        assert!(!b.take(&mut q).unwrap().marked);
    }
    // Leaves 37 while congested: the ECT packet is marked.
    assert_eq!(
        b.take(&mut q).unwrap(),
        Out {
            tag: 6,
            size: FULL,
            ecn: Ecn::Ce,
            marked: true
        }
    );
    while q.len_pkts() > 35 {
        b.take(&mut q);
    }
    assert!(!congested(&q), "a Not-ECT departure leaving 35 clears it");
}

#[test]
fn hysteresis_state_moves_on_not_ect_arrivals_which_are_never_marked() {
    let mut b = Bench::new(1);
    let mut q = hysteresis(MarkPoint::Enqueue);
    for _ in 0..45 {
        assert_eq!(b.offer(&mut q, FULL, Ecn::NotEct), PASS);
    }
    assert!(congested(&q), "Not-ECT arrivals past L_S set the state bit");
    while q.len_pkts() > 37 {
        b.take(&mut q);
    }
    assert_eq!(b.offer(&mut q, FULL, ECT), MARK, "finds 37 while congested");
    while q.len_pkts() > 30 {
        b.take(&mut q);
    }
    assert_eq!(b.offer(&mut q, FULL, Ecn::NotEct), PASS);
    assert!(!congested(&q), "a Not-ECT arrival below L_I clears it");
    while q.len_pkts() < 38 {
        b.offer(&mut q, FULL, ECT);
    }
    assert_eq!(b.offer(&mut q, FULL, ECT), PASS, "finds 38, not congested");
}

/// A scripted occupancy trace through the shared [`Decision`] objects: the
/// hysteresis decision marks in the band [L_I, L_S) exactly when the queue
/// came down from L_S without falling below L_I.
#[test]
fn hysteresis_decision_on_a_scripted_trace_marks_the_band_only_after_l_s() {
    let mut d = Decision::Hysteresis(Hysteresis {
        upper: Threshold::Pkts(L_S),
        lower: Threshold::Pkts(L_I),
        at: MarkPoint::Dequeue,
        congested: false,
    });
    let occ = |pkts: u32| Occupancy {
        pkts,
        bytes: pkts as u64 * FULL as u64,
    };
    // Rise through the band (no marks), cross L_S, fall through the band
    // (marks), fall below L_I, rise into the band again (no marks).
    let trace: Vec<u32> = (30..=45).chain((33..45).rev()).chain(33..=41).collect();
    let mut above = false;
    for (i, &q) in trace.iter().enumerate() {
        if q >= L_S {
            above = true;
        } else if q < L_I {
            above = false;
        }
        assert_eq!(d.decide(occ(q)), above, "step {i}: queue {q}");
        assert_eq!(d.congested(occ(0)), above);
    }
}

proptest! {
    /// On any trace that never sits in the band [L_I, L_S), hysteresis
    /// decides exactly as the step at K = L_S, packet by packet.
    #[test]
    fn hysteresis_outside_the_band_is_the_step_at_l_s(
        l_i in 1u32..40,
        gap in 1u32..20,
        trace in prop::collection::vec((any::<bool>(), 0u32..40), 0..300),
    ) {
        let l_s = l_i + gap;
        let mut h = Decision::Hysteresis(Hysteresis {
            upper: Threshold::Pkts(l_s),
            lower: Threshold::Pkts(l_i),
            at: MarkPoint::Enqueue,
            congested: false,
        });
        let mut k = Decision::Step(StepMark { k: Threshold::Pkts(l_s), at: MarkPoint::Enqueue });
        for (high, off) in trace {
            // Below L_I, or at L_S and above: never in the band.
            let q = if high { l_s + off } else { off % l_i };
            let o = Occupancy { pkts: q, bytes: q as u64 * FULL as u64 };
            prop_assert_eq!(h.decide(o), k.decide(o), "queue {}", q);
        }
    }

    /// Any sequence of arrivals and departures, either point, any thresholds
    /// L_I ≤ L_S: marks and the state bit are those of Algorithm 1 applied to
    /// the occupancy seen at the chosen point.
    #[test]
    fn hysteresis_matches_algorithm_1(
        l_i in 0u32..30,
        gap in 0u32..15,
        at_enqueue in any::<bool>(),
        ops in prop::collection::vec(prop_oneof![3 => Just(true), 2 => Just(false)], 0..400),
    ) {
        let l_s = l_i + gap;
        let at = if at_enqueue { MarkPoint::Enqueue } else { MarkPoint::Dequeue };
        let h = Hysteresis { upper: Threshold::Pkts(l_s), lower: Threshold::Pkts(l_i), at, congested: false };
        let mut q = Fifo::new(UNLIMITED, Aqm::Hysteresis(h));
        let mut b = Bench::new(1);
        let mut state = false;
        for arrive in ops {
            if arrive {
                let found = q.len_pkts();
                let v = b.offer(&mut q, FULL, ECT);
                let want = at_enqueue && algorithm_1(&mut state, found, l_s, l_i);
                prop_assert_eq!(v, Verdict::Enqueued { marked: want });
            } else if let Some(o) = b.take(&mut q) {
                let left = q.len_pkts();
                let want = !at_enqueue && algorithm_1(&mut state, left, l_s, l_i);
                prop_assert_eq!(o.marked, want);
            }
            prop_assert_eq!(congested(&q), state);
        }
    }
}

// ---------------------------------------------------------------------------
// RED (Linux sch_red)
// ---------------------------------------------------------------------------

/// The Mininet DCTCP bottleneck of Handigol, Heller, Jeyakumar and Lantz
/// (the dctcp-queue experiment): `tc qdisc ... red min 30000
/// max 35000 avpkt 1500 burst 20 bandwidth 100Mbit probability 1 ecn`.
fn dctcp_red() -> RedParams {
    RedParams {
        min_th: 30_000.0,
        max_th: 35_000.0,
        max_p: 1.0,
        wlog: 1,
        ecn: true,
        harddrop: false,
        gentle: false,
        bytes_mode: true,
        avpkt_bytes: FULL,
        bandwidth_bps: 100_000_000,
    }
}

fn red(p: RedParams) -> Fifo {
    Fifo::new(UNLIMITED, Aqm::Red(Box::new(Red::new(p))))
}

fn avg(q: &Fifo) -> f64 {
    match q.aqm() {
        Aqm::Red(r) => r.avg(),
        other => panic!("not a RED queue: {other:?}"),
    }
}

/// Brings the queue to `n` packets of `size` bytes (offering ECT packets
/// until that many are held), then runs `rounds` rounds of "offer one packet
/// of codepoint `ecn`; if it was admitted, dequeue the head", so that every
/// arrival finds the same backlog `n · size`. Returns the rounds' verdicts.
#[track_caller]
fn hold(b: &mut Bench, q: &mut Fifo, n: u32, size: u32, ecn: Ecn, rounds: usize) -> Vec<Verdict> {
    for _ in 0..10_000 {
        if q.len_pkts() >= n {
            break;
        }
        b.offer(q, size, ECT);
    }
    while q.len_pkts() > n {
        b.take(q);
    }
    assert_eq!(q.len_pkts(), n, "could not bring the queue to {n} packets");
    (0..rounds)
        .map(|_| {
            let v = b.offer(q, size, ecn);
            if admitted(v) {
                b.take(q);
            }
            v
        })
        .collect()
}

/// The fraction of packets Linux's RED marks at a constant probability pb
/// (`red_action`, `red_mark_probability`): after each mark a fresh
/// R ~ U[0, 1) is drawn and the counter restarts, and the n-th packet after
/// it is marked first when pb · n ≥ R, i.e. n = max(1, ⌈R / pb⌉). So
/// P(n = k) = pb for k = 1..M with M = ⌊1/pb⌋, and 1 − M·pb for k = M + 1:
/// gaps are uniform on [1, 1/pb] rather than geometric. Marks form a renewal
/// process, hence the fraction 1 / E[n].
fn linux_mark_fraction(pb: f64) -> f64 {
    let m = (1.0 / pb).floor();
    let mean_gap = pb * m * (m + 1.0) / 2.0 + (m + 1.0) * (1.0 - m * pb);
    1.0 / mean_gap
}

fn fraction(vs: &[Verdict], pred: impl Fn(Verdict) -> bool) -> f64 {
    vs.iter().filter(|v| pred(**v)).count() as f64 / vs.len() as f64
}

#[test]
fn red_wlog_for_burst_matches_tc() {
    // Mininet's DCTCP setting: a = 20 + 1 - 30000/1500 = 1 ≤ (1 - 2^-20) / 0.5.
    assert_eq!(RedParams::wlog_for_burst(20, 30_000.0, 1500), Some(1));
    // tc-red(8)'s example, burst 55, min 30000, avpkt 1000: a = 56 - 30 = 26.
    // (1 - (1-W)^55) / W is 15.54 for W = 1/16 and 26.42 for W = 1/32.
    assert_eq!(RedParams::wlog_for_burst(55, 30_000.0, 1000), Some(5));
    // A burst below min/avpkt cannot be absorbed (tc: "burst is too small").
    assert_eq!(RedParams::wlog_for_burst(10, 30_000.0, 1500), None);
}

#[test]
fn red_formula_for_the_expected_mark_fraction() {
    // pb = 1/5: gaps uniform on {1, ..., 5}, mean 3.
    assert!((linux_mark_fraction(0.2) - 1.0 / 3.0).abs() < 1e-12);
    // pb = 0.4: P(1) = P(2) = 0.4, P(3) = 0.2, mean 1.8.
    assert!((linux_mark_fraction(0.4) - 1.0 / 1.8).abs() < 1e-12);
    assert!((linux_mark_fraction(1.0) - 1.0).abs() < 1e-12);
}

#[test]
fn red_below_min_passes_above_max_marks_every_ect_packet() {
    let mut b = Bench::new(1);
    let mut q = red(dctcp_red());
    // 29 packets of 1000 B: every arrival finds 29000 B < min.
    let vs = hold(&mut b, &mut q, 29, 1000, ECT, 10_000);
    assert!(vs.iter().all(|&v| v == PASS), "no mark below min");
    assert!(avg(&q) < 30_000.0 && avg(&q) > 28_999.0, "avg {}", avg(&q));
    // 40 packets: the backlog found is 40000 B > max.
    let vs = hold(&mut b, &mut q, 40, 1000, ECT, 10_000);
    assert!(avg(&q) > 35_000.0, "avg {}", avg(&q));
    assert!(
        vs.iter().all(|&v| v == MARK),
        "every ECT packet marked, none dropped above max"
    );
}

#[test]
fn red_above_max_drops_not_ect_and_with_harddrop_or_without_ecn() {
    // Three 20000-B packets: arrivals find 0, 20000 and 40000 B with the
    // average at 0, 10000 and 25000 (W = 1/2), all below min. The next
    // arrival finds 60000 B, the average jumps to 42500 > max.
    let fill = |b: &mut Bench, q: &mut Fifo, ecn: Ecn| {
        for _ in 0..3 {
            assert_eq!(b.offer(q, 20_000, ecn), PASS);
        }
    };
    let cases = [
        // (ecn on, harddrop, packet codepoint, expected)
        (true, false, ECT, MARK),
        (true, false, Ecn::Ect1, MARK),
        (
            true,
            false,
            Ecn::NotEct,
            Verdict::Dropped(DropReason::RedForced),
        ),
        (true, true, ECT, Verdict::Dropped(DropReason::RedForced)),
        (
            true,
            true,
            Ecn::NotEct,
            Verdict::Dropped(DropReason::RedForced),
        ),
        (false, false, ECT, Verdict::Dropped(DropReason::RedForced)),
        (
            false,
            false,
            Ecn::NotEct,
            Verdict::Dropped(DropReason::RedForced),
        ),
    ];
    for (ecn_on, harddrop, cp, want) in cases {
        let mut b = Bench::new(1);
        let mut q = red(RedParams {
            ecn: ecn_on,
            harddrop,
            ..dctcp_red()
        });
        fill(&mut b, &mut q, cp);
        for i in 0..100 {
            let v = b.offer(&mut q, FULL, cp);
            assert_eq!(
                v, want,
                "ecn {ecn_on} harddrop {harddrop} {cp:?}, arrival {i}"
            );
        }
        assert!(avg(&q) >= 35_000.0);
    }
}

#[test]
fn red_between_thresholds_marks_the_linux_fraction() {
    // Arrivals find 31, 32, 33 or 34 packets of 1000 B; with W = 1/2 the
    // average settles on the backlog, so pb = (avg - 30000) / 5000.
    for (n, pb) in [(31, 0.2), (32, 0.4), (33, 0.6), (34, 0.8)] {
        let mut b = Bench::new(7);
        let mut q = red(dctcp_red());
        hold(&mut b, &mut q, n, 1000, ECT, 200);
        assert!(
            (avg(&q) - n as f64 * 1000.0).abs() < 1e-6,
            "avg {}",
            avg(&q)
        );
        let vs = hold(&mut b, &mut q, n, 1000, ECT, 200_000);
        assert!(
            vs.iter().all(|&v| admitted(v)),
            "ECT packets are marked, not dropped"
        );
        let got = fraction(&vs, marked);
        let want = linux_mark_fraction(pb);
        // The standard deviation of the fraction is at most about 0.0007.
        assert!(
            (got - want).abs() < 0.005,
            "pb {pb}: marked {got}, expected {want}"
        );
        // Not the naive pb: marks are spread, not Bernoulli.
        assert!((got - pb).abs() > 0.03, "pb {pb}: marked {got}");
    }
}

#[test]
fn red_between_thresholds_spaces_marks_uniformly_in_1_to_1_over_pb() {
    let mut b = Bench::new(11);
    let mut q = red(dctcp_red());
    hold(&mut b, &mut q, 31, 1000, ECT, 200); // pb = 0.2
    let vs = hold(&mut b, &mut q, 31, 1000, ECT, 300_000);
    let at: Vec<usize> = vs
        .iter()
        .enumerate()
        .filter(|(_, v)| marked(**v))
        .map(|(i, _)| i)
        .collect();
    let mut hist = [0usize; 7];
    for w in at.windows(2) {
        let gap = w[1] - w[0];
        assert!((1..=5).contains(&gap), "gap {gap} outside [1, 1/pb]");
        hist[gap] += 1;
    }
    let n = (at.len() - 1) as f64;
    for (gap, &count) in hist.iter().enumerate().skip(1).take(5) {
        let f = count as f64 / n;
        assert!(
            (f - 0.2).abs() < 0.01,
            "gap {gap}: frequency {f}, histogram {hist:?}"
        );
    }
}

#[test]
fn red_between_thresholds_drops_early_without_ecn_or_ect() {
    // ECN off, or ECN on with Not-ECT packets: the same count-based process
    // drops instead of marking, with DropReason::RedEarly.
    for (ecn_on, cp) in [(false, ECT), (true, Ecn::NotEct)] {
        let mut b = Bench::new(3);
        let mut q = red(RedParams {
            ecn: ecn_on,
            ..dctcp_red()
        });
        hold(&mut b, &mut q, 31, 1000, cp, 200);
        let vs = hold(&mut b, &mut q, 31, 1000, cp, 200_000);
        assert!(vs
            .iter()
            .all(|&v| v == PASS || v == Verdict::Dropped(DropReason::RedEarly)));
        let got = fraction(&vs, |v| !admitted(v));
        assert!(
            (got - 1.0 / 3.0).abs() < 0.005,
            "ecn {ecn_on} {cp:?}: dropped {got}"
        );
    }
}

#[test]
fn red_first_packet_entering_the_region_is_never_marked() {
    // Linux `red_action`: the first packet that finds the average between the
    // thresholds only draws R (qcount goes from -1 to 0) and passes, even
    // with pb close to 1; the count-based process starts with the next one.
    for seed in 0..50 {
        let mut b = Bench::new(seed);
        let mut q = red(dctcp_red());
        hold(&mut b, &mut q, 29, 1000, ECT, 100);
        // Finds 29000 B; the backlog becomes 40999 B.
        assert_eq!(b.offer(&mut q, 11_999, ECT), PASS);
        // Finds 40999 B: avg = (29000 + 40999) / 2 = 34999.5, pb = 0.9999.
        assert_eq!(
            b.offer(&mut q, 1000, ECT),
            PASS,
            "seed {seed}: first in the region"
        );
        assert!(avg(&q) > 34_999.0 && avg(&q) < 35_000.0, "avg {}", avg(&q));
        // Finds 41999 B: the average is above max.
        assert_eq!(b.offer(&mut q, 1000, ECT), MARK);
    }
}

/// Runs a RED queue with Wlog `wlog` at 19 packets of 1500 B (below min),
/// lets it empty at t0 and offers two packets `idle` after t0. Returns the
/// average before the idle period and after each of the two arrivals.
fn idle_decay(wlog: u32, idle: Dur) -> (f64, f64, f64) {
    let mut b = Bench::new(1);
    let mut q = red(RedParams {
        wlog,
        ..dctcp_red()
    });
    let vs = hold(&mut b, &mut q, 19, FULL, ECT, 2000);
    assert!(vs.iter().all(|&v| v == PASS));
    let before = avg(&q);
    // It drains at line rate, the last packet leaving at t0.
    let xmit = Dur::serialization(FULL as u64, 100_000_000);
    let t0 = Time::from_ps(7_000_000_000);
    b.now = Time::from_ps(t0.ps() - 18 * xmit.ps());
    for left in (0..19).rev() {
        b.take(&mut q).unwrap();
        if left > 0 {
            b.now += xmit;
        }
    }
    assert_eq!((b.now, q.len_pkts()), (t0, 0));
    b.now = t0 + idle;
    assert_eq!(b.offer(&mut q, FULL, ECT), PASS);
    let first = avg(&q);
    assert_eq!(b.offer(&mut q, FULL, ECT), PASS);
    (before, first, avg(&q))
}

#[test]
fn red_average_decays_over_an_idle_period() {
    // avpkt 1500 B at 100 Mb/s: one packet time is 120 µs.
    let xmit = Dur::serialization(FULL as u64, 100_000_000);
    assert_eq!(xmit, Dur::from_us(120));
    for wlog in [1u32, 4, 9] {
        let w = libm::ldexp(1.0, -(wlog as i32));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * 30_000.0;
        for n in 0u64..60 {
            let (before, first, second) = idle_decay(wlog, xmit.mul(n));
            assert!(before > 1000.0, "wlog {wlog}: avg {before}");
            // The queue emptied at t0 and the next arrival came n packet
            // times later: avg · (1 - W)^n, as if n empty packets had come.
            let want = before * libm::pow(1.0 - w, n as f64);
            assert!(
                close(first, want),
                "wlog {wlog}, idle {n} packet times: avg {first}, expected {want}"
            );
            // The idle period is over: the next arrival is an ordinary EWMA
            // update on the 1500 B it finds.
            let want = first + (FULL as f64 - first) * w;
            assert!(
                close(second, want),
                "wlog {wlog}, after idle {n}: avg {second}, expected {want}"
            );
            // Only whole packet times count.
            let (_, part, _) = idle_decay(wlog, xmit.mul(n) + xmit.div(2));
            assert_eq!(
                part, first,
                "wlog {wlog}: idle n + 1/2 packet times decays as n"
            );
            if n > 0 {
                let (_, short, _) = idle_decay(wlog, xmit.mul(n) - Dur::from_ps(1));
                let want = before * libm::pow(1.0 - w, (n - 1) as f64);
                assert!(
                    close(short, want),
                    "wlog {wlog}: 1 ps short of {n} packet times decays as {}",
                    n - 1
                );
            }
        }
    }
}

#[test]
fn red_gentle_ramps_from_max_p_at_max_to_one_at_twice_max() {
    let gentle = RedParams {
        max_p: 0.1,
        gentle: true,
        ..dctcp_red()
    };
    // 500-B packets; (backlog, pb): below max pb = 0.1 (avg - 30000) / 5000;
    // gentle: pb = 0.1 + 0.9 (avg - 35000) / 35000.
    let points = [
        (34_500u32, 0.09),
        (40_000, 0.1 + 0.9 / 7.0),
        (52_500, 0.55),
        (66_500, 0.91),
    ];
    let mut last = 0.0;
    for (backlog, pb) in points {
        let mut b = Bench::new(13);
        let mut q = red(gentle.clone());
        let n = backlog / 500;
        hold(&mut b, &mut q, n, 500, ECT, 300);
        let vs = hold(&mut b, &mut q, n, 500, ECT, 200_000);
        let got = fraction(&vs, marked);
        let want = linux_mark_fraction(pb);
        assert!(
            (got - want).abs() < 0.005,
            "backlog {backlog}: marked {got}, expected {want}"
        );
        assert!(got > last, "the marking fraction rises with the average");
        last = got;
        assert!(vs.iter().all(|&v| admitted(v)));
    }
    // From 2 max up: every packet (forced).
    let mut b = Bench::new(13);
    let mut q = red(gentle.clone());
    let vs = hold(&mut b, &mut q, 144, 500, ECT, 10_000); // 72000 B
    assert!(vs.iter().skip(100).all(|&v| v == MARK));
    let vs = hold(&mut b, &mut q, 144, 500, Ecn::NotEct, 100);
    assert!(vs
        .iter()
        .all(|&v| v == Verdict::Dropped(DropReason::RedForced)));
    // In the gentle band a Not-ECT packet is an early drop, not a forced one.
    let mut b = Bench::new(13);
    let mut q = red(gentle);
    hold(&mut b, &mut q, 105, 500, ECT, 300); // 52500 B
    let vs = hold(&mut b, &mut q, 105, 500, Ecn::NotEct, 10_000);
    assert!(vs
        .iter()
        .all(|&v| v == PASS || v == Verdict::Dropped(DropReason::RedEarly)));
    let got = fraction(&vs, |v| !admitted(v));
    assert!(
        (got - linux_mark_fraction(0.55)).abs() < 0.02,
        "dropped {got}"
    );
    // Without gentle the same average is above max: every packet marked.
    let mut b = Bench::new(13);
    let mut q = red(RedParams {
        max_p: 0.1,
        ..dctcp_red()
    });
    let vs = hold(&mut b, &mut q, 105, 500, ECT, 10_000);
    assert!(vs.iter().skip(100).all(|&v| v == MARK));
}

#[test]
fn red_packet_mode_counts_packets() {
    // Thresholds in packets: 20 and 25, as if K were set in packets.
    let p = RedParams {
        min_th: 20.0,
        max_th: 25.0,
        bytes_mode: false,
        ..dctcp_red()
    };
    let mut b = Bench::new(1);
    let mut q = red(p.clone());
    // 19 huge packets: far above 30000 B, below 20 packets.
    let vs = hold(&mut b, &mut q, 19, 9000, ECT, 1000);
    assert!(vs.iter().all(|&v| v == PASS));
    let mut b = Bench::new(1);
    let mut q = red(p);
    let vs = hold(&mut b, &mut q, 30, 64, ECT, 1000);
    assert!(
        vs.iter().skip(50).all(|&v| v == MARK),
        "30 small packets are above 25"
    );
}

#[test]
fn red_same_seed_same_marks() {
    let run = |seed: u64| {
        let mut b = Bench::new(seed);
        let mut q = red(dctcp_red());
        hold(&mut b, &mut q, 32, 1000, ECT, 5000)
            .into_iter()
            .map(marked)
            .collect::<Vec<bool>>()
    };
    let a = run(42);
    assert_eq!(a, run(42), "bit-identical marks for the same seed");
    assert_ne!(a, run(43), "another seed, another pattern");
    assert!(a.iter().any(|&m| m) && a.iter().any(|&m| !m));
}
