//! A software switch's blocking input buffer: back-pressure instead of
//! drops.
//!
//! bmv2 (`simple_switch`, the switch of the hysteresis paper — Silva,
//! Vieira and Nacif, "Data Center TCP com Histerese em Switches P4") reads
//! packets from its interfaces into one input buffer of 1024 packets in
//! front of its ingress pipeline. When that buffer is full its receiving
//! thread waits for room instead of throwing the packet away, so nothing
//! is lost at the switch's input: the packets pile up behind it, in the
//! sending hosts' interface queues (their qdiscs), and a host's TCP feels
//! that as its own queue (TCP small queues) rather than as a loss.
//!
//! The model is credit-based, per switch. A port whose far end is such a
//! switch (every link into it: `Port::gate`) may start a transmission only
//! while the buffer has a place for the packet, counting the packets
//! already waiting and those on their way (being serialized or on the
//! wire, `reserved`). When it has none, the port holds its head packet in
//! its queue and joins the list of held ports (`held`, oldest first); each
//! time a place frees, the oldest held port resumes. So the buffer never
//! overflows and never drops, the queues of the ports feeding it grow, and
//! the held ports resume in the order they stopped (bmv2's single
//! receiving thread serves its interfaces in turn).
//!
//! A reserved packet lost on the wire gives its place back. Returned copies
//! (recirculations) keep their own queue (`net::pipeline`) and take no
//! place here.

use std::collections::VecDeque;

/// The input side of a blocking pipeline (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct InputGate {
    /// Places for waiting packets (the pipeline's `buffer_pkts`).
    pub places: u32,
    /// Packets a gated port has started to send and the pipeline has not
    /// yet received.
    pub reserved: u32,
    /// Ports holding their head packet for want of a place, oldest first.
    pub held: VecDeque<u32>,
    /// Times a port had to hold (the held-port count of the `pipelines`
    /// table).
    pub holds: u64,
}

impl InputGate {
    pub fn new(places: u32) -> Self {
        InputGate {
            places,
            reserved: 0,
            held: VecDeque::new(),
            holds: 0,
        }
    }

    /// Whether a packet may start toward the pipeline now, `waiting`
    /// packets being queued in it: a place not taken by the waiting ones
    /// or those on their way.
    #[inline]
    pub fn has_place(&self, waiting: u32) -> bool {
        waiting + self.reserved < self.places
    }

    /// A gated port starts sending a packet: it takes a place.
    #[inline]
    pub fn reserve(&mut self) {
        self.reserved += 1;
    }

    /// A reserved packet arrived (it now waits or is served) or was lost on
    /// the way: its reservation ends.
    #[inline]
    pub fn release(&mut self) {
        debug_assert!(self.reserved > 0, "a release without a reservation");
        self.reserved -= 1;
    }

    /// `port` holds its head packet until a place frees.
    pub fn hold(&mut self, port: u32) {
        self.held.push_back(port);
        self.holds += 1;
    }

    /// The port to resume now, if a place is free and one is held.
    #[inline]
    pub fn next_to_resume(&mut self, waiting: u32) -> Option<u32> {
        if self.held.is_empty() || !self.has_place(waiting) {
            return None;
        }
        self.held.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_count_waiting_and_reserved_packets() {
        let mut g = InputGate::new(3);
        assert!(g.has_place(0));
        g.reserve();
        g.reserve();
        assert!(g.has_place(0));
        assert!(
            !g.has_place(1),
            "two on their way and one waiting fill three places"
        );
        g.release();
        assert!(g.has_place(1));
    }

    #[test]
    fn held_ports_resume_oldest_first_and_only_with_a_place() {
        let mut g = InputGate::new(1);
        g.reserve();
        g.hold(7);
        g.hold(3);
        assert_eq!(g.holds, 2);
        assert_eq!(g.next_to_resume(0), None, "the one place is reserved");
        g.release();
        assert_eq!(g.next_to_resume(0), Some(7));
        g.reserve();
        assert_eq!(g.next_to_resume(0), None);
        g.release();
        assert_eq!(g.next_to_resume(1), None, "a packet waits in the one place");
        assert_eq!(g.next_to_resume(0), Some(3));
        assert_eq!(g.next_to_resume(0), None, "nobody left");
    }
}
