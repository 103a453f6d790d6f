//! The world's side of a blocking input buffer (`net::input_gate`): a port
//! feeding a switch whose pipeline blocks holds its head packet while the
//! buffer has no place for it, and the held ports resume, oldest first, as
//! places free.
//!
//! The port path calls in at four points: `start_tx` asks [`World::must_hold`]
//! before it dequeues and reserves a place after ([`World::reserve_place`]);
//! the switch takes the packet with `Pipeline::admit_reserved`
//! (`ingress_as`); a place frees when the pipeline starts serving a waiting
//! packet or an arrival finds it idle, or when a reserved packet is lost on
//! the wire ([`World::lost_on_gated_wire`]), and then [`World::resume_held`]
//! restarts the held ports.

use super::*;
use crate::net::port::NO_GATE;

/// Marks every port whose far end is a switch with a blocking pipeline:
/// `Port::gate` names that pipeline.
pub(super) fn gate_ports(ports: &mut [Port], pipelines: &[Pipeline], node_pipeline: &[u32]) {
    for p in ports.iter_mut() {
        let pi = node_pipeline[p.peer as usize];
        if pi != NO_PIPELINE && pipelines[pi as usize].gate.is_some() {
            p.gate = pi;
        }
    }
}

impl World {
    /// Whether gated `port` must hold its head packet: its switch's buffer
    /// has no place. A port that must hold joins the held list once.
    pub(super) fn must_hold(&mut self, port: u32) -> bool {
        let pi = self.ports[port as usize].gate;
        debug_assert_ne!(pi, NO_GATE);
        let pl = &mut self.pipelines[pi as usize];
        let waiting = pl.waiting_pkts();
        let g = pl.gate.as_mut().expect("a gated port's pipeline blocks");
        if g.has_place(waiting) {
            return false;
        }
        let p = &mut self.ports[port as usize];
        if !p.held {
            p.held = true;
            g.hold(port);
        }
        true
    }

    /// Gated `port` started sending a packet: it takes a place.
    pub(super) fn reserve_place(&mut self, port: u32) {
        let pi = self.ports[port as usize].gate;
        if let Some(g) = self.pipelines[pi as usize].gate.as_mut() {
            g.reserve();
        }
    }

    /// A packet gated `port` had sent was lost on the wire: its place is
    /// free again.
    pub(super) fn lost_on_gated_wire(&mut self, port: u32) {
        let pi = self.ports[port as usize].gate;
        if let Some(g) = self.pipelines[pi as usize].gate.as_mut() {
            g.release();
            self.resume_held(pi);
        }
    }

    /// Restarts held ports, oldest first, while the pipeline `pi` has
    /// places. A resumed port with nothing left to send takes none.
    pub(super) fn resume_held(&mut self, pi: u32) {
        loop {
            let pl = &mut self.pipelines[pi as usize];
            let waiting = pl.waiting_pkts();
            let Some(port) = pl.gate.as_mut().and_then(|g| g.next_to_resume(waiting)) else {
                return;
            };
            let p = &mut self.ports[port as usize];
            p.held = false;
            if p.tx.is_none() {
                self.start_tx(port);
            }
        }
    }
}
