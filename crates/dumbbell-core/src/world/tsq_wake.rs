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
//! A departure made inside another endpoint's output (an enqueue at the
//! NIC catches the port up) only notes the released sender; the wake at
//! the same instant resumes it. The tie rule (`docs/model.md`): the NIC's
//! departures due at an instant come before a call of one of its senders
//! at that instant, and a released sender resumes before that call too.
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
    /// Per port: the flows whose senders TSQ holds on it.
    held: Vec<Vec<u32>>,
    /// Flows released by a departure, to resume at top level.
    woken: Vec<u32>,
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
        self.tsq.held = vec![Vec::new(); self.ports.len()];
        for node in 0..n {
            if !tcp_sender[node] || self.node_kinds[node] != NodeKind::Host {
                continue;
            }
            let port = only[node];
            if ports_of[node] == 1 && self.ports[port as usize].lazy {
                self.tsq.nic[node] = port;
                self.ports[port as usize].tells_senders = true;
            } else if port != NO_NIC {
                for p in self.ports.iter_mut().filter(|p| p.node == node as u32) {
                    p.lazy = false;
                }
            }
        }
    }

    /// A departure of `pkt` at `done` (the clock is set to it) from the
    /// NIC `port` of `node`: tells the packet's TCP sender.
    #[inline]
    pub(super) fn nic_departure(&mut self, port: u32, node: u32, pkt: PktId, done: Time) {
        let (size, src, flow, proto) = {
            let k = self.pool.get(pkt);
            (k.size_bytes, k.src, k.flow, k.proto)
        };
        if proto != Proto::Tcp || src != node {
            return;
        }
        if let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind {
            if c.sender.endpoints().src == node && c.sender.on_nic_left(done, size) {
                let held = &mut self.tsq.held[port as usize];
                if let Some(i) = held.iter().position(|&f| f == flow) {
                    held.swap_remove(i);
                }
                self.tsq.woken.push(flow);
            }
        }
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
    /// departures due now, the released senders resumed, and the next
    /// wake armed while a sender is still held.
    pub(super) fn tsq_wake(&mut self, port: u32) {
        self.tsq.armed[port as usize] = false;
        let node = self.ports[port as usize].node;
        self.catch_up_host(node);
        self.arm_tsq_wake(port);
    }

    /// After a sender's call (`flush`): TSQ began to hold it, so its NIC
    /// raises a wake at the end of its transmission.
    #[inline(never)]
    pub(super) fn tsq_held(&mut self, flow: u32, node: u32) {
        let port = self.tsq.nic[node as usize];
        if port == NO_NIC {
            return;
        }
        self.tsq.held[port as usize].push(flow);
        self.arm_tsq_wake(port);
    }

    fn arm_tsq_wake(&mut self, port: u32) {
        let i = port as usize;
        let p = &self.ports[i];
        if self.tsq.armed[i] || self.tsq.held[i].is_empty() || p.tx.is_none() {
            return;
        }
        self.tsq.armed[i] = true;
        let at = p.busy_until.max(self.now);
        self.events.schedule(at, Event::TxDone { port });
    }
}
