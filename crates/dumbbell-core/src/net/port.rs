//! An egress port: a queue discipline, a serializer and the one-way link
//! ("pipe") that leaves it.
//!
//! Head-of-line scheduling, as in htsim: the port schedules only the end of
//! its current transmission (`TxDone`; most ports not even that, see
//! `world/departures.rs`), and the pipe schedules only the arrival of its
//! head packet (`Arrive`); packets behind the head wait in a ring. A link keeps FIFO order unless reordering is asked for: then a
//! reordered packet takes a second, slower lane of the same wire (a FIFO
//! too, every packet in it held the same extra delay), which has its own
//! head event (`ArriveLate`). The port is also the counting wrapper around
//! its discipline: enqueues, drops by reason, marks, busy time, occupancy.
//!
//! Two options model a software switch's egress (see `net::pipeline` for its
//! shared pipeline):
//! - `service`: a per-port service rate below the link rate, as bmv2's
//!   `set_queue_rate` (packets per second): a packet leaves the queue no
//!   sooner than `service` after the previous one left, then crosses the
//!   wire at the link rate. Zero (the default) means the link rate alone.
//! - `feedback`: the packet-return policy (`queue::feedback`), consulted
//!   around the discipline at its point of measurement.
//!
//! A CAKE discipline's shaper (`shaper`, `queue::cake::shaper`) holds the
//! port the same way, for each packet's time at the shaped rate.

use super::port_setup::port_and_setup;
use crate::packet::PktId;
use crate::queue::cake::Shaper;
use crate::queue::{
    ClassReport, Dequeued, DropReason, Feedback, Fifo, QueueCtx, QueueDisc, Verdict,
};
use crate::sim::{Dur, Rng, Time};
use std::collections::VecDeque;

/// Counters of one port.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub enqueued: u64,
    pub dequeued: u64,
    pub marked: u64,
    pub drops: [u64; DropReason::COUNT],
    pub tx_bytes: u64,
    pub busy: Dur,
    pub max_pkts: u32,
    pub max_bytes: u64,
    /// Copies sent back toward senders by the packet-return policy.
    pub feedback_sent: u64,
}

/// What the port records beyond its counters (chosen per run).
#[derive(Clone, Debug, Default)]
pub struct PortTrace {
    /// Record occupancy at every change (`Some(0)`) or every period.
    pub occupancy: Option<Dur>,
    pub dequeue_times: bool,
    pub from: Time,
    pub to: Time,
}

/// A netem-like stage in front of the queue (`config::NetemConfig`): loss
/// at arrival, a FIFO delay line (every packet the same delay, so one head
/// event, `NetemRelease`), one limit over the line and the queue.
pub struct Netem {
    pub loss: f64,
    pub loss_rng: Rng,
    pub delay: Dur,
    pub limit_pkts: Option<u32>,
    /// Packets in the delay line with their release times, oldest first.
    pub line: VecDeque<(Time, PktId)>,
    /// Loss and limit per GSO skb (`NetemConfig::unit = "gso"`); `None`:
    /// per packet.
    pub gso: Option<super::netem_gso::GsoSkbs>,
}

/// A port's discipline: the FIFO (with its marking policy), the common
/// case, held directly so that its calls are inlined on the per-packet
/// path; any other discipline (two-class ports, ...) behind the trait
/// object. Both behave alike: `PortQueue` is itself a [`QueueDisc`].
pub enum PortQueue {
    Fifo(Fifo),
    Other(Box<dyn QueueDisc>),
}

/// Forwards one `QueueDisc` call to the variant's discipline.
macro_rules! each {
    ($self:expr, $q:ident => $e:expr) => {
        match $self {
            PortQueue::Fifo($q) => $e,
            PortQueue::Other($q) => $e,
        }
    };
}

impl QueueDisc for PortQueue {
    #[inline]
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        each!(self, q => q.enqueue(pkt, cx))
    }
    #[inline]
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        each!(self, q => q.dequeue(cx))
    }
    #[inline]
    fn len_pkts(&self) -> u32 {
        each!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        each!(self, q => q.len_bytes())
    }
    #[inline]
    fn is_empty(&self) -> bool {
        each!(self, q => q.is_empty())
    }
    fn peek(&self) -> Option<PktId> {
        each!(self, q => q.peek())
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(PktId)) {
        each!(self, q => q.for_each_packet(f))
    }
    fn class_report(&self) -> Option<ClassReport> {
        each!(self, q => q.class_report())
    }
    fn dualpi2_counts(&self) -> Option<&crate::queue::dualpi2::DualPi2Counts> {
        each!(self, q => q.dualpi2_counts())
    }
    fn marking_state(&self) -> Option<bool> {
        each!(self, q => q.marking_state())
    }
    #[inline]
    fn take_drop(&mut self) -> Option<(PktId, crate::queue::DropReason)> {
        each!(self, q => q.take_drop())
    }
}

port_and_setup! {
    /// An egress port (see the module's doc). The fields marked `set` are
    /// the [`PortSetup`] it is built from (`net::port_setup`).
    pub struct Port;
    /// What a port is built from: its ends, its link and the link's wire
    /// effects, its discipline and the egress options. [`Port::new`] gives
    /// every other field its start value.
    pub struct PortSetup;
    {
        set node: u32,
        set peer: u32,
        set rate_bps: u64,
        set delay: Dur,
        set loss: f64,
        set loss_rng: Rng,
        set jitter: Dur,
        set jitter_rng: Rng,
        set qdisc: PortQueue,
        /// Packet being serialized, if any, and when it started.
        tx: Option<(PktId, Time)>,
        /// Packets on the wire with their arrival times (and the far end's
        /// forwarding decision, `net::wire`), oldest first. Only
        /// `World::put_on_wire` pushes here: it also records the wire's head
        /// for its `Arrive` (`world/arrival_hop.rs`).
        pipe: VecDeque<super::wire::OnWire>,
        /// Probability that a packet is held back `reorder_delay` on the wire.
        set reorder: f64,
        set reorder_rng: Rng,
        set reorder_delay: Dur,
        /// The slow lane of reordered packets, oldest first.
        late_pipe: VecDeque<(Time, PktId)>,
        set netem: Option<Netem>,
        stats: PortStats,
        trace: Option<PortTrace>,
        /// Least time between the starts of two departures (bmv2
        /// `set_queue_rate`); zero: serialization at the link rate only.
        set service: Dur,
        /// Packet return (switch ports only); None: off.
        set feedback: Option<Box<Feedback>>,
        /// The last packet size the port sent and how long it held the port
        /// for it (serialization, or the service interval if longer): most
        /// packets of a port have the size of the one before (the quotient is
        /// the same, without the division). Starts at (0, zero), true of a
        /// zero-byte packet.
        hold_cache: (u32, Dur),
        /// CAKE's shaper (`queue::cake::shaper`): the port is also held for a
        /// packet's time at the shaped rate; None: no shaper.
        set shaper: Option<Shaper>,
        /// The wire has none of loss, reordering or jitter, and the port no
        /// service rate: a packet reaches the far end `delay` after its
        /// serialization ends, in order (the common case, one test).
        plain: bool,
        /// The pipeline (index) of the switch this port feeds, if its input
        /// buffer blocks (`net::input_gate`); [`NO_GATE`]: none.
        gate: u32,
        /// The port holds its head packet until that buffer has a place.
        held: bool,
        /// Departures without `TxDone` events (`world/departures.rs`): a packet
        /// goes on the wire when it is dequeued, and the port's next dequeue is
        /// made when something next looks at the port (an enqueue, an arrival
        /// over its wire, the end of the run), at the time the transmitter
        /// freed. Set at build for ports nothing watches at that instant.
        lazy: bool,
        /// For a `lazy` port with a packet in `tx`: when its serialization
        /// ends, and the packet's size.
        busy_until: Time,
        tx_size: u32,
        /// A lazy port that is the NIC of a host sending TCP: each departure
        /// tells its packet's sender (`world/tsq_wake.rs`).
        tells_senders: bool,
        /// On such a port: the event sequence number reserved at the current
        /// transmission's start, where its `TxDone` would have been scheduled
        /// (its place among the events at its end, `world/tsq_wake.rs`).
        tx_seq: u64,
    }
}

/// `Port::gate` of a port that feeds no blocking input buffer.
pub const NO_GATE: u32 = u32::MAX;

impl Port {
    /// A port in its start state: idle, its wire empty, its counters at
    /// zero, no trace, no input gate, not lazy (the world sets `trace`,
    /// `gate`, `lazy` and `tells_senders` after building the ports).
    pub fn new(s: PortSetup) -> Port {
        let plain = s.loss == 0.0
            && s.reorder == 0.0
            && s.jitter.is_zero()
            && s.service.is_zero()
            && s.shaper.is_none();
        Port {
            node: s.node,
            peer: s.peer,
            rate_bps: s.rate_bps,
            delay: s.delay,
            loss: s.loss,
            loss_rng: s.loss_rng,
            jitter: s.jitter,
            jitter_rng: s.jitter_rng,
            qdisc: s.qdisc,
            tx: None,
            pipe: VecDeque::new(),
            reorder: s.reorder,
            reorder_rng: s.reorder_rng,
            reorder_delay: s.reorder_delay,
            late_pipe: VecDeque::new(),
            netem: s.netem,
            stats: PortStats::default(),
            trace: None,
            service: s.service,
            feedback: s.feedback,
            hold_cache: (0, Dur::serialization(0, s.rate_bps).max(s.service)),
            shaper: s.shaper,
            plain,
            gate: NO_GATE,
            held: false,
            lazy: false,
            busy_until: Time::ZERO,
            tx_size: 0,
            tells_senders: false,
            tx_seq: 0,
        }
    }

    /// How long sending `size` bytes holds the port: serialization at the
    /// link rate, or the service interval or the time at CAKE's shaped
    /// rate if longer.
    #[inline]
    pub fn hold(&mut self, size: u32) -> Dur {
        if self.hold_cache.0 == size {
            return self.hold_cache.1;
        }
        let mut d = Dur::serialization(size as u64, self.rate_bps).max(self.service);
        if let Some(s) = &self.shaper {
            d = d.max(s.hold(size));
        }
        self.hold_cache = (size, d);
        d
    }

    /// A packet of `size` bytes reaching this port would go straight to
    /// the serializer: the port is idle, its discipline a FIFO without
    /// marking that is empty and admits it, and nothing watches the queue
    /// (no return policy, no trace). Then the enqueue and the dequeue that
    /// follows it at once reduce to their counters (see `World::enqueue`).
    #[inline]
    pub fn passes_through(&self, size: u32) -> bool {
        self.tx.is_none()
            && self.gate == NO_GATE
            && self.feedback.is_none()
            && self.trace.is_none()
            && matches!(&self.qdisc, PortQueue::Fifo(f) if f.passes_through(size))
    }

    /// Whether the port's netem stage counts GSO skbs (`net::netem_gso`):
    /// then a packet leaving its queue may end an skb's stay.
    #[inline]
    pub fn counts_skbs(&self) -> bool {
        self.netem.as_ref().is_some_and(|n| n.gso.is_some())
    }

    /// Whether the discipline certainly holds nothing to send: an empty
    /// FIFO (which never drops from inside). Any other discipline is
    /// asked by a dequeue.
    #[inline]
    pub fn fifo_empty(&self) -> bool {
        matches!(&self.qdisc, PortQueue::Fifo(f) if f.is_empty())
    }

    pub fn in_flight_pkts(&self) -> u64 {
        self.pipe.len() as u64
            + self.late_pipe.len() as u64
            + (self.tx.is_some() && !self.lazy) as u64
            + self.netem.as_ref().map_or(0, |n| n.line.len() as u64)
    }

    /// The congestion state a trace reports: the return policy's decision
    /// if there is one, else the marking policy's (false without either).
    pub fn congested(&self) -> bool {
        if let Some(f) = &self.feedback {
            return f.decision.congested(crate::queue::Occupancy {
                pkts: self.qdisc.len_pkts(),
                bytes: self.qdisc.len_bytes(),
            });
        }
        self.qdisc.marking_state().unwrap_or(false)
    }

    pub fn note_occupancy(&mut self) {
        let p = self.qdisc.len_pkts();
        let b = self.qdisc.len_bytes();
        if p > self.stats.max_pkts {
            self.stats.max_pkts = p;
        }
        if b > self.stats.max_bytes {
            self.stats.max_bytes = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Limit;
    use crate::sim::rng_for;

    fn port(rate_bps: u64, service: Dur) -> Port {
        Port::new(PortSetup {
            node: 0,
            peer: 1,
            rate_bps,
            delay: Dur::ZERO,
            loss: 0.0,
            loss_rng: rng_for(1, "l"),
            jitter: Dur::ZERO,
            jitter_rng: rng_for(1, "j"),
            reorder: 0.0,
            reorder_rng: rng_for(1, "r"),
            reorder_delay: Dur::ZERO,
            netem: None,
            qdisc: PortQueue::Fifo(Fifo::drop_tail(Limit {
                pkts: Some(10),
                bytes: None,
            })),
            service,
            feedback: None,
            shaper: None,
        })
    }

    /// Only an idle port with an empty, unmarking FIFO that admits the
    /// packet, and no return policy or trace, lets it pass straight through.
    #[test]
    fn passes_through_only_when_nothing_could_tell() {
        use crate::queue::aqm::Threshold;
        use crate::queue::{Aqm, Limit, MarkPoint, QueueCtx, QueueDisc, StepMark};
        let mut p = port(1_000_000_000, Dur::ZERO);
        assert!(p.passes_through(1500));
        assert!(p.fifo_empty());
        // The limit is 10 packets and no byte limit: any size is admitted,
        // unless a byte limit says otherwise.
        p.qdisc = PortQueue::Fifo(Fifo::drop_tail(Limit {
            pkts: Some(10),
            bytes: Some(1000),
        }));
        assert!(p.passes_through(1000));
        assert!(
            !p.passes_through(1001),
            "over the byte limit: dropped, not passed"
        );
        // Busy.
        p.tx = Some((PktId(0), Time::ZERO));
        assert!(!p.passes_through(100));
        p.tx = None;
        // A packet waiting.
        let mut pool = crate::packet::PacketPool::with_capacity(1);
        let id = pool.alloc(crate::packet::Packet {
            size_bytes: 100,
            ..Default::default()
        });
        let mut rng = rng_for(1, "q");
        let mut cx = QueueCtx {
            now: Time::ZERO,
            pool: &mut pool,
            rng: &mut rng,
        };
        assert!(matches!(
            p.qdisc.enqueue(id, &mut cx),
            crate::queue::Verdict::Enqueued { .. }
        ));
        assert!(!p.passes_through(100));
        assert!(!p.fifo_empty());
        // A marking policy (it sees every packet).
        p.qdisc = PortQueue::Fifo(Fifo::new(
            Limit {
                pkts: Some(10),
                bytes: None,
            },
            Aqm::Step(StepMark {
                k: Threshold::Pkts(5),
                at: MarkPoint::Enqueue,
            }),
        ));
        assert!(!p.passes_through(100));
        assert!(p.fifo_empty());
        // A trace.
        p.qdisc = PortQueue::Fifo(Fifo::drop_tail(Limit {
            pkts: Some(10),
            bytes: None,
        }));
        p.trace = Some(PortTrace::default());
        assert!(!p.passes_through(100));
    }

    /// The cached hold time is the serialization (or the service interval
    /// when longer) of every size, whatever the order of sizes.
    #[test]
    fn hold_is_the_serialization_of_each_size() {
        for service in [Dur::ZERO, Dur::from_ps(2_000_000)] {
            let mut p = port(1_000_000_000, service);
            for size in [0u32, 1500, 1500, 52, 1500, 0, 66, 66, 9000, 1500] {
                let want = Dur::serialization(size as u64, 1_000_000_000).max(service);
                assert_eq!(p.hold(size), want, "size {size}, service {service:?}");
            }
        }
        // 1500 B at 1 Gb/s: 12 µs; under a 2 µs service interval, still 12 µs.
        let mut p = port(1_000_000_000, Dur::from_ps(2_000_000));
        assert_eq!(p.hold(1500), Dur::from_ps(12_000_000));
        assert_eq!(p.hold(52), Dur::from_ps(2_000_000));
    }
}
