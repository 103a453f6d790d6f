//! The event queue in the "hold" pattern of a run: pop the earliest event,
//! schedule one later (most events schedule another while handled), with
//! the heap holding `n` events: 8 (one flow on a dumbbell), 1000 and 10 000
//! (many flows, each with its timers and ports). Reports the time of one
//! pop + schedule pair.
//!
//! `cargo bench -p dumbbell-core --bench event_queue`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use dumbbell_core::sim::{Event, EventQueue, Time};

/// Deterministic delays: a 64-bit LCG's high bits, 0 to ~1 ms in ps.
fn delays(k: usize) -> Vec<u64> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..k)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 34) & ((1 << 30) - 1)
        })
        .collect()
}

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue_hold");
    let d = delays(4096);
    for n in [8usize, 1000, 10_000] {
        let mut q = EventQueue::new();
        for (i, x) in d.iter().cycle().take(n).enumerate() {
            q.schedule(Time::from_ps(*x), Event::TxDone { port: i as u32 });
        }
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let (t, ev) = q.pop().expect("a full queue");
                i = (i + 1) & 4095;
                q.schedule(Time::from_ps(t.ps() + d[i]), black_box(ev));
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
