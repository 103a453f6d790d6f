//! Departures without `TxDone` events (issue 29).
//!
//! A port knows when its transmitter frees: the end of the current
//! packet's serialization. On a *lazy* port the packet goes on the wire at
//! its dequeue (its arrival at the far end, `busy_until` plus the wire's
//! delay, is known then), and no event marks the end of its serialization:
//! the port's next dequeue is made when something next looks at the port,
//! at the instant the transmitter freed, by [`World::catch_up`]. Three
//! things look: an enqueue (before it, so that it finds the queue as it is
//! at its instant; a netem stage's limit looks too), an arrival over the port's own wire (the packet on the
//! wire's head left at least a propagation delay ago, so the dequeues due
//! since are made and the next packet is on the wire before the head's
//! arrival schedules the next one), and the end of the run (the counters).
//! A dequeue made late is made with the clock set to its own instant, on a
//! queue in exactly the state it had then (nothing else touches the queue
//! in between), so the discipline's decisions, its random draws and the
//! port's counters are those of an event at that instant.
//!
//! The tie rule (`docs/model.md`): a lazy port's departures due at an
//! instant come before anything else that port sees at that instant (a
//! TCP sender's NIC keeps its `TxDone`'s place instead:
//! `world/tsq_wake.rs`).
//!
//! A port is lazy when nothing needs the end of a transmission as an event
//! (`World::mark_lazy_ports`): a plain wire (no loss, reordering, jitter,
//! service rate or shaper; jitter alone is allowed, `world/jitter_lazy.rs`,
//! with the NIC's tie rule), no return policy, no queue trace, no blocking
//! input buffer downstream, no netem stage counting GSO skbs, and no
//! per-packet or pcap capture or drop log in the run (their rows would come
//! out of time order). The NIC of a host that sends TCP is lazy too when it
//! is the host's one port: its senders learn of their packets' departures
//! when they next act, and one that TCP small queues hold gets an event
//! (`world/tsq_wake.rs`).

use super::*;

impl World {
    /// Marks the ports whose departures need no event (see the module).
    pub(super) fn mark_lazy_ports(&mut self, cfg: &RunConfig) {
        let mut tcp_sender = vec![false; self.node_names.len()];
        let watched = self.cap.on || self.pkts.on || self.rec.drop_log;
        if watched {
            self.mark_tsq_nics(&tcp_sender);
            return;
        }
        let mut mark = |name: &str| {
            if let Some(i) = self.node_names.iter().position(|n| n == name) {
                tcp_sender[i] = true;
            }
        };
        for f in &cfg.flows {
            if let FlowConfig::Tcp { src, .. } = f {
                mark(src);
            }
        }
        for w in &cfg.workloads {
            // Clients send requests and control messages, servers files.
            w.clients.iter().chain(&w.servers).for_each(|h| mark(h));
        }
        for p in &mut self.ports {
            // A port feeding a blocking input buffer holds its head packet
            // on the buffer's places, and a netem stage counting GSO skbs
            // frees an skb's place at its first segment's dequeue: both
            // need their dequeues as events.
            // A jittered wire too (`world/jitter_lazy.rs`), its departures
            // in their `TxDone`'s place.
            p.lazy = (p.plain || Self::jitter_only(p))
                && p.feedback.is_none()
                && p.trace.is_none()
                && p.gate == crate::net::port::NO_GATE
                && p.netem.as_ref().is_none_or(|n| n.gso.is_none());
            p.keeps_place = p.lazy && !p.plain;
        }
        self.mark_tsq_nics(&tcp_sender);
    }

    /// `pkt` (of `size` bytes) leaves `port`'s queue now and holds the
    /// transmitter until `done`: an event at `done`, or on a lazy port
    /// the wire at once (see the module).
    #[inline]
    pub(super) fn depart(&mut self, port: u32, pkt: PktId, size: u32, done: Time) {
        let p = &mut self.ports[port as usize];
        p.tx = Some((pkt, self.now));
        if !p.lazy {
            self.events.schedule(done, Event::TxDone { port });
            return;
        }
        p.busy_until = done;
        p.tx_size = size;
        if p.tells_senders {
            // A TCP sender's NIC: the departure's place among the events
            // at `done`, before its arrival's (`world/tsq_wake.rs`).
            p.tx_seq = self.events.reserve_seq();
        }
        if !p.plain {
            // A jittered wire (`world/jitter_lazy.rs`), out of line.
            self.depart_jittered(port, pkt, done);
            return;
        }
        let p = &mut self.ports[port as usize];
        let arrival = done + p.delay;
        p.pipe.push_back((arrival, pkt));
        if p.pipe.len() == 1 {
            self.events.schedule(arrival, Event::Arrive { port });
        }
    }

    /// Makes the departures of a lazy `port` due at or before `t`: ends
    /// each serialization and dequeues the next packet at the instant the
    /// transmitter freed. A port that is not lazy, or idle, or busy past
    /// `t`, is left as it is (one test, inline).
    #[inline]
    pub(super) fn catch_up(&mut self, port: u32, t: Time) {
        let p = &self.ports[port as usize];
        if p.lazy && p.tx.is_some() && p.busy_until <= t {
            self.catch_up_slow(port, t);
        }
    }

    #[inline(never)]
    fn catch_up_slow(&mut self, port: u32, t: Time) {
        let now = self.now;
        let p = &self.ports[port as usize];
        let (nic, node) = (p.tells_senders, p.node);
        // A TCP sender's NIC, a jittered wire: a departure at `t` comes after
        // the event being handled when its reserved place is later
        // (`world/tsq_wake.rs`).
        let handled = self.events.current_seq();
        loop {
            let p = &mut self.ports[port as usize];
            let Some((pkt, started)) = p.tx else { break };
            if p.busy_until > t || (p.busy_until == t && p.keeps_place && p.tx_seq > handled) {
                break;
            }
            let done = p.busy_until;
            self.now = done;
            let idle = self.end_lazy_tx(port, started);
            if nic {
                // A TCP sender's NIC tells the sender (`world/tsq_wake.rs`);
                // one it released resumes at top level.
                if let Some(flow) = self.nic_departure(port, node, pkt, done) {
                    self.tsq.woken.push(flow);
                }
            }
            if idle {
                break;
            }
        }
        self.now = now;
    }

    /// The departure of a lazy `port`'s current packet (on the wire since
    /// `started`) at its end, `self.now`: the port's counters, and the next
    /// transmission started before the sender hears, as in `tx_done`. Whether
    /// the port is now idle. Shared by the catch-up and the NIC's wake
    /// (`world/tsq_wake.rs`).
    #[inline(always)]
    pub(super) fn end_lazy_tx(&mut self, port: u32, started: Time) -> bool {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        p.tx = None;
        p.stats.busy += now.since(started);
        p.stats.tx_bytes += p.tx_size as u64;
        // An empty FIFO has nothing to start; any other discipline is
        // asked, as `tx_done` asks it (CoDel may drop at that dequeue).
        let idle = p.fifo_empty();
        if !idle {
            self.start_tx(port);
        }
        idle
    }

    /// At the end of a run: every lazy port's departures up to now made,
    /// so that its counters are those of the run's end.
    pub(super) fn settle_ports(&mut self) {
        // Every departure due by the end, whatever its place among ties.
        self.events.finish();
        let now = self.now;
        for port in 0..self.ports.len() as u32 {
            self.catch_up(port, now);
        }
    }
}
