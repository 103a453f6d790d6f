//! Sending and pacing, as Linux's `tcp_output.c`: what may be sent next
//! (retransmissions first, then new data within cwnd, rwnd and TCP small
//! queues), the pacing clock, and the segment put on the host's NIC.

use super::*;

impl Sender {
    /// Pacing rate in bit/s, if the sender paces.
    pub(super) fn pacing_rate_bps(&self) -> Option<u64> {
        let cap = self.cfg.max_rate_bps;
        if self.caps.wants_pacing && self.tp.pacing_rate_bps > 0 {
            Some(if cap > 0 {
                self.tp.pacing_rate_bps.min(cap)
            } else {
                self.tp.pacing_rate_bps
            })
        } else if cap > 0 {
            Some(cap)
        } else {
            None
        }
    }

    /// TCP small queues hold the sender: its NIC queue holds at least
    /// [`Self::tsq_limit`]. The limit is never below two packets, so below
    /// that the answer is no without computing it (a rate division, in
    /// 128 bits when cwnd is huge): on a path whose NIC is not the
    /// bottleneck the queue holds a packet or none at nearly every send.
    ///
    /// `nic ≥ min(max(per_ms, two), cap)` is `nic ≥ cap`, or `nic ≥ two`
    /// and `nic ≥ per_ms`; the last is asked without dividing
    /// ([`tsq_window_reached`]). Equal to `nic_bytes >= tsq_limit()`
    /// (`tests::tsq_window::full_is_the_limit_reached`).
    #[inline]
    pub(super) fn tsq_full(&self) -> bool {
        let nic = self.nic_bytes;
        let two = 2 * (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        if nic < two {
            return false;
        }
        if nic >= self.cfg.tsq_bytes.max(two) {
            return true;
        }
        match self.pacing_rate_bps() {
            Some(rate_bps) => nic >= rate_bps / 8 / 1000,
            None => {
                let pct = if self.tp.in_slow_start() { 200 } else { 120 };
                tsq_window_reached(nic, self.tp.snd_cwnd, self.cfg.mss_bytes, pct, self.tp.srtt)
            }
        }
    }

    /// Linux TCP small queues: at most ~1 ms of the sending rate (at least
    /// two packets) waits in the NIC queue, capped by `tsq_bytes`. The
    /// sender asks [`Self::tsq_full`] instead; this is its definition.
    #[cfg(test)]
    pub(super) fn tsq_limit(&self) -> u64 {
        let two = 2 * (self.cfg.mss_bytes + self.cfg.header_bytes) as u64;
        let per_ms = match self.pacing_rate_bps() {
            Some(rate_bps) => rate_bps / 8 / 1000,
            None => {
                // Linux tcp_update_pacing_rate: 200 % of cwnd/srtt in slow start, 120 % after.
                let pct = if self.tp.in_slow_start() { 200 } else { 120 };
                tsq_window_bytes_per_ms(self.tp.snd_cwnd, self.cfg.mss_bytes, pct, self.tp.srtt)
            }
        };
        per_ms.max(two).min(self.cfg.tsq_bytes.max(two))
    }

    /// The world tells the sender one of its packets was dropped before
    /// leaving the host (it no longer occupies the NIC queue).
    pub fn on_nic_drop(&mut self, now: Time, size: u32) {
        self.nic_bytes = self.nic_bytes.saturating_sub(size as u64);
        self.check_app_limited(now);
    }

    /// The world tells the sender one of its packets left the NIC queue.
    pub fn on_nic_tx(&mut self, now: Time, size: u32, out: &mut Out) {
        if self.on_nic_left(now, size) {
            self.try_send(now, out);
        }
    }

    /// [`Self::on_nic_tx`] without the sending: one of the sender's
    /// packets left the NIC queue at `now`. True when TCP small queues
    /// held the sender: it is released, and the world resumes it
    /// ([`Self::try_send`]) at that instant (`world/tsq_wake.rs`).
    #[inline]
    pub fn on_nic_left(&mut self, now: Time, size: u32) -> bool {
        self.nic_bytes = self.nic_bytes.saturating_sub(size as u64);
        self.check_app_limited(now);
        std::mem::replace(&mut self.tsq_throttled, false)
    }

    /// Application bytes not yet sent (Linux `write_seq - snd_nxt`): the
    /// rest of a byte-limited transfer, nothing once the application has
    /// stopped, and "always more" for an unlimited bulk source.
    pub(super) fn app_bytes_left(&self, now: Time) -> u64 {
        if self.stop.is_some_and(|s| now >= s) {
            return 0;
        }
        match self.app_end {
            Some(end) => end.saturating_sub(self.tp.snd_nxt),
            None => u64::MAX,
        }
    }

    /// Linux `tcp_rate_check_app_limited`: the flow is application-limited
    /// when the application has less than one MSS left to send, nothing of
    /// it waits in the host's NIC queue, the window is not full and every
    /// lost segment has been retransmitted. Then the rate samples of what is
    /// sent until the data now in flight is delivered are marked
    /// app-limited. A full receive window or congestion window is not an
    /// application limit (BBR must not discard those samples).
    ///
    /// Linux runs this check on the application's write path. dumbbell's
    /// applications are sources whose writes are not modelled, so it runs
    /// where such a write would find the application dry: when the sender
    /// runs out of application data, and when its NIC queue drains.
    pub(super) fn check_app_limited(&mut self, now: Time) {
        if self.phase == Phase::Established
            && self.app_bytes_left(now) < self.cfg.mss_bytes as u64
            && self.nic_bytes == 0
            && self.tp.in_flight() < self.tp.snd_cwnd
            && self.tp.lost_out <= self.tp.retrans_out
        {
            self.tp.app_limited = (self.tp.delivered + self.tp.in_flight() as u64).max(1);
        }
    }

    pub(super) fn next_retransmit(&mut self) -> Option<usize> {
        let end = self.lost_frontier.min(self.segs.len());
        while self.retx_hint < end {
            let b = self.segs[self.retx_hint].bits;
            if b & LOST != 0 && b & (RETRANS | SACKED) == 0 {
                return Some(self.retx_hint);
            }
            self.retx_hint += 1;
        }
        None
    }

    pub(super) fn new_data_len(&self, now: Time) -> Option<u32> {
        if self.stop.is_some_and(|s| now >= s) {
            return None;
        }
        let mss = self.cfg.mss_bytes as u64;
        let len = match self.app_end {
            Some(end) if self.tp.snd_nxt >= end => return None,
            Some(end) => (end - self.tp.snd_nxt).min(mss),
            None => mss,
        };
        // Receiver window (RFC 9293 §3.8.6.2.1): do not send beyond snd_una + rwnd.
        if self.tp.snd_nxt + len > self.tp.snd_una + self.rwnd {
            return None;
        }
        // Send buffer (Linux `sk_sndbuf`): the application cannot queue
        // more than it holds, unacknowledged data included.
        let sndbuf = self.cfg.sndbuf_bytes;
        if sndbuf > 0 && self.tp.snd_nxt + len > self.tp.snd_una + sndbuf {
            return None;
        }
        Some(len as u32)
    }

    /// Sends what cwnd, pacing, TSQ and the receiver window allow:
    /// retransmissions of lost segments first, then new data.
    pub fn try_send(&mut self, now: Time, out: &mut Out) {
        self.send(now, out, true);
    }

    /// The transmission loop; `retransmit`: lost segments go first (false:
    /// new data only, F-RTO's step 2b).
    pub(super) fn send(&mut self, now: Time, out: &mut Out, retransmit: bool) {
        if self.phase != Phase::Established {
            return;
        }
        let mut cwnd_limited = false;
        let mut sent_new = false;
        loop {
            if self.pacing_rate_bps().is_some() && now < self.tp.wstamp {
                if let Some(at) = self.pacing_timer.arm(self.tp.wstamp) {
                    out.timers.push((at, TimerKind::Pacing));
                }
                break;
            }
            if self.cfg.tsq_bytes > 0 && self.tsq_full() {
                out.tsq_held |= !self.tsq_throttled;
                self.tsq_throttled = true;
                break;
            }
            if self.tp.in_flight() >= self.tp.snd_cwnd {
                cwnd_limited = true;
                break;
            }
            if self.tso_bursts() {
                // One skb of several segments (`tso_send.rs`).
                match self.send_skb(now, out, retransmit) {
                    tso_send::Skb::Retransmit => continue,
                    tso_send::Skb::New { last } => {
                        sent_new = true;
                        if last {
                            break;
                        }
                        continue;
                    }
                    tso_send::Skb::Nothing => break,
                    tso_send::Skb::Deferred { cwnd_limited: c } => {
                        cwnd_limited = c;
                        break;
                    }
                }
            }
            if retransmit {
                if let Some(i) = self.next_retransmit() {
                    self.event_data_sent();
                    self.retransmit(now, i, out);
                    continue;
                }
            }
            match self.new_data_len(now) {
                Some(len) => {
                    self.event_data_sent();
                    self.push_new_segment(now, len, out);
                    sent_new = true;
                }
                None => {
                    // Blocked by the receive window or out of application
                    // data; only the latter may mark the flow app-limited.
                    self.check_app_limited(now);
                    break;
                }
            }
        }
        // Linux tcp_cwnd_validate.
        if self.tp.snd_una >= self.cwnd_usage_seq
            || cwnd_limited
            || (!self.cwnd_limited_raw && self.tp.packets_out > self.tp.max_packets_out)
        {
            self.cwnd_limited_raw = cwnd_limited;
            self.tp.max_packets_out = self.tp.packets_out;
            self.cwnd_usage_seq = self.tp.snd_nxt;
        }
        // Linux tcp_write_xmit: one loss probe per tail episode. New data
        // sent while a probe was pending rearmed the RTO first
        // (tcp_event_new_data_sent); the probe replaces it if it may.
        if sent_new && !self.schedule_loss_probe(now, false) && self.xmit_mode == XmitTimer::Probe {
            self.rearm_rto(now);
        }
        self.flush_timer(out);
    }

    /// A new segment of `len` bytes at `snd_nxt`, sent.
    pub(super) fn push_new_segment(&mut self, now: Time, len: u32, out: &mut Out) {
        let prior_packets = self.tp.packets_out;
        if prior_packets == 0 {
            // Linux tcp_rate_skb_sent: a new flight starts the clocks.
            self.first_tx_time = now;
            self.tp.delivered_mstamp = now;
        }
        let seq = self.tp.snd_nxt;
        self.segs.push_back(Seg {
            seq,
            len,
            bits: 0,
            sent: now,
            tx: TxSnap::default(),
        });
        // The slot a later segment takes, freed an RTT ago (a hint).
        crate::net::ring_ahead::prefetch_back(&self.segs, SEG_AHEAD);
        self.tp.snd_nxt += len as u64;
        self.tp.packets_out += 1;
        let i = self.segs.len() - 1;
        self.transmit(now, i, false, out);
        // Linux tcp_event_new_data_sent: the RTO starts with the first
        // segment out. (It also replaces a pending probe; `send` does that
        // once for the whole burst, then schedules the probe again.)
        if prior_packets == 0 {
            self.rearm_rto(now);
        }
    }

    /// A lost segment sent again (Linux `tcp_retransmit_skb`), counted for
    /// undo: the episode's first retransmission stamps `retrans_stamp`.
    pub(super) fn retransmit(&mut self, now: Time, i: usize, out: &mut Out) {
        self.transmit(now, i, true, out);
        self.retrans_stamp.get_or_insert(ts_ms(now));
        self.undo_retrans = self.undo_retrans.max(0) + 1;
        // Linux tcp_xmit_retransmit_queue: resending the head restarts the
        // RTO, unless RACK's timer is pending.
        if i == 0 && self.xmit_mode != XmitTimer::Reo {
            self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        }
    }

    /// Linux `tcp_event_data_sent`: a data segment (new or retransmitted)
    /// about to leave with nothing in flight raises `cwnd_event(TxStart)`,
    /// before `lsndtime` moves, so the control sees how long sending paused.
    pub(super) fn event_data_sent(&mut self) {
        if self.tp.in_flight() == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
    }

    /// Advances the earliest departure time `tp.wstamp` after a segment of
    /// `payload` bytes (`wire` bytes with headers) left at `now`.
    ///
    /// The control's pacing follows Linux's `tcp_update_skb_after_send`
    /// (internal, earliest-departure-time pacing): the gap is the payload
    /// (`skb->len`) at `tp.pacing_rate_bps`; the first 10 data segments of
    /// the connection are not paced; and when the segment left later than
    /// its slot (the sender was held by cwnd or TSQ), up to half the gap is
    /// forgiven (Linux's "credit" for OS jitter). `max_rate_bps`, a NIC or
    /// bus limit, spaces whole wire packets. The larger gap wins.
    pub(super) fn schedule_next_departure(&mut self, now: Time, payload: u32, wire: u32) {
        let cap = self.cfg.max_rate_bps;
        let cc_rate = if self.caps.wants_pacing {
            self.tp.pacing_rate_bps
        } else {
            0
        };
        if cap == 0 && cc_rate == 0 {
            return;
        }
        let prior = self.tp.wstamp;
        let start = prior.max(now);
        let mut gap = Dur::ZERO;
        if cc_rate > 0 && self.stats.data_pkts_sent >= 10 {
            let len = Dur::serialization(payload as u64, cc_rate);
            let credit = start.since(prior);
            gap = len.saturating_sub(len.div(2).min(credit));
        }
        if cap > 0 {
            gap = gap.max(Dur::serialization(wire as u64, cap));
        }
        self.tp.wstamp = start + gap;
    }

    pub(super) fn transmit(&mut self, now: Time, i: usize, retrans: bool, out: &mut Out) {
        let snap = TxSnap {
            delivered: self.tp.delivered,
            delivered_ce: self.tp.delivered_ce,
            delivered_time: self.tp.delivered_mstamp,
            first_tx: self.first_tx_time,
            app_limited: self.tp.app_limited != 0,
            lost: self.tp.lost,
            // A new segment is already in `packets_out`; a retransmission
            // joins `retrans_out` below.
            in_flight: self.tp.in_flight() + retrans as u32,
        };
        let seg = &mut self.segs[i];
        seg.sent = now;
        seg.tx = snap;
        seg.bits &= !RATE_DONE;
        if retrans {
            seg.bits |= RETRANS | EVER_RETRANS;
        }
        let (seq, len) = (seg.seq, seg.len);
        let mut f = flags::ACK;
        let mut ecn = Ecn::NotEct;
        if self.tp.ecn_ok {
            // RFC 3168 §6.1.5: retransmissions are not ECT; DCTCP-style
            // controls mark everything ECT (Linux tcp_ecn_send).
            if !retrans || self.caps.needs_ecn {
                // L4S controls send the L4S identifier (RFC 9331 §4.1).
                ecn = if self.caps.l4s { Ecn::Ect1 } else { Ecn::Ect0 };
            }
            if !retrans && self.queue_cwr {
                self.queue_cwr = false;
                f |= flags::CWR;
            }
        }
        if !self.open_stream && self.app_end == Some(seq + len as u64) {
            f |= flags::FIN;
        }
        // Written whole, in 16-byte stores (`tcp/out_whole.rs`): a field
        // stored on its own would make `World::flush`'s 16-byte loads of
        // the packet wait for it (store forwarding fails on a load wider
        // than the store).
        let ts_val = if self.cfg.timestamps { ts_ms(now) } else { 0 };
        out.push_whole(Packet {
            retransmit: retrans,
            ts_val,
            ..self.packet(now, f, seq, len, ecn)
        });
        let size = len + self.cfg.header_bytes;
        if retrans {
            self.tp.retrans_out += 1;
            self.stats.retransmits += 1;
            self.retx_queue.push_back((seq, now));
        }
        self.tp.lsndtime = now;
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.prr_out += 1;
        }
        self.stats.bytes_sent += len as u64;
        self.stats.data_pkts_sent += 1;
        self.nic_bytes += size as u64;
        self.schedule_next_departure(now, len, size);
        if !self.rto_timer.is_armed() {
            self.arm_xmit(XmitTimer::Rto, now + self.rtt.rto());
        }
    }
}
