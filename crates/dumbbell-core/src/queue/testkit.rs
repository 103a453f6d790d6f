//! A one-port bench for the delay-based disciplines' tests: scripted
//! arrivals, a serializer at a fixed rate, and a record of what left, what
//! was dropped and when. It mirrors what the world's port does (drain
//! `take_drop` after every enqueue and dequeue, free dropped packets), so a
//! test reads sojourn times and drop instants directly.

use super::{DropReason, Limit, QueueCtx, QueueDisc, Verdict};
use crate::packet::{Ecn, Packet, PacketPool};
use crate::sim::{rng_for, Dur, Rng, Time, PS_PER_MS};

/// The benches' link rate, 100 Mb/s.
pub const RATE: u64 = 100_000_000;
/// No limit in either unit.
pub const UNLIMITED: Limit = Limit {
    pkts: None,
    bytes: None,
};

/// `x` milliseconds after time zero.
pub fn ms(x: u64) -> Time {
    Time::from_ps(x * PS_PER_MS)
}

/// An arrival: time, wire size, flow (its source port), ECN codepoint.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub at: Time,
    pub size: u32,
    pub flow: u16,
    pub ecn: Ecn,
}

/// A departure: when it started, its tag (arrival index), flow, sojourn
/// time and whether it left CE-marked by the discipline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Departure {
    pub at: Time,
    pub tag: u64,
    pub flow: u16,
    pub sojourn: Dur,
    pub marked: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub departures: Vec<Departure>,
    /// (time, tag, flow, reason) of every drop, the arriving ones included.
    pub drops: Vec<(Time, u64, u16, DropReason)>,
    pub marked_at_enqueue: u64,
    /// Tags still held at the end.
    pub held: Vec<u64>,
}

pub struct Bench {
    pub pool: PacketPool,
    pub rng: Rng,
    pub rate_bps: u64,
}

impl Bench {
    pub fn new(seed: u64, rate_bps: u64) -> Self {
        Bench {
            pool: PacketPool::with_capacity(1024),
            rng: rng_for(seed, "queue:s1->c:aqm"),
            rate_bps,
        }
    }

    fn drain<Q: QueueDisc>(&mut self, q: &mut Q, now: Time, tr: &mut Trace) {
        while let Some((pkt, r)) = q.take_drop() {
            let p = *self.pool.get(pkt);
            tr.drops.push((now, p.seq, p.sport, r));
            self.pool.free(pkt);
        }
    }

    /// Runs `arrivals` (sorted by time) through `q` until `end`, calling
    /// `watch` after every dequeue. A departure frees the serializer after
    /// its size at `rate_bps`; at equal times departures come first.
    pub fn run<Q: QueueDisc>(
        &mut self,
        q: &mut Q,
        arrivals: &[Arrival],
        end: Time,
        mut watch: impl FnMut(Time, &Q),
    ) -> Trace {
        let mut tr = Trace::default();
        let mut busy_until: Option<Time> = None;
        let mut next = 0usize;
        loop {
            let arr = arrivals.get(next).map(|a| a.at).filter(|&t| t < end);
            let now = match (busy_until, arr) {
                (Some(b), Some(a)) if b <= a => b,
                (Some(b), None) if b < end => b,
                (_, Some(a)) => a,
                _ => break,
            };
            if busy_until == Some(now) {
                busy_until = None;
            } else {
                let a = arrivals[next];
                next += 1;
                let pkt = self.pool.alloc(Packet {
                    size_bytes: a.size,
                    payload_bytes: a.size.saturating_sub(40),
                    ecn: a.ecn,
                    sport: a.flow,
                    dport: 80,
                    src: 1,
                    dst: 2,
                    seq: next as u64 - 1,
                    born_ps: now.ps(),
                    ..Default::default()
                });
                let mut cx = QueueCtx {
                    now,
                    pool: &mut self.pool,
                    rng: &mut self.rng,
                };
                match q.enqueue(pkt, &mut cx) {
                    Verdict::Enqueued { marked } => tr.marked_at_enqueue += marked as u64,
                    Verdict::Dropped(r) => {
                        tr.drops.push((now, next as u64 - 1, a.flow, r));
                        self.pool.free(pkt);
                    }
                }
                self.drain(q, now, &mut tr);
            }
            if busy_until.is_none() {
                let mut cx = QueueCtx {
                    now,
                    pool: &mut self.pool,
                    rng: &mut self.rng,
                };
                let d = q.dequeue(&mut cx);
                self.drain(q, now, &mut tr);
                if let Some(d) = d {
                    let p = *self.pool.get(d.pkt);
                    assert_eq!(d.marked, p.ecn == Ecn::Ce && d.marked);
                    tr.departures.push(Departure {
                        at: now,
                        tag: p.seq,
                        flow: p.sport,
                        sojourn: now.since(Time::from_ps(p.born_ps)),
                        marked: d.marked,
                    });
                    self.pool.free(d.pkt);
                    busy_until = Some(now + Dur::serialization(p.size_bytes as u64, self.rate_bps));
                }
                watch(now, q);
            }
        }
        q.for_each_packet(&mut |p| tr.held.push(self.pool.get(p).seq));
        tr
    }
}

/// Arrivals of `size`-byte packets of `flow` every `gap` from `from` to `to`.
pub fn cbr(from: Time, to: Time, gap: Dur, size: u32, flow: u16, ecn: Ecn) -> Vec<Arrival> {
    let mut v = Vec::new();
    let mut t = from;
    while t < to {
        v.push(Arrival {
            at: t,
            size,
            flow,
            ecn,
        });
        t += gap;
    }
    v
}

/// [`cbr`] of full-size (1500-byte) packets from time zero.
pub fn cbr_1500(to: Time, gap: Dur, flow: u16, ecn: Ecn) -> Vec<Arrival> {
    cbr(Time::ZERO, to, gap, 1500, flow, ecn)
}

/// Merges arrival lists into one sorted by time (stable: ties keep order).
pub fn merge(lists: Vec<Vec<Arrival>>) -> Vec<Arrival> {
    let mut v: Vec<Arrival> = lists.into_iter().flatten().collect();
    v.sort_by_key(|a| a.at);
    v
}

/// Runs `arrivals` through `q` at [`RATE`] until `end` (hash seed
/// `seed`) and checks that every arrival is accounted for.
#[track_caller]
pub fn run_conserved<Q: QueueDisc>(q: &mut Q, arrivals: &[Arrival], seed: u64, end: Time) -> Trace {
    let tr = Bench::new(seed, RATE).run(q, arrivals, end, |_, _| {});
    assert_conserved(arrivals.len(), &tr);
    tr
}

/// Every arrival accounted for exactly once: departed, dropped or held.
#[track_caller]
pub fn assert_conserved(arrivals: usize, tr: &Trace) {
    let mut seen = vec![0u8; arrivals];
    for d in &tr.departures {
        seen[d.tag as usize] += 1;
    }
    for d in &tr.drops {
        seen[d.1 as usize] += 1;
    }
    for &h in &tr.held {
        seen[h as usize] += 1;
    }
    let bad: Vec<usize> = (0..arrivals).filter(|&i| seen[i] != 1).collect();
    assert!(
        bad.is_empty(),
        "packets not accounted for exactly once: {bad:?}"
    );
}

/// The median of a list of spans.
pub fn median(mut v: Vec<Dur>) -> Dur {
    assert!(!v.is_empty());
    v.sort();
    v[v.len() / 2]
}

/// The median sojourn of the packets that left at or after `from`.
pub fn median_sojourn_from(tr: &Trace, from: Time) -> Dur {
    median(
        tr.departures
            .iter()
            .filter(|d| d.at >= from)
            .map(|d| d.sojourn)
            .collect(),
    )
}

/// The drops at or after `from` as a fraction of the arrivals then.
pub fn drop_fraction_from(arrivals: &[Arrival], tr: &Trace, from: Time) -> f64 {
    let arrived = arrivals.iter().filter(|a| a.at >= from).count() as f64;
    let dropped = tr.drops.iter().filter(|d| d.0 >= from).count() as f64;
    dropped / arrived
}

/// An unresponsive overload of 1.2 times the link rate held at a delay
/// target between 10 and 20 ms: from `from` on, the median sojourn is in
/// that range and a sixth of the arrivals are dropped (within `tol`).
#[track_caller]
pub fn assert_overload_held(arrivals: &[Arrival], tr: &Trace, from: Time, tol: f64) {
    let med = median_sojourn_from(tr, from);
    assert!(
        med >= Dur::from_ms(10) && med <= Dur::from_ms(20),
        "median sojourn {med:?}"
    );
    let frac = drop_fraction_from(arrivals, tr, from);
    assert!((frac - 1.0 / 6.0).abs() < tol, "dropped fraction {frac}");
}
