//! CAKE at the queue level: derived parameters, set-associative hashing,
//! host isolation, sparse-flow priority, COBALT, overflow and the ACK
//! filter, each against a scripted load.

use super::*;
use crate::packet::{flags, Ecn, Packet, PacketPool, Proto, SackBlock};
use crate::queue::testkit::{assert_conserved, cbr, cbr_1500, merge, Bench};
use crate::sim::{rng_for, Rng};

fn cake(config: CakeConfig) -> Cake {
    Cake::new(CakeParams::new(config, None, None, 0x5eed))
}

/// Linux `cake_set_rate`'s derived values at three rates.
#[test]
fn quantum_target_and_buffer_follow_the_shaped_rate() {
    let at = |rate_bps| {
        CakeParams::new(
            CakeConfig {
                rate_bps,
                ..Default::default()
            },
            None,
            None,
            1,
        )
    };
    // 100 Mb/s: full MTU quantum, target and interval as configured,
    // buffer four intervals (5 MB, above the 4 MiB floor).
    let p = at(100_000_000);
    assert_eq!(p.flow_quantum, 1514);
    assert_eq!(p.cobalt.target, Dur::from_ms(5));
    assert_eq!(p.cobalt.interval, Dur::from_ms(100));
    assert_eq!(p.buffer_limit, 5_000_000);
    // 10 Mb/s: 1.25 MB/s / 4096 = 305 bytes; buffer at the 4 MiB floor.
    let p = at(10_000_000);
    assert_eq!(p.flow_quantum, 305);
    assert_eq!(p.buffer_limit, 4 << 20);
    // 1 Mb/s: quantum floor 300; one MTU takes 12.1 ms, so the target is
    // 1.5 of that and the interval grows by the same amount.
    let p = at(1_000_000);
    assert_eq!(p.flow_quantum, 300);
    let mtu = Dur::serialization(1514, 1_000_000);
    assert_eq!(p.cobalt.target, Dur::from_ps(mtu.ps() * 3 / 2));
    assert_eq!(
        p.cobalt.interval,
        Dur::from_ms(100) + p.cobalt.target - Dur::from_ms(5)
    );
    // Unshaped: unlimited but for limit_pkts MTUs.
    let p = at(0);
    assert_eq!(p.buffer_limit, 10_240 * 1514);
    assert!(p.config.shaper().is_none());
}

fn pkt(src: u32, dst: u32, sport: u16, size: u32) -> Packet {
    Packet {
        size_bytes: size,
        payload_bytes: size.saturating_sub(52),
        src,
        dst,
        sport,
        dport: 80,
        proto: Proto::Tcp,
        ..Default::default()
    }
}

/// Flows whose direct slots fall in one set of 8 take the 8 ways; a ninth
/// collides; a flow finds its own queue again.
#[test]
fn eight_ways_per_set_then_a_collision() {
    let mut q = cake(CakeConfig::default());
    // Sports whose flow hash falls in the set of the first one.
    let set_of = |q: &Cake, sport| q.hashes(&pkt(1, 2, sport, 1500)).0 as usize % QUEUES / SET_WAYS;
    let s0 = set_of(&q, 0);
    let same: Vec<u16> = (0..u16::MAX)
        .filter(|&s| set_of(&q, s) == s0)
        .take(9)
        .collect();
    assert_eq!(same.len(), 9);
    let mut pool = PacketPool::with_capacity(64);
    let mut rng = rng_for(1, "t");
    let mut queues = Vec::new();
    for &s in &same {
        let id = pool.alloc(pkt(1, 2, s, 1500));
        let mut cx = QueueCtx {
            now: Time::ZERO,
            pool: &mut pool,
            rng: &mut rng,
        };
        assert!(matches!(q.enqueue(id, &mut cx), Verdict::Enqueued { .. }));
        queues.push(
            (0..QUEUES)
                .find(|&i| q.queue_len(i).0 > 0 && !queues.contains(&i))
                .unwrap_or(usize::MAX),
        );
    }
    // The first eight have distinct queues, all in the set.
    let first8: std::collections::BTreeSet<usize> = queues[..8].iter().copied().collect();
    assert_eq!(first8.len(), 8);
    assert!(first8.iter().all(|&i| i / SET_WAYS == s0));
    let st = q.stats().clone();
    assert_eq!(st.way_collisions, 1, "{st:?}");
    assert_eq!(st.way_misses + st.way_directs, 8, "{st:?}");
    // Packet 9 shares a queue: 9 packets in 8 queues.
    let held: u32 = (0..QUEUES).map(|i| q.queue_len(i).0).sum();
    assert_eq!(held, 9);
    // A second packet of the first flow goes straight to its queue.
    let id = pool.alloc(pkt(1, 2, same[1], 1500));
    let mut cx = QueueCtx {
        now: Time::ZERO,
        pool: &mut pool,
        rng: &mut rng,
    };
    q.enqueue(id, &mut cx);
    assert!(q.stats().way_directs + q.stats().way_hits > st.way_directs + st.way_hits);
}

/// Keeps every listed flow backlogged and counts bytes served per source
/// host over `n` dequeues.
fn served_by_src(mode: FlowMode, flows: &[(u32, u32, u16)], n: usize) -> [u64; 4] {
    let mut q = cake(CakeConfig {
        flow_mode: mode,
        ..Default::default()
    });
    let mut pool = PacketPool::with_capacity(4096);
    let mut rng: Rng = rng_for(7, "t");
    let mut served = [0u64; 4];
    let mut now = Time::ZERO;
    for _ in 0..n {
        // Top every flow up to 4 packets.
        for &(src, dst, sport) in flows {
            let held = pool_count(&q, &pool, src, sport);
            for _ in held..4 {
                let id = pool.alloc(pkt(src, dst, sport, 1500));
                let mut cx = QueueCtx {
                    now,
                    pool: &mut pool,
                    rng: &mut rng,
                };
                q.enqueue(id, &mut cx);
            }
        }
        let mut cx = QueueCtx {
            now,
            pool: &mut pool,
            rng: &mut rng,
        };
        let d = q.dequeue(&mut cx).expect("backlogged");
        while q.take_drop().is_some() {}
        let p = *pool.get(d.pkt);
        served[p.src as usize] += p.size_bytes as u64;
        pool.free(d.pkt);
        now += Dur::from_us(12); // 1500 B at 1 Gb/s: no sojourn over target
    }
    served
}

fn pool_count(q: &Cake, pool: &PacketPool, src: u32, sport: u16) -> usize {
    let mut n = 0;
    q.for_each_packet(&mut |id| {
        let p = pool.get(id);
        n += (p.src == src && p.sport == sport) as usize;
    });
    n
}

/// Triple-isolate: host 1 with eight flows and host 2 with one, toward
/// different servers, get equal shares; per-flow fairness (`flows`)
/// gives host 1 eight ninths.
#[test]
fn triple_isolate_shares_by_host_flows_mode_by_flow() {
    let mut flows: Vec<(u32, u32, u16)> = (0..8).map(|i| (1, 3, 1000 + i)).collect();
    flows.push((2, 3 + 1, 2000));
    let s = served_by_src(FlowMode::TripleIsolate, &flows, 9000);
    let share1 = s[1] as f64 / (s[1] + s[2]) as f64;
    assert!(
        (share1 - 0.5).abs() < 0.05,
        "triple-isolate: host 1 share {share1:.3}"
    );
    let s = served_by_src(FlowMode::Flows, &flows, 9000);
    let share1 = s[1] as f64 / (s[1] + s[2]) as f64;
    assert!(
        (share1 - 8.0 / 9.0).abs() < 0.03,
        "flows: host 1 share {share1:.3}"
    );
    // dual_srchost isolates sources too; dual_dsthost, with both hosts'
    // flows toward different servers, isolates them as well (host 1's
    // eight flows share server 3).
    for mode in [FlowMode::DualSrchost, FlowMode::DualDsthost] {
        let s = served_by_src(mode, &flows, 9000);
        let share1 = s[1] as f64 / (s[1] + s[2]) as f64;
        assert!(
            (share1 - 0.5).abs() < 0.05,
            "{mode:?}: host 1 share {share1:.3}"
        );
    }
}

/// A flow sending one small packet every 10 ms beside two flows that
/// overload the link waits at most about one packet's serialization, while
/// the bulk flows' queue grows; every packet is accounted for.
#[test]
fn a_sparse_flow_skips_the_bulk_queue() {
    let rate = 10_000_000; // 10 Mb/s: 1.2 ms per 1500 B packet
    let end = Time::from_ps(3 * crate::sim::PS_PER_S);
    let bulk_gap = Dur::serialization(1500, rate); // each bulk flow alone fills the link
    let arrivals = merge(vec![
        cbr_1500(end, bulk_gap, 1, Ecn::NotEct),
        cbr_1500(end, bulk_gap, 2, Ecn::NotEct),
        // From 50 ms: at the very start the bulk flows are new too.
        cbr(
            Time::from_ps(50 * crate::sim::PS_PER_MS + 1_000),
            end,
            Dur::from_ms(10),
            100,
            3,
            Ecn::NotEct,
        ),
    ]);
    let mut q = cake(CakeConfig::default());
    let mut b = Bench::new(3, rate);
    let tr = b.run(&mut q, &arrivals, end, |_, _| {});
    assert_conserved(arrivals.len(), &tr);
    let sparse: Vec<Dur> = tr
        .departures
        .iter()
        .filter(|d| d.flow == 3)
        .map(|d| d.sojourn)
        .collect();
    let worst = *sparse.iter().max().unwrap();
    assert!(sparse.len() > 250, "{}", sparse.len());
    assert!(worst <= Dur::from_us(1300), "sparse flow waited {worst:?}");
    let bulk_late: Vec<Dur> = tr
        .departures
        .iter()
        .filter(|d| d.flow == 1 && d.at > Time::from_ps(2 * crate::sim::PS_PER_S))
        .map(|d| d.sojourn)
        .collect();
    assert!(
        crate::queue::testkit::median(bulk_late) > Dur::from_ms(5),
        "the bulk flows do queue"
    );
    // Overloaded twice over with unresponsive flows: COBALT drops.
    assert!(tr.drops.iter().any(|d| d.3 == DropReason::Codel));
}

/// COBALT's CoDel part on an ECN-capable flow 25 % over the link rate:
/// no mark before the sojourn time has been above target for an interval,
/// then marks (not drops) at a rising rate.
#[test]
fn cobalt_marks_ect_after_an_interval_above_target() {
    let rate = 10_000_000;
    let end = Time::from_ps(2 * crate::sim::PS_PER_S);
    let gap = Dur::from_ps(Dur::serialization(1500, rate).ps() * 4 / 5);
    let arrivals = cbr_1500(end, gap, 1, Ecn::Ect0);
    let mut q = cake(CakeConfig::default());
    let mut b = Bench::new(4, rate);
    let tr = b.run(&mut q, &arrivals, end, |_, _| {});
    assert_conserved(arrivals.len(), &tr);
    let marks: Vec<&crate::queue::testkit::Departure> =
        tr.departures.iter().filter(|d| d.marked).collect();
    assert!(marks.len() > 10, "{} marks", marks.len());
    assert!(tr.drops.is_empty(), "ECT packets are marked, not dropped");
    // Queue reaches 5 ms after ~25 ms of overload; +100 ms interval.
    let first = marks[0].at;
    assert!(
        first > Time::from_ps(100 * crate::sim::PS_PER_MS),
        "first mark at {first:?}"
    );
    assert!(
        first < Time::from_ps(200 * crate::sim::PS_PER_MS),
        "first mark at {first:?}"
    );
    // Signals grow denser: more marks in the second second than the first.
    let in_first = marks
        .iter()
        .filter(|d| d.at < Time::from_ps(crate::sim::PS_PER_S))
        .count();
    assert!(
        marks.len() - in_first > in_first,
        "{in_first} then {}",
        marks.len() - in_first
    );
}

/// Over the buffer limit, packets go from the head of the fattest queue
/// (not the arriving sparse one), raising that queue's BLUE probability.
#[test]
fn overflow_drops_from_the_fattest_queue_and_wakes_blue() {
    let mut q = Cake::new(CakeParams::new(
        CakeConfig::default(),
        None,
        Some(15_000),
        9,
    ));
    let mut pool = PacketPool::with_capacity(64);
    let mut rng = rng_for(1, "t");
    let mut cx = QueueCtx {
        now: Time::from_ps(crate::sim::PS_PER_S),
        pool: &mut pool,
        rng: &mut rng,
    };
    let mut first = None;
    for _ in 0..10 {
        let id = cx.pool.alloc(pkt(1, 2, 7, 1500));
        first.get_or_insert(id);
        assert!(matches!(q.enqueue(id, &mut cx), Verdict::Enqueued { .. }));
    }
    assert!(q.take_drop().is_none());
    let small = cx.pool.alloc(pkt(1, 2, 8, 100));
    assert!(matches!(
        q.enqueue(small, &mut cx),
        Verdict::Enqueued { .. }
    ));
    assert_eq!(q.take_drop(), Some((first.unwrap(), DropReason::Overflow)));
    assert!(q.take_drop().is_none());
    assert_eq!(q.len_pkts(), 10);
    assert_eq!(q.len_bytes(), 9 * 1500 + 100);
    assert_eq!(q.stats().drop_overlimit, 1);
    let fat = (0..QUEUES).find(|&i| q.queue_len(i).0 == 9).unwrap();
    assert_eq!(q.flows[fat].cvars.p_drop, cobalt::P_INC);
}

fn ack(sport: u16, ack_no: u64, sack: &[(u64, u64)], fl: u8) -> Packet {
    let mut p = Packet {
        size_bytes: 66,
        src: 2,
        dst: 1,
        sport,
        dport: 80,
        proto: Proto::Tcp,
        tcp_flags: flags::ACK | fl,
        ack: ack_no,
        ..Default::default()
    };
    for (i, &(s, e)) in sack.iter().enumerate() {
        p.sack[i] = SackBlock { start: s, end: e };
    }
    p.n_sack = sack.len() as u8;
    p
}

/// Enqueues `acks` (nothing is dequeued) and returns the ACK numbers left
/// queued.
fn filtered(mode: AckFilter, acks: &[Packet]) -> Vec<u64> {
    let mut q = cake(CakeConfig {
        ack_filter: mode,
        ..Default::default()
    });
    let mut pool = PacketPool::with_capacity(64);
    let mut rng = rng_for(1, "t");
    let mut cx = QueueCtx {
        now: Time::ZERO,
        pool: &mut pool,
        rng: &mut rng,
    };
    for a in acks {
        let id = cx.pool.alloc(*a);
        q.enqueue(id, &mut cx);
    }
    let mut dropped = 0;
    while let Some((id, r)) = q.take_drop() {
        assert_eq!(r, DropReason::Codel);
        cx.pool.free(id);
        dropped += 1;
    }
    assert_eq!(q.stats().ack_drops, dropped);
    let mut left = Vec::new();
    q.for_each_packet(&mut |id| left.push(pool.get(id).ack));
    left
}

/// The ACK filter: off keeps all; conservative drops the oldest redundant
/// ACK once two are found; aggressive drops the one just ahead; an ECE
/// change or a SACK the new ACK lacks protects an ACK.
#[test]
fn ack_filter_drops_only_redundant_pure_acks() {
    let plain: Vec<Packet> = (1..=4).map(|i| ack(5, i * 1000, &[], 0)).collect();
    assert_eq!(
        filtered(AckFilter::None, &plain),
        vec![1000, 2000, 3000, 4000]
    );
    // Conservative: the third ACK finds two eligible ones, drops the first;
    // the fourth finds 2000 and 3000, drops 2000.
    assert_eq!(filtered(AckFilter::Conservative, &plain), vec![3000, 4000]);
    // Aggressive: each new ACK drops the one just ahead.
    assert_eq!(filtered(AckFilter::Aggressive, &plain[..2]), vec![2000]);
    // ECE on the older ACKs differs from the newer: they are kept.
    let ecn = vec![
        ack(5, 1000, &[], flags::ECE),
        ack(5, 2000, &[], 0),
        ack(5, 3000, &[], 0),
    ];
    assert_eq!(filtered(AckFilter::Aggressive, &ecn), vec![1000, 3000]);
    // An older ACK SACKing a range the new one does not: kept.
    let sack = vec![
        ack(5, 1000, &[(3000, 4000)], 0),
        ack(5, 2000, &[(5000, 6000)], 0),
    ];
    assert_eq!(filtered(AckFilter::Aggressive, &sack), vec![1000, 2000]);
    // A data segment is never dropped by the filter.
    let mut data = ack(5, 1000, &[], 0);
    data.payload_bytes = 100;
    let with_data = vec![data, ack(5, 2000, &[], 0)];
    assert_eq!(
        filtered(AckFilter::Aggressive, &with_data),
        vec![1000, 2000]
    );
}

/// Every packet offered under overload through a small buffer is
/// delivered, dropped (overflow or COBALT) or still held, exactly once.
#[test]
fn conservation_under_overload() {
    let rate = 10_000_000;
    let end = Time::from_ps(crate::sim::PS_PER_S);
    let gap = Dur::serialization(1500, rate);
    let mut lists = Vec::new();
    for f in 0..20u16 {
        lists.push(cbr(
            Time::from_ps(f as u64 * 1000),
            end,
            gap.mul(3),
            1500,
            f,
            Ecn::NotEct,
        ));
    }
    let arrivals = merge(lists);
    let mut q = Cake::new(CakeParams::new(
        CakeConfig::default(),
        None,
        Some(60_000),
        3,
    ));
    let mut b = Bench::new(5, rate);
    let tr = b.run(&mut q, &arrivals, end, |_, q| {
        let sum: u64 = (0..QUEUES).map(|i| q.queue_len(i).1).sum();
        assert_eq!(sum, q.len_bytes());
        assert!(q.len_bytes() <= 60_000 + 1500);
    });
    assert_conserved(arrivals.len(), &tr);
    assert!(tr.drops.iter().any(|d| d.3 == DropReason::Overflow));
    assert_eq!(q.len_pkts() as usize, tr.held.len());
}
