//! PIE's defining behaviour on one port with scripted arrivals: under an
//! unresponsive overload the controller holds the queueing delay near its
//! 15 ms target with the drop probability that sheds the excess; nothing is
//! dropped early below target or during the burst allowance; with ECN, ECT
//! packets are marked while the probability is at most 10 % and dropped
//! above; the controller's update is Linux's (scaled gains); conservation
//! and determinism.

use super::*;
use crate::packet::Ecn;
use crate::queue::testkit::{
    assert_overload_held, cbr_1500, ms, run_conserved, Bench, RATE, UNLIMITED,
};
use crate::queue::QueueCtx;

fn pie(ecn: bool) -> Pie {
    Pie::new(
        UNLIMITED,
        PieParams {
            ecn,
            ..PieParams::default()
        },
    )
}

/// Records the probability each arrival was judged with, and its verdict.
struct Spy {
    pie: Pie,
    log: Vec<(Time, f64, Verdict)>,
}

impl QueueDisc for Spy {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let v = self.pie.enqueue(pkt, cx);
        self.log.push((cx.now, self.pie.vars().prob, v));
        v
    }
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        self.pie.dequeue(cx)
    }
    fn len_pkts(&self) -> u32 {
        self.pie.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.pie.len_bytes()
    }
    fn peek(&self) -> Option<PktId> {
        self.pie.peek()
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(PktId)) {
        self.pie.for_each_packet(f)
    }
}

/// A [`Spy`] on PIE with ECN marking on or off, its log empty.
fn spy(ecn: bool) -> Spy {
    Spy {
        pie: pie(ecn),
        log: vec![],
    }
}

/// 1.2 times the link rate, unresponsive: in steady state PIE must drop a
/// sixth of the arrivals, and its integral term keeps moving the
/// probability until the delay sits at the target.
#[test]
fn holds_the_delay_near_target_under_an_unresponsive_overload() {
    let arr = cbr_1500(ms(8000), Dur::from_us(100), 1, Ecn::NotEct);
    let mut q = pie(false);
    let tr = run_conserved(&mut q, &arr, 1, ms(8000));
    assert_overload_held(&arr, &tr, ms(3000), 0.02);
    assert!(tr.drops.iter().all(|d| d.3 == DropReason::Pie));
}

/// Traffic below the link rate builds no queue: the probability stays
/// zero and nothing is dropped, however long it runs.
#[test]
fn no_early_drop_without_a_standing_queue() {
    let arr = cbr_1500(ms(3000), Dur::from_us(130), 1, Ecn::NotEct);
    let mut q = spy(false);
    let tr = Bench::new(2, RATE).run(&mut q, &arr, ms(3000), |_, _| {});
    assert!(tr.drops.is_empty());
    assert!(q.log.iter().all(|&(_, p, _)| p == 0.0));
}

/// The first 150 ms of departures are a burst allowance, and the
/// controller's first update comes 500 ms after the queue was created: an
/// overload of 400 ms fills the queue without a single early drop.
#[test]
fn a_short_burst_is_absorbed() {
    let arr = cbr_1500(ms(400), Dur::from_us(60), 1, Ecn::NotEct);
    let tr = Bench::new(3, RATE).run(&mut pie(false), &arr, ms(2000), |_, _| {});
    assert!(tr.drops.is_empty(), "{} drops", tr.drops.len());
    assert_eq!(tr.departures.len(), arr.len());
}

/// With ECN: ECT arrivals chosen while the probability is at most 10 % are
/// marked and queued; chosen above it, they are dropped.
#[test]
fn ecn_marks_below_ten_percent_and_drops_above() {
    // 1.05 times the link rate.
    let arr = cbr_1500(ms(6000), Dur::from_us(114), 1, Ecn::Ect0);
    let mut q = spy(true);
    let tr = run_conserved(&mut q, &arr, 4, ms(6000));
    let marks: Vec<f64> = q
        .log
        .iter()
        .filter(|e| e.2 == Verdict::Enqueued { marked: true })
        .map(|e| e.1)
        .collect();
    let drops: Vec<f64> = q
        .log
        .iter()
        .filter(|e| e.2 == Verdict::Dropped(DropReason::Pie))
        .map(|e| e.1)
        .collect();
    assert!(
        marks.len() > 100 && !drops.is_empty(),
        "{} marks, {} drops",
        marks.len(),
        drops.len()
    );
    assert!(marks.iter().all(|&p| p <= MAX_ECN_PROB));
    assert!(drops.iter().all(|&p| p > MAX_ECN_PROB));
    // Marks do not shed load, so the probability climbs past 10 % and
    // drops take over; shedding more than the 5 % excess, they bring it
    // back under 10 % where marks resume.
    assert_eq!(tr.marked_at_enqueue, marks.len() as u64);
}

/// One update by hand: alpha and beta are Linux's 2/16 and 20/16 per
/// second, halved below 10 % and divided by 4 more per decade below 1 %.
#[test]
fn the_update_is_linux_pie_calculate_probability() {
    let mut q = pie(false);
    q.bytes = 100_000;
    q.v.prob = 0.05;
    q.v.qdelay = Dur::from_ms(25);
    q.v.qdelay_old = Dur::from_ms(20);
    q.calculate_probability();
    // prob in [1 %, 10 %): gains halved: 0.0625 (0.010) + 0.625 (0.005).
    let want = 0.05 + 0.0625 * 0.010 + 0.625 * 0.005;
    assert!((q.v.prob - want).abs() < 1e-12, "{} vs {want}", q.v.prob);
    assert_eq!(q.v.qdelay_old, Dur::from_ms(25));
    // prob in [0.1 %, 1 %): divided by 2 x 4.
    q.v.prob = 0.005;
    q.v.qdelay = Dur::from_ms(25);
    q.v.qdelay_old = Dur::from_ms(25);
    q.calculate_probability();
    let want = 0.005 + 0.125 / 8.0 * 0.010;
    assert!((q.v.prob - want).abs() < 1e-12, "{} vs {want}", q.v.prob);
    // Above 10 %, an increase is capped at 2 % per update.
    q.v.prob = 0.5;
    q.v.qdelay = Dur::from_ms(200);
    q.v.qdelay_old = Dur::from_ms(100);
    q.calculate_probability();
    assert!((q.v.prob - 0.52).abs() < 1e-12, "{}", q.v.prob);
}

#[test]
fn same_seed_same_trace() {
    let arr = cbr_1500(ms(3000), Dur::from_us(100), 1, Ecn::NotEct);
    let run = |seed| Bench::new(seed, RATE).run(&mut pie(false), &arr, ms(3000), |_, _| {});
    assert_eq!(run(5), run(5));
    assert_ne!(run(5).drops, run(6).drops);
}

/// Linux's floor counts frames: an arrival finding two 1500-byte packets
/// (3028 bytes with their 14-byte link headers, 2 × the 1514-byte MTU) may
/// be dropped; one finding two 1488-byte packets (3004) may not, and one
/// finding three (4506) may. PIE at `prob` = 1, past its burst allowance
/// and half its target, drops every arrival past the floor.
#[test]
fn the_two_mtu_floor_counts_link_headers() {
    for (size, want) in [
        (1500, vec![true, true, false]),
        (1488, vec![true, true, true, false]),
    ] {
        let mut q = pie(false);
        q.v.prob = 1.0;
        q.v.qdelay = ms(100).since(Time::ZERO);
        q.v.burst_time = Dur::ZERO;
        let mut b = Bench::new(1, RATE);
        let mut got = Vec::new();
        for _ in 0..want.len() {
            let pkt = b.pool.alloc(crate::packet::Packet {
                size_bytes: size,
                ..Default::default()
            });
            let mut cx = QueueCtx {
                now: Time::ZERO,
                pool: &mut b.pool,
                rng: &mut b.rng,
            };
            got.push(matches!(q.enqueue(pkt, &mut cx), Verdict::Enqueued { .. }));
        }
        assert_eq!(got, want, "{size}-byte packets");
    }
}
