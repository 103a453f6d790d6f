//! The size of the skbs a Linux sender with TSO/GSO hands its NIC
//! (`tcp_tso_autosize` and `tcp_tso_segs`, `net/ipv4/tcp_output.c`), read
//! by a netem stage that counts skbs (`net::netem_gso`: the generic rule)
//! and, with `TcpConfig::gso_max_bytes` set, by the sender's own skbs
//! (`tso_send.rs`: the control's rule first, `tcp_tso_segs`); otherwise
//! the sender sends segment by segment.

use super::*;

/// Linux's `tcp_min_tso_segs` default.
pub const MIN_TSO_SEGS: u32 = 2;

impl Sender {
    /// Segments in the skb this sender would build now, `gso_max_bytes`
    /// the largest, as Linux's `tcp_tso_segs`: the control's own size when
    /// it has one ([`CongestionControl::tso_segs`], Linux's `tso_segs`
    /// hook), else [`Self::tso_autosize_segs`] above the control's floor
    /// ([`CongestionControl::min_tso_segs`]); at least one segment, at most
    /// the largest skb's. The sender's own skbs (`tso_send.rs`).
    pub fn tso_segs(&self, gso_max_bytes: u32) -> u32 {
        let rate = self.autosize_rate_bytes_per_s();
        if let Some(segs) = self.cc.tso_segs(&self.tp, rate, gso_max_bytes) {
            return segs.min(gso_max_bytes / self.cfg.mss_bytes.max(1)).max(1);
        }
        let min_tso = self.cc.min_tso_segs(&self.tp, rate).unwrap_or(MIN_TSO_SEGS);
        self.autosize_with_floor(rate, gso_max_bytes, min_tso)
    }

    /// Linux's generic autosize of the skb this sender would build now,
    /// `gso_max_bytes` the largest, whatever the control (the netem stage
    /// that counts skbs, `net::netem_gso`): see [`tso_autosize_segs`].
    pub fn tso_autosize_segs(&self, gso_max_bytes: u32) -> u32 {
        let rate = self.autosize_rate_bytes_per_s();
        self.autosize_with_floor(rate, gso_max_bytes, MIN_TSO_SEGS)
    }

    fn autosize_with_floor(&self, rate_bytes_per_s: u64, gso_max_bytes: u32, min_tso: u32) -> u32 {
        let tp = &self.tp;
        let min_rtt_us = (tp.min_rtt != Dur::MAX).then(|| tp.min_rtt.us());
        tso_autosize_segs(
            rate_bytes_per_s,
            min_rtt_us,
            self.cfg.mss_bytes,
            gso_max_bytes,
            min_tso,
        )
    }

    /// The pacing rate the autosize reads, in bytes/s: the control's when
    /// it paces, else `tcp_update_pacing_rate`'s (200 % of mss·cwnd/srtt
    /// while cwnd < ssthresh/2, 120 % after; before the first RTT sample no
    /// rate, as Linux's is then the initial one of 10 packets per RTT's
    /// worth, and the RTT bonus fills the skb anyway).
    fn autosize_rate_bytes_per_s(&self) -> u64 {
        let tp = &self.tp;
        let mss = self.cfg.mss_bytes;
        match self.pacing_rate_bps() {
            Some(bps) => bps / 8,
            None if !tp.srtt.is_zero() => {
                let pct: u64 = if tp.snd_cwnd < tp.snd_ssthresh / 2 {
                    200
                } else {
                    120
                };
                let window = mss as u128 * tp.snd_cwnd.max(tp.packets_out) as u128;
                (window * pct as u128 * 10_000_000_000 / tp.srtt.ps() as u128).min(u64::MAX as u128)
                    as u64
            }
            None => 0,
        }
    }
}

/// Linux's `tcp_tso_autosize` then `tcp_tso_segs`' cap: the segments of
/// `mss_bytes` in one skb for a sender pacing at `pacing_bytes_per_s` whose
/// minimum RTT is `min_rtt_us` (`None`: not measured yet, no RTT bonus),
/// with `gso_max_bytes` the largest skb and `min_tso_segs` the floor
/// ([`MIN_TSO_SEGS`], or a control's `min_tso_segs` hook).
pub fn tso_autosize_segs(
    pacing_bytes_per_s: u64,
    min_rtt_us: Option<u64>,
    mss_bytes: u32,
    gso_max_bytes: u32,
    min_tso_segs: u32,
) -> u32 {
    // sk_pacing_shift 10: about 1 ms of the pacing rate.
    let mut bytes = pacing_bytes_per_s >> 10;
    if let Some(us) = min_rtt_us {
        // tcp_tso_rtt_log 9: 512 µs steps.
        let r = us >> 9;
        if r < 32 {
            bytes += (gso_max_bytes as u64) >> r;
        }
    }
    let bytes = bytes.min(gso_max_bytes as u64);
    ((bytes / mss_bytes.max(1) as u64) as u32).max(min_tso_segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (pacing bytes/s, min RTT µs, segments) for 1448-byte segments and
    /// 64 KB skbs, the generic floor of two.
    fn check(cases: &[(u64, Option<u64>, u32)]) {
        for &(rate, rtt_us, segs) in cases {
            let got = tso_autosize_segs(rate, rtt_us, 1448, 65_536, MIN_TSO_SEGS);
            assert_eq!(got, segs, "{rate} B/s, min RTT {rtt_us:?} µs");
        }
    }

    #[test]
    fn autosize_is_the_cap_below_512_us_of_min_rtt() {
        check(&[
            // 1 Gb/s = 125 MB/s: 122 KB per 1024th of a second, capped at 64 KB.
            (125_000_000, Some(200), 45),
            // Slow and short: the RTT bonus alone fills the skb.
            (1_000, Some(200), 45),
        ]);
    }

    #[test]
    fn autosize_follows_the_pacing_rate_on_long_paths() {
        check(&[
            // 24 Mb/s = 3 MB/s: 2929 bytes per 1024th of a second, 2
            // segments; min RTT 500 ms: no bonus (r = 976 ≥ 32).
            (3_000_000, Some(500_000), 2),
            // 240 Mb/s: 29 KB, 20 segments.
            (30_000_000, Some(50_000), 20),
            // Never below two segments.
            (0, None, MIN_TSO_SEGS),
            // 1 ms of RTT: r = 1, half the cap added.
            (0, Some(1000), 32_768 / 1448),
        ]);
    }
}
