//! An arrival that knows where it goes (issue 29).
//!
//! An arrival used to find its packet and where the far end sends it by a
//! chain of dependent loads: the event named the port, the port its wire's
//! ring, the ring's head the packet, the packet's slot its destination,
//! the route table the next port. A packet's route at the far end is known
//! when it leaves, in most cases: its destination is the far end itself,
//! or the far end forwards it by the small network's direct route table
//! (`net/direct_routes.rs`, fixed for the run) and has no pipeline. So the
//! decision is made at the departure (the packet's slot is at hand then)
//! and kept in the wire's ring entry (`net::wire::OnWire`); the head of
//! each wire, its packet and that decision, is kept in a dense array
//! beside the ports ([`WireHead`]), written when the head's `Arrive` is
//! scheduled. The arrival reaches its packet and its next port from the
//! event's port by one load, without the port, the ring, the packet's slot
//! or the route table in between.
//!
//! Where the far end must decide on arrival (a pipeline, a pair whose
//! packets choose among equal-cost ports, no route) the entry says
//! [`HOP_ASK`] and the arrival routes as before. Either way each packet
//! takes the port it took before, at the same instant, with the same
//! events scheduled in the same order: every table is unchanged.

use super::*;
use crate::net::wire::OnWire;

/// The far end asks its routes on arrival (`World::receive`).
pub(super) const HOP_ASK: u32 = u32::MAX;
/// The packet's destination is the far end.
pub(super) const HOP_DELIVER: u32 = u32::MAX - 1;

/// The head of a port's wire: the packet its pending `Arrive` brings, and
/// the far end's decision for it (8 bytes a port, so one line holds eight).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WireHead {
    pkt: u32,
    hop: u32,
}

/// Every node's decision for every destination, `at[node * n + dst]`,
/// made once from the routes (one load per departure); empty (`n` 0) for
/// a network too large for the direct route table: every arrival asks.
#[derive(Default)]
pub(super) struct Hops {
    n: usize,
    at: Vec<u32>,
}

impl World {
    /// The table of [`Hops`], from the routes and the pipelines.
    pub(super) fn build_hops(&mut self) {
        let n = self.node_names.len();
        if n > crate::net::direct_routes::DIRECT_MAX_NODES {
            return;
        }
        let mut at = Vec::with_capacity(n * n);
        for node in 0..n as u32 {
            let piped = self.node_pipeline[node as usize] != NO_PIPELINE;
            for dst in 0..n as u32 {
                at.push(match self.routes.direct_port(node, dst) {
                    _ if dst == node => HOP_DELIVER,
                    Some(next) if next != NO_ROUTE && !piped => next,
                    // A pipeline, a choice among ports, no route, no table.
                    _ => HOP_ASK,
                });
            }
        }
        self.hops = Hops { n, at };
    }

    /// What `node` will do with `pkt` when it arrives there: the egress
    /// port it forwards it to, [`HOP_DELIVER`] or [`HOP_ASK`] (see the
    /// module).
    #[inline]
    fn arrival_hop(&self, node: u32, pkt: PktId) -> u32 {
        let dst = self.pool.get(pkt).dst as usize;
        let h = &self.hops;
        h.at.get(node as usize * h.n + dst)
            .copied()
            .unwrap_or(HOP_ASK)
    }

    /// Puts `pkt` on `port`'s wire, to reach the far end at `at` (no
    /// earlier than the wire's last packet), with the far end's decision;
    /// a wire that was empty schedules its head's arrival.
    #[inline]
    pub(super) fn put_on_wire(&mut self, port: u32, at: Time, pkt: PktId) {
        let hop = self.arrival_hop(self.ports[port as usize].peer, pkt);
        let p = &mut self.ports[port as usize];
        p.pipe.push_back(OnWire { at, pkt, hop });
        if p.pipe.len() == 1 {
            self.heads[port as usize] = WireHead { pkt: pkt.0, hop };
            self.events.schedule(at, Event::Arrive { port });
        }
    }

    /// The head of `port`'s wire reaches the far end, which forwards it,
    /// takes it, or asks its routes (see the module).
    pub(super) fn arrive(&mut self, port: u32) {
        let WireHead { pkt, hop } = self.heads[port as usize];
        let pkt = PktId(pkt);
        let k = self.pool.get_mut(pkt);
        k.hops = k.hops.saturating_add(1);
        // A lazy port's dequeues due since the head left put the packets
        // behind it on the wire first (`world/departures.rs`).
        self.catch_up(port, self.now);
        let p = &mut self.ports[port as usize];
        let head = p.pipe.pop_front().expect("Arrive on an empty pipe");
        debug_assert_eq!((head.at, head.pkt, head.hop), (self.now, pkt, hop));
        let node = p.peer;
        if let Some(&next) = p.pipe.front() {
            self.heads[port as usize] = WireHead {
                pkt: next.pkt.0,
                hop: next.hop,
            };
            self.events.schedule(next.at, Event::Arrive { port });
            self.pool.prefetch_whole(next.pkt);
            // The wire's ring, read one entry per arrival, last written a
            // propagation delay ago: its line eight entries ahead.
            if let Some(e) = p.pipe.get(PIPE_AHEAD) {
                crate::net::packet::prefetch_line(e);
            }
        }
        #[cfg(debug_assertions)]
        self.check_hop(node, pkt, hop);
        match hop {
            HOP_ASK => self.receive(node, pkt, port),
            HOP_DELIVER => self.receive_local(node, pkt),
            next => self.admit(next, pkt),
        }
    }

    /// With debug assertions (the tests): the decision made at the
    /// departure is what routing the packet on arrival gives.
    #[cfg(debug_assertions)]
    fn check_hop(&self, node: u32, pkt: PktId, hop: u32) {
        let dst = self.pool.get(pkt).dst;
        match hop {
            HOP_ASK => {}
            HOP_DELIVER => assert_eq!(dst, node, "a packet delivered where it is not bound"),
            next => {
                assert_eq!(self.node_pipeline[node as usize], NO_PIPELINE);
                assert_eq!(
                    self.routes.next_ports(node, dst),
                    vec![next],
                    "node {node} to {dst}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a - s - b`, one TCP flow from `a` to `b`; `s` with a pipeline if
    /// `pipeline`.
    fn world(pipeline: bool) -> World {
        let s = if pipeline {
            r#"{"name": "s", "kind": "switch", "pipeline": {"capacity_pps": 1000000.0, "buffer_pkts": 64}}"#
        } else {
            r#"{"name": "s", "kind": "switch"}"#
        };
        let cfg = RunConfig::from_json(&format!(
            r#"{{"seed": 1, "duration_ps": 1000000000000,
                "nodes": [{{"name": "a", "kind": "host"}}, {s}, {{"name": "b", "kind": "host"}}],
                "links": [{{"a": "a", "b": "s", "rate_bps": 1000000000, "delay_ps": 1000000}},
                          {{"a": "s", "b": "b", "rate_bps": 1000000000, "delay_ps": 1000000}}],
                "flows": [{{"kind": "tcp", "name": "f", "src": "a", "dst": "b"}}]}}"#
        ))
        .unwrap();
        World::build(&cfg).unwrap()
    }

    fn port(w: &World, from: u32, to: u32) -> u32 {
        let i = w.ports.iter().position(|p| p.node == from && p.peer == to);
        i.expect("a port") as u32
    }

    #[test]
    fn the_far_end_forwards_by_its_table_delivers_or_asks_behind_a_pipeline() {
        let (a, s, b) = (0, 1, 2);
        let mut w = world(false);
        let to_b = w.pool.alloc(Packet {
            src: a,
            dst: b,
            ..Default::default()
        });
        // At the switch: its port toward b; at b: delivered.
        assert_eq!(w.arrival_hop(s, to_b), port(&w, s, b));
        assert_eq!(w.arrival_hop(b, to_b), HOP_DELIVER);
        // A switch with a pipeline decides when the packet has passed it.
        let mut w = world(true);
        let to_b = w.pool.alloc(Packet {
            src: a,
            dst: b,
            ..Default::default()
        });
        assert_eq!(w.arrival_hop(s, to_b), HOP_ASK);
        assert_eq!(w.arrival_hop(b, to_b), HOP_DELIVER);
    }

    #[test]
    fn a_run_routes_as_it_did_with_and_without_a_pipeline() {
        // Every arrival checks its decision against the routes (debug
        // assertions, `check_hop`); both runs deliver and conserve packets.
        for pipeline in [false, true] {
            let mut w = world(pipeline);
            w.run();
            assert!(w.delivered > 100, "{}", w.delivered);
            w.check_conservation().unwrap();
        }
    }
}
