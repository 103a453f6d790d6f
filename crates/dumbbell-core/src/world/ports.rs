//! The port path: a packet from its enqueue at an egress port (through
//! the netem stage and the queue discipline) to the wire, the far end's
//! arrival, a switch's pipeline and forwarding, and every drop on the way.

use super::packet_trace::PacketEvent;
use super::*;
use crate::net::port::NO_GATE;

impl World {
    pub(super) fn enqueue(&mut self, port: u32, pkt: PktId) {
        let now = self.now;
        self.catch_up(port, now);
        let p = &mut self.ports[port as usize];
        let size = self.pool.get(pkt).size_bytes;
        if p.passes_through(size) {
            // An idle port with an empty plain FIFO: what the enqueue below
            // and the `start_tx` it calls would do, without the queue's
            // round trip. The packet is counted enqueued (occupancy one
            // packet, `size` bytes, for the maxima) and dequeued unmarked.
            p.stats.enqueued += 1;
            p.stats.max_pkts = p.stats.max_pkts.max(1);
            p.stats.max_bytes = p.stats.max_bytes.max(size as u64);
            p.stats.dequeued += 1;
            if p.counts_skbs() {
                self.skb_left(port, pkt);
            }
            let p = &mut self.ports[port as usize];
            let done = now + p.hold(size);
            self.depart(port, pkt, size, done);
            if self.pkts.on {
                self.trace_packet(port, pkt, PacketEvent::Enqueue, "");
                self.trace_packet(port, pkt, PacketEvent::Dequeue, "");
            }
            return;
        }
        // The occupancy the arrival finds, for a return policy at enqueue
        // (read only when there is one).
        let found = match p.feedback.as_deref() {
            Some(fb) if fb.at() == MarkPoint::Enqueue => Some(Occupancy {
                pkts: p.qdisc.len_pkts(),
                bytes: p.qdisc.len_bytes(),
            }),
            _ => None,
        };
        let mut cx = QueueCtx {
            now,
            pool: &mut self.pool,
            rng: &mut self.aqm_rngs[port as usize],
        };
        let verdict = p.qdisc.enqueue(pkt, &mut cx);
        if self.pkts.on && matches!(verdict, Verdict::Enqueued { .. }) {
            self.trace_packet(port, pkt, PacketEvent::Enqueue, "");
        }
        self.drain_queue_drops(port);
        match verdict {
            Verdict::Enqueued { marked } => {
                if marked && self.pkts.on {
                    self.trace_packet(port, pkt, PacketEvent::Mark, "");
                }
                let p = &mut self.ports[port as usize];
                if let (Some(found), Some(fb)) = (found, p.feedback.as_deref_mut()) {
                    if fb.consult(found, self.pool.get(pkt)) {
                        self.send_return(port, pkt);
                    }
                }
                let p = &mut self.ports[port as usize];
                p.stats.enqueued += 1;
                p.note_occupancy();
                if marked {
                    p.stats.marked += 1;
                    if self.rec.drop_log {
                        let flow = self.pool.get(pkt).flow;
                        self.log_drop(port, flow, "mark");
                    }
                }
                self.trace_change(port);
                if self.ports[port as usize].tx.is_none() {
                    self.start_tx(port);
                }
            }
            Verdict::Dropped(reason) => self.drop(port, pkt, reason, false),
        }
    }

    pub(super) fn start_tx(&mut self, port: u32) {
        let now = self.now;
        // A port feeding a blocking input buffer waits for a place
        // (`world/backpressure.rs`), if it has something to send.
        let p = &self.ports[port as usize];
        let gated = p.gate != NO_GATE;
        if gated && !p.qdisc.is_empty() && self.must_hold(port) {
            return;
        }
        let p = &mut self.ports[port as usize];
        let mut cx = QueueCtx {
            now,
            pool: &mut self.pool,
            rng: &mut self.aqm_rngs[port as usize],
        };
        let d = p.qdisc.dequeue(&mut cx);
        let dropped = self.drain_queue_drops(port);
        let Some(d) = d else {
            // CoDel may have dropped everything it held.
            if dropped {
                self.trace_change(port);
            }
            return;
        };
        if gated {
            self.reserve_place(port);
        }
        let p = &mut self.ports[port as usize];
        p.stats.dequeued += 1;
        if d.marked {
            p.stats.marked += 1;
        }
        if p.counts_skbs() {
            self.skb_left(port, d.pkt);
        }
        let p = &mut self.ports[port as usize];
        let size = self.pool.get(d.pkt).size_bytes;
        // With a service rate the port is held for the longer of the
        // serialization and the service interval (`tx_done` puts the packet
        // on the wire when its serialization ends).
        let done = now + p.hold(size);
        if let Some(tr) = &p.trace {
            if tr.dequeue_times && now >= tr.from && now < tr.to {
                self.rec.d_time.push(now.ps());
                self.rec.d_port.push(port);
                self.rec.d_size.push(size);
            }
        }
        self.depart(port, d.pkt, size, done);
        if self.pkts.on {
            self.trace_packet(port, d.pkt, PacketEvent::Dequeue, "");
            if d.marked {
                self.trace_packet(port, d.pkt, PacketEvent::Mark, "");
            }
        }
        if d.marked && self.rec.drop_log {
            let flow = self.pool.get(d.pkt).flow;
            self.log_drop(port, flow, "mark");
        }
        let p = &mut self.ports[port as usize];
        if let Some(fb) = p.feedback.as_deref_mut() {
            let left = Occupancy {
                pkts: p.qdisc.len_pkts(),
                bytes: p.qdisc.len_bytes(),
            };
            if fb.at() == MarkPoint::Dequeue && fb.consult(left, self.pool.get(d.pkt)) {
                self.send_return(port, d.pkt);
            }
        }
        self.trace_change(port);
    }

    /// Packet return: a copy of `pkt` (which stays where it is, unmarked)
    /// goes back toward its source, entering the switch as a recirculated
    /// packet would (through its pipeline, if it has one).
    pub(super) fn send_return(&mut self, port: u32, pkt: PktId) {
        let p = &mut self.ports[port as usize];
        let fb = p.feedback.as_deref().expect("a return policy");
        let copy = fb.copy_of(self.pool.get(pkt), self.now.ps());
        p.stats.feedback_sent += 1;
        let node = p.node;
        self.created += 1;
        if self.rec.drop_log {
            self.log_drop(port, copy.flow, "return");
        }
        let id = self.pool.alloc(copy);
        self.ingress_as(node, id, port, true);
    }

    pub(super) fn tx_done(&mut self, port: u32) {
        if self.ports[port as usize].lazy {
            // A lazy port's only event: a TCP sender's NIC wakes a sender
            // TCP small queues hold (`world/tsq_wake.rs`).
            self.tsq_wake(port);
            return;
        }
        let now = self.now;
        if self.cap.on {
            // Before the wire's loss: a tap at the port sees every packet.
            if let Some((pkt, started)) = self.ports[port as usize].tx {
                self.capture_tx(port, pkt, started);
            }
        }
        let p = &mut self.ports[port as usize];
        let (pkt, started) = p.tx.take().expect("TxDone without a packet");
        p.stats.busy += now.since(started);
        let (size, src, flow, proto) = {
            let k = self.pool.get(pkt);
            (k.size_bytes, k.src, k.flow, k.proto)
        };
        p.stats.tx_bytes += size as u64;
        let node = p.node;
        // Held longer than its serialization by a service rate, the packet
        // has been on the wire since its serialization ended.
        let on_wire = if p.service.is_zero() && p.shaper.is_none() {
            now
        } else {
            started + Dur::serialization(size as u64, p.rate_bps)
        };
        if p.plain {
            // No loss, reordering or jitter: the branch below, its draws
            // and tests all skipped.
            let arrival = on_wire + p.delay;
            self.put_on_wire(port, arrival, pkt);
        } else if p.loss > 0.0 && p.loss_rng.chance(p.loss) {
            let gated = p.gate != NO_GATE;
            self.drop(port, pkt, DropReason::LinkLoss, true);
            if gated {
                self.lost_on_gated_wire(port);
            }
        } else if p.reorder > 0.0 && p.reorder_rng.chance(p.reorder) {
            // The slow lane: held back, overtaken by what follows.
            let mut arrival = on_wire + p.delay + p.reorder_delay;
            if let Some(&(last, _)) = p.late_pipe.back() {
                arrival = arrival.max(last);
            }
            p.late_pipe.push_back((arrival, pkt));
            if p.late_pipe.len() == 1 {
                self.events.schedule(arrival, Event::ArriveLate { port });
            }
        } else {
            let mut arrival = on_wire + p.delay;
            if !p.jitter.is_zero() {
                arrival += Dur::from_ps(p.jitter_rng.below(p.jitter.ps() + 1));
                if let Some(last) = p.pipe.back() {
                    arrival = arrival.max(last.at);
                }
            }
            self.put_on_wire(port, arrival, pkt);
        }
        // Start the next transmission before waking the sender, whose new
        // packets must find the port busy. (An empty FIFO has nothing to
        // start: the dequeue would find nothing and drop nothing.)
        if !self.ports[port as usize].fifo_empty() {
            self.start_tx(port);
        }
        // TCP small queues: the sender learns its packet left the NIC.
        if proto == Proto::Tcp && src == node && self.node_kinds[node as usize] == NodeKind::Host {
            if let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind {
                if c.sender.endpoints().src == node {
                    c.sender.on_nic_tx(now, size, &mut self.out);
                    self.flush(flow, node);
                }
            }
        }
    }

    /// The head of a port's slow lane arrives (see `net::port`).
    pub(super) fn arrive_late(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        let (at, pkt) = p
            .late_pipe
            .pop_front()
            .expect("ArriveLate on an empty lane");
        debug_assert_eq!(at, self.now);
        let node = p.peer;
        if let Some(&(next, _)) = p.late_pipe.front() {
            self.events.schedule(next, Event::ArriveLate { port });
        }
        let k = self.pool.get_mut(pkt);
        k.hops = k.hops.saturating_add(1);
        self.receive(node, pkt, port);
    }

    /// `pkt` reaches `node` over `port` (the far end's egress port).
    pub(super) fn receive(&mut self, node: u32, pkt: PktId, port: u32) {
        let dst = self.pool.get(pkt).dst;
        if dst == node {
            return self.receive_local(node, pkt);
        }
        self.ingress(node, pkt, port);
    }

    /// `pkt` reaches its destination, `node`.
    #[inline]
    pub(super) fn receive_local(&mut self, node: u32, pkt: PktId) {
        self.delivered += 1;
        if self.cap.on {
            self.capture_rx(node, pkt);
        }
        self.deliver_local(node, pkt);
    }

    /// A packet to forward enters `node`: through its pipeline if it has
    /// one, else straight to routing. `port` names where it came from, for
    /// the drop log.
    pub(super) fn ingress(&mut self, node: u32, pkt: PktId, port: u32) {
        self.ingress_as(node, pkt, port, false);
    }

    /// [`Self::ingress`]; a returned `copy` takes the pipeline's clone and
    /// recirculation path (`net::pipeline`, two passes, served first).
    #[inline]
    pub(super) fn ingress_as(&mut self, node: u32, pkt: PktId, port: u32, copy: bool) {
        let pi = self.node_pipeline[node as usize];
        if pi == NO_PIPELINE {
            self.forward(node, pkt);
            return;
        }
        self.ingress_pipeline(pkt, port, copy, pi);
    }

    /// [`Self::ingress_as`] at a node with pipeline `pi` (out of line: the
    /// plain node's path above stays small enough to inline).
    #[inline(never)]
    fn ingress_pipeline(&mut self, pkt: PktId, port: u32, copy: bool, pi: u32) {
        let reserved = !copy && self.ports[port as usize].gate == pi;
        let pl = &mut self.pipelines[pi as usize];
        let admit = if copy {
            pl.admit_copy(pkt, self.now)
        } else if reserved {
            pl.admit_reserved(pkt, self.now)
        } else {
            pl.admit(pkt, self.now)
        };
        match admit {
            Admit::Start(done) => {
                self.events
                    .schedule(done, Event::PipelineDone { pipeline: pi });
                if reserved {
                    // Its place, reserved, was not needed: served at once.
                    self.resume_held(pi);
                }
            }
            Admit::Queued => {}
            Admit::Full => {
                let flow = self.pool.get(pkt).flow;
                self.pool.free(pkt);
                self.dropped += 1;
                if self.rec.drop_log {
                    self.log_drop(port, flow, DropReason::Pipeline.name());
                }
            }
        }
    }

    pub(super) fn pipeline_done(&mut self, pi: u32) {
        let pl = &mut self.pipelines[pi as usize];
        let node = pl.node;
        let (pkt, next) = pl.finish(self.now);
        let gate = pl.gate.is_some();
        if let Some(at) = next {
            self.events
                .schedule(at, Event::PipelineDone { pipeline: pi });
        }
        if gate {
            self.resume_held(pi);
        }
        self.forward(node, pkt);
    }

    #[inline]
    pub(super) fn forward(&mut self, node: u32, pkt: PktId) {
        let port = self
            .routes
            .next_port_by(node, self.pool.get(pkt), &mut self.forwarding);
        if port == NO_ROUTE {
            // Validation guarantees routes for every flow; count it anyway.
            self.dropped += 1;
            self.pool.free(pkt);
            return;
        }
        self.admit(port, pkt);
    }

    /// A packet reaches `port`: through its netem stage if it has one
    /// (loss, then the limit over everything the stage holds, then the
    /// delay line; per GSO skb with `unit = "gso"`, `admit_gso`), else
    /// straight into its queue.
    #[inline]
    pub(super) fn admit(&mut self, port: u32, pkt: PktId) {
        if self.ports[port as usize].netem.is_none() {
            return self.enqueue(port, pkt);
        }
        self.admit_netem(port, pkt);
    }

    /// [`Self::admit`] at a port with a netem stage (out of line: the
    /// plain port's path above stays small enough to inline).
    #[inline(never)]
    fn admit_netem(&mut self, port: u32, pkt: PktId) {
        let now = self.now;
        // The limit below counts the queue as it is now.
        self.catch_up(port, now);
        let p = &mut self.ports[port as usize];
        let Some(n) = p.netem.as_mut() else {
            unreachable!("a netem stage")
        };
        if n.gso.is_some() {
            return self.admit_gso(port, pkt);
        }
        if n.loss > 0.0 && n.loss_rng.chance(n.loss) {
            return self.drop(port, pkt, DropReason::LinkLoss, false);
        }
        let held = n.line.len() as u64 + p.qdisc.len_pkts() as u64;
        if n.limit_pkts.is_some_and(|l| held >= l as u64) {
            return self.drop(port, pkt, DropReason::Overflow, false);
        }
        self.netem_delay(port, pkt);
    }

    /// An admitted packet enters `port`'s netem delay line (or its queue,
    /// without delay).
    pub(super) fn netem_delay(&mut self, port: u32, pkt: PktId) {
        let now = self.now;
        let n = self.ports[port as usize]
            .netem
            .as_mut()
            .expect("a netem stage");
        if n.delay.is_zero() {
            return self.enqueue(port, pkt);
        }
        let at = now + n.delay;
        n.line.push_back((at, pkt));
        if n.line.len() == 1 {
            self.events.schedule(at, Event::NetemRelease { port });
        }
    }

    /// The head of a port's netem delay line joins its queue.
    pub(super) fn netem_release(&mut self, port: u32) {
        let n = self.ports[port as usize]
            .netem
            .as_mut()
            .expect("NetemRelease without netem");
        let (at, pkt) = n.line.pop_front().expect("NetemRelease on an empty line");
        debug_assert_eq!(at, self.now);
        if let Some(&(next, _)) = n.line.front() {
            self.events.schedule(next, Event::NetemRelease { port });
        }
        self.enqueue(port, pkt);
    }

    /// Drops `pkt` at `port` for `reason`; `on_wire`: it had left the
    /// port's serializer (its sender learns that through `tx_done`).
    pub(super) fn drop(&mut self, port: u32, pkt: PktId, reason: DropReason, on_wire: bool) {
        let p = self.ports[port as usize]
            .stats
            .drops
            .get_mut(reason as usize)
            .expect("reason index");
        *p += 1;
        if self.pkts.on {
            self.trace_packet(port, pkt, PacketEvent::Drop, reason.name());
        }
        let k = *self.pool.get(pkt);
        if k.skb_head {
            self.skb_left(port, pkt);
        }
        self.pool.free(pkt);
        self.dropped += 1;
        if self.rec.drop_log {
            self.log_drop(port, k.flow, reason.name());
        }
        // A packet lost before it left its own host no longer fills the NIC.
        // (Loss on the wire happens after serialization: `tx_done` tells
        // the sender through `on_nic_tx`, so that one is not counted twice.)
        let node = self.ports[port as usize].node;
        if k.proto == Proto::Tcp && k.src == node && !on_wire {
            if let FlowKind::Tcp(c) = &mut self.flows[k.flow as usize].kind {
                if c.sender.endpoints().src == node {
                    c.sender.on_nic_drop(self.now, k.size_bytes);
                }
            }
        }
    }

    /// Counts and frees the packets a discipline dropped from inside its
    /// queue (CoDel at dequeue, FQ-CoDel's fattest flow on overflow).
    /// Returns true if there was any.
    #[inline]
    pub(super) fn drain_queue_drops(&mut self, port: u32) -> bool {
        let mut any = false;
        while let Some((pkt, reason)) = self.ports[port as usize].qdisc.take_drop() {
            self.drop(port, pkt, reason, false);
            any = true;
        }
        any
    }

    pub(super) fn log_drop(&mut self, port: u32, flow: u32, reason: &'static str) {
        self.rec.x_time.push(self.now.ps());
        self.rec.x_port.push(port);
        self.rec.x_flow.push(flow);
        self.rec.x_reason.push(reason);
    }

    /// Records `port`'s occupancy if it is traced at every change (the
    /// check stays inline; an untraced port costs one branch).
    #[inline]
    pub(super) fn trace_change(&mut self, port: u32) {
        if self.ports[port as usize].trace.is_some() {
            self.record_change(port);
        }
    }

    #[inline(never)]
    pub(super) fn record_change(&mut self, port: u32) {
        let p = &self.ports[port as usize];
        if let Some(tr) = &p.trace {
            if tr.occupancy == Some(Dur::ZERO) && self.now >= tr.from && self.now < tr.to {
                self.rec.q_time.push(self.now.ps());
                self.rec.q_port.push(port);
                self.rec.q_pkts.push(p.qdisc.len_pkts());
                self.rec.q_bytes.push(p.qdisc.len_bytes());
                self.rec.q_congested.push(p.congested());
            }
        }
    }

    pub(super) fn sample_queue(&mut self, port: u32) {
        let p = &self.ports[port as usize];
        let Some(tr) = &p.trace else { return };
        let Some(period) = tr.occupancy else { return };
        if self.now >= tr.to {
            return;
        }
        self.rec.q_time.push(self.now.ps());
        self.rec.q_port.push(port);
        self.rec.q_pkts.push(p.qdisc.len_pkts());
        self.rec.q_bytes.push(p.qdisc.len_bytes());
        self.rec.q_congested.push(p.congested());
        self.events
            .schedule(self.now + period, Event::QueueSample { port });
    }
}
