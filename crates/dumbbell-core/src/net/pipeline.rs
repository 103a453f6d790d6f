//! A software switch's shared packet-processing pipeline.
//!
//! A hardware switch forwards at line rate on every port at once; a software
//! switch (bmv2's `simple_switch`, which the hysteresis paper — Silva,
//! Vieira and Nacif, "Data Center TCP com Histerese em Switches P4" — ran in
//! Mininet) pushes every packet through one program on a CPU. Its throughput
//! is a number of packets per second shared by all ports, and packets that
//! arrive faster wait in an input buffer in front of it (bmv2's ingress
//! queue) or are dropped when that buffer is full. So traffic between one
//! pair of hosts slows traffic between another pair on other ports, which a
//! hardware model cannot show.
//!
//! The model: a single server of fixed service time `1 / capacity_pps`
//! (whatever the packet's size: the cost of a P4 pipeline is per packet),
//! FIFO, with `buffer_pkts` places for packets waiting (the one in service
//! not counted). Every packet that enters the switch crosses it — from any
//! link, and the switch's own returned copies (the paper recirculates them
//! to its ingress) — before it is routed to an egress port. A full buffer
//! drops the arrival with `DropReason::Pipeline`. Like a port, the pipeline
//! schedules only the end of its current service (`Event::PipelineDone`).
//!
//! A copy the switch returns to a sender (packet return, `queue::feedback`)
//! is, in bmv2, a clone plus a recirculation: two passes through the
//! pipeline, and recirculated packets wait in bmv2's high-priority input
//! queue. So a returned copy ([`Pipeline::admit_copy`]) waits in a queue of
//! its own, served before the others, and holds the pipeline for two
//! service times.
//!
//! With `blocking` (bmv2's input buffer), a full buffer drops nothing: the
//! links into the switch stop sending until a place frees
//! ([`InputGate`], `net::input_gate`), and [`Pipeline::admit_reserved`]
//! takes the packets they sent.
//!
//! With no pipeline configured a switch forwards in zero time, exactly as
//! before this model existed.

use crate::net::input_gate::InputGate;
use crate::packet::PktId;
use crate::sim::{Dur, Time};
use std::collections::VecDeque;

/// Counters of one pipeline.
#[derive(Clone, Debug, Default)]
pub struct PipelineStats {
    /// Packets that completed processing.
    pub processed: u64,
    pub drops: u64,
    /// Most packets waiting at once.
    pub max_pkts: u32,
    pub busy: Dur,
}

pub struct Pipeline {
    pub node: u32,
    pub capacity_pps: f64,
    pub buffer_pkts: u32,
    /// Time to process one packet, `1 / capacity_pps`, rounded to the
    /// nearest picosecond (at least one).
    pub service: Dur,
    /// The packet in service and when its service started.
    pub busy: Option<(PktId, Time)>,
    pub waiting: VecDeque<PktId>,
    /// Returned copies waiting (recirculated: served first, two passes).
    pub copies: VecDeque<PktId>,
    pub stats: PipelineStats,
    /// The blocking input buffer (bmv2's), if the buffer blocks instead of
    /// dropping.
    pub gate: Option<InputGate>,
}

/// Pipeline passes a returned copy takes: bmv2's clone, then its
/// recirculation.
pub const COPY_PASSES: u64 = 2;

/// What the pipeline did with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Service starts now: schedule its end at the given time.
    Start(Time),
    /// The packet waits behind others.
    Queued,
    /// The buffer is full: the caller drops the packet.
    Full,
}

impl Pipeline {
    /// A pipeline whose full buffer drops arrivals (`blocking` false) or
    /// holds back the links into the switch (true).
    pub fn new(node: u32, capacity_pps: f64, buffer_pkts: u32, blocking: bool) -> Self {
        let ps = (crate::sim::PS_PER_S as f64 / capacity_pps)
            .round()
            .max(1.0);
        Pipeline {
            node,
            capacity_pps,
            buffer_pkts,
            service: Dur::from_ps(ps as u64),
            busy: None,
            waiting: VecDeque::with_capacity(buffer_pkts.min(1 << 12) as usize),
            copies: VecDeque::new(),
            stats: PipelineStats::default(),
            gate: blocking.then(|| InputGate::new(buffer_pkts)),
        }
    }

    /// Takes a packet a gated port reserved a place for (blocking buffer):
    /// never full, since its place was kept.
    pub fn admit_reserved(&mut self, pkt: PktId, now: Time) -> Admit {
        let g = self.gate.as_mut().expect("a blocking pipeline");
        g.release();
        if self.busy.is_none() {
            self.busy = Some((pkt, now));
            return Admit::Start(now + self.service);
        }
        debug_assert!((self.waiting.len() as u32) < self.buffer_pkts);
        self.waiting.push_back(pkt);
        self.stats.max_pkts = self.stats.max_pkts.max(self.waiting.len() as u32);
        Admit::Queued
    }

    /// Packets waiting for service (returned copies not counted).
    #[inline]
    pub fn waiting_pkts(&self) -> u32 {
        self.waiting.len() as u32
    }

    /// Offers `pkt` at `now`.
    pub fn admit(&mut self, pkt: PktId, now: Time) -> Admit {
        if self.busy.is_none() {
            self.busy = Some((pkt, now));
            return Admit::Start(now + self.service);
        }
        if self.waiting.len() as u32 >= self.buffer_pkts {
            self.stats.drops += 1;
            return Admit::Full;
        }
        self.waiting.push_back(pkt);
        self.stats.max_pkts = self.stats.max_pkts.max(self.waiting.len() as u32);
        Admit::Queued
    }

    /// Offers a returned copy at `now`: it takes [`COPY_PASSES`] service
    /// times and waits ahead of every other packet (bmv2's recirculation
    /// queue), in a queue of `buffer_pkts` places of its own.
    pub fn admit_copy(&mut self, pkt: PktId, now: Time) -> Admit {
        if self.busy.is_none() {
            self.busy = Some((pkt, now));
            return Admit::Start(now + self.copy_service());
        }
        if self.copies.len() as u32 >= self.buffer_pkts {
            self.stats.drops += 1;
            return Admit::Full;
        }
        self.copies.push_back(pkt);
        Admit::Queued
    }

    fn copy_service(&self) -> Dur {
        Dur::from_ps(self.service.ps() * COPY_PASSES)
    }

    /// Ends the current service at `now`: returns the processed packet and,
    /// if another one starts, when its service ends (returned copies
    /// first).
    pub fn finish(&mut self, now: Time) -> (PktId, Option<Time>) {
        let (pkt, started) = self.busy.take().expect("PipelineDone while idle");
        self.stats.busy += now.since(started);
        self.stats.processed += 1;
        let next = if let Some(c) = self.copies.pop_front() {
            self.busy = Some((c, now));
            Some(now + self.copy_service())
        } else {
            self.waiting.pop_front().map(|p| {
                self.busy = Some((p, now));
                now + self.service
            })
        };
        (pkt, next)
    }

    /// Packets held (waiting and in service), for the conservation audit.
    pub fn held(&self) -> u64 {
        self.waiting.len() as u64 + self.copies.len() as u64 + self.busy.is_some() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_one_packet_per_service_time_in_order() {
        let mut p = Pipeline::new(0, 1000.0, 2, false);
        assert_eq!(p.service, Dur::from_ms(1));
        let t0 = Time::ZERO;
        assert_eq!(p.admit(PktId(1), t0), Admit::Start(t0 + Dur::from_ms(1)));
        assert_eq!(p.admit(PktId(2), t0), Admit::Queued);
        assert_eq!(p.admit(PktId(3), t0), Admit::Queued);
        assert_eq!(p.admit(PktId(4), t0), Admit::Full, "two places waiting");
        assert_eq!(p.stats.drops, 1);
        let (a, next) = p.finish(t0 + Dur::from_ms(1));
        assert_eq!((a, next), (PktId(1), Some(t0 + Dur::from_ms(2))));
        let (b, _) = p.finish(t0 + Dur::from_ms(2));
        let (c, next) = p.finish(t0 + Dur::from_ms(3));
        assert_eq!((b, c, next), (PktId(2), PktId(3), None));
        assert_eq!(p.held(), 0);
        assert_eq!(p.stats.processed, 3);
        assert_eq!(p.stats.busy, Dur::from_ms(3));
        assert_eq!(p.stats.max_pkts, 2);
    }

    #[test]
    fn a_returned_copy_takes_two_passes_ahead_of_the_others() {
        let mut p = Pipeline::new(0, 1000.0, 4, false);
        let t0 = Time::ZERO;
        assert_eq!(
            p.admit_copy(PktId(9), t0),
            Admit::Start(t0 + Dur::from_ms(2))
        );
        assert_eq!(p.admit(PktId(1), t0), Admit::Queued);
        assert_eq!(p.admit_copy(PktId(8), t0), Admit::Queued);
        assert_eq!(p.held(), 3);
        // The copy that came after packet 1 is served before it, for two
        // service times.
        let (a, next) = p.finish(t0 + Dur::from_ms(2));
        assert_eq!((a, next), (PktId(9), Some(t0 + Dur::from_ms(4))));
        let (b, next) = p.finish(t0 + Dur::from_ms(4));
        assert_eq!((b, next), (PktId(8), Some(t0 + Dur::from_ms(5))));
        let (c, next) = p.finish(t0 + Dur::from_ms(5));
        assert_eq!((c, next), (PktId(1), None));
        assert_eq!(p.stats.busy, Dur::from_ms(5));
    }

    #[test]
    fn zero_buffer_is_a_loss_system() {
        let mut p = Pipeline::new(0, 500.0, 0, false);
        assert!(matches!(p.admit(PktId(1), Time::ZERO), Admit::Start(_)));
        assert_eq!(p.admit(PktId(2), Time::ZERO), Admit::Full);
    }
}
