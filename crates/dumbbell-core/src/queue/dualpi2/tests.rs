//! DualPI2's defining behaviour on one port with scripted arrivals:
//! classification on ECT(1) and CE; the L queue's step mark above 1 ms of
//! sojourn; the PI2 controller holding a classic overload near its 15 ms
//! target with p_C = p'²; the coupling p_L = k·p' seen in the L queue's
//! mark rate; the scheduler's weights; conservation and determinism.
//! Linux's `must_drop` at dequeue: the 2-MTU floor, overload drops in both
//! queues, the step decided on arrival and counted after the coupled mark.

use super::*;
use crate::packet::Ecn;
use crate::queue::testkit::{
    assert_conserved, assert_overload_held, cbr, cbr_1500, merge, ms, run_conserved, Arrival,
    Bench, Trace, RATE, UNLIMITED,
};
use crate::queue::MAX_AQM_TIME_PS;

fn dualpi2() -> DualPi2 {
    DualPi2::new(UNLIMITED, DualPi2Config::default())
}

#[test]
fn ect1_and_ce_go_to_the_l_queue_the_rest_to_the_c_queue() {
    assert_eq!(Lane::of(Ecn::Ect1), Lane::L);
    assert_eq!(Lane::of(Ecn::Ce), Lane::L);
    assert_eq!(Lane::of(Ecn::Ect0), Lane::C);
    assert_eq!(Lane::of(Ecn::NotEct), Lane::C);
    let arr = merge(vec![
        cbr_1500(ms(10), Dur::from_us(500), 1, Ecn::Ect1),
        cbr_1500(ms(10), Dur::from_us(250), 2, Ecn::Ect0),
    ]);
    let mut q = dualpi2();
    run_conserved(&mut q, &arr, 1, ms(50));
    assert_eq!(q.counts.enqueued, [20, 40]);
}

/// An unresponsive L4S overload (1.2 × the link) marks every packet that
/// waited more than the 1 ms step, and no packet that waited less, while
/// p' is zero (nothing in the C queue: the 15 ms target is never reached).
#[test]
fn the_l_queue_marks_every_packet_above_the_step_threshold() {
    let arr = cbr_1500(ms(300), Dur::from_us(100), 1, Ecn::Ect1);
    let mut q = dualpi2();
    let tr = run_conserved(&mut q, &arr, 2, ms(600));
    assert!(tr.drops.is_empty());
    let (mut above, mut below) = (0, 0);
    for d in &tr.departures {
        if d.sojourn > Dur::from_ms(1) {
            assert!(d.marked, "sojourn {:?} unmarked", d.sojourn);
            above += 1;
        } else {
            assert!(!d.marked, "sojourn {:?} marked", d.sojourn);
            below += 1;
        }
    }
    assert!(above > 1000 && below > 50, "{above} above, {below} below");
    assert_eq!(q.counts.step_marks, above);
}

/// 20 s of `arrivals` through the default DualPI2 (hash seed `seed`),
/// conserved, and the mean of p' over the last 12 s.
fn pi2_for_20_s(arrivals: &[Arrival], seed: u64) -> (Trace, f64) {
    let mut q = dualpi2();
    let mut probs = Vec::new();
    let tr = Bench::new(seed, RATE).run(&mut q, arrivals, ms(20000), |t, q: &DualPi2| {
        if t >= ms(8000) {
            probs.push(q.prob());
        }
    });
    assert_conserved(arrivals.len(), &tr);
    (tr, probs.iter().sum::<f64>() / probs.len() as f64)
}

/// 1.2 times the link rate of Not-ECT classic traffic: PI2's integral term
/// moves p' until the queue delay sits at the 15 ms target, where p'² sheds
/// the excess sixth of the arrivals.
#[test]
fn pi2_holds_a_classic_overload_near_its_target_with_p_squared() {
    let arr = cbr_1500(ms(20000), Dur::from_us(100), 1, Ecn::NotEct);
    let (tr, mean_p) = pi2_for_20_s(&arr, 3);
    assert_overload_held(&arr, &tr, ms(8000), 0.03);
    assert!(tr.drops.iter().all(|d| d.3 == DropReason::DualPi2));
    // The drop probability is p'², so p' sits near sqrt(1/6) ≈ 0.41.
    assert!(
        (mean_p - (1.0f64 / 6.0).sqrt()).abs() < 0.08,
        "mean p' {mean_p}"
    );
}

/// With a classic Not-ECT overload holding p' up and a light L4S stream
/// beside it (its sojourn under the step), the L queue is marked at k·p'
/// while the C queue is dropped at p'²: the coupling.
#[test]
fn the_coupling_marks_l_at_k_times_p_and_c_at_p_squared() {
    let arr = merge(vec![
        cbr_1500(ms(20000), Dur::from_us(100), 1, Ecn::NotEct),
        cbr_1500(ms(20000), Dur::from_us(2000), 2, Ecn::Ect1),
    ]);
    let (tr, p) = pi2_for_20_s(&arr, 4);
    let late = |flow: u16| {
        tr.departures
            .iter()
            .filter(|d| d.flow == flow && d.at >= ms(8000))
            .collect::<Vec<_>>()
    };
    let l_out = late(2);
    let l = l_out.iter().filter(|d| d.marked).count() as f64 / l_out.len() as f64;
    assert!(l_out.iter().all(|d| d.sojourn <= Dur::from_ms(1)));
    let c_drops = tr
        .drops
        .iter()
        .filter(|d| d.2 == 1 && d.0 >= ms(8000))
        .count() as f64;
    let c = c_drops / (c_drops + late(1).len() as f64);
    assert!(p > 0.05 && p < 0.5, "p' {p}");
    // L: k·p' (the L packets wait less than the 1 ms step: the scheduler
    // serves the L queue first).
    assert!((l - 2.0 * p).abs() < 0.1, "L marked {l}, k·p' {}", 2.0 * p);
    assert!((c - p * p).abs() < 0.06, "C dropped {c}, p'² {}", p * p);
    assert!(l > 2.0 * c, "L {l} C {c}");
}

/// Both queues backlogged: the WRR credit gives the L queue 90 % of the
/// bytes and the C queue its 10 % protection.
#[test]
fn the_scheduler_gives_the_c_queue_its_weight() {
    for (wc, want) in [(10, 0.10), (50, 0.50)] {
        let arr = merge(vec![
            cbr_1500(ms(200), Dur::from_us(60), 1, Ecn::Ect1),
            cbr_1500(ms(200), Dur::from_us(60), 2, Ecn::Ect0),
        ]);
        let c = DualPi2Config {
            c_protection_pct: wc,
            ..DualPi2Config::default()
        };
        let mut q = DualPi2::new(UNLIMITED, c);
        let tr = Bench::new(5, RATE).run(&mut q, &arr, ms(200), |_, _| {});
        let late: Vec<_> = tr.departures.iter().filter(|d| d.at >= ms(20)).collect();
        let share = late.iter().filter(|d| d.flow == 2).count() as f64 / late.len() as f64;
        assert!((share - want).abs() < 0.02, "wc {wc}: C share {share}");
    }
}

#[test]
fn same_seed_same_decisions() {
    let arr = merge(vec![
        cbr_1500(ms(3000), Dur::from_us(100), 1, Ecn::NotEct),
        cbr_1500(ms(3000), Dur::from_us(700), 2, Ecn::Ect1),
    ]);
    let run = |seed| Bench::new(seed, RATE).run(&mut dualpi2(), &arr, ms(3000), |_, _| {});
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

#[test]
fn a_zero_step_threshold_and_a_zero_k_are_refused_by_name() {
    let bad = |c: DualPi2Config| check(&c).err().and_then(|e| e.param);
    let step0 = DualPi2Config {
        step_thresh_ps: 0,
        ..DualPi2Config::default()
    };
    assert_eq!(bad(step0).as_deref(), Some("step_thresh_ps"));
    let k0 = DualPi2Config {
        k: 0.0,
        ..DualPi2Config::default()
    };
    assert_eq!(bad(k0).as_deref(), Some("k"));
    assert!(check(&DualPi2Config::default()).is_ok());
}

/// A DualPI2 whose p' stays at `p` (its controller never runs).
fn frozen(p: f64, c: DualPi2Config) -> DualPi2 {
    let mut q = DualPi2::new(UNLIMITED, c);
    q.prob = p;
    q.next_update = Time::MAX;
    q
}

/// A burst of `n` packets of `size` bytes at time zero.
fn burst(n: u64, size: u32, ecn: Ecn) -> Vec<Arrival> {
    cbr(Time::ZERO, Time::from_ps(n), Dur::from_ps(1), size, 1, ecn)
        .into_iter()
        .map(|a| Arrival {
            at: Time::ZERO,
            ..a
        })
        .collect()
}

fn tags(tr: &Trace) -> Vec<u64> {
    tr.departures.iter().map(|d| d.tag).collect()
}

/// Linux's floor: at p' = 1 (overloaded, every roll hits) a standing queue
/// of at most two 1500-byte packets is never dropped or marked, in either
/// queue; a ten-packet burst loses exactly the packets that left with two
/// MTUs of frames (3028 bytes, 14 of link header each) or more behind them:
/// two 1500-byte packets are there, two 1488-byte ones (E6's) are under.
#[test]
fn nothing_probabilistic_happens_under_two_mtus_of_backlog() {
    for ecn in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1] {
        // Three at once, then one per serialization time: two in the queue
        // at every departure, one behind the leaving packet.
        let mut arr = burst(3, 1500, ecn);
        arr.extend(cbr(
            ms(0) + Dur::from_us(120),
            ms(100),
            Dur::from_us(120),
            1500,
            1,
            ecn,
        ));
        let mut q = frozen(1.0, DualPi2Config::default());
        let tr = run_conserved(&mut q, &arr, 1, ms(200));
        assert!(tr.drops.is_empty(), "{ecn:?}: {} dropped", tr.drops.len());
        assert!(tr.departures.iter().all(|d| !d.marked), "{ecn:?} marked");
        // counted in the lane the codepoint names, none in the other
        let lane = Lane::of(ecn) as usize;
        assert_eq!(q.counts.floor_spared[lane], arr.len() as u64, "{ecn:?}");
        assert_eq!(q.counts.floor_spared[1 - lane], 0, "{ecn:?}");
        assert_eq!((q.counts.prob_marks, q.counts.step_marks), (0, 0));
    }
    for (size, left) in [(1488, vec![0, 7, 8, 9]), (1500, vec![0, 8, 9])] {
        for ecn in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1] {
            let mut q = frozen(1.0, DualPi2Config::default());
            let tr = run_conserved(&mut q, &burst(10, size, ecn), 1, ms(10));
            assert_eq!(tags(&tr), left, "{size} B {ecn:?}");
            assert!(tr.drops.iter().all(|d| d.3 == DropReason::DualPi2));
            assert_eq!(q.counts.overload_drops, 10 - left.len() as u64);
        }
    }
}

/// `n` ECT(1) or ECT(0) packets at once through DualPI2 frozen at p', the
/// step out of reach: (packets judged past the floor, drops, marks), after
/// checking that every packet judged left marked or was dropped.
fn judged_burst(p: f64, ecn: Ecn, drop_overload: bool, seed: u64) -> (u64, u64, u64) {
    let n = 4000;
    let c = DualPi2Config {
        step_thresh_ps: MAX_AQM_TIME_PS,
        drop_overload,
        ..DualPi2Config::default()
    };
    let mut q = frozen(p, c);
    let tr = run_conserved(&mut q, &burst(n, 1500, ecn), seed, ms(1000));
    // The first leaves alone, the last two with less than 3028 bytes of
    // frames behind.
    let judged = n - 3;
    let (drops, marks) = (
        tr.drops.len() as u64,
        tr.departures.iter().filter(|d| d.marked).count() as u64,
    );
    assert_eq!((q.counts.prob_drops, q.counts.prob_marks), (drops, marks));
    assert_eq!(q.counts.step_marks, 0);
    assert_eq!(q.counts.overloaded, if 2.0 * p > 1.0 { judged } else { 0 });
    (judged, drops, marks)
}

/// Within five standard deviations of Binomial(n, p).
#[track_caller]
fn assert_binomial(hits: u64, n: u64, p: f64, what: &str) {
    let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
    assert!(
        (hits as f64 - mean).abs() < 5.0 * sd,
        "{what}: {hits} of {n}, expected {mean:.0} ± {sd:.0}"
    );
}

/// Overloaded (k·p' = 1.2), Linux's `drop_overload` drops L4S packets,
/// ECT(1) as they are, at p'² and CE-marks every other one; without it,
/// every one is marked and none dropped. Not overloaded (k·p' = 0.9), the
/// coupled k·p' marks and nothing is dropped.
#[test]
fn an_overloaded_l_queue_drops_at_p_squared_and_marks_the_rest() {
    let (n, drops, marks) = judged_burst(0.6, Ecn::Ect1, true, 11);
    assert_binomial(drops, n, 0.36, "ECT(1) dropped overloaded");
    assert_eq!(drops + marks, n, "every packet not dropped is marked");
    let (n, drops, marks) = judged_burst(0.6, Ecn::Ect1, false, 12);
    assert_eq!((drops, marks), (0, n), "drop_overload off: all marked");
    let (n, drops, marks) = judged_burst(0.45, Ecn::Ect1, true, 13);
    assert_eq!(drops, 0);
    assert_binomial(marks, n, 0.9, "ECT(1) marked at k·p'");
}

/// The classic queue, overloaded (k·p' = 1.2): a hit at p'² drops an ECT(0)
/// packet instead of marking it; not overloaded (k·p' = 0.9), it marks.
#[test]
fn overload_drops_ect0_in_the_classic_queue() {
    let (n, drops, marks) = judged_burst(0.6, Ecn::Ect0, true, 21);
    assert_eq!(marks, 0, "overloaded: no marks in the C queue");
    assert_binomial(drops, n, 0.36, "ECT(0) dropped overloaded");
    let (n, drops, marks) = judged_burst(0.45, Ecn::Ect0, true, 22);
    assert_eq!(drops, 0, "not overloaded: ECT(0) is marked, not dropped");
    assert_binomial(marks, n, 0.45 * 0.45, "ECT(0) marked at p'²");
}

/// The step as Linux applies it: whether it may mark a packet is decided on
/// arrival (at least `min_qlen_step` packets ahead of it in the L queue),
/// it acts under the floor too, and it counts a packet the coupled rule
/// has just marked (Linux's `INET_ECN_set_ce` succeeds on CE).
#[test]
fn the_step_is_decided_on_arrival_and_counted_after_the_coupled_mark() {
    // Twenty ECT(1) packets at once with a 1 µs step: packet i (i ≥ 1) finds
    // i − 1 ahead of it (packet 0 has left) and waits i serialization times.
    let c = DualPi2Config {
        step_thresh_ps: Dur::from_us(1).ps(),
        min_qlen_step: 5,
        ..DualPi2Config::default()
    };
    let mut q = frozen(0.0, c.clone());
    let tr = run_conserved(&mut q, &burst(20, 1500, Ecn::Ect1), 1, ms(10));
    for d in &tr.departures {
        assert_eq!(d.marked, d.tag >= 6, "packet {}", d.tag);
    }
    assert_eq!(q.counts.step_marks, 14);
    assert_eq!(
        q.counts.floor_spared.iter().sum::<u64>(),
        0,
        "p' = 0: the floor spares nothing"
    );
    // p' = 0.5: k·p' = 1, not overloaded, every packet judged is marked by
    // the coupling, and the step still counts those it applies to.
    let c = DualPi2Config {
        min_qlen_step: 0,
        ..c
    };
    let mut q = frozen(0.5, c);
    let tr = run_conserved(&mut q, &burst(20, 1500, Ecn::Ect1), 1, ms(10));
    assert!(tr.drops.is_empty());
    assert_eq!(tr.departures.iter().filter(|d| d.marked).count(), 19);
    assert_eq!(q.counts.prob_marks, 17, "packets 1 to 17, past the floor");
    assert_eq!(
        q.counts.floor_spared,
        [3, 0],
        "packet 0 and the last two, all L"
    );
    assert_eq!(q.counts.step_marks, 19, "every packet that waited");
}

/// `burst` at time `at`, tagged as `flow`.
fn burst_at(at: Time, n: u64, flow: u16, ecn: Ecn) -> Vec<Arrival> {
    burst(n, 1500, ecn)
        .into_iter()
        .map(|a| Arrival { at, flow, ..a })
        .collect()
}

/// Linux keeps the WRR credit while one queue is empty. The first L
/// packet leaves alone (no change), four more leave with the C queue busy
/// (credit −121 120 + 4 × 15 140 = −60 560), the C queue then sends alone,
/// and when twenty L packets arrive at 2 ms the carried credit lets five of
/// them go before the C queue's turn (from the start value, reset on the C
/// queue sending alone, it would be nine).
#[test]
fn the_credit_is_carried_while_one_queue_is_empty() {
    let arr = merge(vec![
        burst_at(Time::ZERO, 5, 1, Ecn::Ect1),
        burst_at(Time::ZERO, 40, 2, Ecn::Ect0),
        burst_at(ms(2), 20, 1, Ecn::Ect1),
    ]);
    let mut credits = Vec::new();
    let mut q = frozen(0.0, DualPi2Config::default());
    let tr = Bench::new(1, RATE).run(&mut q, &arr, ms(50), |_, q: &DualPi2| {
        credits.push(q.credit)
    });
    assert_conserved(arr.len(), &tr);
    let flows: Vec<u16> = tr.departures.iter().map(|d| d.flow).collect();
    assert_eq!(flows[..6], [1, 1, 1, 1, 1, 2]);
    assert_eq!(
        credits[5], -60_560,
        "unchanged by the C queue sending alone"
    );
    let late = tr.departures.iter().position(|d| d.at >= ms(2)).unwrap();
    assert!(flows[5..late].iter().all(|&f| f == 2));
    let want = [1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2];
    assert_eq!(flows[late..late + 16], want);
    // The last packet leaves; the next dequeue finds both queues empty.
    assert_eq!(q.credit, q.credit_init);
}

/// A packet dropped at dequeue leaves the credit as it was. At p' = 1 (no
/// overload drops in the L queue: `drop_overload` off) the first ten L
/// packets (the first alone, no change) bring the credit to +15 140, the C
/// queue's turn: its five Not-ECT packets are dropped one after the other
/// in the same dequeue, each finding the credit still positive (charged,
/// the first drop would have handed the turn back to the L queue), and an
/// L packet leaves.
#[test]
fn a_packet_dropped_at_dequeue_leaves_the_credit_as_it_was() {
    let arr = merge(vec![
        burst_at(Time::ZERO, 20, 1, Ecn::Ect1),
        burst_at(Time::ZERO, 5, 2, Ecn::NotEct),
    ]);
    let c = DualPi2Config {
        drop_overload: false,
        ..DualPi2Config::default()
    };
    let mut credits = Vec::new();
    let mut q = frozen(1.0, c);
    let tr = Bench::new(1, RATE).run(&mut q, &arr, ms(50), |_, q: &DualPi2| {
        credits.push(q.credit)
    });
    assert_conserved(arr.len(), &tr);
    assert!(tr.departures.iter().all(|d| d.flow == 1));
    assert_eq!(credits[9], 15_140);
    let eleventh = tr.departures[10].at;
    assert_eq!(tr.drops.len(), 5);
    assert!(
        tr.drops.iter().all(|d| d.0 == eleventh && d.2 == 2),
        "{:?}",
        tr.drops
    );
    assert_eq!(credits[10], 15_140, "five drops, no charge");
}
