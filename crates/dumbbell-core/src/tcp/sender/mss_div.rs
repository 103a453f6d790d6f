//! Division by the MSS without a division instruction. The scoreboard's
//! slot of a sequence number is `(seq − snd_una) / mss`, asked a few times
//! per ACK on a lossy path (each newly SACKed range, RACK's retransmission
//! checks and the end of its walk), and a 64-bit `div` by a value known
//! only at run time takes tens of cycles. The MSS is fixed for the
//! connection, so its reciprocal is computed once: for a dividend below
//! 2³² and any divisor below 2³², `⌊n / d⌋ = ⌊n · ⌈2⁶⁴ / d⌉ / 2⁶⁴⌋` exactly
//! (Lemire, Kaser and Kurz, "Faster remainder by direct computation:
//! applications to compilers and software libraries", Software: Practice
//! and Experience 49(6), 2019: F = 64 ≥ N + log₂ d with N = 32). Larger
//! dividends (a window above 4 GB) divide as before.

/// `n / d` and `⌈n / d⌉` for a fixed `d`, the same values as the division.
#[derive(Clone, Copy, Debug)]
pub(super) struct MssDiv {
    d: u64,
    /// `⌈2⁶⁴ / d⌉`; 0 when it does not fit (`d` = 1): divide then.
    m: u64,
}

impl MssDiv {
    pub(super) fn new(d: u32) -> Self {
        let d = d.max(1) as u64;
        let m = if d == 1 {
            0
        } else {
            u64::MAX / d + 1 // ⌈2⁶⁴ / d⌉ for d > 1
        };
        MssDiv { d, m }
    }

    /// `n / d`.
    #[inline(always)]
    pub(super) fn div(&self, n: u64) -> u64 {
        if n >> 32 == 0 && self.m != 0 {
            ((n as u128 * self.m as u128) >> 64) as u64
        } else {
            n / self.d
        }
    }

    /// `⌈n / d⌉`.
    #[inline(always)]
    pub(super) fn div_ceil(&self, n: u64) -> u64 {
        let s = n.wrapping_add(self.d - 1);
        if s >> 32 == 0 && s >= n && self.m != 0 {
            ((s as u128 * self.m as u128) >> 64) as u64
        } else {
            n.div_ceil(self.d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every divisor kind (1, even, odd, a power of two, near 2³²) against
    /// the division, at dividends around multiples of the divisor, at the
    /// 2³² boundary and at random.
    #[test]
    fn equals_the_division() {
        let ds: [u32; 12] = [
            1,
            2,
            3,
            7,
            536,
            1448,
            1460,
            4096,
            8948,
            65_535,
            (1 << 31) + 1,
            u32::MAX,
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for &d in &ds {
            let m = MssDiv::new(d);
            let d64 = d as u64;
            let mut ns = vec![0u64, 1, d64 - 1, d64, d64 + 1, u64::MAX, u64::MAX - 1];
            for k in [
                1u64,
                2,
                3,
                1000,
                2_965_000,
                (1 << 32) / d64,
                (1 << 32) / d64 + 1,
            ] {
                let b = k.saturating_mul(d64);
                ns.extend([b.saturating_sub(1), b, b.saturating_add(1)]);
            }
            ns.extend([(1 << 32) - 2, (1 << 32) - 1, 1 << 32, (1 << 32) + 1]);
            for _ in 0..20_000 {
                let r = next();
                ns.push(r >> 32);
                ns.push(r >> (r & 63));
            }
            for n in ns {
                assert_eq!(m.div(n), n / d64, "{n} / {d}");
                assert_eq!(m.div_ceil(n), n.div_ceil(d64), "ceil {n} / {d}");
            }
        }
    }
}
