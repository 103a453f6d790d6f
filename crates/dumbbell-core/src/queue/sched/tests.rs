//! Tests of the schedulers on scripted backlogs.

use super::*;
use proptest::prelude::*;

/// Serves two backlogged queues of fixed packet sizes `n` times; returns
/// (packets, bytes) served per class and the order.
fn serve(s: &mut dyn Scheduler, sizes: [u32; 2], n: usize) -> ([u64; 2], [u64; 2], Vec<Class>) {
    let (mut pkts, mut bytes, mut order) = ([0u64; 2], [0u64; 2], vec![]);
    for _ in 0..n {
        let c = s
            .pick([Some(sizes[0]), Some(sizes[1])])
            .expect("backlogged");
        pkts[c.index()] += 1;
        bytes[c.index()] += sizes[c.index()] as u64;
        order.push(c);
    }
    (pkts, bytes, order)
}

#[test]
fn every_scheduler_is_idle_with_nothing_queued() {
    let mut all: Vec<Box<dyn Scheduler>> = vec![
        Box::new(StrictPriority),
        Box::new(RoundRobin::default()),
        Box::new(Drr::new(1514, 1514)),
    ];
    for s in all.iter_mut() {
        assert_eq!(s.pick([None, None]), None, "{}", s.name());
        assert_eq!(s.pick([None, Some(100)]), Some(Class::Long), "{}", s.name());
        assert_eq!(
            s.pick([Some(100), None]),
            Some(Class::Short),
            "{}",
            s.name()
        );
    }
}

proptest! {
    /// Strict priority never serves the long queue while the short one
    /// holds a packet, whatever the history.
    #[test]
    fn strict_priority_never_serves_long_while_short_holds_a_packet(
        heads in proptest::collection::vec((proptest::option::of(40u32..1500), proptest::option::of(40u32..1500)), 1..200)
    ) {
        let mut s = StrictPriority;
        for (a, b) in heads {
            let got = s.pick([a, b]);
            let want = if a.is_some() { Some(Class::Short) } else if b.is_some() { Some(Class::Long) } else { None };
            prop_assert_eq!(got, want);
        }
    }

    /// Round robin serves the other queue whenever it is not empty.
    #[test]
    fn round_robin_alternates_between_non_empty_queues(
        heads in proptest::collection::vec((any::<bool>(), any::<bool>()), 1..200)
    ) {
        let mut s = RoundRobin::default();
        let mut last: Option<Class> = None;
        for (a, b) in heads {
            let h = [a.then_some(1500u32), b.then_some(40u32)];
            let got = s.pick(h);
            match (a, b) {
                (false, false) => prop_assert_eq!(got, None),
                (true, false) => prop_assert_eq!(got, Some(Class::Short)),
                (false, true) => prop_assert_eq!(got, Some(Class::Long)),
                (true, true) => {
                    let want = match last { Some(Class::Short) => Class::Long, _ => Class::Short };
                    prop_assert_eq!(got, Some(want));
                }
            }
            if got.is_some() { last = got; }
        }
    }
}

#[test]
fn round_robin_alternates_packet_by_packet_whatever_the_sizes() {
    let (pkts, bytes, order) = serve(&mut RoundRobin::default(), [1500, 40], 1000);
    assert_eq!(pkts, [500, 500]);
    assert_eq!(bytes, [750_000, 20_000], "RR shares packets, not bytes");
    assert_eq!(
        &order[..4],
        &[Class::Short, Class::Long, Class::Short, Class::Long]
    );
}

#[test]
fn drr_shares_bytes_in_the_ratio_of_the_quanta() {
    for (quanta, sizes) in [
        ([1514u32, 1514u32], [1500u32, 500u32]),
        ([3000, 1000], [1500, 1500]),
        ([4500, 1500], [1000, 1488]),
        ([100, 100], [1500, 40]),
    ] {
        let mut s = Drr::new(quanta[0], quanta[1]);
        let (_, bytes, _) = serve(&mut s, sizes, 60_000);
        let got = bytes[0] as f64 / bytes[1] as f64;
        let want = quanta[0] as f64 / quanta[1] as f64;
        // Each queue carries at most one packet of credit over: the error
        // per round is bounded, so the ratio converges.
        assert!(
            (got / want - 1.0).abs() < 0.02,
            "quanta {quanta:?} sizes {sizes:?}: {got} vs {want}"
        );
    }
}

#[test]
fn drr_equal_quanta_equal_bytes_so_small_packets_go_more_often() {
    let (pkts, bytes, _) = serve(&mut Drr::new(1500, 1500), [1500, 500], 4000);
    assert_eq!(pkts[1], 3 * pkts[0]);
    assert_eq!(bytes[0], bytes[1]);
}

#[test]
fn drr_a_queue_that_empties_keeps_no_credit() {
    let mut s = Drr::new(1000, 1000);
    // Short's head (1500) needs two visits: first visit leaves 1000 credit.
    assert_eq!(
        s.pick([Some(1500), None]),
        Some(Class::Short),
        "two quanta accrue while alone"
    );
    assert_eq!(s.deficit(Class::Short), 500);
    // Short empties: its credit is gone at the next pick.
    assert_eq!(s.pick([None, Some(400)]), Some(Class::Long));
    assert_eq!(s.deficit(Class::Short), 0);
    assert_eq!(s.deficit(Class::Long), 600);
}
