//! A netem stage that counts GSO/GRO skbs, not packets
//! (`NetemConfig::unit = "gso"`).
//!
//! On a Linux host with TSO/GSO on (the default, and on virtio NICs), TCP
//! hands the qdisc one skb for a run of consecutive segments, sized by
//! `tcp_tso_autosize` (`net/ipv4/tcp_output.c`): about 1 ms of the pacing
//! rate (`sk_pacing_rate >> sk_pacing_shift`, shift 10), plus the whole
//! `gso_max_size` when the minimum RTT is short (`gso_max_size >>
//! (min_rtt_us >> tcp_tso_rtt_log)`, log 9: all of it below 512 µs, half
//! below 1024 µs, ...), at most `gso_max_size` and at least
//! `tcp_min_tso_segs` (2) segments. Between virtual machines bridged on one
//! host the skb crosses the bridge whole, so a router VM's `sch_netem` sees
//! it as one packet: its `limit` counts skbs (`sch->q.qlen`) and its loss
//! drops the whole skb (`netem_enqueue` draws once per skb).
//!
//! Here the sender's segments travel one by one, so the stage groups them
//! back: a TCP data segment opens an skb, and the segments of the same flow
//! that follow it in sequence join it while it has room (the sender's
//! autosize, read from the sender when the skb opens:
//! `Sender::tso_autosize_segs`) and while they arrive within
//! [`SKB_SPAN_PS`] of its first segment. A retransmission, an ACK, a UDP
//! packet or a segment out of sequence is an skb of its own. The fate of an
//! skb is decided when it opens (one loss draw, one limit check) and shared
//! by every segment that joins it. It is held from its first segment's
//! admission until that segment leaves the port's queue (a qdisc dequeues a
//! GSO skb whole) or is dropped there; the port's own queue still counts
//! packets.
//!
//! Not modelled: GRO at the router merging separate skbs into bigger ones,
//! and TSO deferral's finer rules (`tcp_tso_should_defer`), whose horizon
//! [`SKB_SPAN_PS`] stands for.

use crate::sim::time::Time;

/// Longest time from an skb's first segment to its last: Linux's TSO
/// deferral waits at most about 1 ms to fill an skb
/// (`tcp_tso_should_defer`: no deferral once the last write is 1 ms old,
/// nor when the next ACK is due later than min(1 ms, srtt/2)).
pub const SKB_SPAN_PS: u64 = 1_000_000_000;

/// The skb a flow's segments are joining at this stage.
#[derive(Clone, Copy, Debug)]
pub struct OpenSkb {
    /// Sequence number the next segment must start at to join.
    pub next_seq: u64,
    /// Segments still allowed in.
    pub room_segs: u32,
    /// When its first segment arrived.
    pub opened: Time,
    /// Its fate, every segment's.
    pub fate: SkbFate,
}

/// What the stage decided for an skb when it opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkbFate {
    Admitted,
    /// netem's random loss.
    Lost,
    /// netem's limit was reached.
    Overflow,
}

/// Per-stage state of skb accounting: the open skb of each flow (indexed
/// by flow, allocated when the world is built) and the skbs held.
#[derive(Debug)]
pub struct GsoSkbs {
    /// Largest skb payload, bytes (`gso_max_size`).
    pub max_bytes: u32,
    /// Skbs in the delay line and the queue (what the limit counts).
    pub held: u64,
    pub open: Vec<Option<OpenSkb>>,
    /// Skbs opened, and segments that joined one (for tests and tables).
    pub skbs: u64,
    pub segments: u64,
}

impl GsoSkbs {
    pub fn new(max_bytes: u32, flows: usize) -> Self {
        GsoSkbs {
            max_bytes,
            held: 0,
            open: vec![None; flows],
            skbs: 0,
            segments: 0,
        }
    }

    /// The fate of the segment `[seq, seq + len)` of `flow` arriving at
    /// `now`, if it joins that flow's open skb (which it then extends);
    /// `None`: it opens an skb of its own.
    #[inline]
    pub fn join(&mut self, flow: u32, seq: u64, len: u32, now: Time) -> Option<SkbFate> {
        let slot = self.open.get_mut(flow as usize)?;
        let o = slot.as_mut()?;
        if o.room_segs == 0
            || o.next_seq != seq
            || now.saturating_since(o.opened).ps() > SKB_SPAN_PS
        {
            *slot = None;
            return None;
        }
        o.room_segs -= 1;
        o.next_seq = seq + len as u64;
        self.segments += 1;
        Some(o.fate)
    }

    /// Opens an skb of `segs` segments for `flow` starting with the segment
    /// `[seq, seq + len)`, with its `fate`; `segs` is at least 1.
    pub fn open(&mut self, flow: u32, seq: u64, len: u32, segs: u32, now: Time, fate: SkbFate) {
        self.skbs += 1;
        self.segments += 1;
        let i = flow as usize;
        if i >= self.open.len() {
            // Once per flow (a connection started by a task, unknown at build).
            self.open.resize(i + 1, None);
        }
        self.open[i] = Some(OpenSkb {
            next_seq: seq + len as u64,
            room_segs: segs.saturating_sub(1),
            opened: now,
            fate,
        });
    }

    /// Closes `flow`'s open skb (a packet of it that cannot join).
    pub fn close(&mut self, flow: u32) {
        if let Some(slot) = self.open.get_mut(flow as usize) {
            *slot = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_join_in_sequence_while_there_is_room() {
        let mut g = GsoSkbs::new(65_536, 2);
        let t = Time::ZERO;
        assert_eq!(g.join(0, 0, 1448, t), None);
        g.open(0, 0, 1448, 3, t, SkbFate::Admitted);
        assert_eq!(g.join(0, 1448, 1448, t), Some(SkbFate::Admitted));
        // Out of sequence: closes the skb.
        assert_eq!(g.join(0, 9999, 1448, t), None);
        g.open(0, 9999, 1448, 2, t, SkbFate::Lost);
        assert_eq!(g.join(0, 9999 + 1448, 1448, t), Some(SkbFate::Lost));
        // Full: the next segment opens a new skb.
        assert_eq!(g.join(0, 9999 + 2896, 1448, t), None);
        // Another flow has its own skb.
        assert_eq!(g.join(1, 0, 1448, t), None);
        assert_eq!((g.skbs, g.segments), (2, 4));
    }

    #[test]
    fn a_late_segment_opens_a_new_skb() {
        let mut g = GsoSkbs::new(65_536, 1);
        g.open(0, 0, 1448, 45, Time::ZERO, SkbFate::Admitted);
        let late = Time::from_ps(SKB_SPAN_PS + 1);
        assert_eq!(g.join(0, 1448, 1448, late), None);
    }
}
