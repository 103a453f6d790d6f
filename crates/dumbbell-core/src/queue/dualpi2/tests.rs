//! DualPI2's defining behaviour on one port with scripted arrivals:
//! classification on ECT(1) and CE; the L queue's step mark above 1 ms of
//! sojourn; the PI2 controller holding a classic overload near its 15 ms
//! target with p_C = p'²; the coupling p_L = k·p' seen in the L queue's
//! mark rate; the scheduler's weights; conservation and determinism.

use super::*;
use crate::packet::Ecn;
use crate::queue::testkit::{
    assert_conserved, assert_overload_held, cbr_1500, merge, ms, run_conserved, Arrival, Bench,
    Trace, RATE, UNLIMITED,
};

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
