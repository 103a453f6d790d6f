//! A TCP sender's NIC without `TxDone` events while TCP small queues hold
//! no sender (issue 29).
//!
//! A host's NIC tells each of its TCP senders when one of the sender's
//! packets leaves it (`Sender::on_nic_left`): the sender counts what its
//! NIC holds (TCP small queues, TSQ) and checks whether it has become
//! application-limited. Neither produces anything; only a sender that TSQ
//! *holds* acts at that instant: it sends again (Linux wakes the socket
//! from the NIC's completion, `tcp_wfree` → `tcp_tsq_handler`).
//!
//! So the NIC is lazy as other ports are (`world/departures.rs`): its
//! departures are made when something next looks at it, and each one
//! tells its packet's sender then, with the clock at the departure's
//! instant. The sender looks too: before any of its calls (an ACK, a
//! timer, the application's write) its host's NIC is caught up, so the
//! sender finds its NIC count as it is at that instant. And while TSQ
//! holds a sender on the NIC, the NIC raises an event at the end of each
//! transmission (`Event::TxDone`, a *wake*), at which its departures are
//! made and the senders they released resume ([`World::tsq_wake`]).
//!
//! **Ties.** A departure keeps the place among simultaneous events that
//! its `TxDone` had, so that every result is that of the NIC with an event
//! per packet, bit for bit. Events at one instant run in the order they
//! were scheduled (`sim::event`), and a `TxDone` was scheduled when its
//! transmission started: so the start reserves that event's sequence
//! number (`Port::tx_seq`, `EventQueue::reserve_seq`), and a catch-up at
//! the instant a transmission ends makes the departure only when its
//! number is below that of the event being handled. An event scheduled
//! before the start (an ACK's arrival, a timer) is handled with the
//! packet still on the NIC: its sender finds the count of TCP small
//! queues as it was, and an enqueue behind it waits. A wake is scheduled
//! at the reserved number itself (`EventQueue::schedule_keyed`), so a
//! released sender resumes where the `TxDone` resumed it: after the next
//! transmission started, before any event scheduled after the start.
//! Without this (a departure before any call of a sender at its instant)
//! a quick run of rafle's era part (hosts of linux-6.12, 120 files, 55 s)
//! left main at 54.2917 s: a timer of one flow, due at the instant of a
//! departure that released another flow fired, in main, before it (it
//! was armed before that transmission started), and the two flows'
//! segments entered the NIC in the other order.
//!
//! One order is not the `TxDone`'s: the packet's arrival at the far end
//! is scheduled at the start, just after the reserved number (as on every
//! lazy port; the `TxDone` scheduled it at the end), so at the arrival's
//! instant it runs before the events scheduled during its transmission,
//! not after. No run compared shows it (rafle's 100 quick runs, the five
//! configurations of `docs/performance.md` with both ACK policies, 36
//! small fetches of rafle's): the far end's other events at that instant
//! touch other ports and flows.
//!
//! [`run_json_with_nic_events`] runs with every such NIC keeping its
//! `TxDone` events: the reference `tests/departures.rs` compares with.
//!
//! Which NICs: a host that sends TCP, whose one egress port is lazy by
//! the rules of `world/departures.rs`. A host with more than one port
//! keeps a `TxDone` event per packet.

use super::*;

/// Ports without a NIC role: [`TsqWake::nic`].
pub(super) const NO_NIC: u32 = u32::MAX;

#[derive(Default)]
pub(super) struct TsqWake {
    /// Per node: the lazy NIC whose departures tell its TCP senders,
    /// or [`NO_NIC`].
    pub(super) nic: Vec<u32>,
    /// Per port: a wake is scheduled at the end of its transmission.
    armed: Vec<bool>,
    /// Per port: how many of its senders TSQ holds (each counted once,
    /// from the call that began to hold it to the departure that releases
    /// it).
    held: Vec<u32>,
    /// Flows released by a departure, to resume at top level.
    pub(super) woken: Vec<u32>,
}

impl World {
    /// Marks the lazy NICs of hosts that send TCP (called by
    /// `mark_lazy_ports`, which gives `lazy` by the other rules).
    pub(super) fn mark_tsq_nics(&mut self, tcp_sender: &[bool]) {
        let n = self.node_names.len();
        let mut ports_of = vec![0u32; n];
        let mut only = vec![NO_NIC; n];
        for (i, p) in self.ports.iter().enumerate() {
            ports_of[p.node as usize] += 1;
            only[p.node as usize] = i as u32;
        }
        self.tsq.nic = vec![NO_NIC; n];
        self.tsq.armed = vec![false; self.ports.len()];
        self.tsq.held = vec![0; self.ports.len()];
        for node in 0..n {
            if !tcp_sender[node] || self.node_kinds[node] != NodeKind::Host {
                continue;
            }
            let port = only[node];
            if ports_of[node] == 1 && self.ports[port as usize].lazy {
                self.tsq.nic[node] = port;
                self.ports[port as usize].tells_senders = true;
                self.ports[port as usize].keeps_place = true;
            } else if port != NO_NIC {
                for p in self.ports.iter_mut().filter(|p| p.node == node as u32) {
                    p.lazy = false;
                }
            }
        }
    }

    /// Every TCP sender's NIC keeps a `TxDone` event per packet (before the
    /// run: [`run_json_with_nic_events`]).
    pub(super) fn keep_nic_events(&mut self) {
        for node in 0..self.tsq.nic.len() {
            let port = std::mem::replace(&mut self.tsq.nic[node], NO_NIC);
            if port != NO_NIC {
                let p = &mut self.ports[port as usize];
                p.lazy = false;
                p.tells_senders = false;
                p.keeps_place = false;
            }
        }
    }

    /// A departure of `pkt` at `done` (the clock is set to it) from the
    /// NIC `port` of `node`: tells the packet's TCP sender, and returns its
    /// flow when that released the sender from TCP small queues (the caller
    /// resumes it).
    #[inline]
    pub(super) fn nic_departure(
        &mut self,
        port: u32,
        node: u32,
        pkt: PktId,
        done: Time,
    ) -> Option<u32> {
        let (size, src, flow, proto) = {
            let k = self.pool.get(pkt);
            (k.size_bytes, k.src, k.flow, k.proto)
        };
        if proto != Proto::Tcp || src != node {
            return None;
        }
        if let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind {
            if c.sender.endpoints().src == node && c.sender.on_nic_left(done, size) {
                let held = &mut self.tsq.held[port as usize];
                debug_assert!(*held > 0, "a released sender was counted as held");
                *held = held.saturating_sub(1);
                return Some(flow);
            }
        }
        None
    }

    /// Before a call of a TCP sender at `node`: its NIC's departures due
    /// now are made and the senders they released resume (top level only:
    /// not from inside an endpoint's output).
    #[inline]
    pub(super) fn catch_up_host(&mut self, node: u32) {
        let port = self.tsq.nic[node as usize];
        if port == NO_NIC {
            return;
        }
        self.catch_up(port, self.now);
        if !self.tsq.woken.is_empty() {
            self.resume_woken(node);
        }
    }

    #[inline(never)]
    fn resume_woken(&mut self, node: u32) {
        let now = self.now;
        let mut i = 0;
        while let Some(&flow) = self.tsq.woken.get(i) {
            if let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind {
                c.sender.try_send(now, &mut self.out);
                self.flush(flow, node);
            }
            i += 1;
        }
        self.tsq.woken.clear();
    }

    /// The wake of a lazy NIC (`Event::TxDone` on a lazy port): its
    /// departure due now, the sender it released resumed, and the next
    /// wake armed while a sender is still held.
    ///
    /// A wake is scheduled at the place of the current transmission's
    /// `TxDone` (`arm_tsq_wake`), and no catch-up before that place makes
    /// the departure: so here the current transmission ends, the one
    /// departure due (a packet of zero bytes would leave at once, but its
    /// place is reserved after this one's). It is made as `tx_done` makes
    /// an eager port's, and the sender it released resumes at once, as
    /// `Sender::on_nic_tx` resumes it (`tsq_wake_depart`): no list of
    /// released senders, no second dispatch. Anything else falls back to
    /// the catch-up.
    pub(super) fn tsq_wake(&mut self, port: u32) {
        let i = port as usize;
        self.tsq.armed[i] = false;
        let p = &self.ports[i];
        let node = p.node;
        if p.tx.is_some() && p.busy_until == self.now && p.tx_seq == self.events.current_seq() {
            self.tsq_wake_depart(port, node);
        }
        // Departures due that the wake did not make (none expected) and
        // senders released elsewhere.
        self.catch_up_host(node);
        self.arm_tsq_wake(port);
    }

    /// [`Self::tsq_wake`]'s departure: the current transmission of the
    /// NIC `port` of `node` ends now.
    #[inline]
    fn tsq_wake_depart(&mut self, port: u32, node: u32) {
        let now = self.now;
        let Some((pkt, started)) = self.ports[port as usize].tx else {
            return;
        };
        self.end_lazy_tx(port, started);
        if let Some(flow) = self.nic_departure(port, node, pkt, now) {
            if let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind {
                c.sender.try_send(now, &mut self.out);
                self.flush(flow, node);
            }
        }
    }

    /// After a sender's call (`flush`): TSQ began to hold it, so its NIC
    /// raises a wake at the end of its transmission.
    #[inline(never)]
    pub(super) fn tsq_held(&mut self, node: u32) {
        let port = self.tsq.nic[node as usize];
        if port == NO_NIC {
            return;
        }
        self.tsq.held[port as usize] += 1;
        self.arm_tsq_wake(port);
    }

    fn arm_tsq_wake(&mut self, port: u32) {
        let i = port as usize;
        let p = &self.ports[i];
        if self.tsq.armed[i] || self.tsq.held[i] == 0 || p.tx.is_none() {
            return;
        }
        self.tsq.armed[i] = true;
        // At the place its `TxDone` would have had (see the module).
        let (at, seq) = (p.busy_until, p.tx_seq);
        self.events.schedule_keyed(at, seq, Event::TxDone { port });
    }
}
