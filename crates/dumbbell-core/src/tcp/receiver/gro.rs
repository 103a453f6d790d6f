//! A receiver that takes each of the sender's TSO skbs whole
//! (`TcpConfig::gro`, off by default), as Linux's TCP sees them behind GRO
//! (`tcp_gro_receive`, `inet_gro_receive`) or as a virtio guest that
//! negotiated guest TSO receives its peer's GSO packets: one skb of several
//! segments, acknowledged by `__tcp_ack_snd_check`'s rules for that skb
//! (more than one full frame unacknowledged, quick-ACK, out of order), so
//! one ACK per skb where a receiver of single segments ACKs every second.
//!
//! The merge: a data segment whose skb has more segments to come
//! ([`Packet::skb_more`], set by a sender with TSO bursts,
//! `tcp/sender/tso_send.rs`) is taken (reassembly, SACK, ECN state as for
//! any segment) but its ACK decision waits: no ACK for "more than one MSS
//! unacknowledged", none for quick-ACK, none for arriving out of order.
//! The next segment joins the merge when it starts where the last one
//! ended and carries the same ECN field. The merge ends
//! - at the skb's last segment: the decision is made once for all of it
//!   (an ACK when any of its segments asked for one, else the delayed-ACK
//!   timer);
//! - before a segment that cannot join (a hole, a retransmission or
//!   duplicate, a segment of another skb after the last one was lost, a
//!   change of the ECN field: CE on one and not the other): the held
//!   segments are acknowledged as one skb, and that segment, as Linux's
//!   GRO passes a segment that flushed the held skb, is taken alone, with
//!   the usual rules (a hole or a duplicate ACKed at once, as before);
//! - at a FIN (Linux's GRO flushes on FIN and PSH), which is its skb's
//!   last segment anyway.
//!
//! A merge whose skb lost its tail stays held until the next arrival ends
//! it, or until the delayed-ACK timer, armed by every held segment, fires
//! (then also for held out-of-order segments, whose SACK blocks are owed).
//! Not modelled: NAPI's polls (Linux flushes every held skb at the end of
//! a poll, microseconds after the last segment, not a delayed-ACK timeout
//! later), interrupt moderation, GRO across the sender's skbs (a NIC merges
//! back-to-back segments of two skbs too), segments above a hole merging
//! beyond their own skb.

use super::Receiver;
use crate::net::packet::{flags, Ecn, Packet};
use crate::sim::Time;
use crate::tcp::Out;

/// The merge a receiver with `gro` holds.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Gro {
    /// The option is on.
    pub on: bool,
    /// Segments are held: their ACK decision waits for the skb's end.
    open: bool,
    /// Where the next segment of the merge starts.
    next: u64,
    /// The ECN field of the merge's segments.
    ecn: Ecn,
    /// One of the held segments asked for an ACK at once.
    ack: bool,
    /// `acks_sent` when the last segment was held: an ACK sent since (the
    /// delayed-ACK timer's) covered the held segments.
    acks_mark: u64,
}

impl Gro {
    pub(super) fn new(on: bool) -> Self {
        Gro {
            on,
            ..Gro::default()
        }
    }

    /// Segments are held.
    #[inline]
    pub(super) fn is_open(&self) -> bool {
        self.open
    }
}

impl Receiver {
    /// Before a data segment is taken, while a merge is held: `p` joins
    /// it, or the merge ends here and the held segments are acknowledged
    /// as one skb when they asked for it. True: `p` ended the merge and is
    /// taken alone.
    #[inline]
    pub(super) fn gro_before(&mut self, now: Time, p: &Packet, out: &mut Out) -> bool {
        if p.seq == self.gro.next && p.ecn == self.gro.ecn {
            return false;
        }
        let owed = self.gro_owes_ack();
        self.gro.open = false;
        if owed {
            self.send_ack(now, out);
        }
        true
    }

    /// After a data segment was taken, with the option on: whether to ACK
    /// now, given `ack`, the decision for this segment alone. A segment
    /// with more of its skb to come (and not `alone`, see
    /// [`Self::gro_before`]) is held: false, and the delayed-ACK timer
    /// runs. At the skb's last segment, true when it or any held segment
    /// asked.
    #[inline]
    pub(super) fn gro_after(&mut self, p: &Packet, end: u64, ack: bool, alone: bool) -> bool {
        if p.skb_more && !alone && !p.has(flags::FIN) {
            if !self.gro.open {
                self.gro.open = true;
                self.gro.ecn = p.ecn;
                self.gro.ack = false;
            }
            self.gro.next = end;
            self.gro.ack |= ack;
            self.gro.acks_mark = self.acks_sent;
            return false;
        }
        let owed = self.gro_owes_ack();
        self.gro.open = false;
        ack || owed
    }

    /// A merge is held whose segments asked for an ACK that none has sent
    /// yet: out-of-order segments' SACK blocks, or more than an MSS.
    #[inline]
    pub(super) fn gro_owes_ack(&self) -> bool {
        self.gro.open && self.gro.ack && self.acks_sent == self.gro.acks_mark
    }
}
