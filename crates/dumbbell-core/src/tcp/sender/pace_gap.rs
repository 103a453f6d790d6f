//! The pacing gap of the last segment sent, kept with what it was computed
//! from: a paced sender's segments are nearly all full-sized and its rate
//! changes only when the control's estimate does (BBR sets it on every ACK,
//! to the same value between changes of its max filter or its gain), so
//! the serialization time of the payload at the rate, a 64-bit division,
//! is nearly always the previous one.

use crate::sim::Dur;

/// `Dur::serialization(payload, rate_bps)` for the last pair asked.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PaceGap {
    rate_bps: u64,
    payload: u64,
    gap: Dur,
}

impl PaceGap {
    /// `Dur::serialization(payload, rate_bps)`, the same value: computed
    /// only when the pair differs from the last one (a zero rate, which
    /// the sender never asks for, is the empty memo).
    #[inline]
    pub(super) fn serialization(&mut self, payload: u64, rate_bps: u64) -> Dur {
        if rate_bps != self.rate_bps || payload != self.payload {
            *self = PaceGap {
                rate_bps,
                payload,
                gap: Dur::serialization(payload, rate_bps),
            };
        }
        self.gap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_division_whatever_the_order_of_pairs() {
        let mut m = PaceGap::default();
        let pairs = [
            (1448, 9_900_000_000),
            (1448, 9_900_000_000),
            (1448, 12_375_000_000),
            (600, 12_375_000_000),
            (600, 12_375_000_000),
            (1448, 9_900_000_000),
            (1, 1),
            (65_160, 7),
        ];
        for (payload, rate) in pairs {
            assert_eq!(
                m.serialization(payload, rate),
                Dur::serialization(payload, rate),
                "{payload} bytes at {rate} bit/s"
            );
        }
    }
}
