//! TSO/GSO bursts of a paced sender (`TcpConfig::gso_max_bytes`, off by
//! default), as Linux's `tcp_write_xmit` hands its NIC skbs of several
//! segments (`net/ipv4/tcp_output.c`).
//!
//! With the option on, each transmission of a paced sender is one skb:
//! - its size is Linux's autosize (`tcp_tso_segs`: about 1 ms of the pacing
//!   rate plus the min-RTT bonus, at most `gso_max_bytes`, at least two
//!   segments; [`Sender::tso_autosize_segs`]), within the congestion
//!   window's quota (`tcp_cwnd_test`: the room left, and at most half the
//!   window so that two skbs are in flight), the receive window and the
//!   application's data;
//! - its segments leave together at the same instant: the host's NIC
//!   serializes them back to back;
//! - the pacing gap after it is its whole payload (`skb->len`) at the rate
//!   (`tcp_update_skb_after_send`), with the rules of
//!   [`Sender::schedule_next_departure`] (the first 10 segments unpaced,
//!   up to half the gap forgiven when the skb left late);
//! - TCP small queues are asked before each skb, in bytes, as before.
//!
//! Retransmissions (`tcp_xmit_retransmit_queue`, `tcp_retransmit_skb`):
//! one skb carries consecutive lost segments, as many as the congestion
//! window's room and the autosize allow. Linux retransmits each lost skb
//! of its retransmission queue as it was sent (split where SACKs cut it);
//! the scoreboard here keeps segments, not the skbs they left in, so a run
//! of lost segments spanning two original skbs goes as one.
//!
//! Not modelled: `tcp_tso_should_defer` (an unpaced sender is unchanged by
//! the option: its segments already leave back to back), a control's own
//! `min_tso_segs` (BBR's one segment below 1.2 Mb/s), TSQ's floor of two
//! skbs' `truesize`.

use super::*;

/// What one skb carried, for [`Sender::send`]'s loop.
pub(super) enum Skb {
    /// Retransmitted segments.
    Retransmit,
    /// New data; `last`: the receive window or the application's data ran
    /// out while it was built, so nothing more is sent now.
    New { last: bool },
    /// Nothing: no new data may be sent (receive window, application).
    Nothing,
}

impl Sender {
    /// The sender builds skbs of several segments: the option is on and
    /// the sender paces.
    #[inline]
    pub(super) fn tso_bursts(&self) -> bool {
        self.cfg.gso_max_bytes != 0 && self.pacing_rate_bps().is_some()
    }

    /// Sends one skb (retransmissions first when `retransmit`), then sets
    /// the earliest departure of the next one from its whole payload.
    /// Called by `send` once the pacing clock, TSQ and the congestion
    /// window allow a transmission (some room in cwnd).
    pub(super) fn send_skb(&mut self, now: Time, out: &mut Out, retransmit: bool) -> Skb {
        let cwnd = self.tp.snd_cwnd;
        let room = cwnd.saturating_sub(self.tp.in_flight());
        let max_segs = self.tso_autosize_segs(self.cfg.gso_max_bytes);
        let header = self.cfg.header_bytes;
        // Each segment's `transmit` steps the pacing clock; the skb's
        // single step replaces theirs.
        let prior = self.tp.wstamp;
        let (mut payload, mut segs) = (0u32, 0u32);
        let first_lost = if retransmit {
            self.next_retransmit()
        } else {
            None
        };
        let kind = if let Some(mut i) = first_lost {
            // Linux tcp_xmit_retransmit_queue: up to the window's room and
            // the autosize per skb.
            let limit = room.min(max_segs);
            loop {
                self.event_data_sent();
                payload += self.segs[i].len;
                self.retransmit(now, i, out);
                segs += 1;
                if segs >= limit {
                    break;
                }
                match self.next_retransmit() {
                    Some(j) if j == i + 1 => i = j,
                    _ => break,
                }
            }
            Skb::Retransmit
        } else {
            // Linux tcp_cwnd_test: at most half the window per skb.
            let limit = room.min((cwnd >> 1).max(1)).min(max_segs);
            let mut last = false;
            while segs < limit {
                match self.new_data_len(now) {
                    Some(len) => {
                        self.event_data_sent();
                        self.push_new_segment(now, len, out);
                        payload += len;
                        segs += 1;
                    }
                    None => {
                        // Blocked by the receive window or out of
                        // application data; only the latter may mark the
                        // flow app-limited.
                        self.check_app_limited(now);
                        last = true;
                        break;
                    }
                }
            }
            if segs == 0 {
                return Skb::Nothing;
            }
            Skb::New { last }
        };
        self.tp.wstamp = prior;
        self.schedule_next_departure(now, payload, payload + segs * header);
        kind
    }
}
