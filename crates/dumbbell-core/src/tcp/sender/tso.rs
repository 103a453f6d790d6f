//! The size of the skbs a Linux sender with TSO/GSO hands its NIC
//! (`tcp_tso_autosize` and `tcp_tso_segs`, `net/ipv4/tcp_output.c`), read
//! by a netem stage that counts skbs (`net::netem_gso`) and, with
//! `TcpConfig::gso_max_bytes` set, by the sender's own skbs
//! (`tso_send.rs`); otherwise the sender sends segment by segment.

use super::*;

/// Linux's `tcp_min_tso_segs` default.
pub const MIN_TSO_SEGS: u32 = 2;

impl Sender {
    /// Segments in the skb this sender would build now, `gso_max_bytes`
    /// the largest: Linux's autosize from its pacing rate, the control's
    /// when it paces, else `tcp_update_pacing_rate`'s (200 % of
    /// mss·cwnd/srtt while cwnd < ssthresh/2, 120 % after; before the first
    /// RTT sample no rate, as Linux's is then the initial one of 10 packets
    /// per RTT's worth, and the RTT bonus fills the skb anyway).
    pub fn tso_autosize_segs(&self, gso_max_bytes: u32) -> u32 {
        let tp = &self.tp;
        let mss = self.cfg.mss_bytes;
        let rate_bytes_per_s = match self.pacing_rate_bps() {
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
        };
        let min_rtt_us = (tp.min_rtt != Dur::MAX).then(|| tp.min_rtt.us());
        tso_autosize_segs(rate_bytes_per_s, min_rtt_us, mss, gso_max_bytes)
    }
}

/// Linux's `tcp_tso_autosize` then `tcp_tso_segs`' cap: the segments of
/// `mss_bytes` in one skb for a sender pacing at `pacing_bytes_per_s` whose
/// minimum RTT is `min_rtt_us` (`None`: not measured yet, no RTT bonus),
/// with `gso_max_bytes` the largest skb.
pub fn tso_autosize_segs(
    pacing_bytes_per_s: u64,
    min_rtt_us: Option<u64>,
    mss_bytes: u32,
    gso_max_bytes: u32,
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
    ((bytes / mss_bytes.max(1) as u64) as u32).max(MIN_TSO_SEGS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autosize_is_the_cap_below_512_us_of_min_rtt() {
        // 1 Gb/s = 125 MB/s: 122 KB per 1024th of a second, capped at 64 KB.
        assert_eq!(tso_autosize_segs(125_000_000, Some(200), 1448, 65_536), 45);
        // Slow and short: the RTT bonus alone fills the skb.
        assert_eq!(tso_autosize_segs(1_000, Some(200), 1448, 65_536), 45);
    }

    #[test]
    fn autosize_follows_the_pacing_rate_on_long_paths() {
        // 24 Mb/s = 3 MB/s: 2929 bytes per 1024th of a second, 2 segments;
        // min RTT 500 ms: no bonus (r = 976 ≥ 32).
        assert_eq!(tso_autosize_segs(3_000_000, Some(500_000), 1448, 65_536), 2);
        // 240 Mb/s: 29 KB, 20 segments.
        assert_eq!(
            tso_autosize_segs(30_000_000, Some(50_000), 1448, 65_536),
            20
        );
        // Never below two segments.
        assert_eq!(tso_autosize_segs(0, None, 1448, 65_536), MIN_TSO_SEGS);
        // 1 ms of RTT: r = 1, half the cap added.
        assert_eq!(
            tso_autosize_segs(0, Some(1000), 1448, 65_536),
            32_768 / 1448
        );
    }
}
