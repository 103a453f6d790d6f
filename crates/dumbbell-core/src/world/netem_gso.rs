//! The netem stage per GSO skb (`NetemConfig::unit = "gso"`; the model is
//! in `net::netem_gso`): a TCP data segment joins its flow's open skb and
//! shares its fate, or opens one, sized by its sender's TSO autosize, with
//! one loss draw and one limit check over the skbs the stage holds.

use super::*;
use crate::net::netem_gso::SkbFate;

impl World {
    /// `pkt` reaches `port`, whose netem stage counts skbs.
    pub(super) fn admit_gso(&mut self, port: u32, pkt: PktId) {
        let now = self.now;
        let k = self.pool.get(pkt);
        let (flow, seq, len, src) = (k.flow, k.seq, k.payload_bytes, k.src);
        let data = k.proto == Proto::Tcp && len > 0 && !k.retransmit && !k.feedback;
        let g = self.ports[port as usize]
            .netem
            .as_mut()
            .and_then(|n| n.gso.as_mut())
            .expect("a netem stage counting skbs");
        if data {
            if let Some(fate) = g.join(flow, seq, len, now) {
                return self.skb_fate(port, pkt, fate);
            }
        } else {
            // A retransmission or an ACK of the flow travels alone and
            // ends the skb it interrupts.
            g.close(flow);
        }
        let max_bytes = g.max_bytes;
        let segs = if data {
            self.tso_segs(flow, src, max_bytes)
        } else {
            1
        };
        let p = &mut self.ports[port as usize];
        let n = p.netem.as_mut().expect("a netem stage");
        let g = n.gso.as_mut().expect("skb accounting");
        let fate = if n.loss > 0.0 && n.loss_rng.chance(n.loss) {
            SkbFate::Lost
        } else if n.limit_pkts.is_some_and(|l| g.held >= l as u64) {
            SkbFate::Overflow
        } else {
            SkbFate::Admitted
        };
        if data {
            g.open(flow, seq, len, segs, now, fate);
        } else {
            g.skbs += 1;
            g.segments += 1;
        }
        if fate == SkbFate::Admitted {
            g.held += 1;
            self.pool.get_mut(pkt).skb_head = true;
        }
        self.skb_fate(port, pkt, fate)
    }

    fn skb_fate(&mut self, port: u32, pkt: PktId, fate: SkbFate) {
        match fate {
            SkbFate::Admitted => self.netem_delay(port, pkt),
            SkbFate::Lost => self.drop(port, pkt, DropReason::LinkLoss, false),
            SkbFate::Overflow => self.drop(port, pkt, DropReason::Overflow, false),
        }
    }

    /// Segments in the skb the sender of `flow` at node `src` would build
    /// now (one for anything but a TCP sender's data).
    fn tso_segs(&self, flow: u32, src: u32, max_bytes: u32) -> u32 {
        match &self.flows[flow as usize].kind {
            FlowKind::Tcp(c) if c.sender.endpoints().src == src => {
                c.sender.tso_autosize_segs(max_bytes)
            }
            _ => 1,
        }
    }

    /// The first segment of an skb `port`'s netem stage admitted leaves
    /// the port's queue (sent or dropped): the skb is no longer held.
    pub(super) fn skb_left(&mut self, port: u32, pkt: PktId) {
        let k = self.pool.get_mut(pkt);
        if !k.skb_head {
            return;
        }
        k.skb_head = false;
        if let Some(g) = self.ports[port as usize]
            .netem
            .as_mut()
            .and_then(|n| n.gso.as_mut())
        {
            g.held = g.held.saturating_sub(1);
        }
    }
}
