//! CoDel's defining behaviour on one port with scripted arrivals: no drop
//! until the sojourn time has stayed above target for an interval, drops
//! spaced by the control law `interval / sqrt(count)`, the count carried
//! over on a quick re-entry (and not on a late one), ECN marks in place of
//! drops, the one-MTU floor, conservation and determinism.

use super::*;
use crate::packet::Ecn;
use crate::queue::testkit::{assert_conserved, cbr, merge, ms, Bench, Trace, RATE};
use crate::sim::{Dur, Time};

const PKT: u32 = 1500;
/// A 1500-byte packet at 100 Mb/s: 120 µs.
const TX: Dur = Dur::from_us(120);

fn codel(ecn: bool) -> Codel {
    Codel::new(
        Limit {
            pkts: None,
            bytes: None,
        },
        CodelParams {
            ecn,
            ..CodelParams::default()
        },
    )
}

/// Unresponsive arrivals at 1.5 times the link rate from 0 to `to`.
fn overload(to: Time, ecn: Ecn) -> Vec<crate::queue::testkit::Arrival> {
    cbr(Time::ZERO, to, Dur::from_us(80), PKT, 1, ecn)
}

fn drop_times(tr: &Trace) -> Vec<Time> {
    tr.drops.iter().map(|d| d.0).collect()
}

#[test]
fn no_drop_until_the_sojourn_has_been_above_target_for_an_interval() {
    let arr = overload(ms(2000), Ecn::NotEct);
    let mut b = Bench::new(1, RATE);
    let tr = b.run(&mut codel(false), &arr, ms(2000), |_, _| {});
    // The queue grows by one packet every 240 µs: the head's sojourn time
    // reaches 5 ms after 15 ms; the first drop is an interval later.
    let first_above = tr
        .departures
        .iter()
        .find(|d| d.sojourn >= DEFAULT_TARGET)
        .unwrap()
        .at;
    let first_drop = tr.drops[0].0;
    assert!(
        first_drop > first_above + DEFAULT_INTERVAL
            && first_drop <= first_above + DEFAULT_INTERVAL + TX.mul(2),
        "first above target at {first_above:?}, first drop at {first_drop:?}"
    );
    assert!(tr.drops.iter().all(|d| d.3 == DropReason::Codel));
    assert_conserved(arr.len(), &tr);
}

/// The scheduled drop times follow `drop_next += interval / sqrt(count)`
/// from the first drop; each actual drop happens at the first dequeue at or
/// after its scheduled time, so within one packet time of it.
#[test]
fn drops_are_spaced_by_interval_over_sqrt_count() {
    let arr = overload(ms(3000), Ecn::NotEct);
    let mut b = Bench::new(2, RATE);
    let tr = b.run(&mut codel(false), &arr, ms(3000), |_, _| {});
    let t = drop_times(&tr);
    assert!(t.len() > 100, "{} drops", t.len());
    let mut sched = t[0];
    for (k, &actual) in t.iter().enumerate().skip(1) {
        // Drop k+1 (1-based) is due interval/sqrt(k) after drop k's time.
        sched = control_law(sched, DEFAULT_INTERVAL, k as u32);
        assert!(
            actual >= sched && actual < sched + TX,
            "drop {}: scheduled {sched:?}, happened {actual:?}",
            k + 1
        );
    }
    // And the gaps shrink as 1/sqrt(count): the 100th gap is a tenth of
    // the first (interval/sqrt(1) = 100 ms, interval/sqrt(100) = 10 ms).
    let gap = |k: usize| t[k].since(t[k - 1]).secs_f64();
    assert!((gap(1) - 0.100).abs() < 2.0 * TX.secs_f64(), "{}", gap(1));
    assert!(
        (gap(100) - 0.010).abs() < 2.0 * TX.secs_f64(),
        "{}",
        gap(100)
    );
}

/// Overload, then a lull that drains the queue, then overload again: a
/// re-entry within 16 intervals of the last scheduled drop starts from the
/// last episode's count (count - lastcount); a later one starts from 1.
#[test]
fn count_carries_over_on_a_quick_re_entry_only() {
    for (lull_ms, carried) in [(400u64, true), (2500, false)] {
        // 1.2 times the link rate for 600 ms, a lull, 1.2 times again.
        let a1 = cbr(Time::ZERO, ms(600), Dur::from_us(100), PKT, 1, Ecn::NotEct);
        let start2 = ms(600 + lull_ms);
        let a2 = cbr(
            start2,
            start2 + Dur::from_ms(1000),
            Dur::from_us(100),
            PKT,
            1,
            Ecn::NotEct,
        );
        let arr = merge(vec![a1, a2]);
        let mut b = Bench::new(3, RATE);
        // Count at each entry into the dropping state.
        let mut entries: Vec<(Time, u32, u32)> = Vec::new();
        let mut was = false;
        let tr = b.run(
            &mut codel(false),
            &arr,
            start2 + Dur::from_ms(1000),
            |now, q| {
                let v = q.vars();
                if v.dropping && !was {
                    entries.push((now, v.count, v.lastcount));
                }
                was = v.dropping;
            },
        );
        assert_conserved(arr.len(), &tr);
        let first_episode = tr.drops.iter().filter(|d| d.0 < start2).count() as u32;
        assert!(first_episode > 3, "{first_episode}");
        assert!(entries.len() >= 2, "{entries:?}");
        assert_eq!(entries[0].1, 1);
        // The first re-entry in the second burst.
        let re = entries
            .iter()
            .find(|e| e.0 >= start2)
            .expect("a second episode");
        if carried {
            // count after n drops is n, lastcount 1: delta = n - 1.
            assert_eq!(re.1, first_episode - 1, "{entries:?}");
        } else {
            assert_eq!(re.1, 1, "{entries:?}");
        }
    }
}

#[test]
fn with_ecn_ect_packets_are_marked_not_dropped_at_the_same_instants() {
    let drops = {
        let arr = overload(ms(1000), Ecn::NotEct);
        drop_times(&Bench::new(4, RATE).run(&mut codel(true), &arr, ms(1000), |_, _| {}))
    };
    let arr = overload(ms(1000), Ecn::Ect0);
    let tr = Bench::new(4, RATE).run(&mut codel(true), &arr, ms(1000), |_, _| {});
    assert!(
        tr.drops.is_empty(),
        "{:?}",
        &tr.drops[..3.min(tr.drops.len())]
    );
    let marks: Vec<Time> = tr
        .departures
        .iter()
        .filter(|d| d.marked)
        .map(|d| d.at)
        .collect();
    // Not-ECT traffic was dropped at the first dequeue at or after each
    // scheduled time, marks land on the same schedule: the first one at
    // the same instant, the later ones within a packet time.
    assert!(!drops.is_empty() && marks.len() >= 5);
    assert_eq!(marks[0], drops[0]);
    let mut sched = marks[0];
    for (k, &m) in marks.iter().enumerate().skip(1) {
        sched = control_law(sched, DEFAULT_INTERVAL, k as u32);
        assert!(m >= sched && m < sched + TX, "mark {k}: {sched:?} vs {m:?}");
    }
    assert_conserved(arr.len(), &tr);
}

/// A standing queue of one packet (at most one MTU behind the head) is
/// never dropped from however long its packets wait; two packets standing
/// are (at equal times the bench dequeues before it admits, so a burst
/// of 3 leaves one packet behind each head, a burst of 4 two). A 1 Mb/s link sends a 1500-byte packet in 12 ms, above target, and
/// one packet arrives every 12 ms after an initial burst.
#[test]
fn a_standing_queue_of_one_mtu_is_never_dropped_from() {
    for (burst, drops) in [(3u64, false), (4, true)] {
        let mut arr = cbr(Time::ZERO, ms(3000), Dur::from_ms(12), PKT, 1, Ecn::NotEct);
        for _ in 1..burst {
            arr.insert(0, arr[0]);
        }
        let tr = Bench::new(5, 1_000_000).run(&mut codel(false), &arr, ms(3000), |_, _| {});
        assert!(tr.departures[1..]
            .iter()
            .all(|d| d.sojourn >= Dur::from_ms(12)));
        assert_eq!(!tr.drops.is_empty(), drops, "burst {burst}: {:?}", tr.drops);
        assert_conserved(arr.len(), &tr);
    }
}

#[test]
fn the_limit_drops_arrivals_and_everything_is_accounted_for() {
    let mut q = Codel::new(
        Limit {
            pkts: Some(50),
            bytes: None,
        },
        CodelParams::default(),
    );
    let arr = cbr(Time::ZERO, ms(500), Dur::from_us(40), PKT, 1, Ecn::NotEct);
    let tr = Bench::new(6, RATE).run(&mut q, &arr, ms(500), |_, _| {});
    assert!(tr.drops.iter().any(|d| d.3 == DropReason::Overflow));
    assert!(tr.drops.iter().any(|d| d.3 == DropReason::Codel));
    assert!(q.len_pkts() <= 50);
    assert_conserved(arr.len(), &tr);
}

#[test]
fn same_arrivals_same_trace() {
    let arr = overload(ms(800), Ecn::Ect0);
    let a = Bench::new(7, RATE).run(&mut codel(true), &arr, ms(800), |_, _| {});
    let b = Bench::new(7, RATE).run(&mut codel(true), &arr, ms(800), |_, _| {});
    assert_eq!(a, b);
}
