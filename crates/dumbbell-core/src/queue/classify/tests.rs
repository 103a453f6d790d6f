//! Tests of the classifiers: each rule on scripted inputs, then RAFLE on
//! its random stream.

use super::*;
use crate::packet::Packet;
use crate::sim::{rng_for, Rng};

fn pkt(src: u32, sport: u16, seq: u64) -> Packet {
    Packet {
        src,
        sport,
        dst: 9,
        dport: 21,
        seq,
        payload_bytes: 1448,
        size_bytes: 1488,
        ..Default::default()
    }
}

fn key(src: u32) -> FlowKey {
    FlowKey::of(&pkt(src, 5000, 0))
}

fn rafle(n: usize, stream: &str) -> Rafle {
    Rafle::new(n, rng_for(7, stream))
}

#[test]
fn rafle_with_one_slot_on_one_flow_makes_every_packet_after_the_first_long() {
    let mut r = rafle(1, "queue:r->c:rafle");
    let p = pkt(1, 5000, 0);
    assert_eq!(r.classify(&p), Class::Short, "the empty memory says short");
    for _ in 0..100 {
        assert_eq!(r.classify(&p), Class::Long);
    }
}

#[test]
fn rafle_with_one_slot_on_two_alternating_flows_makes_every_packet_short() {
    let mut r = rafle(1, "queue:r->c:rafle");
    let (a, b) = (pkt(1, 5000, 0), pkt(2, 5000, 0));
    for _ in 0..100 {
        assert_eq!(r.classify(&a), Class::Short);
        assert_eq!(r.classify(&b), Class::Short);
    }
}

#[test]
fn rafle_compares_at_the_drawn_slot_before_writing_at_the_insertion_pointer() {
    let mut r = rafle(4, "unused");
    // Empty slots are short; the memory fills at P_u = 0, 1, 2, 3.
    assert_eq!(r.decide(key(1), 0), Class::Short);
    assert_eq!(r.decide(key(2), 0), Class::Short, "slot 0 holds flow 1");
    assert_eq!(r.decide(key(1), 3), Class::Short, "slot 3 is still empty");
    assert_eq!(
        r.decide(key(1), 2),
        Class::Long,
        "slot 2 was just written by flow 1"
    );
    // Memory is now [1, 2, 1, 1]; P_u wrapped to 0: the next write
    // overwrites slot 0 after the comparison.
    assert_eq!(
        r.decide(key(2), 0),
        Class::Short,
        "compared with flow 1, then written"
    );
    assert_eq!(r.decide(key(2), 0), Class::Long, "slot 0 now holds flow 2");
    assert_eq!(r.decide(key(3), 1), Class::Short);
}

#[test]
fn rafle_flow_id_is_the_four_tuple() {
    let mut r = rafle(1, "unused");
    let base = pkt(1, 5000, 0);
    r.decide(FlowKey::of(&base), 0);
    let other_port = Packet {
        sport: 5001,
        ..base
    };
    assert_eq!(r.decide(FlowKey::of(&other_port), 0), Class::Short);
    let other_dst = Packet {
        dst: 8,
        ..other_port
    };
    assert_eq!(r.decide(FlowKey::of(&other_dst), 0), Class::Short);
    // Sequence numbers, sizes and flags are not part of the id.
    let later = Packet {
        seq: 1 << 40,
        size_bytes: 40,
        ..other_dst
    };
    assert_eq!(r.decide(FlowKey::of(&later), 0), Class::Long);
}

/// With the memory held in a known mix, a packet is long with probability
/// equal to its flow's share of the memory (the draw is uniform).
#[test]
fn rafle_calls_long_with_the_flows_share_of_the_memory() {
    let n = 40;
    let mut r = rafle(n, "queue:r->c:rafle");
    let mut rng = rng_for(1, "test:mix");
    let mut long_a = 0u32;
    let trials = 20_000;
    for _ in 0..trials {
        // Refill: 10 slots of flow 1 (a quarter), 30 of others, then probe.
        for i in 0..n {
            let id = if i % 4 == 0 {
                key(1)
            } else {
                key(100 + i as u32)
            };
            r.decide(id, (rng.below(n as u64)) as usize);
        }
        if r.classify(&pkt(1, 5000, 0)) == Class::Long {
            long_a += 1;
        }
    }
    let share = long_a as f64 / trials as f64;
    // Binomial(20000, 0.25): sigma = 0.003; 5 sigma.
    assert!((share - 0.25).abs() < 0.015, "share {share}");
}

#[test]
fn rafle_draws_come_from_the_ports_named_stream() {
    let flows: Vec<Packet> = (0..5).map(|i| pkt(i, 5000 + i as u16, 0)).collect();
    let trace = |r: &mut Rafle| -> Vec<Class> {
        (0..400)
            .map(|k| r.classify(&flows[(k * k + k / 3) % 5]))
            .collect()
    };
    let a = trace(&mut rafle(8, "queue:r->c:rafle"));
    let b = trace(&mut rafle(8, "queue:r->c:rafle"));
    assert_eq!(a, b, "same seed and port: same decisions");
    // The same decisions by hand: P_a from that stream, in order.
    let mut rng: Rng = rng_for(7, "queue:r->c:rafle");
    let mut by_hand = Rafle::new(8, rng_for(7, "unused"));
    let manual: Vec<Class> = (0..400)
        .map(|k| {
            let p_a = rng.below(8) as usize;
            by_hand.decide(FlowKey::of(&flows[(k * k + k / 3) % 5]), p_a)
        })
        .collect();
    assert_eq!(a, manual);
    let other = trace(&mut rafle(8, "queue:r->s:rafle"));
    assert_ne!(a, other, "another port draws from another stream");
}

#[test]
fn run2c_moves_a_flow_to_the_long_queue_at_the_first_packet_whose_offset_reaches_th() {
    let mut c = Run2c::new(run2c::DEFAULT_THRESHOLD_BYTES);
    assert_eq!(run2c::DEFAULT_THRESHOLD_BYTES, 16384);
    let mss = 1448u64;
    let classes: Vec<Class> = (0..20)
        .map(|k| c.classify(&pkt(1, 5000, k * mss)))
        .collect();
    // 11 * 1448 = 15928 < 16384 <= 12 * 1448 = 17376.
    let first_long = classes.iter().position(|&x| x == Class::Long);
    assert_eq!(first_long, Some(12));
    assert!(classes[12..].iter().all(|&x| x == Class::Long));
    assert_eq!(c.decide(16383), Class::Short);
    assert_eq!(c.decide(16384), Class::Long);
    // A pure ACK (offset 0 of an empty stream) is short.
    let ack = Packet {
        payload_bytes: 0,
        size_bytes: 40,
        seq: 0,
        ..pkt(1, 5000, 0)
    };
    assert_eq!(c.classify(&ack), Class::Short);
    assert_eq!(
        Run2c::new(0).decide(0),
        Class::Long,
        "TH = 0: everything is long"
    );
}

#[test]
fn ideal_follows_the_applications_tag() {
    let mut c = Ideal;
    let mut p = pkt(1, 21, 0);
    assert_eq!(c.classify(&p), Class::Short);
    p.long_flow = true;
    assert_eq!(c.classify(&p), Class::Long);
    p.seq = 0; // a control packet of a long task is long too
    p.payload_bytes = 30;
    assert_eq!(c.classify(&p), Class::Long);
}
