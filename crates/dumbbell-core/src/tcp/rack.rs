//! RACK's state: what the most recently sent delivered segment says about
//! the segments sent before it (RFC 8985 §6; Linux `tcp_recovery.c`).
//!
//! A segment is lost when a segment sent after it has been delivered and it
//! has waited longer than that segment's round trip plus a reordering
//! window. Time, not a count of SACKed segments, decides; so RACK finds lost
//! retransmissions and tail losses (after a probe) by the same rule.
//!
//! This file holds the per-connection state and the decisions that do not
//! need the scoreboard: which delivery moves RACK forward
//! ([`Rack::advance`]), how wide the reordering window is
//! ([`Rack::reo_wnd`]) and how DSACKs widen it ([`Rack::update_reo_wnd`]).
//! The walk over the outstanding segments is the sender's
//! (`Sender::rack_detect_loss`), since the scoreboard lives there.

use crate::sim::{Dur, Time};

/// RFC 8985 §6.2: the reordering window persists for this many recoveries
/// after a DSACK widened it (Linux `TCP_RACK_RECOVERY_THRESH`).
pub const RECOVERY_THRESH: u32 = 16;

/// Largest multiple of min_rtt/4 the window grows to (Linux: 0xFF).
const MAX_STEPS: u32 = 0xFF;

#[derive(Clone, Debug)]
pub struct Rack {
    /// Send time and end sequence of the most recently sent segment
    /// delivered so far (RACK.xmit_ts, RACK.end_seq).
    pub xmit: Time,
    pub end_seq: u64,
    /// Round trip of the most recently delivered segment (RACK.rtt).
    pub rtt: Dur,
    /// A delivery moved RACK since the last loss detection (Linux
    /// `rack.advanced`): detection runs only then, or on its timer.
    pub advanced: bool,
    /// Reordering was observed on this connection (Linux `reord_seen`);
    /// until then the window is zero in recovery and after DupThresh SACKs.
    pub reord_seen: bool,
    /// The window in units of min_rtt/4 (RACK.reo_wnd_mult).
    pub reo_wnd_steps: u32,
    /// Recoveries left before the window shrinks back to one step.
    pub reo_wnd_persist: u32,
    /// A DSACK arrived since the window was last widened.
    pub dsack_seen: bool,
    /// `delivered` when the window was last widened (once per round trip).
    pub last_delivered: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit: Time::ZERO,
            end_seq: 0,
            rtt: Dur::ZERO,
            advanced: false,
            reord_seen: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_delivered: 0,
        }
    }
}

impl Rack {
    /// Segment (t1, s1) was sent after (t2, s2): later, or at the same time
    /// with a higher sequence (Linux `tcp_rack_sent_after`).
    #[inline]
    pub fn sent_after(t1: Time, s1: u64, t2: Time, s2: u64) -> bool {
        t1 > t2 || (t1 == t2 && s1 > s2)
    }

    /// A segment sent at `sent` and ending at `end_seq` was newly delivered
    /// at `now` (RFC 8985 §6.2 step 2, Linux `tcp_rack_advance`). A
    /// retransmission delivered sooner than the min RTT after it was sent
    /// was more likely the original arriving: it does not count.
    pub fn advance(&mut self, now: Time, sent: Time, end_seq: u64, retrans: bool, min_rtt: Dur) {
        let rtt = now.saturating_since(sent);
        if retrans && rtt < min_rtt {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        if Self::sent_after(sent, end_seq, self.xmit, self.end_seq) {
            self.xmit = sent;
            self.end_seq = end_seq;
        }
    }

    /// The reordering window (RFC 8985 §6.2 step 4, Linux
    /// `tcp_rack_reo_wnd`): min_rtt/4 per step, at most SRTT; zero while no
    /// reordering has been seen and the sender is in recovery or has
    /// `reordering` segments SACKed (DupThresh's behaviour).
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_out: u32,
        reordering: u32,
        min_rtt: Dur,
        srtt: Dur,
    ) -> Dur {
        if !self.reord_seen && (in_recovery || sacked_out >= reordering) {
            return Dur::ZERO;
        }
        if min_rtt == Dur::MAX {
            return Dur::ZERO;
        }
        Dur::from_ps((min_rtt.ps() / 4).saturating_mul(self.reo_wnd_steps as u64)).min(srtt)
    }

    /// After each ACK: widen the window by one step, at most once per round
    /// trip, when a DSACK came (a retransmission was spurious, so reordering
    /// outlasted the window); otherwise fall back to one step once the
    /// widening has persisted for [`RECOVERY_THRESH`] recoveries (RFC 8985
    /// §6.2 step 4, Linux `tcp_rack_update_reo_wnd`). `prior_delivered` is
    /// the rate sample's (0: no sample).
    pub fn update_reo_wnd(&mut self, prior_delivered: u64, delivered: u64) {
        if prior_delivered == 0 {
            return;
        }
        if prior_delivered < self.last_delivered {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(MAX_STEPS);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::ZERO + Dur::from_ms(x)
    }

    #[test]
    fn advance_keeps_the_most_recently_sent_and_ignores_early_retransmissions() {
        let mut r = Rack::default();
        r.advance(ms(100), ms(50), 10, false, Dur::from_ms(40));
        assert_eq!((r.xmit, r.end_seq, r.rtt), (ms(50), 10, Dur::from_ms(50)));
        // Sent earlier: the RTT is updated, the newest stays.
        r.advance(ms(101), ms(40), 5, false, Dur::from_ms(40));
        assert_eq!((r.xmit, r.end_seq, r.rtt), (ms(50), 10, Dur::from_ms(61)));
        // Same send time, higher sequence: newer.
        r.advance(ms(102), ms(50), 20, false, Dur::from_ms(40));
        assert_eq!(r.end_seq, 20);
        // A retransmission acked 10 ms after it left (< min RTT 40 ms): the
        // original's ACK, most likely; nothing moves.
        r.advanced = false;
        r.advance(ms(110), ms(100), 30, true, Dur::from_ms(40));
        assert!(!r.advanced);
        assert_eq!(r.end_seq, 20);
    }

    #[test]
    fn reo_wnd_is_zero_until_reordering_is_seen_in_recovery_or_after_dupthresh() {
        let mut r = Rack::default();
        let (min_rtt, srtt) = (Dur::from_ms(40), Dur::from_ms(50));
        assert_eq!(r.reo_wnd(false, 2, 3, min_rtt, srtt), Dur::from_ms(10));
        assert_eq!(r.reo_wnd(false, 3, 3, min_rtt, srtt), Dur::ZERO);
        assert_eq!(r.reo_wnd(true, 0, 3, min_rtt, srtt), Dur::ZERO);
        r.reord_seen = true;
        assert_eq!(r.reo_wnd(true, 9, 3, min_rtt, srtt), Dur::from_ms(10));
        // Steps widen it up to SRTT.
        r.reo_wnd_steps = 3;
        assert_eq!(r.reo_wnd(true, 9, 3, min_rtt, srtt), Dur::from_ms(30));
        r.reo_wnd_steps = 9;
        assert_eq!(r.reo_wnd(true, 9, 3, min_rtt, srtt), srtt);
    }

    #[test]
    fn dsack_widens_once_per_round_and_persists_for_sixteen_recoveries() {
        let mut r = Rack {
            dsack_seen: true,
            ..Default::default()
        };
        r.update_reo_wnd(100, 120);
        assert_eq!((r.reo_wnd_steps, r.reo_wnd_persist), (2, RECOVERY_THRESH));
        // A DSACK for data sent before the widening (prior_delivered < 120)
        // is the same episode: no second step.
        r.dsack_seen = true;
        r.update_reo_wnd(110, 130);
        assert_eq!(r.reo_wnd_steps, 2);
        r.dsack_seen = true;
        r.update_reo_wnd(125, 150);
        assert_eq!(r.reo_wnd_steps, 3);
        // While persisting, no reset; once spent, back to one step.
        r.update_reo_wnd(160, 170);
        assert_eq!(r.reo_wnd_steps, 3);
        r.reo_wnd_persist = 0;
        r.update_reo_wnd(180, 190);
        assert_eq!(r.reo_wnd_steps, 1);
    }
}
