//! The per-ACK path: a TCP sender and its receiver wired back to back (no
//! network), so that every iteration is one ACK through `Sender::on_ack`
//! (the hook order of `cc/mod.rs`, SACK scoreboard, RTT and rate samples,
//! the control) and the segments it releases through the receiver, which
//! answers with the next ACK. The receive window (100 segments) holds the
//! flight constant, so the connection stays in congestion avoidance with
//! a steady window: the cost measured is the steady state's.
//!
//! `cargo bench -p dumbbell-core --bench per_ack`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dumbbell_core::cc;
use dumbbell_core::config::{CcConfig, TcpConfig};
use dumbbell_core::net::packet::Packet;
use dumbbell_core::sim::{rng_for, Dur, Time};
use dumbbell_core::tcp::receiver::{EcnEcho, Receiver};
use dumbbell_core::tcp::sender::Sender;
use dumbbell_core::tcp::{Endpoints, Out};
use std::collections::VecDeque;

struct Pair {
    sender: Sender,
    receiver: Receiver,
    now: Time,
    out: Out,
    /// Segments on their way to the receiver, oldest first.
    data: VecDeque<Packet>,
}

impl Pair {
    fn new(cc_cfg: &CcConfig) -> Pair {
        let ep = Endpoints {
            flow: 0,
            src: 0,
            dst: 1,
            sport: 40000,
            dport: 5001,
        };
        let cfg = TcpConfig {
            handshake: false,
            tsq_bytes: 0,
            rwnd_bytes: 100 * 1460,
            // One ACK per segment: an iteration is exactly one ACK.
            delayed_ack: false,
            ..Default::default()
        };
        let control = cc::make(cc_cfg, rng_for(1, "bench"));
        let echo = if control.needs_ecn() {
            EcnEcho::Accurate
        } else {
            EcnEcho::Off
        };
        let mut p = Pair {
            receiver: Receiver::new(ep, &cfg, echo),
            sender: Sender::new(ep, cfg, control, None, None),
            now: Time::ZERO,
            out: Out::default(),
            data: VecDeque::new(),
        };
        p.sender.start(p.now, &mut p.out);
        p.collect();
        // Past slow start: the window is the receive window's.
        for _ in 0..10_000 {
            p.step();
        }
        p
    }

    /// Moves what the sender produced onto the wire, drops timer requests
    /// (no timer fires: nothing is lost).
    fn collect(&mut self) {
        self.data.extend(self.out.pkts.drain(..));
        self.out.timers.clear();
    }

    /// One segment reaches the receiver 12 µs later; the ACK it answers
    /// with goes straight to the sender.
    fn step(&mut self) {
        self.now = self.now + Dur::from_ps(12_000_000);
        let seg = self.data.pop_front().expect("a segment in flight");
        self.receiver.on_packet(self.now, &seg, &mut self.out);
        let acks: Vec<Packet> = self.out.pkts.drain(..).collect();
        self.out.timers.clear();
        for a in &acks {
            self.sender.on_ack(self.now, a, &mut self.out);
        }
        self.collect();
    }
}

fn per_ack(c: &mut Criterion) {
    let mut g = c.benchmark_group("per_ack");
    for (name, cfg) in [
        ("reno", CcConfig::Reno),
        ("cubic", CcConfig::Cubic(Default::default())),
        ("dctcp", CcConfig::Dctcp(Default::default())),
    ] {
        let mut p = Pair::new(&cfg);
        g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| p.step()));
    }
    g.finish();
}

criterion_group!(benches, per_ack);
criterion_main!(benches);
