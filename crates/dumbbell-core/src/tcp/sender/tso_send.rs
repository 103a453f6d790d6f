//! TSO/GSO bursts (`TcpConfig::gso_max_bytes`, off by default), as
//! Linux's `tcp_write_xmit` hands its NIC skbs of several segments
//! (`net/ipv4/tcp_output.c`).
//!
//! With the option on, each transmission is one skb:
//! - its size is Linux's autosize (`tcp_tso_segs`: about 1 ms of the pacing
//!   rate plus the min-RTT bonus, at most `gso_max_bytes`, at least two
//!   segments; [`Sender::tso_segs`]), within the congestion
//!   window's quota (`tcp_cwnd_test`: the room left, and at most half the
//!   window so that two skbs are in flight), the receive window and the
//!   application's data;
//! - its segments leave together at the same instant: the host's NIC
//!   serializes them back to back;
//! - a paced sender's gap after it is its whole payload (`skb->len`) at the rate
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
//! TSO deferral (`tcp_tso_should_defer`'s main rule,
//! [`Sender::tso_should_defer`]): new data waits for room for a bigger skb
//! while an ACK is near, for paced and unpaced senders alike; an unpaced
//! sender's skbs are otherwise its segments sent back to back, as before.
//!
//! A control may size its own skbs, as Linux's `tso_segs` and
//! `min_tso_segs` hooks of `tcp_congestion_ops` do
//! ([`CongestionControl::tso_segs`]: TCP Prague's ~0.25 ms of its pacing
//! rate, BBRv3's own goal; [`CongestionControl::min_tso_segs`]: BBR's one
//! segment below 1.2 Mb/s).
//!
//! With `TcpConfig::gro` the segments of an skb but its last carry
//! `skb_more`, for a receiver that takes skbs whole (`tcp/receiver/gro.rs`).
//!
//! Not modelled: TSQ's floor of two skbs' `truesize`.

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
    /// Nothing now: TSO deferral waits for a bigger skb
    /// ([`Sender::tso_should_defer`]); `cwnd_limited`: the congestion
    /// window is what holds it (Linux's `is_cwnd_limited`).
    Deferred { cwnd_limited: bool },
}

impl Sender {
    /// The sender builds skbs of several segments: the option is on.
    #[inline]
    pub(super) fn tso_bursts(&self) -> bool {
        self.cfg.gso_max_bytes != 0
    }

    /// Sends one skb (retransmissions first when `retransmit`), then sets
    /// the earliest departure of the next one from its whole payload.
    /// Called by `send` once the pacing clock, TSQ and the congestion
    /// window allow a transmission (some room in cwnd).
    pub(super) fn send_skb(&mut self, now: Time, out: &mut Out, retransmit: bool) -> Skb {
        let cwnd = self.tp.snd_cwnd;
        let room = cwnd.saturating_sub(self.tp.in_flight());
        let max_segs = self.tso_segs(self.cfg.gso_max_bytes);
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
            if let Some(cwnd_limited) = self.tso_should_defer(now, max_segs) {
                return Skb::Deferred { cwnd_limited };
            }
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
        self.mark_skb(out, segs);
        kind
    }

    /// With `TcpConfig::gro` on, every segment of the skb just written
    /// (the last `segs` packets of `out`) but its last says more of the
    /// skb follow ([`Packet::skb_more`]), so a receiver taking skbs whole
    /// knows where each ends (`tcp/receiver/gro.rs`). Off, nothing is
    /// written.
    #[inline]
    fn mark_skb(&self, out: &mut Out, segs: u32) {
        if self.cfg.gro && segs > 1 {
            let end = out.pkts.len();
            for p in &mut out.pkts[end - segs as usize..end - 1] {
                p.skb_more = true;
            }
        }
    }

    /// Linux `tcp_tso_should_defer`'s main rule: new data waits for a
    /// bigger skb (an ACK is near; it will send) while, outside Recovery
    /// and Loss, the window (congestion and receive) has room for neither a
    /// whole skb of `max_segs` nor a third of itself (`tcp_tso_win_divisor`
    /// 3), the last transmission is under 1 ms old (the earliest departure
    /// time of a paced sender, the last send of another), and the oldest
    /// unacknowledged segment's ACK is due within min(half an SRTT, 1 ms).
    /// Never for
    /// the application's last segment or its FIN. Asked only with the
    /// option on and some room in the congestion window. `Some`: wait,
    /// with `true` when the congestion window (not the receive window) is
    /// what holds the skb.
    pub(super) fn tso_should_defer(&self, now: Time, max_segs: u32) -> Option<bool> {
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return None;
        }
        let last = self.tp.wstamp.max(self.tp.lsndtime);
        if now.saturating_since(last) > Dur::from_ms(1) {
            return None;
        }
        let mss = self.cfg.mss_bytes as u64;
        let cwnd = self.tp.snd_cwnd as u64;
        let cong_win = cwnd.saturating_sub(self.tp.in_flight() as u64) * mss;
        let send_win = (self.tp.snd_una + self.rwnd).saturating_sub(self.tp.snd_nxt);
        let full = max_segs as u64 * mss;
        let limit = cong_win.min(send_win);
        if limit >= full || limit >= self.rwnd.min(cwnd * mss) / 3 {
            return None;
        }
        // The rest of the application's data fits (its last skb, with the
        // FIN if it closes): nothing more would join the skb.
        let app = self.app_bytes_left(now);
        if app <= limit.max(mss) {
            return None;
        }
        // The oldest segment's ACK, expected an SRTT after it left, is more
        // than min(half an SRTT, 1 ms) away: sending now keeps the ACK
        // clock smooth (Linux since October 2025, "tcp: fix
        // tcp_tso_should_defer() vs large RTT", in the stable kernels;
        // before, half an SRTT alone).
        let head = self.segs.front()?;
        let how_far = (head.sent + self.tp.srtt).saturating_since(now);
        if how_far > self.tp.srtt.div(2).min(Dur::from_ms(1)) {
            return None;
        }
        Some(cong_win < send_win && cong_win <= app.min(full))
    }
}
