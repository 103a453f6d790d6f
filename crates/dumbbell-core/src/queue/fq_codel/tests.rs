//! FQ-CoDel's defining behaviour on one port with scripted arrivals: a
//! sparse flow keeps a near-zero sojourn beside a bulk flow that holds plain
//! CoDel at its target; DRR shares bytes equally between bulk flows of
//! different packet sizes; overflow drops from the head of the fattest
//! queue only; the hash key comes from the seed; conservation (a property
//! test) and determinism.

use super::*;
use crate::packet::Ecn;
use crate::queue::codel::{Codel, DEFAULT_TARGET};
use crate::queue::testkit::{
    assert_conserved, cbr, cbr_1500, median, merge, ms, run_conserved, Arrival, Bench, Trace, RATE,
    UNLIMITED,
};
use crate::sim::{rng_for, Dur, Time};
use proptest::prelude::*;

fn fq(limit: Limit, ecn: bool, seed: u64) -> FqCodel {
    let mut p = FqCodelParams::linux(rng_for(seed, "queue:s1->c:fq_codel").next_u64());
    p.codel.ecn = ecn;
    FqCodel::new(limit, p)
}

/// A bulk flow at twice the link rate (1500 B every 60 µs) and a sparse
/// flow of 100-byte packets every 10 ms, for 3 s.
fn bulk_and_sparse() -> Vec<Arrival> {
    merge(vec![
        cbr_1500(ms(3000), Dur::from_us(60), 1, Ecn::NotEct),
        cbr(
            Time::from_ps(7),
            ms(3000),
            Dur::from_ms(10),
            100,
            2,
            Ecn::NotEct,
        ),
    ])
}

fn sojourns(tr: &Trace, flow: u16, after: Time) -> Vec<Dur> {
    tr.departures
        .iter()
        .filter(|d| d.flow == flow && d.at >= after)
        .map(|d| d.sojourn)
        .collect()
}

#[test]
fn a_sparse_flow_keeps_a_low_delay_beside_a_bulk_flow() {
    let arr = bulk_and_sparse();
    let mut q = fq(UNLIMITED, false, 1);
    let probe = |flow: u16| crate::packet::Packet {
        src: 1,
        dst: 2,
        sport: flow,
        dport: 80,
        ..Default::default()
    };
    assert_ne!(
        q.queue_of(&probe(1)),
        q.queue_of(&probe(2)),
        "hash collision"
    );
    let tr = run_conserved(&mut q, &arr, 1, ms(3000));
    let fq_sparse = sojourns(&tr, 2, ms(1000));
    // Plain CoDel, same arrivals: the sparse packets wait behind the bulk.
    let tr_c = Bench::new(1, RATE).run(
        &mut Codel::new(UNLIMITED, Default::default()),
        &arr,
        ms(3000),
        |_, _| {},
    );
    let codel_sparse = median(sojourns(&tr_c, 2, ms(1000)));
    // A sparse packet waits at most for the bulk packet on the wire and
    // one more (its queue is new, served first): 2 x 120 µs.
    let worst = *fq_sparse.iter().max().unwrap();
    assert!(
        worst <= Dur::from_us(240),
        "FQ-CoDel sparse worst {worst:?}"
    );
    assert!(
        codel_sparse >= DEFAULT_TARGET,
        "CoDel sparse {codel_sparse:?}"
    );
    // No sparse packet was dropped.
    assert!(tr.drops.iter().all(|d| d.2 == 1));
}

/// Two bulk flows, one of 1500-byte and one of 500-byte packets, each
/// offering the whole link: DRR gives them equal bytes, not equal packets.
#[test]
fn drr_shares_bytes_equally_between_backlogged_flows() {
    let arr = merge(vec![
        cbr_1500(ms(2000), Dur::from_us(120), 1, Ecn::Ect0),
        cbr(Time::ZERO, ms(2000), Dur::from_us(40), 500, 2, Ecn::Ect0),
    ]);
    let mut q = fq(UNLIMITED, true, 2);
    let tr = run_conserved(&mut q, &arr, 2, ms(2000));
    let bytes = |flow: u16, size: u64| {
        tr.departures
            .iter()
            .filter(|d| d.flow == flow && d.at >= ms(500))
            .count() as u64
            * size
    };
    let (a, b) = (bytes(1, 1500), bytes(2, 500));
    let share = a as f64 / (a + b) as f64;
    assert!(
        (share - 0.5).abs() < 0.01,
        "byte share {share} ({a} vs {b})"
    );
}

/// Over the limit, the packets dropped are the oldest of the fattest
/// queue; a light flow sharing the port loses nothing.
#[test]
fn overflow_drops_from_the_head_of_the_fattest_queue() {
    let limit = Limit {
        pkts: Some(100),
        bytes: None,
    };
    let arr = merge(vec![
        cbr_1500(ms(500), Dur::from_us(40), 1, Ecn::Ect0),
        cbr_1500(ms(500), Dur::from_us(500), 2, Ecn::Ect0),
    ]);
    let mut q = fq(limit, true, 3);
    let tr = run_conserved(&mut q, &arr, 3, ms(500));
    let over: Vec<_> = tr
        .drops
        .iter()
        .filter(|d| d.3 == DropReason::Overflow)
        .collect();
    assert!(over.len() > 100, "{} overflow drops", over.len());
    assert!(
        over.iter().all(|d| d.2 == 1),
        "a light-flow packet was dropped"
    );
    // Head drops: each dropped packet is older than every packet of the
    // fat flow that left after the drop.
    for d in &over {
        let later_departure = tr
            .departures
            .iter()
            .find(|x| x.flow == 1 && x.at > d.0)
            .map(|x| x.tag);
        if let Some(tag) = later_departure {
            assert!(d.1 < tag, "dropped {} but {} left later", d.1, tag);
        }
    }
    assert!(q.stats().drop_overlimit == over.len() as u64);
}

#[test]
fn the_hash_key_comes_from_the_seed() {
    let probe = |sport: u16| crate::packet::Packet {
        src: 3,
        dst: 9,
        sport,
        dport: 5001,
        ..Default::default()
    };
    let map = |seed: u64| -> Vec<u32> {
        let q = fq(UNLIMITED, true, seed);
        (0..64).map(|s| q.queue_of(&probe(s))).collect()
    };
    assert_eq!(map(1), map(1));
    assert_ne!(map(1), map(2));
    // 64 flows over 1024 queues: few collisions (about 2 expected).
    let mut m = map(1);
    m.sort();
    m.dedup();
    assert!(m.len() >= 58, "{} distinct queues", m.len());
}

#[test]
fn same_seed_same_trace() {
    let arr = bulk_and_sparse();
    let run = || Bench::new(4, RATE).run(&mut fq(UNLIMITED, true, 4), &arr, ms(1500), |_, _| {});
    assert_eq!(run(), run());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random arrivals of up to 8 flows, random sizes and ECN, a small
    /// limit: every packet departs, is dropped or is held, exactly once.
    #[test]
    fn every_packet_is_accounted_for(
        seed in 0u64..1000,
        pkts in prop::collection::vec((0u64..400, 40u32..1500, 0u16..8, any::<bool>()), 1..400),
        limit in 2u32..60,
    ) {
        let mut arr: Vec<Arrival> = pkts
            .iter()
            .map(|&(t, size, flow, ect)| Arrival {
                at: Time::from_ps(t * 50 * crate::sim::PS_PER_US),
                size,
                flow,
                ecn: if ect { Ecn::Ect0 } else { Ecn::NotEct },
            })
            .collect();
        arr.sort_by_key(|a| a.at);
        let mut q = fq(Limit { pkts: Some(limit), bytes: None }, seed % 2 == 0, seed);
        let tr = Bench::new(seed, 10_000_000).run(&mut q, &arr, ms(30), |_, q| {
            assert!(q.len_pkts() <= limit);
        });
        assert_conserved(arr.len(), &tr);
        prop_assert_eq!(tr.held.len() as u32, q.len_pkts());
    }
}
