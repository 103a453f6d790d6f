//! Jittered wires without `TxDone` events (issue 29).
//!
//! A wire with per-packet jitter (`LinkConfig::jitter_ps`, a host's
//! scheduling noise) delays each packet by a draw from the port's own
//! stream, uniform in `[0, jitter]`, and never lets it overtake the packet
//! before it. Both depend only on the packets' order on the port and on the
//! end of each one's serialization, which a lazy port knows at the dequeue
//! (`world/departures.rs`): so such a port is lazy too, and draws at the
//! dequeue what the `TxDone` drew at the end of the transmission, for the
//! same packets in the same order. A packet still on the wire when the
//! next one leaves bounds its arrival as before: the packet before it is
//! either still on the wire at the end of the next one's serialization
//! (then it is the wire's last, as it was), or arrived by then, when its
//! arrival is below the next one's anyway.
//!
//! **Ties.** Each departure keeps its `TxDone`'s place among the events at
//! its instant (`Port::keeps_place`, the rule of a TCP sender's NIC,
//! `world/tsq_wake.rs`): the start of a transmission reserves the event's
//! sequence number and a catch-up at the instant the transmission ends
//! makes the departure only from an event scheduled after it. As on the
//! NIC, the packet's arrival at the far end is scheduled at the start, not
//! at the end: at the arrival's instant it runs before the events
//! scheduled during its serialization rather than after them.
//!
//! lossy-cc's scenarios (host jitter of up to 5 µs on every access link)
//! made two such events per data packet on their 10 Gb/s paths: the
//! sender's NIC and the router's port toward the sender, about 1.9 of BBR's
//! 6.6 events per data packet. [`World::keep_jitter_events`] keeps them
//! (`run_json_with_nic_events`, the reference `tests/departures.rs` and
//! `run_json --nic-events` compare with).

use super::*;

impl World {
    /// Whether `port`'s wire differs from a plain one by its jitter alone
    /// (no loss, reordering, service rate or shaper): such a port may be
    /// lazy (`mark_lazy_ports`).
    pub(super) fn jitter_only(p: &Port) -> bool {
        !p.jitter.is_zero()
            && p.loss == 0.0
            && p.reorder == 0.0
            && p.service.is_zero()
            && p.shaper.is_none()
    }

    /// The rest of `depart` on a lazy jittered `port` (`pkt` leaves now,
    /// its serialization ends at `done`): the departure's place among the
    /// events at `done` reserved (a NIC's already is), and the packet on
    /// the wire, arriving when `tx_done` would have drawn it
    /// (`world/ports.rs`): never before the wire's last packet.
    #[inline(never)]
    pub(super) fn depart_jittered(&mut self, port: u32, pkt: PktId, done: Time) {
        let p = &mut self.ports[port as usize];
        if !p.tells_senders {
            p.tx_seq = self.events.reserve_seq();
        }
        let mut arrival = done + p.delay + Dur::from_ps(p.jitter_rng.below(p.jitter.ps() + 1));
        if let Some(&(last, _)) = p.pipe.back() {
            arrival = arrival.max(last);
        }
        p.pipe.push_back((arrival, pkt));
        if p.pipe.len() == 1 {
            self.events.schedule(arrival, Event::Arrive { port });
        }
    }

    /// Every lazy jittered port keeps a `TxDone` event per packet, as
    /// before issue 29's twelfth round (before the run: the reference of
    /// `run_json_with_nic_events`).
    pub(super) fn keep_jitter_events(&mut self) {
        for p in &mut self.ports {
            if p.lazy && !p.plain {
                p.lazy = false;
                p.keeps_place = false;
            }
        }
    }
}
