//! The tails of RACK's two walks (`Sender::rack_detect_loss`), found
//! without walking them.
//!
//! Each walk visits its segments in the order they were sent:
//! never-retransmitted segments in `segs` (sequence order is send order),
//! retransmissions in `retx_queue` (pushed as they leave). So once a walk
//! meets a segment still waiting out RACK's window, every later segment
//! it would visit was sent no earlier, has waited no longer, and is not
//! lost either: the walk marks nothing more, and of the waits left the
//! longest is the last visited segment's (the most recently sent one
//! before the walk's end, the first segment sent after RACK's). These
//! functions find that segment directly, where the walk passed over every
//! segment delivered in between: on E3's lossy 10 Gb/s paths about 80
//! SACKed segments per ACK (Fractional, 10 % loss, 0.5 ms base RTT) and 40
//! delivered retransmissions (BBR, the same path).
//!
//! The result is the walk's, to the picosecond: with debug assertions on,
//! every call checks it against the walk itself (`*_walked`).

use super::*;

impl Sender {
    /// The longest wait left among the never-retransmitted segments after
    /// the waiting one at `w` (zero if none waits).
    ///
    /// When RACK's segment is an original still in the scoreboard (slot
    /// `r`), the walk ends at the first unsettled segment from `r` on
    /// (sent no earlier than it, with a higher sequence) and continues
    /// through every unsettled one below `r` (sent no later, with a lower
    /// sequence): the one sought is the last unsettled segment below `r`,
    /// found searching down from `r`. Otherwise (RACK's segment a
    /// retransmission, or already cumulatively acked), a binary search of
    /// the originals' send times finds where the walk ends
    /// ([`Self::rack_segs_end`]), and the search down starts there.
    pub(super) fn rack_segs_tail(&self, w: usize, now: Time, limit: Dur) -> Dur {
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let original_at = (re > self.tp.snd_una)
            .then(|| self.seg_index(re - 1))
            .filter(|&r| {
                self.segs
                    .get(r)
                    .is_some_and(|s| s.end() == re && s.sent == rx && s.bits & EVER_RETRANS == 0)
            });
        let (end, last) = match original_at {
            Some(r) if r > w => (r, None),
            _ => self.rack_segs_end(w),
        };
        let last = last.or_else(|| {
            let mut j = end;
            while j > w + 1 {
                j -= 1;
                if self.segs[j].bits & (SACKED | LOST | EVER_RETRANS) == 0 {
                    return Some(j);
                }
            }
            None
        });
        let wait = last.map_or(Dur::ZERO, |j| {
            limit - now.saturating_since(self.segs[j].sent)
        });
        debug_assert_eq!(wait, self.rack_segs_tail_walked(w, now, limit));
        wait
    }

    /// Where the walk after `w` would look no further, for any RACK
    /// segment: the first original (never retransmitted) sent at or after
    /// RACK's time, by a binary search over the originals (their send
    /// times rise with their slots; a probe that lands on a retransmitted
    /// slot moves up to the next original). Returns that slot, and the
    /// last unsettled original sent at RACK's very time with a lower
    /// sequence than RACK's segment, if any (the sequence decides those,
    /// as the walk does).
    fn rack_segs_end(&self, w: usize) -> (usize, Option<usize>) {
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let n = self.segs.len();
        let (mut lo, mut hi, mut end) = (w + 1, n, n);
        while lo < hi {
            let m = lo + (hi - lo) / 2;
            let mut j = m;
            while j < hi && self.segs[j].bits & EVER_RETRANS != 0 {
                j += 1;
            }
            if j < hi && self.segs[j].sent < rx {
                lo = j + 1;
            } else {
                if j < hi {
                    end = j;
                }
                hi = m;
            }
        }
        // Originals sent at RACK's very time: in order, up to the first
        // sent after RACK's segment.
        let mut last = None;
        let mut j = end;
        while j < n {
            let s = &self.segs[j];
            if s.bits & EVER_RETRANS == 0 {
                if s.sent != rx {
                    break;
                }
                if s.bits & (SACKED | LOST) == 0 {
                    if !Rack::sent_after(rx, re, s.sent, s.end()) {
                        break;
                    }
                    last = Some(j);
                }
            }
            j += 1;
        }
        (end, last)
    }

    /// [`Self::rack_segs_tail`] by walking, as `rack_detect_loss` did.
    fn rack_segs_tail_walked(&self, w: usize, now: Time, limit: Dur) -> Dur {
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let mut wait = Dur::ZERO;
        for i in w + 1..self.segs.len() {
            let seg = &self.segs[i];
            if seg.bits & (SACKED | LOST | EVER_RETRANS) != 0 {
                continue;
            }
            if !Rack::sent_after(rx, re, seg.sent, seg.end()) {
                break;
            }
            let waited = now.saturating_since(seg.sent);
            debug_assert!(waited < limit, "sent in order: none after `w` is lost");
            wait = wait.max(limit - waited);
        }
        wait
    }

    /// The slot of the retransmission `(seq, sent)` of `retx_queue`, if it
    /// is still outstanding (not delivered, found lost or sent again).
    #[inline]
    pub(super) fn retx_live(&self, seq: u64, sent: Time) -> Option<usize> {
        if seq < self.tp.snd_una {
            return None;
        }
        let idx = self.seg_index(seq);
        let s = &self.segs[idx];
        (s.bits & RETRANS != 0 && s.sent == sent).then_some(idx)
    }

    /// The longest wait left among the retransmissions after the waiting
    /// one at `k` of `retx_queue` (zero if none waits).
    ///
    /// The walk continues through every outstanding one sent before RACK's
    /// segment and ends at the first sent after it. The queue is in send
    /// order: a binary search finds where the send times reach RACK's, the
    /// ones sent at that very time are taken in order (the sequence then
    /// decides), and below them the last outstanding one is found
    /// searching down.
    pub(super) fn rack_retx_tail(&self, k: usize, now: Time, limit: Dur) -> Dur {
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let q = &self.retx_queue;
        let p = q.partition_point(|&(_, sent)| sent < rx).max(k + 1);
        // Sent at RACK's time: in order, up to the first sent after it.
        let mut last = None;
        let mut j = p;
        while j < q.len() && q[j].1 == rx {
            let (seq, sent) = q[j];
            if let Some(idx) = self.retx_live(seq, sent) {
                if !Rack::sent_after(rx, re, sent, self.segs[idx].end()) {
                    break;
                }
                last = Some(sent);
            }
            j += 1;
        }
        if last.is_none() {
            let mut j = p;
            while j > k + 1 {
                j -= 1;
                let (seq, sent) = q[j];
                if self.retx_live(seq, sent).is_some() {
                    last = Some(sent);
                    break;
                }
            }
        }
        let wait = last.map_or(Dur::ZERO, |sent| limit - now.saturating_since(sent));
        debug_assert_eq!(wait, self.rack_retx_tail_walked(k, now, limit));
        wait
    }

    /// [`Self::rack_retx_tail`] by walking, as `rack_detect_loss` did.
    fn rack_retx_tail_walked(&self, k: usize, now: Time, limit: Dur) -> Dur {
        let (rx, re) = (self.rack.xmit, self.rack.end_seq);
        let mut wait = Dur::ZERO;
        for &(seq, sent) in self.retx_queue.iter().skip(k + 1) {
            let Some(idx) = self.retx_live(seq, sent) else {
                continue;
            };
            if !Rack::sent_after(rx, re, sent, self.segs[idx].end()) {
                break;
            }
            let waited = now.saturating_since(sent);
            debug_assert!(waited < limit, "sent in order: none after `k` is lost");
            wait = wait.max(limit - waited);
        }
        wait
    }
}
